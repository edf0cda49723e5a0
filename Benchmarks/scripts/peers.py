#!/usr/bin/env python3
"""Times python peers reading image sizes: peers.py FILELIST [RUNS].

FILELIST holds one path per line. For each peer (imagesize.get, Pillow's Image.open(p).size)
the files are split across one process per core; the pool is started and warmed before the
clock starts. Prints one line per peer: name, median files/s, runs.
"""
import multiprocessing as mp
import statistics
import sys
import time


def imagesize_chunk(paths):
    import imagesize
    total = 0
    for p in paths:
        w, h = imagesize.get(p)
        total += w > 0
    return total


def pillow_chunk(paths):
    from PIL import Image
    try:
        import pillow_heif  # HEIC (Pillow opens AVIF, WebP and GIF itself)
        pillow_heif.register_heif_opener()
    except ImportError:
        pass
    total = 0
    for p in paths:
        with Image.open(p) as img:
            w, h = img.size
        total += w > 0
    return total


def main():
    paths = open(sys.argv[1]).read().split("\n")
    paths = [p for p in paths if p]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    cores = mp.cpu_count()
    chunks = [paths[i::cores * 8] for i in range(cores * 8)]
    with mp.Pool(cores) as pool:
        for name, fn in (("imagesize", imagesize_chunk), ("pillow", pillow_chunk)):
            pool.map(fn, chunks)  # warm: imports, page cache
            rates = []
            for _ in range(runs):
                start = time.perf_counter()
                ok = sum(pool.map(fn, chunks))
                rates.append(len(paths) / (time.perf_counter() - start))
            print(f"{name}\t{statistics.median(rates):.0f}\t{ok}/{len(paths)}\t{runs}")


if __name__ == "__main__":
    main()
