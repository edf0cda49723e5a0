"""Abuse for Benchmarks/scripts/access.sh: IDLE connections that send nothing and SLOW clients
that send a request head a byte every half second, held for SECONDS; then prints how many of
each the server still held open (closed ones read as end of file).
    python3 abuse.py PORT IDLE SLOW SECONDS"""
import socket
import sys
import time

port, idle_count, slow_count, seconds = (int(value) for value in sys.argv[1:5])
idle = []
for _ in range(idle_count):
    try:
        idle.append(socket.create_connection(("127.0.0.1", port)))
    except OSError:
        break
slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(slow_count)]
head = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 1000
closed = set()
deadline = time.monotonic() + seconds
position = 0
while time.monotonic() < deadline:
    for index, connection in enumerate(slow):
        if index in closed:
            continue
        try:
            connection.send(head[position % len(head):position % len(head) + 1])
        except OSError:
            closed.add(index)
    position += 1
    time.sleep(0.5)


def still_open(connection):
    """Whether the server keeps it open: reads what it sent (a 408, say) up to the end of file."""
    connection.setblocking(False)
    try:
        while connection.recv(65536):
            pass
        return False  # end of file: closed by the server
    except BlockingIOError:
        return True
    except OSError:
        return False


print(f"{sum(map(still_open, idle))} of {len(idle)} idle connections and "
      f"{sum(still_open(c) for i, c in enumerate(slow) if i not in closed)} of {slow_count} slow clients still open after {seconds} s")
