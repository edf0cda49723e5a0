#!/usr/bin/env python3
"""Writes a benchmark corpus of small real JPEG and PNG files: make_corpus.py DIR [COUNT] [POOL].

Varied sizes (40 to 640 px wide) and aspect ratios (0.4 to 2.5); about 70% JPEG (a quarter of
them progressive), 30% PNG. Of the JPEGs, 20% carry an EXIF block with an orientation, a date
and a 20-60 KB thumbnail-sized gap, and 3% carry a 100-300 KB ICC profile. Deterministic: the
same COUNT gives the same files. Files go into 100 subfolders.

With POOL, only POOL images are encoded; file i is pool image i mod POOL followed by 8 bytes
of its own (decoders ignore bytes after a JPEG's EOI or a PNG's IEND): valid images with
distinct content, written fast enough for 100,000 files.
"""
import io
import os
import random
import struct
import sys

from PIL import Image


def exif_app1(rng, thumb):
    """A big-endian TIFF: IFD0 (Orientation, DateTime, Exif pointer), a gap, the Exif IFD."""
    date = f"{rng.randint(2005, 2025):04}:{rng.randint(1, 12):02}:{rng.randint(1, 28):02} 12:{rng.randint(0, 59):02}:00\0".encode()
    ifd0 = 8
    data = ifd0 + 2 + 3 * 12 + 4
    sub = data + len(date) + thumb
    tiff = b"MM\0*" + struct.pack(">I", ifd0) + struct.pack(">H", 3)
    tiff += struct.pack(">HHIHH", 0x0112, 3, 1, rng.choice([1, 1, 1, 3, 6, 8]), 0)
    tiff += struct.pack(">HHII", 0x0132, 2, len(date), data)
    tiff += struct.pack(">HHII", 0x8769, 4, 1, sub)
    tiff += struct.pack(">I", 0) + date + bytes(rng.getrandbits(8) for _ in range(64)) * (thumb // 64)
    tiff += b"\0" * (sub - len(tiff))
    tiff += struct.pack(">HHHII", 1, 0x9003, 2, len(date), sub + 18) + struct.pack(">I", 0) + date
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def main():
    root = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    pool = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    if pool:
        return replicate(root, count, pool)
    rng = random.Random(42)
    for d in range(100):
        os.makedirs(os.path.join(root, f"{d:02}"), exist_ok=True)
    icc_bytes = bytes(random.Random(7).getrandbits(8) for _ in range(300_000))
    for i in range(count):
        w = rng.randint(40, 640)
        h = max(8, int(w / rng.uniform(0.4, 2.5)))
        img = Image.new("RGB", (w, h), (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
        img.paste((rng.randint(0, 255), 90, 200), (0, 0, w // 2, h // 3))
        path = os.path.join(root, f"{i % 100:02}", f"img{i:06}")
        if rng.random() < 0.7:
            out = io.BytesIO()
            options = {"quality": 75, "progressive": rng.random() < 0.25}
            if rng.random() < 0.03:
                options["icc_profile"] = icc_bytes[: rng.randint(100_000, 300_000)]
            img.save(out, "JPEG", **options)
            data = out.getvalue()
            if rng.random() < 0.2:
                data = data[:2] + exif_app1(rng, rng.randint(20_000, 60_000)) + data[2:]
            with open(path + ".jpg", "wb") as f:
                f.write(data)
        else:
            img.save(path + ".png", "PNG", compress_level=1)


def replicate(root, count, pool):
    staging = root + ".pool"
    sys.argv = [sys.argv[0], staging, str(pool)]
    main()
    images = sorted(os.path.join(d, f) for d, _, fs in os.walk(staging) for f in fs)
    blobs = [(open(p, "rb").read(), os.path.splitext(p)[1]) for p in images]
    for d in range(100):
        os.makedirs(os.path.join(root, f"{d:02}"), exist_ok=True)
    for i in range(count):
        data, ext = blobs[i % len(blobs)]
        with open(os.path.join(root, f"{i % 100:02}", f"img{i:06}{ext}"), "wb") as f:
            f.write(data + struct.pack("<Q", i))


if __name__ == "__main__":
    main()
