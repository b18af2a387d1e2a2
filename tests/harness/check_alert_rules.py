#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Checks dist/ratewall.rules.yml with promtool, and that its unit tests cover every alert.

1. `promtool check rules dist/ratewall.rules.yml`: the rules parse and every
   expression is valid PromQL.
2. `promtool test rules tests/prometheus/ratewall.rules.test.yml`: every test
   passes (each eval's alerts, labels and rendered annotations exactly).
3. Every alert of the rules file has an eval in the test file where it fires,
   one before the first of those where it does not (exp_alerts: []) and one
   after the last (resolved). Read from the files' lines, as they are written
   (one `- alert: NAME` a rule; `eval_time`, `alertname`, `exp_alerts` an eval).
4. The rules file is tools/alert_rules.py's rendering of its template with
   the defaults, and rendered with another selector, every series an
   expression reads (ratewall_*, up) carries that selector: none is left to
   every job, none is pinned to job="ratewall".
5. Every alert has a runbook_url, a path of the repository with a #section
   that is a heading of that Markdown file.

Usage: check_alert_rules.py [ROOT]   (default: this tree). Exits 1 on any finding.
"""
import os
import re
import subprocess
import sys

RULES = os.path.join("dist", "ratewall.rules.yml")
TEMPLATE = os.path.join("dist", "ratewall.rules.yml.in")
TESTS = os.path.join("tests", "prometheus", "ratewall.rules.test.yml")
# A selector no real job has: what the rendering must put in every series read.
PROBE = 'job="selector_probe"'
# A series an expression reads: a metric of ours or up, not a recorded name (a:b:c).
SERIES = re.compile(r"(?<![\w:])(ratewall_\w+|up)(?![\w:])(\{[^}]*\})?")
UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds(duration):
    parts = re.findall(r"(\d+)(ms|s|m|h|d)", duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise ValueError(f"eval_time {duration!r} is not a duration")
    return sum(int(n) * UNITS[u] for n, u in parts)


def alerts_of(rules_text):
    return re.findall(r"^\s*-\s*alert:\s*(\w+)\s*$", rules_text, re.M)


def evals_of(tests_text):
    """{alertname: ([times it fires], [times it must not])} from the test file's evals."""
    evals, time, name = {}, None, None
    for line in tests_text.splitlines():
        m = re.match(r"^\s*-?\s*eval_time:\s*(\S+)\s*$", line)
        if m:
            time, name = seconds(m.group(1)), None
            continue
        m = re.match(r"^\s*alertname:\s*(\w+)\s*$", line)
        if m:
            name = m.group(1)
            continue
        m = re.match(r"^\s*exp_alerts:\s*(\[\s*\])?\s*$", line)
        if m and time is not None and name:
            evals.setdefault(name, ([], []))[1 if m.group(1) else 0].append(time)
            time = name = None
    return evals


def coverage(alerts, evals):
    bad = []
    for a in alerts:
        fires, silent = evals.get(a, ([], []))
        if not fires:
            bad.append(f"{a}: no eval where it fires")
            continue
        if not any(t < min(fires) for t in silent):
            bad.append(f"{a}: no eval before it fires where it does not")
        if not any(t > max(fires) for t in silent):
            bad.append(f"{a}: no eval after it fires where it is resolved")
    for name in sorted(set(evals) - set(alerts)):
        bad.append(f"{name}: tested, but no such alert in {RULES}")
    return bad


def exprs_of(rules_text):
    """(line, expression) of every rule: `expr: X`, or a `>-` block's lines."""
    out, lines = [], rules_text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)expr:\s*(.*)$", line)
        if not m:
            continue
        if m.group(2) not in (">-", ">", "|", "|-"):
            out.append((i + 1, m.group(2)))
            continue
        body = []
        for nxt in lines[i + 1:]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= len(m.group(1)):
                break
            body.append(nxt.strip())
        out.append((i + 1, " ".join(body)))
    return out


