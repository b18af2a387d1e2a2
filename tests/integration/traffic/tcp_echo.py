#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The real TCP peers of the rule tests: `server ADDR PORT BACKLOG SECONDS`
answers every connection ("pong") until SECONDS pass; `client ADDR PORT N
PER_SECOND SRC` opens N connections at that pace from SRC, each with a 5 s
bound, and prints one JSON line: how many were answered, how many failed."""
import json
import socket
import sys
import threading
import time


def server(addr, port, backlog, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(port)))
    s.listen(int(backlog))
    s.settimeout(0.2)
    end = time.monotonic() + float(seconds)
    print("listening", flush=True)
    while time.monotonic() < end:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        threading.Thread(target=answer, args=(c,), daemon=True).start()


def answer(c):
    try:
        c.settimeout(5)
        if c.recv(16):
            c.sendall(b"pong")
    except OSError:
        pass
    finally:
        c.close()


def client(addr, port, n, per_second, src):
    ok = failed = 0
    slowest = 0.0
    for i in range(int(n)):
        start = time.monotonic()
        try:
            with socket.create_connection((addr, int(port)), timeout=5,
                                          source_address=(src, 0)) as c:
                c.sendall(b"ping")
                if c.recv(16) == b"pong":
                    ok += 1
                else:
                    failed += 1
        except OSError:
            failed += 1
        took = time.monotonic() - start
        slowest = max(slowest, took)
        time.sleep(max(0.0, 1.0 / float(per_second) - took))
    print(json.dumps({"answered": ok, "failed": failed, "slowest_s": round(slowest, 3)}))


if __name__ == "__main__":
    {"server": server, "client": client}[sys.argv[1]](*sys.argv[2:])
