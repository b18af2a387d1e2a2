#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The captures in README.md and docs/: find them, write them, check them.

A capture is a fenced block that shows what ratewall (or a daemon beside it)
printed, marked by a comment on the line before its fence:

    <!-- capture: NAME -->
    ```
    ...
    ```

tools/captures/make.sh produces each capture it can make as DIR/NAME.txt on
a namespace testbed; the slow suites named in SLOW make theirs in their own
runs, check them there (tests/integration/lib.sh's captured) and write them
to DIR when run with CAPTURE_DIR=DIR, as make.sh runs them for make docs.

  captures.py list ROOT         every marker: file, line, name
  captures.py slow              the suites that make captures (SLOW), a line each
  captures.py write ROOT DIR    replace each marked block with DIR/NAME.txt
  captures.py check ROOT DIR [NAME...]
                                each marked block's (or those NAMEs') shape
                                against DIR/NAME.txt; a NAME no marker
                                has fails
  captures.py bird FILE         BIRD's `show route all` (FILE) as the README
                                shows it: flows4's first route, its type and
                                the community that says discard
  captures.py table FILE ROWS   a text report's header and first ROWS rows
  captures.py rules-json REPORTS EVENTS
                                a JSON report's rules and top, and the first
                                limited event of a rule
  captures.py memory FILE       `ratewall memory --cpus N` for several N
                                (FILE: each after a "== N" line) as a table
                                of N, the maps summed by what they are, total

