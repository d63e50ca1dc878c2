"""The two ends of ``probe``: a TCP echo server and a client that times round trips and
transfers. Standard library only, run by file path inside a host's namespace::

    python3 probe_agent.py serve ADDR PORT       # prints "ready", serves one client
    python3 probe_agent.py client JSON           # JSON: [addr, port, pings, sizes, reps]

The client prints its result as JSON.
"""
from __future__ import annotations

import json
import socket
import statistics
import sys
import time


def serve(addr: str, port: int) -> int:
    """Answer one client: ``p`` -> ``p`` (ping); ``b`` + 8-byte length + bytes -> ``k``; ``q`` ends."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(1)
    s.settimeout(60)
    print("ready", flush=True)
    c, _ = s.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        head = c.recv(1)
        if not head or head == b"q":
            return 0
        if head == b"p":
            c.sendall(b"p")
            continue
        n = int.from_bytes(c.recv(8, socket.MSG_WAITALL), "little")
        got = 0
        while got < n:
            chunk = c.recv(min(1 << 20, n - got))
            if not chunk:
                return 1
            got += len(chunk)
        c.sendall(b"k")


def client(addr: str, port: int, pings: int, sizes: list[int], reps: int) -> dict:
    """Median and minimum round trip of ``pings`` pings, and the median time of ``reps``
    transfers of each size in ``sizes`` (bytes)."""
    s = socket.create_connection((addr, port), timeout=60)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtts = []
    for _ in range(pings):
        t = time.perf_counter()
        s.sendall(b"p")
        s.recv(1)
        rtts.append(time.perf_counter() - t)
    rtts = rtts[5:] or rtts  # skip connection warm-up
    transfers = {}
    for size in sizes:
        payload = b"\0" * size
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            s.sendall(b"b" + size.to_bytes(8, "little"))
            s.sendall(payload)
            s.recv(1)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        transfers[str(size)] = {"median_s": med, "mbit_per_s": size * 8 / med / 1e6}
    s.sendall(b"q")
    s.close()
    return {"rtt_us": {"median": statistics.median(rtts) * 1e6, "min": min(rtts) * 1e6},
            "transfers": transfers}


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) == 3:
        return serve(argv[1], int(argv[2]))
    if argv[:1] == ["client"] and len(argv) == 2:
        addr, port, pings, sizes, reps = json.loads(argv[1])
        print(json.dumps(client(addr, port, pings, sizes, reps)))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
