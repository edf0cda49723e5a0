#!/usr/bin/env python3
"""Writes COUNT files of each format of issue #15: make_formats.py FOLDER COUNT (deterministic).

WebP (a quarter with an EXIF orientation of 6 or 8, a tenth animated), GIF (a tenth animated)
and AVIF from Pillow; HEIC from pillow-heif. Random sizes from 16 to 640 pixels a side (the
probe reads headers: the pixel count does not matter to it, and small files keep the corpus
quick to write). Files are named .img: the content decides the format.
"""
import random
import sys
from pathlib import Path

from PIL import Image
import pillow_heif

pillow_heif.register_heif_opener()
folder, count = Path(sys.argv[1]), int(sys.argv[2])
r = random.Random(15)


def image(w, h):
    img = Image.new("RGB", (w, h), (r.randrange(256), r.randrange(256), r.randrange(256)))
    img.paste((r.randrange(256), 40, 90), (0, 0, w // 2, h // 2))
    return img


for kind in ("webp", "gif", "heic", "avif"):
    out = folder / kind
    out.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        w, h = r.randint(16, 640), r.randint(16, 640)
        path = out / f"{i:05}.img"
        img = image(w, h)
        if kind == "webp":
            if i % 10 == 0:
                img.save(path, "WEBP", save_all=True, append_images=[img.rotate(180)], duration=100)
            elif i % 4 == 0:
                exif = Image.Exif()
                exif[0x0112] = 6 if i % 8 == 0 else 8
                img.save(path, "WEBP", quality=70, exif=exif.tobytes())
            else:
                img.save(path, "WEBP", quality=70)
        elif kind == "gif":
            if i % 10 == 0:
                img.convert("P").save(path, "GIF", save_all=True, append_images=[img.rotate(180).convert("P")], duration=100)
            else:
                img.convert("P").save(path, "GIF")
        elif kind == "heic":
            img.save(path, "HEIF", quality=50)
        else:
            img.save(path, "AVIF", quality=50, speed=10)
    print(f"{kind}: {count} files", file=sys.stderr)
