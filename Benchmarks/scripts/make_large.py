#!/usr/bin/env python3
"""Writes COUNT camera-sized JPEGs (4000 x 3000, 12 megapixels, quality 92) into DIR:
make_large.py DIR [COUNT]. Photo-like content: smooth gradients, shapes and grain, so that the
files are as large (3 to 6 MB) and as slow to decode as a camera's. Deterministic."""
import random
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

out = Path(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 24
out.mkdir(parents=True, exist_ok=True)
for i in range(count):
    rng = random.Random(i)
    w, h = 4000, 3000
    base = Image.merge("RGB", [Image.linear_gradient("L").rotate(rng.randint(0, 359)).resize((w, h)) for _ in range(3)])
    draw = ImageDraw.Draw(base)
    for _ in range(60):
        x, y, r = rng.randint(0, w), rng.randint(0, h), rng.randint(40, 600)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
    base = base.filter(ImageFilter.GaussianBlur(3))
    grain = Image.merge("RGB", [Image.effect_noise((w, h), 24) for _ in range(3)])
    Image.blend(base, grain, 0.18).save(out / f"large-{i:02d}.jpg", quality=92)
