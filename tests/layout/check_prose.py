#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Every path the prose names exists, and the README stays short.

Usage: check_prose.py [ROOT]   (default: the repository this file is in)

What it reads (build/, .git and generated files left out):
  - Markdown (README.md, docs/**, every other *.md): the target of each link
    [text](target), and each `code span` that is a path;
  - comments of C and headers (/* */ and //), and the # comments of shell,
    Python, YAML, Makefiles and the unit template dist/*.in.

What counts as a path:
  - a link target that is not a URL (scheme:) nor an anchor alone; it is
    relative to the Markdown file, and a #section after it must be a heading
    of the Markdown file it names;
  - in a code span or a comment, a token of path characters with a '/' whose
    first part is a top-level entry of the repository (user/model/key.c,
    tools/check_rooms.py, docs/), or which starts with ../ (relative to the
    file, as shellcheck's source= lines are, and never leaving the
    repository); absolute paths, URLs and build/ (made by make) are not the
    repository's, and a pattern (check_*.sh, <name>cmd.c, corpus/NAME) is not
    a path;
  - in a comment, an upper-case Markdown name alone (README.md, DESIGN.md):
    it must be beside the file or at the top.
Fails (exit 1) with one FILE:LINE: path line per broken reference, and when
README.md is over README_MAX bytes; the capture markers
(<!-- capture: NAME -->, tools/captures/captures.py) are not counted: a reader
never sees them.
"""
import os
import re
import sys

README_MAX = 15000
CAPTURE_MARKER = re.compile(rb"^<!-- capture: [a-z0-9-]+ -->\n$")
SKIP_DIRS = {".git", "build", "__pycache__"}
# Written by tools, not by hand (docs/performance.md, from the benchmark's
# bench/results/latest.json; debian/changelog, from CHANGELOG.md by
# tools/changelog.py into make deb's copy): not read, since what they name is
# their generator's business, and a name of one holds before it is generated.
GENERATED = {"docs/performance.md", "debian/changelog"}
SKIP_PREFIXES = ("bench/results/", "tests/fuzz/corpus/")
# Not the repository's, even when named like a path.
NOT_OURS = ("build",)

PATH_TOKEN = re.compile(r"(?<![\w./@:~$-])((?:\.\./)*[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)+/?|\.\./[A-Za-z0-9_.+/-]+)")
# A part that stands for any name (tests/fuzz/corpus/NAME), not a name.
PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]+")
DOC_NAME = re.compile(r"(?<![\w./-])([A-Z][A-Z0-9_-]*\.md)\b")
MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`([^`]+)`")


def source_kind(rel):
    name = os.path.basename(rel)
    if name.endswith((".c", ".h")):
        return "c"
    if name.endswith((".sh", ".py", ".in", ".yml", ".yaml")) or name == "Makefile" or name.endswith(".mk"):
        return "hash"
    if name.endswith(".md"):
        return "md"
    return None


def walk(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for f in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            if rel in GENERATED or rel.startswith(SKIP_PREFIXES):
                continue
            kind = source_kind(rel)
            if kind:
                yield rel, kind


def c_comments(text):
    """(line, comment text) of every /* */ and // comment, strings skipped."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        else:
            i += 1
    return out


def hash_comments(text):
    """(line, comment text) of # comments: a line's # at its start or after a
    blank, outside quotes; the #! line is not one."""
    out = []
    for no, raw in enumerate(text.split("\n"), 1):
        if no == 1 and raw.startswith("#!"):
            continue
        quote = None
        for i, c in enumerate(raw):
            if quote:
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (i == 0 or raw[i - 1] in " \t"):
                out.append((no, raw[i + 1:]))
                break
    return out


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation gone, blanks to '-'."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found, fence = {}, set(), False
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    s = slug(m.group(1))
                    k = seen.get(s, 0)
                    seen[s] = k + 1
                    found.add(s if k == 0 else f"{s}-{k}")
        cache[path] = found
    return cache[path]


class Checker:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.top = {e for e in os.listdir(self.root) if e not in SKIP_DIRS}
        self.broken = []
        self.refs = 0

    def bad(self, rel, line, what):
        self.broken.append(f"{rel}:{line}: {what}")

    def inside(self, path):
        real = os.path.realpath(path)
        return real == self.root or real.startswith(self.root + os.sep)

    def repo_path(self, rel, line, token):
        """A token from a comment or a code span: check it if it is a path of ours."""
        token = token.rstrip(".,:;")
        first = token.split("/", 1)[0]
        if any(PLACEHOLDER.fullmatch(part) for part in token.split("/")):
            return
        if token.startswith("../"):
            self.refs += 1
            full = os.path.normpath(os.path.join(self.root, os.path.dirname(rel), token))
            if not self.inside(full):
                self.bad(rel, line, f"{token} (outside the repository)")
            elif not os.path.exists(full):
                self.bad(rel, line, token)
        elif first in self.top and first not in NOT_OURS and "/" in token:
            self.refs += 1
            if token not in GENERATED and not os.path.exists(os.path.join(self.root, token)):
                self.bad(rel, line, token)

    def doc_name(self, rel, line, name):
        self.refs += 1
        here = os.path.join(self.root, os.path.dirname(rel), name)
        if not (os.path.exists(here) or os.path.exists(os.path.join(self.root, name))):
            self.bad(rel, line, name)

    def link(self, rel, line, target):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            if target.startswith("#") and target[1:] not in anchors(os.path.join(self.root, rel)):
                self.refs += 1
                self.bad(rel, line, f"{target} (no such heading)")
            return
        self.refs += 1
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(self.root, os.path.dirname(rel), path))
        if not self.inside(full):
            self.bad(rel, line, f"{target} (outside the repository)")
        elif os.path.relpath(full, self.root) in GENERATED:
            return
        elif not os.path.exists(full):
            self.bad(rel, line, target)
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            self.bad(rel, line, f"{target} (no such heading)")

    def markdown(self, rel, text):
        fence = False
        for no, line in enumerate(text.split("\n"), 1):
            if line.startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            for m in MD_LINK.finditer(line):
                self.link(rel, no, m.group(1))
            for m in CODE_SPAN.finditer(line):
                span = m.group(1).strip()
                if PATH_TOKEN.fullmatch(span):
                    self.repo_path(rel, no, span)

    def comments(self, rel, comments):
        for no, text in comments:
            for m in PATH_TOKEN.finditer(text):
                # tests/cpus/check_*.sh, user/service/<name>cmd.c: a pattern, not a path.
                if text[m.end():m.end() + 1] not in ("*", "<", "{", "$", "["):
                    self.repo_path(rel, no, m.group(1))
            for m in DOC_NAME.finditer(text):
                self.doc_name(rel, no, m.group(1))

    def run(self):
        nfiles = 0
        for rel, kind in walk(self.root):
            nfiles += 1
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
            if kind == "md":
                self.markdown(rel, text)
            elif kind == "c":
                self.comments(rel, c_comments(text))
            else:
                self.comments(rel, hash_comments(text))
        readme = os.path.join(self.root, "README.md")
        size = 0
        if os.path.exists(readme):
            with open(readme, "rb") as f:
                size = sum(len(line) for line in f if not CAPTURE_MARKER.match(line))
        for b in self.broken:
            print(b)
        print(f"{nfiles} files, {self.refs} paths named, {len(self.broken)} broken; "
              f"README.md {size} bytes (at most {README_MAX})")
        if size > README_MAX:
            print(f"README.md: {size} bytes, over {README_MAX}: move detail into docs/")
        return 1 if self.broken or size > README_MAX else 0


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    return Checker(root).run()


if __name__ == "__main__":
    sys.exit(main())
