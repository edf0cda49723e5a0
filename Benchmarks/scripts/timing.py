#!/usr/bin/env python3
"""Median wall time of shell commands: timing.py RUNS 'NAME=COMMAND' ... [--setup 'COMMAND'].

Each command runs RUNS times (after one untimed warm-up run); --setup runs before every timed
run of the commands after it, untimed. Prints: name, median seconds, min, max.
"""
import statistics
import subprocess
import sys
import time


def main():
    runs = int(sys.argv[1])
    setup = None
    for arg in sys.argv[2:]:
        if arg.startswith("--setup="):
            setup = arg[len("--setup="):] or None
            continue
        name, command = arg.split("=", 1)
        times = []
        for attempt in range(runs + 1):
            if setup:
                subprocess.run(setup, shell=True, check=True, stdout=subprocess.DEVNULL)
            start = time.perf_counter()
            subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if attempt > 0:
                times.append(time.perf_counter() - start)
        print(f"{name}\t{statistics.median(times):.4f}\t{min(times):.4f}\t{max(times):.4f}", flush=True)


if __name__ == "__main__":
    main()