def unselected(rules_text, selector):
    """Each series an expression reads without the selector, as 'line N: series'."""
    bad = []
    for line, expr in exprs_of(rules_text):
        for m in SERIES.finditer(expr):
            if selector not in (m.group(2) or ""):
                bad.append(f"line {line}: {m.group(0)}")
    return bad


def rendering(root):
    """Findings on the shipped file against the template's renderings."""
    sys.path.insert(0, os.path.join(root, "tools"))
    try:
        import alert_rules
    finally:
        sys.path.pop(0)
    with open(os.path.join(root, TEMPLATE), encoding="utf-8") as f:
        template = f.read()
    with open(os.path.join(root, RULES), encoding="utf-8") as f:
        shipped = f.read()
    bad = []
    if shipped != alert_rules.render(template):
        bad.append(f"{RULES} is not the rendering of {TEMPLATE}; run: python3 tools/alert_rules.py")
    probe = alert_rules.render(template, PROBE)
    bad += [f"rendered for {PROBE}, {b} does not carry it" for b in unselected(probe, PROBE)]
    if re.search(r'job\s*=\s*"ratewall"', probe):
        bad.append(f'rendered for {PROBE}, it still names job="ratewall"')
    return bad


def runbooks(root, rules_text):
    """Each alert without a runbook_url to a heading of a Markdown file of the tree."""
    sys.path.insert(0, os.path.join(root, "tests", "layout"))
    try:
        import check_prose
    finally:
        sys.path.pop(0)
    bad, alert = [], None
    urls = {}
    for line in rules_text.splitlines():
        m = re.match(r"^\s*-\s*alert:\s*(\w+)\s*$", line)
        if m:
            alert = m.group(1)
        m = re.match(r'^\s*runbook_url:\s*"?([^"#\s]+)#([\w-]+)"?\s*$', line)
        if m and alert:
            urls[alert] = (m.group(1), m.group(2))
    for a in alerts_of(rules_text):
        if a not in urls:
            bad.append(f"{a}: no runbook_url (PATH#section)")
            continue
        path, section = urls[a]
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            bad.append(f"{a}: runbook_url {path}: no such file")
        elif section not in check_prose.anchors(full):
            bad.append(f"{a}: runbook_url {path}#{section}: no such heading")
    return bad


def promtool(*args):
    r = subprocess.run(["promtool", *args], capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    rules, tests = os.path.join(root, RULES), os.path.join(root, TESTS)
    failed = 0
    for what, args in (("promtool check rules", ("check", "rules", rules)),
                       ("promtool test rules", ("test", "rules", tests))):
        try:
            rc, out = promtool(*args)
        except OSError as e:
            rc, out = 1, f"cannot run promtool: {e}"
        print(out)
        print(f"{'ok  ' if rc == 0 else 'FAIL'} {what} (exit {rc})")
        failed += rc != 0
    try:
        with open(rules, encoding="utf-8") as f:
            text = f.read()
        alerts = alerts_of(text)
        with open(tests, encoding="utf-8") as f:
            bad = coverage(alerts, evals_of(f.read()))
    except (OSError, ValueError) as e:
        alerts, bad, text = [], [str(e)], ""
    try:
        shaped = rendering(root) + runbooks(root, text)
    except (OSError, ValueError, ImportError) as e:
        shaped = [f"cannot check the rendering: {e}"]
    for b in shaped:
        print(f"FAIL {b}")
    if not shaped:
        print(f"ok   {RULES} is {TEMPLATE} rendered; every series read carries the selector; "
              f"every alert has a runbook")
    failed += bool(shaped)
    if not alerts and not bad:
        bad = [f"no alert in {RULES}"]
    for b in bad:
        print(f"FAIL {b}")
    if not bad:
        print(f"ok   each of the {len(alerts)} alerts is tested silent, firing, then resolved: {' '.join(alerts)}")
    failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
