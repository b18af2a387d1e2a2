#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Every family /metrics serves is in the docs' metrics table.

Usage: check_metrics_doc.py [ROOT]   (default: the repository this file is in)

The families are the "ratewall_..." names user/views/metrics_page.c writes
(a histogram's _bucket, _sum and _count lines are its family's); the table
is the one of docs/operations/watching.md, "Metrics for Prometheus". A family
the page serves and the table does not name is one an operator cannot find;
one the table names and the page does not serve is one that is gone. Exit 1
with one line a family, naming which side lacks it.
"""
import os
import re
import sys

PAGE = os.path.join("user", "views", "metrics_page.c")
DOC = os.path.join("docs", "operations", "watching.md")
SECTION = "## Metrics for Prometheus"
NAME = re.compile(r"\bratewall_[a-z0-9_]*[a-z0-9]")
SUFFIXES = ("_bucket", "_sum", "_count")


def served(text):
    names = set()
    for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', text):
        names.update(NAME.findall(lit))
    # A histogram's series are its family's.
    return {n for n in names if not (n.endswith(SUFFIXES) and n.rsplit("_", 1)[0] in names)}


def table(text):
    if SECTION not in text:
        return None
    part = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in part.splitlines() if line.startswith("|")]
    return set(NAME.findall("\n".join(rows)))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    page = served(open(os.path.join(root, PAGE)).read())
    doc = table(open(os.path.join(root, DOC)).read())
    if doc is None:
        print(f"{DOC}: no section '{SECTION}'")
        return 1
    bad = [f"{DOC}: lacks {n}, which {PAGE} serves" for n in sorted(page - doc)]
    bad += [f"{DOC}: names {n}, which {PAGE} does not serve" for n in sorted(doc - page)]
    for line in bad:
        print(line)
    print(f"{len(page)} families served, {len(doc)} in the table, {len(bad)} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
