#!/usr/bin/env python3
"""Writes the image fixtures the Thumbnailer tests read. Run once; the output is committed.

JPEGs come from Pillow (libjpeg underneath). PNGs come from the writer below, so that the
palette-with-tRNS, grayscale+alpha, 16-bit and interlaced variants are exactly what their names
say. Every file is decoded back with Pillow before it is kept. Needs: pip install pillow.

quadrants.*: an asymmetric image for the orientation tests: red top-left, green top-right,
blue bottom-left, yellow bottom-right, wider than tall (3:2).
"""
import struct
import zlib
from pathlib import Path

from PIL import Image

HERE = Path(__file__).parent
QUADRANTS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


def quadrant(x, y, w, h):
    return QUADRANTS[(2 if y >= h // 2 else 0) + (1 if x >= w // 2 else 0)]


def gradient(mode, size):
    w, h = size
    img = Image.new("RGB", size)
    img.putdata([((x * 255) // max(w - 1, 1), (y * 255) // max(h - 1, 1), 128) for y in range(h) for x in range(w)])
    return img.convert(mode)


def jpegs():
    q = Image.new("RGB", (600, 400))
    q.putdata([quadrant(x, y, 600, 400) for y in range(400) for x in range(600)])
    q.save(HERE / "quadrants.jpg", quality=95)
    gradient("RGB", (640, 480)).save(HERE / "baseline.jpg", quality=85)
    gradient("RGB", (640, 480)).save(HERE / "progressive.jpg", quality=85, progressive=True)
    gradient("L", (480, 640)).save(HERE / "grayscale.jpg", quality=85)
    gradient("CMYK", (320, 240)).save(HERE / "cmyk.jpg", quality=90)
    gradient("RGB", (640, 480)).save(HERE / "restart.jpg", quality=85, restart_marker_blocks=1)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(path, width, height, color_type, depth, pixel, interlaced=False, palette=None, trns=None):
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
    if trns is not None:
        out += chunk(b"tRNS", trns)
    out += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    path.write_bytes(out)


def pngs():
    png(HERE / "quadrants.png", 60, 40, 2, 8, lambda x, y: bytes(quadrant(x, y, 60, 40)))
    # Gradients across, bands down (rows repeat in bands of 20, so the files stay small).
    png(HERE / "rgb.png", 300, 200, 2, 8, lambda x, y: bytes((x * 255 // 299, y // 20 * 25, 90)))
    png(HERE / "interlaced.png", 300, 200, 2, 8, lambda x, y: bytes((x * 255 // 299, y // 20 * 25, 90)), interlaced=True)
    png(HERE / "rgb16.png", 300, 200, 2, 16, lambda x, y: struct.pack(">HHH", x * 65535 // 299, y // 20 * 6425, 23130))
    png(HERE / "gray.png", 200, 300, 0, 8, lambda x, y: bytes((y * 255 // 299,)))
    # Palette: index 0 fully transparent (tRNS), 1 red, 2 green, 3 blue; left quarter transparent.
    png(HERE / "palette.png", 320, 160, 3, 8, lambda x, y: bytes((0 if x < 80 else 1 + (x // 80 - 1),)),
        palette=bytes((0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)), trns=bytes((0,)))
    # Grey + alpha: grey level by band of rows, alpha by column (0 at the left, 255 at the right).
    png(HERE / "gray-alpha.png", 256, 128, 4, 8, lambda x, y: bytes((y // 16 * 32, x)))
    # RGBA, opaque everywhere: a thumbnail of it is a JPEG.
    png(HERE / "opaque-rgba.png", 100, 100, 6, 8, lambda x, y: bytes((200, 100, 50, 255)))
    # Past libpng's default limit of 1,000,000 pixels a side (the budget is on the area): dark
    # at one end, light at the other.
    png(HERE / "wide.png", 1_200_000, 2, 0, 8, lambda x, y: bytes((40 if x < 600_000 else 220,)))
    png(HERE / "tall.png", 2, 1_200_000, 0, 8, lambda x, y: bytes((40 if y < 600_000 else 220,)))


if __name__ == "__main__":
    jpegs()
    pngs()
    for path in sorted(HERE.glob("*.jpg")) + sorted(HERE.glob("*.png")):
        with Image.open(path) as img:
            img.load()
            print(f"{path.name}: {img.format} {img.mode} {img.size} {path.stat().st_size} bytes")
