#!/usr/bin/env python3
"""Watch latency: event_latency.py CATALOG WORKDIR ROUNDS.

Starts `catalog serve --scan WORKDIR/photos`, listens to /api/events, then ROUNDS times writes
a burst of files (1, then 100 copies) and measures from the last file closed to the first
generation event after it. Prints median and max per burst size.
"""
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

catalog, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
photos = os.path.join(work, "photos")
os.makedirs(photos)
fixture = open(os.path.join(os.path.dirname(__file__), "../../Tests/ImageProbeTests/Fixtures/baseline.jpg"), "rb").read()
server = subprocess.Popen([catalog, "serve", "--db", os.path.join(work, "c.sqlite"), "--port", "0", "--quiet", "--scan", photos],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
url = server.stdout.readline().strip().removeprefix("listening on http://").rstrip("/")
host, port = url.split(":")
stream = socket.create_connection((host, int(port)))
stream.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
buffer = b""


def next_generation(timeout=30):
    global buffer
    stream.settimeout(timeout)
    while True:
        marker = buffer.find(b"event: generation\n")
        if marker >= 0:
            end = buffer.find(b"\n\n", marker)
            if end >= 0:
                event, buffer = buffer[marker:end], buffer[end + 2:]
                return int(event.split(b"data: ")[1].split(b"\n")[0])
        buffer += stream.recv(4096)


next_generation()  # the one sent when the stream opens
serial = 0
for burst in (1, 100):
    latencies = []
    for _ in range(rounds):
        for _ in range(burst):
            serial += 1
            with open(os.path.join(photos, f"p{serial:06}.jpg"), "wb") as f:
                f.write(fixture)
        written = time.monotonic()
        next_generation()
        latencies.append(time.monotonic() - written)
        # Let the rescan (a burst may be two) settle before the next round.
        time.sleep(1.5)
        stream.settimeout(0.01)
        try:
            while True:
                buffer += stream.recv(65536)
        except (TimeoutError, BlockingIOError, socket.timeout):
            pass
        buffer = b""
    print(f"burst of {burst}: median {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
          f"(last file written -> generation event; {rounds} rounds)")
server.terminate()
server.wait(timeout=30)
