#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The layout of the tree: which way includes and calls run, how big a room and a folder grow.

1. The rooms of user/, lowest first: model, cli, kernel, rank, views, act,
   service, then the top (main.c, run*.c). A file may include its own room and
   the rooms below it; shared headers (include/) and generated skeletons are
   below them all. Prints the include edges between rooms with their counts.
2. No include cycle anywhere in the tree: every .c and .h under user/, bpf/,
   include/, tools/, bench/ and tests/, each quoted include resolved as the
   compiler does (the including file's folder, then the Makefile's -I folders).
3. No circle of units, nor of folders, in user/, bpf/, include/, tools/ and
   bench/. A unit is a .c and its .h (user/cli/key.c and user/cli/key.h are
   the unit user/cli/key; a header or a .bpf.c alone is a unit too). A unit
   uses another when one of its files includes a header of the other (as in
   2.), or when its .c calls a function the other's .c defines and does not
   keep static. A call is the function's name in the code (not in a comment
   or a string, not as a struct, union or enum tag, not after . or ->: so a
   function stored in a table counts), unless the caller defines that name
   itself; main is called by no one. A folder uses another when a unit in it
   uses a unit in the other. Prints the shortest circle through each unit,
   and each folder, on one. tests/ is left out: the product uses nothing of
   it (a circle of headers through its -I folders is still 2.'s), a runner
   and its suites use each other by design (tests/unit/main.c calls each
   suite, which includes unit.h), and its programs share function names.
4. No room of user/ holds over ROOM_SHARE % of user/'s lines: the lines of
   the .c and .h files in user/<room>/ (the top's: directly in user/). Prints
   each room's lines and share.
5. Each unit of user/cli/ is on the command-line path: used (as in 3.) by an
   entry (user/main, user/run*, a unit of user/service/ whose name ends in cmd
   or cli: a subcommand's arguments) or by a unit of user/cli/ on the path. A
   cli/ unit that only other rooms use is a word of the domain, whose room is
   model/.
6. bpf/: each header includes only the headers before it in BPF_ORDER.
7. The generator (tools/rwgen/): no part calls (as in 3.) a function defined
   in its main file, rwgen.c, so the parts stand without it.
8. No folder of tooling is bigger than the largest folder of the product. A
   folder's size is the bytes of its source files directly in it (*.c, *.h,
   *.py, *.sh, so *.bpf.c too; not data such as bench/results/*.json, not its
   subfolders), counting the files git tracks or would (every file in a copy
   without git). Product: user/, bpf/, include/ and every folder under them. Tooling:
   tools/, bench/, tests/ and every folder under them. A tooling folder over
   the bound fails: split it by topic into folders.

Prints the findings and the sizes; exits 1 if any rule is broken.
Usage: tools/check_rooms.py [ROOT]
"""
import collections
import functools
import os
import re
import subprocess
import sys

ROOMS = ["model", "cli", "kernel", "rank", "views", "proc", "bgp", "act", "service", "top"]
# The data path's headers by role (bpf/README.md), lowest first: each includes
# only those before it.
BPF_ORDER = ["parse.h", "maps.h", "clock.h", "race.h", "crowd.h", "sketch.h", "history.h", "limit.h", "table.h", "frag.h", "samples.h",
             "policy.h", "untracked.h", "track.h"]
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)  # [ \t], not \s: \s runs over blank lines, quadratic
SOURCE_TREE = ["user", "bpf", "include", "tools", "bench", "tests"]
GENERATOR, GENERATOR_MAIN = "tools/rwgen", "rwgen.c"
PRODUCT = ["user", "bpf", "include"]
TOOLING = ["tools", "bench", "tests"]
SOURCE_EXT = (".c", ".h", ".py", ".sh")
CODE_TREE = ["user", "bpf", "include", "tools", "bench"]  # 3.
ROOM_SHARE = 20  # 4., percent
COMMAND_ENTRY = re.compile(r"user/(main|run\w*)|user/service/\w*(cmd|cli)")  # 5., units
# Comments, strings and characters: what 3. blanks before it reads names (newlines kept, so a
# definition still starts its line).
NOISE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
DEFINITION = re.compile(r"^([A-Za-z_][\w \t*]*?)\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)
# A name in code; a tag or a member is matched whole (group 1 empty) so it is no call.
NAME = re.compile(r"\b(?:struct|union|enum)\s+\w+|(?:\.|->)\s*\w+|\b([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=None)
def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def room_of(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[1] in ROOMS else "top"


def tracked_files():
    """Every file of the tree, relative: git's list (tracked, and new but not ignored) where there
    is one, else the folders themselves."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", *SOURCE_TREE],
                             capture_output=True, text=True, check=True).stdout
        files = [f for f in out.split("\0") if f and os.path.isfile(f)]
        if files:
            return sorted(files)
    except (OSError, subprocess.CalledProcessError):
        pass
    return sorted(os.path.join(d, f).replace(os.sep, "/") for top in SOURCE_TREE if os.path.isdir(top)
                  for d, _, fs in os.walk(top) for f in fs)


def search_dirs():
    """The Makefile's -I folders of the tree (include, user, bpf, tests, ...), in order."""
    seen = []
    for d in re.findall(r"-I([\w./-]+)", read("Makefile") if os.path.exists("Makefile") else ""):
        if os.path.isdir(d) and d not in seen:
            seen.append(d)
    return seen


def include_graph(files):
    """file -> the files of the tree it includes (a generated or system header is no edge)."""
    dirs, known, graph = search_dirs(), set(files), collections.defaultdict(set)
    for f in files:
        if not f.endswith((".c", ".h")):
            continue
        for inc in INCLUDE.findall(read(f)):
            for d in [os.path.dirname(f)] + dirs:
                target = os.path.normpath(os.path.join(d, inc)).replace(os.sep, "/")
                if target in known:
                    graph[f].add(target)
                    break
    return graph


def room_findings(graph):
    """The include edges between the rooms of user/, and each one that points up."""
    edges, bad = collections.Counter(), []
    for f in sorted(graph):
        if not f.startswith("user/"):
            continue
        for target in sorted(t for t in graph[f] if t.startswith("user/")):
            src, dst = room_of(f), room_of(target)
            if dst != src:
                edges[(src, dst)] += 1
            if ROOMS.index(dst) > ROOMS.index(src):
                bad.append(f"{f} includes {target[len('user/'):]}: {src} may not include {dst} (it is above)")
    print("include edges between rooms of user/ (from -> to: includes):")
    for (src, dst), n in sorted(edges.items(), key=lambda e: (ROOMS.index(e[0][0]), ROOMS.index(e[0][1]))):
        print(f"  {src:8s} -> {dst:8s} {n}")
    return edges, bad


def cycles(graph):
    """Every cycle of includes between files, each once (a header that ends up including itself)."""
    state, bad = {}, []

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                bad.append("include cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for f in sorted(graph):
        if f not in state:
            visit(f, [f])
    return bad


@functools.lru_cache(maxsize=None)
def code(path):
    """A C file without its comments and literals (see 3. above)."""
    return NOISE.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else '""', read(path))


def defined(path):
    """The functions a .c defines: name -> whether it is static."""
    return {m.group(2): "static" in m.group(1).split() for m in DEFINITION.finditer(code(path))}


def exported(path):
    """The functions a .c defines that another file may call."""
    return {name for name, static in defined(path).items() if not static and name != "main"}


def calls(path):
    """The functions a .c calls that it does not define (see 3. above)."""
    return {m.group(1) for m in NAME.finditer(code(path)) if m.group(1)} - defined(path).keys()


def unit_of(path):
    return path[:-2]  # key.c, key.h -> key; rwgen.bpf.c -> rwgen.bpf


def unit_graph(files, graph):
    """The units of CODE_TREE, and unit -> {unit it uses: why, the first include or call found}."""
    code_files = [f for f in files if f.endswith((".c", ".h")) and under(os.path.dirname(f), CODE_TREE)]
    known, arrows = set(code_files), collections.defaultdict(dict)

    def use(src, dst, why):
        if unit_of(src) != unit_of(dst):  # a .c including its own header is no circle
            arrows[unit_of(src)].setdefault(unit_of(dst), why)

    for f in code_files:
        for target in sorted(graph[f] & known):
            use(f, target, f"{f} includes {target}")
    # A BPF program links with nothing of userspace: its calls are to inline functions.
    linked = [f for f in code_files if f.endswith(".c") and not f.endswith(".bpf.c")]
    definers = collections.defaultdict(list)
    for f in linked:
        for name in exported(f):
            definers[name].append(f)
    for f in linked:
        for name in sorted(calls(f)):
            for d in definers[name]:
                use(f, d, f"{f} calls {name}")
    return {unit_of(f) for f in code_files}, arrows


def shortest_circles(arrows):
    """The shortest circle through each node on one, each circle once, from its least node."""
    found = set()
    for start in sorted(arrows):
        parent, queue, circle = {}, collections.deque([start]), None
        while queue and not circle:
            node = queue.popleft()
            for nxt in sorted(arrows[node]):
                if nxt == start:
                    circle = [node]
                    while circle[-1] != start:
                        circle.append(parent[circle[-1]])
                    circle.reverse()
                    break
                if nxt not in parent:
                    parent[nxt] = node
                    queue.append(nxt)
        if circle:
            least = circle.index(min(circle))
            found.add(tuple(circle[least:] + circle[:least]))
    return sorted(found, key=lambda c: (len(c), c))


def circle_findings(arrows):
    """Circles of units, then of folders (see 3. above)."""
    folders = collections.defaultdict(dict)
    for src in sorted(arrows):
        for dst, why in sorted(arrows[src].items()):
            if os.path.dirname(src) != os.path.dirname(dst):
                folders[os.path.dirname(src)].setdefault(os.path.dirname(dst), why)
    print(f"{len(arrows)} units use others ({sum(map(len, arrows.values()))} uses), "
          f"{len(folders)} folders ({sum(map(len, folders.values()))} uses)")
    bad = []
    for kind, graph in (("unit", arrows), ("folder", folders)):
        for c in shortest_circles(graph):
            whys = "; ".join(graph[a][b] for a, b in zip(c, c[1:] + c[:1]))
            bad.append(f"{kind} circle: {' -> '.join(c + (c[0],))} ({whys})")
    return bad


def room_label(room):
    return "user/*.c *.h (the top)" if room == "top" else f"user/{room}/"


def room_lines(files):
    """Each room's lines against user/'s (see 4. above); prints them all."""
    lines = collections.Counter(dict.fromkeys(ROOMS, 0))
    for f in files:
        if f.startswith("user/") and f.endswith((".c", ".h")):
            lines[room_of(f)] += len(read(f).splitlines())
    total, bad = sum(lines.values()), []
    print(f"lines of each room of user/ (*.c *.h); the bound is {ROOM_SHARE} % of user/'s {total}:")
    for room in ROOMS:
        share, note = 100 * lines[room] / max(total, 1), ""
        if lines[room] * 100 > total * ROOM_SHARE:
            bad.append(f"{room_label(room)} holds {lines[room]} lines, {share:.1f} % of user/'s {total}: "
                       f"over {ROOM_SHARE} %, split a topic out into a room")
            note = "  OVER"
        print(f"  {room:8s} {lines[room]:6d} {share:5.1f} %{note}")
    return bad


def cli_findings(units, arrows):
    """Each unit of user/cli/ that nothing on the command-line path uses (see 5. above)."""
    users = collections.defaultdict(set)
    for src in arrows:
        for dst in arrows[src]:
            users[dst].add(src)
    path = {u for u in units if COMMAND_ENTRY.fullmatch(u)}
    todo = sorted(path)
    while todo:
        for dst in arrows[todo.pop()]:
            if dst.startswith("user/cli/") and dst not in path:
                path.add(dst)
                todo.append(dst)
    cli = sorted(u for u in units if u.startswith("user/cli/"))
    print(f"units of user/cli/ on the command-line path: {len(path.intersection(cli))} of {len(cli)}")
    return [f"{u}.{'c' if os.path.exists(u + '.c') else 'h'}: nothing on the command-line path uses it "
            f"(used by: {', '.join(sorted(users[u])) or 'nothing'})" for u in cli if u not in path]


def bpf_order():
    """The data path: a header includes only the headers before it; every header has its place."""
    bad = []
    for h in sorted(f for f in os.listdir("bpf") if f.endswith(".h")):
        if h not in BPF_ORDER:
            bad.append(f"bpf/{h} has no place in BPF_ORDER (tools/check_rooms.py, bpf/README.md)")
            continue
        for inc in INCLUDE.findall(read(os.path.join("bpf", h))):
            if inc in BPF_ORDER and BPF_ORDER.index(inc) >= BPF_ORDER.index(h):
                bad.append(f"bpf/{h} includes {inc}, which comes after it in BPF_ORDER")
    return bad


def generator_parts():
    """No part of the generator calls a function its main file defines."""
    bad, main = [], exported(f"{GENERATOR}/{GENERATOR_MAIN}")
    parts = sorted(f for f in os.listdir(GENERATOR) if f.endswith(".c") and not f.endswith(".bpf.c")
                   and f != GENERATOR_MAIN)
    for part in parts:
        for name in sorted(calls(f"{GENERATOR}/{part}") & main):
            bad.append(f"{GENERATOR}/{part} calls {name}, defined in {GENERATOR}/{GENERATOR_MAIN} "
                       "(the generator's main file)")
    return bad


def folder_sizes(files):
    """Bytes of source files directly in each folder (see 8. above)."""
    sizes = collections.Counter()
    for f in files:
        if f.endswith(SOURCE_EXT):
            sizes[os.path.dirname(f)] += os.path.getsize(f)
    return sizes


def under(folder, tops):
    return any(folder == t or folder.startswith(t + "/") for t in tops)


def size_findings(files):
    """Every tooling folder against the largest product folder; prints both sides."""
    sizes = folder_sizes(files)
    product = {d: n for d, n in sizes.items() if under(d, PRODUCT)}
    bound_dir = max(product, key=product.get)
    bound, bad = product[bound_dir], []
    print(f"folder sizes (bytes of *.c *.h *.py *.sh directly in it); the bound is the largest product "
          f"folder, {bound_dir}: {bound}")
    for d in sorted(d for d in sizes if under(d, TOOLING)):
        note = ""
        if sizes[d] > bound:
            bad.append(f"{d} holds {sizes[d]} bytes of source, more than {bound_dir} ({bound}): split it by job")
            note = "  OVER"
        print(f"  {d:24s} {sizes[d]:7d}{note}")
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    files = tracked_files()
    graph = include_graph(files)
    edges, bad = room_findings(graph)
    bad += cycles(graph)
    units, arrows = unit_graph(files, graph)
    bad += circle_findings(arrows) + room_lines(files) + cli_findings(units, arrows)
    bad += bpf_order() + generator_parts()
    bad += size_findings(files)
    for b in bad:
        print("  BROKEN: " + b)
    user_files = [f for f in files if f.startswith("user/") and f.endswith((".c", ".h"))]
    print(f"{len(user_files)} files, {sum(edges.values())} includes between rooms, {len(bad)} upward or circular")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
