#!/usr/bin/env python3
"""Median wall time of shell commands: timing.py RUNS [--interleave] [--setup='COMMAND'] 'NAME=COMMAND' ...

Each command runs RUNS times (after one untimed warm-up run); --setup runs before every timed
run of the commands after it, untimed. With --interleave (before the commands), the commands
take turns, one run each per round, so a change in the machine's load hits them alike (for
comparing two builds). Prints: name, median seconds, min, max.
"""
import statistics
import subprocess
import sys
import time


def timed(command, setup):
    if setup:
        subprocess.run(setup, shell=True, check=True, stdout=subprocess.DEVNULL)
    start = time.perf_counter()
    subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    runs = int(sys.argv[1])
    setup = None
    interleave = False
    commands = []  # (name, command, setup)
    for arg in sys.argv[2:]:
        if arg.startswith("--setup="):
            setup = arg[len("--setup="):] or None
        elif arg == "--interleave":
            interleave = True
        elif "=" in arg and not arg.startswith("-"):
            name, command = arg.split("=", 1)
            commands.append((name, command, setup))
        else:
            sys.exit(f"timing.py: {arg!r} is neither NAME=COMMAND, --setup=COMMAND nor --interleave")
    times = {name: [] for name, _, _ in commands}
    if interleave:
        for attempt in range(runs + 1):
            for name, command, setup_command in commands:
                elapsed = timed(command, setup_command)
                if attempt > 0:
                    times[name].append(elapsed)
    else:
        for name, command, setup_command in commands:
            for attempt in range(runs + 1):
                elapsed = timed(command, setup_command)
                if attempt > 0:
                    times[name].append(elapsed)
    for name, _, _ in commands:
        t = times[name]
        print(f"{name}\t{statistics.median(t):.4f}\t{min(t):.4f}\t{max(t):.4f}", flush=True)


if __name__ == "__main__":
    main()
