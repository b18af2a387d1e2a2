# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the results of `make bench` are kept: bench/results/<run>.json for each
run, latest.json a copy of the newest, and the page docs/performance.md
rendered from latest.json; and those of `make bench-ab` (bench/ab.py):
bench/results/ab-<run>.json, which git does not keep."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
LATEST = os.path.join(RESULTS, "latest.json")
# What libxdp's dispatcher costs (bench/dispatcher.py, in a guest whose kernel runs it).
DISPATCHER = os.path.join(RESULTS, "dispatcher.json")
PAGE = os.path.join(ROOT, "docs", "performance.md")


def run_id(results):
    """A run's name: its start, UTC, 20261126T042822Z."""
    return results["date"].replace(":", "").replace("-", "")


def load(path=LATEST):
    with open(path) as f:
        return json.load(f)


def save(results):
    """Writes the run as <run>.json and latest.json; returns the run's name."""
    os.makedirs(RESULTS, exist_ok=True)
    name = run_id(results)
    for path in (os.path.join(RESULTS, f"{name}.json"), LATEST):
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
    return name


def save_ab(results):
    """Writes an A/B run as ab-<run>.json; returns its name."""
    os.makedirs(RESULTS, exist_ok=True)
    name = "ab-" + run_id(results)
    with open(os.path.join(RESULTS, f"{name}.json"), "w") as f:
        json.dump(results, f, indent=1)
    return name


def write_page(text, path=PAGE):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
