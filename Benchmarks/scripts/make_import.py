#!/usr/bin/env python3
"""Writes an import CSV of random pins: make_import.py FILE LINES (deterministic)."""
import random
import sys

path, lines = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
with open(path, "w") as f:
    f.write("key,width,height,orientation,date,url,title\n")
    for i in range(lines):
        f.write(f"pin-{i:08},{r.randint(200, 4000)},{r.randint(200, 4000)},1,"
                f"20{r.randint(10, 25)}-{r.randint(1, 12):02}-{r.randint(1, 28):02}T{r.randint(0, 23):02}:00:00Z,"
                f"https://example.com/{i},Pin {i}\n")
