#!/usr/bin/env python3
"""Writes the tiny image fixtures the ImageProbe tests read. Run once; the output is committed.

JPEGs come from Pillow (libjpeg underneath). PNGs come from the writer below, so that the
interlaced, palette, grayscale+alpha and 16-bit variants are exactly what their names say.
Every file is decoded back with Pillow before it is kept. Needs: pip install pillow.
"""
import struct
import zlib
from pathlib import Path

from PIL import Image

HERE = Path(__file__).parent


def gradient(mode, size):
    w, h = size
    img = Image.new("RGB", size)
    img.putdata([((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1), 128) for y in range(h) for x in range(w)])
    return img.convert(mode)


def jpegs():
    gradient("RGB", (24, 16)).save(HERE / "baseline.jpg", quality=80)
    gradient("RGB", (40, 30)).save(HERE / "progressive.jpg", quality=80, progressive=True)
    gradient("L", (20, 36)).save(HERE / "grayscale.jpg", quality=80)
    gradient("CMYK", (18, 12)).save(HERE / "cmyk.jpg", quality=80)
    gradient("RGB", (64, 48)).save(HERE / "restart.jpg", quality=80, restart_marker_blocks=1)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(path, width, height, color_type, depth, pixel, interlaced=False, palette=None):
    """pixel(x, y) returns the sample bytes of one pixel."""
    def rows(xs, ys):
        return b"".join(b"\x00" + b"".join(pixel(x, y) for x in xs) for y in ys)

    if interlaced:
        raw = b""
        for x0, y0, dx, dy in ADAM7:
            xs, ys = range(x0, width, dx), range(y0, height, dy)
            if len(xs) and len(ys):
                raw += rows(xs, ys)
    else:
        raw = rows(range(width), range(height))
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 1 if interlaced else 0))
    if palette is not None:
        out += chunk(b"PLTE", palette)
    out += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    path.write_bytes(out)


def pngs():
    png(HERE / "rgb.png", 30, 20, 2, 8, lambda x, y: bytes((x * 8, y * 12, 90)))
    png(HERE / "interlaced.png", 33, 17, 2, 8, lambda x, y: bytes((x * 7, y * 15, 60)), interlaced=True)
    png(HERE / "palette.png", 16, 9, 3, 8, lambda x, y: bytes(((x + y) % 4,)),
        palette=bytes((0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)))
    png(HERE / "gray-alpha.png", 12, 25, 4, 8, lambda x, y: bytes((x * 20, 255 - y * 10)))
    png(HERE / "rgb16.png", 10, 14, 2, 16, lambda x, y: struct.pack(">HHH", x * 6000, y * 4000, 1234))


if __name__ == "__main__":
    jpegs()
    pngs()
    for path in sorted(HERE.glob("*.jpg")) + sorted(HERE.glob("*.png")):
        with Image.open(path) as img:
            img.load()
            print(f"{path.name}: {img.format} {img.mode} {img.size} {path.stat().st_size} bytes")
