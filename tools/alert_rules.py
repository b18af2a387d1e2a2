#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Renders dist/ratewall.rules.yml from its template, dist/ratewall.rules.yml.in.

The template's @SELECTOR@ becomes the label matchers that pick the ratewall
targets (node_exporter's mixin calls it nodeExporterSelector), in every
expression; @RUNBOOKS@ the address of the runbooks, docs/alerts.md, before
each alert's #anchor. The shipped file is the rendering with the defaults;
tests/harness/check_alert_rules.py fails when it is not.

Usage: tools/alert_rules.py [--selector MATCHERS] [--runbooks URL] [OUT]
  --selector  default job="ratewall"; e.g. 'job="edge",env="prod"'
  --runbooks  default docs/alerts.md (the repository's path); e.g.
              https://git.example.org/ratewall/blob/main/docs/alerts.md
  OUT         default dist/ratewall.rules.yml beside this script; - for stdout
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "dist", "ratewall.rules.yml.in")
DEFAULT_OUT = os.path.join(HERE, "..", "dist", "ratewall.rules.yml")
DEFAULT_SELECTOR = 'job="ratewall"'
DEFAULT_RUNBOOKS = "docs/alerts.md"

# One PromQL matcher: a label name, an operator, a double-quoted value.
MATCHER = r'\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:=~|!~|!=|=)\s*"(?:[^"\\\n]|\\.)*"\s*'
SELECTOR = re.compile(rf"^{MATCHER}(?:,{MATCHER})*$")


def check_selector(sel):
    """None when sel is one matcher or more, separated by commas; else why not."""
    if not sel.strip():
        return 'it is empty; to take every target, give job=~".+"'
    if not SELECTOR.match(sel):
        return 'it must be matchers such as job="ratewall" or job="edge",env=~"prod|dr"'
    return None


def render(template, selector=DEFAULT_SELECTOR, runbooks=DEFAULT_RUNBOOKS):
    out = template.replace("@SELECTOR@", selector.strip()).replace("@RUNBOOKS@", runbooks)
    # The template's own header is about the template; the rendering says what it is.
    header = (f"# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause\n"
              f"# Prometheus recording and alerting rules for ratewall's /metrics, rendered by\n"
              f"# tools/alert_rules.py from dist/ratewall.rules.yml.in (edit that, not this)\n"
              f"# for the targets {{{selector.strip()}}}. Another selector:\n"
              f"#   python3 tools/alert_rules.py --selector 'job=\"edge\"' OUT\n"
              f"# Load it with rule_files: [\"/etc/prometheus/ratewall.rules.yml\"].\n")
    return header + out[out.index("groups:"):]


def main(argv):
    ap = argparse.ArgumentParser(description="Render ratewall's Prometheus rules for a selector.")
    ap.add_argument("--selector", default=DEFAULT_SELECTOR)
    ap.add_argument("--runbooks", default=DEFAULT_RUNBOOKS)
    ap.add_argument("out", nargs="?", default=DEFAULT_OUT)
    a = ap.parse_args(argv)
    why = check_selector(a.selector)
    if why:
        print(f"alert_rules.py: --selector '{a.selector}': {why}", file=sys.stderr)
        return 2
    if not a.runbooks.strip() or any(c in a.runbooks for c in '"#\n'):
        print(f"alert_rules.py: --runbooks '{a.runbooks}': give a path or URL without quotes or '#'",
              file=sys.stderr)
        return 2
    with open(TEMPLATE, encoding="utf-8") as f:
        text = render(f.read(), a.selector, a.runbooks)
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
