#!/usr/bin/env python3
"""The cold-cache floor of a scan: cold_read.py FILELIST [READERS]

Opens each listed file, reads its first 16 KiB (as much as the probe reads of most images) and
closes it, READERS files at a time (threads: a read waiting for the disk releases the GIL).
Prints the wall time and files/s. Drop the page cache first for a cold figure.
"""
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def read_head(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return len(os.read(fd, 16384))
    finally:
        os.close(fd)


def main():
    paths = [p for p in open(sys.argv[1]).read().split("\n") if p]
    readers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    start = time.perf_counter()
    with ThreadPoolExecutor(readers) as pool:
        total = sum(pool.map(read_head, paths, chunksize=64))
    elapsed = time.perf_counter() - start
    print(f"bare-read-{readers}\t{elapsed:.3f} s\t{len(paths) / elapsed:.0f} files/s\t{total >> 20} MiB")


if __name__ == "__main__":
    main()
