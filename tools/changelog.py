#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""debian/changelog from CHANGELOG.md: one history, written once.

Usage: changelog.py [--check] [ROOT]   (default: the repository this file is in)

Reads CHANGELOG.md's entries ("## VERSION — YYYY-MM-DD" and "- " items
under it) and prints them as a Debian changelog, newest first, signed by
debian/control's Maintainer. The newest entry must be the version of
user/cli/version.h: a package whose changelog names another version is
refused (exit 1), as is an entry without a date or items. --check prints
nothing on success. `make deb` writes the output into the package's copy of
the tree; debian/changelog is not kept in the repository.
"""
import datetime
import email.utils
import os
import re
import sys
import textwrap

HEADING = re.compile(r"^## (\d+(?:\.\d+)+)\s+[—-]\s+(\d{4}-\d{2}-\d{2})\s*$")
VERSION_H = re.compile(r'^#define RATEWALL_VERSION "([^"]+)"', re.M)
MAINTAINER = re.compile(r"^Maintainer:\s*(.+)$", re.M)


def fail(msg):
    print(f"changelog: {msg}", file=sys.stderr)
    sys.exit(1)


def plain(text):
    """Markdown to a changelog's plain text: links to their words, no backticks."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("`", "")


def entries(md):
    out, cur, item = [], None, None
    for n, line in enumerate(md.splitlines(), 1):
        if line.startswith("## "):
            m = HEADING.match(line)
            if not m:
                fail(f"CHANGELOG.md:{n}: '{line}' is not '## VERSION — YYYY-MM-DD'")
            cur = {"version": m.group(1), "date": m.group(2), "items": [], "line": n}
            out.append(cur)
            item = None
        elif cur is None:
            continue
        elif line.startswith("- "):
            item = [line[2:].strip()]
            cur["items"].append(item)
        elif line.startswith("  ") and line.strip() and item is not None:
            item.append(line.strip())
        elif line.strip():
            fail(f"CHANGELOG.md:{n}: under {cur['version']}, only '- ' items and their indented lines")
        else:
            item = None
    for e in out:
        if not e["items"]:
            fail(f"CHANGELOG.md:{e['line']}: {e['version']} lists nothing")
    return out


def render(es, maintainer):
    lines = []
    for e in es:
        when = datetime.datetime.strptime(e["date"], "%Y-%m-%d").replace(
            hour=12, tzinfo=datetime.timezone.utc)
        lines.append(f"ratewall ({e['version']}) unstable; urgency=medium")
        lines.append("")
        for item in e["items"]:
            lines += textwrap.wrap(plain(" ".join(item)), width=76, initial_indent="  * ",
                                   subsequent_indent="    ", break_on_hyphens=False)
        lines.append("")
        lines.append(f" -- {maintainer}  {email.utils.format_datetime(when)}")
        lines.append("")
    return "\n".join(lines)


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    es = entries(open(os.path.join(root, "CHANGELOG.md"), encoding="utf-8").read())
    if not es:
        fail("CHANGELOG.md has no '## VERSION — DATE' entry")
    m = VERSION_H.search(open(os.path.join(root, "user", "cli", "version.h")).read())
    if not m:
        fail("user/cli/version.h has no RATEWALL_VERSION")
    if es[0]["version"] != m.group(1):
        fail(f"CHANGELOG.md's newest entry is {es[0]['version']}, user/cli/version.h says {m.group(1)}")
    mt = MAINTAINER.search(open(os.path.join(root, "debian", "control")).read())
    if not mt:
        fail("debian/control has no Maintainer")
    text = render(es, mt.group(1).strip())
    if not check:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
