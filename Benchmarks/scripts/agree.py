#!/usr/bin/env python3
"""Sizes ours against imagesize's: agree.py FILELIST PROBE_OUTPUT.

PROBE_OUTPUT is `catalog probe`'s lines (path, format, display WxH, ...). imagesize.get gives
the display size too (its exif_rotation=True). Prints how many agree and the first few that do
not, with Pillow's answer beside them.
"""
import sys

import imagesize
from PIL import Image
import pillow_heif

pillow_heif.register_heif_opener()
ours = {}
for line in open(sys.argv[2]):
    parts = line.rstrip("\n").split("\t")
    if len(parts) >= 3 and "x" in parts[2]:
        w, h = parts[2].split("x")
        ours[parts[0]] = (int(w), int(h))
paths = [p for p in open(sys.argv[1]).read().split("\n") if p]
different = []
for p in paths:
    theirs = tuple(imagesize.get(p))
    if ours.get(p) != theirs:
        different.append((p, ours.get(p), theirs))
print(f"sizes: {len(paths) - len(different)} of {len(paths)} agree with imagesize")
for p, a, b in different[:5]:
    with Image.open(p) as img:
        pillow = img.size
    print(f"  {p}: ours {a}, imagesize {b}, Pillow {pillow}")