The shape of a line is the line with its numbers, addresses, times, dates
and yes/no masked and its runs of blanks made one: headers, column names,
field order and line kinds are kept. A block passes when every line of it
has a shape that today's output has (today's may have more lines, or rows
the doc left out). A JSON block (its fence says json) passes when the keys
of each object in it are those of today's object of the same kind. A marker
whose name today's run did not make fails, unless SLOW names the suite that
makes it (then it is checked when that suite writes it).
"""
import json
import os
import re
import sys

MARKER = re.compile(r"^<!-- capture: ([a-z0-9-]+) -->$")
FENCE = re.compile(r"^(```+)(.*)$")

# Captures that only a slow suite (make test-slow) can make, and check: what
# makes each.
SLOW = {
    "bird-flows4": "tests/integration/act/test_bgp.sh",
    "fleet-top": "tests/integration/service/test_fleet.sh",
    "fleet-spread": "tests/integration/service/test_fleet.sh",
    "fleet-defaults": "tests/integration/service/test_fleet.sh",
    "fleet-min-share": "tests/integration/service/test_fleet.sh",
    "recipe-syn": "tests/integration/traffic/test_rule_match.sh",
    "recipe-reflection": "tests/integration/traffic/test_rule_match.sh",
    "key-rank": "tests/integration/traffic/test_keys.sh",
}

# What varies from run to run, masked in this order (the longest forms first).
MASKS = [
    (re.compile(r"\d{4}-\d\d-\d\d"), "DATE"),
    (re.compile(r"\d\d:\d\d:\d\d(\.\d+)?"), "TIME"),
    # IPv6: at least two groups and a double or a third colon; with its prefix.
    (re.compile(r"\[?(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\]?(?:/\d+)?"), "ADDR"),
    (re.compile(r"\d+\.\d+\.\d+\.\d+(?:/\d+)?"), "ADDR"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:[kMG]|%| ?[KMG]i?B| B| ms| s)?(?![\w.])"), "N"),
    (re.compile(r"\b(yes|no)\b"), "B"),
    # A sparkline: a slot with nothing is a blank cell, and the screen's
    # copy loses the blanks at the line's end (the newest slot, empty yet).
    (re.compile(r"[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]*$"), " SPARK"),
]


def shape(line):
    s = line.rstrip()
    for rx, token in MASKS:
        s = rx.sub(token, s)
    return re.sub(r"\s+", " ", s).strip()


def files(root):
    out = [os.path.join(root, "README.md")]
    for d, _, names in sorted(os.walk(os.path.join(root, "docs"))):
        out += [os.path.join(d, n) for n in sorted(names) if n.endswith(".md")]
    return [f for f in out if os.path.exists(f)]


def blocks(root):
    """Each marked block: (path, line of its marker, name, info, body lines,
    index of its first body line, index past its last)."""
    found = []
    for path in files(root):
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = MARKER.match(line)
            if not m:
                continue
            f = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if not f:
                found.append((path, i + 1, m.group(1), None, None, 0, 0))
                continue
            end = i + 2
            while end < len(lines) and lines[end] != f.group(1):
                end += 1
            found.append((path, i + 1, m.group(1), f.group(2).strip(),
                          lines[i + 2:end], i + 2, end))
    return found


def rel(root, path):
    return os.path.relpath(path, root)


def json_objects(lines):
    """The objects of a JSON block: one a line, or one wrapped over several
    lines (its continuation lines start with a blank); a line that is a
    key and value alone ("rules": [...]) is read as that one-key object."""
    joined = []
    for line in lines:
        if line.startswith(" ") and joined:
            joined[-1] += line
        elif line.strip():
            joined.append(line)
    out = []
    for text in joined:
        try:
            out.append(json.loads(text))
        except ValueError:
            out.append(json.loads("{" + text + "}"))
    return out


def keys(value, path=""):
    """Every key path of a JSON value; the elements of a list share one."""
    out = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(path + "." + k)
            out |= keys(v, path + "." + k)
    elif isinstance(value, list):
        for v in value:
            out |= keys(v, path + "[]")
    return out


def kind(obj):
    """What a JSON object is: an event by its name (and whether a rule
    governs its key), else its top-level keys' first one (a report starts
    with ts and has no event)."""
    if "event" in obj:
        return obj["event"] + (" (rule)" if "rule" in obj else "")
    return next(iter(obj), "")


def check_json(doc, today):
    problems = []
    by_kind = {}
    for obj in today:
        by_kind.setdefault(kind(obj), set()).update(keys(obj))
    for obj in doc:
        k = kind(obj)
        if k not in by_kind:
            problems.append(f"a {k!r} object: none of that kind in today's output")
            continue
        want = by_kind[k]
        have = keys(obj)
        if have - want:
            problems.append(f"a {k!r} object: keys not printed today: "
                            + ", ".join(sorted(have - want)))
        # Keys of lists' elements may be absent from the doc's empty lists;
        # a key today's object has at the doc's levels must be in the doc.
        missing = {p for p in want - have if p.rsplit(".", 1)[0] in have | {""}}
        if missing:
            problems.append(f"a {k!r} object: keys missing from the doc: "
                            + ", ".join(sorted(missing)))
    return problems


def check_text(doc, today):
    have = {shape(line) for line in today}
    problems = []
    for n, line in enumerate(doc):
        if line.strip() and line.strip() != "…" and shape(line) not in have:
            problems.append(f"line {n + 1} of the block: no line of today's has its shape: "
                            f"{line.strip()[:100]!r} ({shape(line)[:100]!r})")
    return problems


def cmd_list(root):
    for path, n, name, info, *_ in blocks(root):
        print(f"{rel(root, path)}:{n}: {name}" + ("" if info is not None else " (no fence after it)"))
    return 0


def cmd_write(root, capdir):
    rc = 0
    edits = {}
    for b in blocks(root):
        path, n, name, info, body, start, end = b
        src = os.path.join(capdir, name + ".txt")
        if info is None:
            print(f"{rel(root, path)}:{n}: capture {name}: no fence after the marker")
            rc = 1
        elif os.path.exists(src):
            edits.setdefault(path, []).append((start, end, open(src, encoding="utf-8").read()))
        else:
            print(f"{rel(root, path)}:{n}: capture {name}: not made this run, left as it was")
    for path, changes in edits.items():
        lines = open(path, encoding="utf-8").read().split("\n")
        for start, end, text in sorted(changes, reverse=True):
            lines[start:end] = text.rstrip("\n").split("\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"{rel(root, path)}: {len(changes)} capture(s) written")
    return rc


def cmd_check(root, capdir, only):
    checked = failed = 0
    for path, n, name, info, body, *_ in blocks(root):
        if only and name not in only:
            continue
        where = f"{rel(root, path)}:{n}: capture {name}"
        src = os.path.join(capdir, name + ".txt")
        if info is None:
            print(f"{where}: no fence after the marker")
            failed += 1
            continue
        if not os.path.exists(src):
            if name in SLOW:
                print(f"{where}: made and checked by {SLOW[name]} (make test-slow)")
                continue
            print(f"{where}: nothing makes it (no {name}.txt, and SLOW names no suite)")
            failed += 1
            continue
        today = open(src, encoding="utf-8").read().rstrip("\n").split("\n")
        try:
            problems = (check_json(json_objects(body), json_objects(today))
                        if info == "json" else check_text(body, today))
        except ValueError as e:
            problems = [f"not JSON: {e}"]
        checked += 1
        for p in problems:
            print(f"{where}: {p}")
        failed += bool(problems)
    # A name asked for that no marker has: its block is gone, or misnamed.
    for name in sorted(only - {b[2] for b in blocks(root)}):
        print(f"capture {name}: no block of README.md or docs/ is marked with it")
        failed += 1
    print(f"{checked} captures checked, {failed} failed")
    return 1 if failed else 0


def cmd_bird(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = next((n for n, l in enumerate(lines) if l.startswith("flow4 {")), None)
    if i is None:
        print(f"{path}: no flow4 route in it", file=sys.stderr)
        return 1
    route = [lines[i]]
    for line in lines[i + 1:]:
        if not line.startswith("\t"):
            break
        route.append(line)
    out = ["$ birdc show route table flows4 all", route[0]] + route[1:2] + ["\t…"]
    out += [line for line in route if "ext_community" in line]
    print("\n".join(out))
    return 0


def reports(lines):
    """The text reports in ratewall's output: each from its time line to its
    total line, without either."""
    out, cur = [], None
    for line in lines:
        if re.match(r"^\d\d:\d\d:\d\d  ", line):
            cur = []
        elif line.startswith("total ") and cur is not None:
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def cmd_table(path, rows):
    """A report's table as usage.md shows it: its header and first ROWS rows,
    from the middle one of the reports that have that many (the generators
    start after ratewall and stop before it)."""
    found = reports(open(path, encoding="utf-8").read().split("\n"))
    full = [r for r in found if len(r) > rows] or sorted(found, key=len)[-1:]
    if not full:
        print(f"{path}: no report in it", file=sys.stderr)
        return 1
    print("\n".join(full[len(full) // 2][:rows + 1]))
    return 0


def cmd_rules_json(path, events):
    """recipes.md's JSON: of the middle report that has a limited top key,
    its rules and top as lines of their own; then the first limited event
    that names a rule."""
    found = [json.loads(line) for line in open(path, encoding="utf-8") if line.startswith('{"ts"')]
    found = [r for r in found if r.get("top") and r["top"][0].get("limited")]
    event = next((line.strip() for line in open(events, encoding="utf-8")
                  if '"limited"' in line and '"rule"' in line), None)
    if not found or event is None:
        print(f"{path}, {events}: no report with a limited key, or no limited event of a rule",
              file=sys.stderr)
        return 1
    report = found[len(found) // 2]
    for k in ("rules", "top"):
        print(f"{json.dumps(k)}: {json.dumps(report[k], ensure_ascii=False)}")
    print(event)
    return 0


# design.md's memory table: its columns, and the maps each sums.
MEMORY_COLUMNS = [
    ("tracked-flow table", ("dir", "keys", "hot", "hist")),
    ("sketch", ("sketch",)),
    ("rule counts", ("rule_stats",)),
]
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def cmd_memory(path):
    runs, cur = [], None
    for line in open(path, encoding="utf-8"):
        w = line.split()
        if len(w) == 2 and w[0] == "==":
            cur = {"cpus": w[1]}
            runs.append(cur)
        elif cur is not None and len(w) >= 3 and w[2] in UNITS:
            cur[w[0]] = float(w[1]) * UNITS[w[2]]
        elif cur is not None and len(w) == 3 and w[0] == "total":
            cur["total"] = float(w[1]) * UNITS[w[2]]
    if not runs or any("total" not in r for r in runs):
        print(f"{path}: no `ratewall memory` output with a total line in it", file=sys.stderr)
        return 1
    rows = [["possible CPUs"] + [c for c, _ in MEMORY_COLUMNS] + ["total"]]
    for r in runs:
        cells = [sum(r.get(m, 0) for m in maps) for _, maps in MEMORY_COLUMNS] + [r["total"]]
        rows.append([r["cpus"]] + ["%.1f MiB" % (b / UNITS["MiB"]) for b in cells])
    width = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, width))).rstrip())
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "list":
        return cmd_list(argv[2])
    if len(argv) == 2 and argv[1] == "slow":
        print("\n".join(sorted(set(SLOW.values()))))
        return 0
    if len(argv) == 3 and argv[1] == "bird":
        return cmd_bird(argv[2])
    if len(argv) == 4 and argv[1] == "table":
        return cmd_table(argv[2], int(argv[3]))
    if len(argv) == 3 and argv[1] == "memory":
        return cmd_memory(argv[2])
    if len(argv) == 4 and argv[1] == "rules-json":
        return cmd_rules_json(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "write":
        return cmd_write(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "check":
        return cmd_check(argv[2], argv[3], set(argv[4:]))
    print("usage: captures.py list ROOT | slow | write ROOT DIR | check ROOT DIR [NAME...] | bird FILE"
          " | table FILE ROWS | rules-json REPORTS EVENTS | memory FILE",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
