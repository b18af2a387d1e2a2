#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The rooms of user/ and which way their includes run.

Rooms, lowest first: cli, kernel, rank, views, service, then the top (main.c,
run.c). A file may include its own room and the rooms below it; shared
headers (include/) and generated skeletons are below them all. Prints the
include edges between rooms with their counts, then every include that points
up the list or any cycle of includes between files, and exits 1 if there is
one. Also checks bpf/: each header includes only the headers before it in
BPF_ORDER; and tools/rwgen*: its parts must not call into its main file.

Usage: tools/check_rooms.py [ROOT]
"""
import collections
import os
import re
import sys

ROOMS = ["cli", "kernel", "rank", "views", "service", "top"]
# The data path's headers by role (bpf/README.md), lowest first: each includes
# only those before it.
BPF_ORDER = ["parse.h", "maps.h", "clock.h", "race.h", "sketch.h", "history.h", "limit.h", "table.h",
             "policy.h"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(path):
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[1] in ROOMS else "top"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk("user") for f in fs if f.endswith((".c", ".h")))
    edges = collections.Counter()
    bad, graph = [], collections.defaultdict(set)
    for f in files:
        src = room_of(f)
        for inc in INCLUDE.findall(open(f, encoding="utf-8").read()):
            target = os.path.join("user", inc)
            if not os.path.exists(target):
                continue  # include/ or a generated header: below every room
            dst = room_of(target)
            graph[f].add(target)
            if dst != src:
                edges[(src, dst)] += 1
            if ROOMS.index(dst) > ROOMS.index(src):
                bad.append(f"{f} includes {inc}: {src} may not include {dst} (it is above)")
    print("include edges between rooms of user/ (from -> to: includes):")
    for (src, dst), n in sorted(edges.items(), key=lambda e: (ROOMS.index(e[0][0]), ROOMS.index(e[0][1]))):
        print(f"  {src:8s} -> {dst:8s} {n}")
    # A cycle of includes between files (a header that ends up including itself).
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                bad.append("include cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for f in files:
        if f not in state:
            visit(f, [f])
    # The data path: a header includes only the headers before it; every header has its place.
    for h in sorted(f for f in os.listdir("bpf") if f.endswith(".h")):
        if h not in BPF_ORDER:
            bad.append(f"bpf/{h} has no place in BPF_ORDER (tools/check_rooms.py, bpf/README.md)")
            continue
        for inc in INCLUDE.findall(open(os.path.join("bpf", h), encoding="utf-8").read()):
            if inc in BPF_ORDER and BPF_ORDER.index(inc) >= BPF_ORDER.index(h):
                bad.append(f"bpf/{h} includes {inc}, which comes after it in BPF_ORDER")
    # The generator: its parts include rwgen_parts.h; none may need the main file.
    gen = open("tools/rwgen.c", encoding="utf-8").read()
    for part in ("tools/rwgen_safety.c", "tools/rwgen_frame.c", "tools/rwgen_sched.c"):
        used = set(re.findall(r"\b(rwgen_\w+)\s*\(", open(part, encoding="utf-8").read()))
        for name in sorted(used):
            if re.search(r"^\w[^;]*\b" + name + r"\s*\([^;]*\)\s*\{", gen, re.M):
                bad.append(f"{part} calls {name}, defined in tools/rwgen.c (the generator's main file)")
    for b in bad:
        print("  UPWARD/CYCLE: " + b)
    print(f"{len(files)} files, {sum(edges.values())} includes between rooms, {len(bad)} upward or circular")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
