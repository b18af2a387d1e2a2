#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""make bench: ratewall against an XDP drop-all floor, the least state a
per-source limiter can keep (reference programs: the parse alone, 8 and 64
bytes a source, direct-mapped), nftables and iptables, side by side, in one run
on one machine.

Everything runs between two network namespaces this script creates and removes
(tests/harness/testbed.sh). Frames come from the project's generator
(tools/rwgen/: BPF_PROG_RUN with live frames) pinned to CPU 0; the receiving
veth's NAPI runs on the same CPU, so each throughput figure is what one core
sustains for generator + receiver.

Prints a table, writes bench/results/<run>.json and bench/results/latest.json,
and renders docs/performance.md from it. Exits non-zero only when it cannot
run, or when no throughput case could be measured (then nothing is saved).
BENCH_QUICK=1 keeps it under two minutes.

The parts: cases.py (what is measured), rig.py (the namespaces and processes),
throughput.py and measure.py (the measurements), targets.py (which targets a
result meets), render.py (the table and the page), results.py (where runs are kept).
"""
import argparse
import datetime
import os
import subprocess
import sys
import time

import measure
import render
import results as runs
import rig
from cases import PACED_LIMIT, PACKETS, QUICK, TCP_DELAY
from rig import NCPUS, Testbed, log, sh
from throughput import run_throughput


def measure_all(results):
    """Every measurement in turn, into results; the testbed is rebuilt for each kind."""
    try:
        log("bench: per-packet program cost")
        results["progcost"] = measure.run_progcost()
        results["memory"] = measure.run_memory()
        log("bench: userspace tick")
        results["tick"] = measure.run_tick()
        log("bench: decisions against an exact sliding log")
        results["decisions"] = measure.run_decisions()
        tb = Testbed(1)
        # The stack must take IPv6 for ip6tables to see it (the testbed turns it off).
        sh(tb.rcv_cmd("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=0"))
        sh(tb.rcv_cmd("sysctl", "-qw", f"net.ipv6.conf.{tb.rx}.disable_ipv6=0"))
        log(f"bench: throughput, {PACKETS} frames per run, generator on CPU 0")
        results["throughput"] = run_throughput(tb)
        log("bench: loader tick under a flood of a million new sources per window")
        results["live_tick"] = measure.run_live_tick(tb)
        tb.down()
        tb = Testbed(NCPUS)
        log("bench: accuracy on the veth")
        results["accuracy"] = measure.run_accuracy(tb)
        tb.down()
        tb = Testbed(1)
        log("bench: one TCP flow through a 10 Mbit/s cap")
        results["tcp"] = measure.run_tcp(tb, "50 us")
        tb.down()
        tcp_seconds = 6 * (5 if QUICK else 10) + 6 * 30  # every run, and room for each to time out
        tb = Testbed(1, delay=TCP_DELAY, seconds=tcp_seconds)
        results["tcp"] += measure.run_tcp(tb, "20 ms")
    finally:
        rig.testbed_down()  # also one whose making an interrupt cut short


def run(build):
    if os.geteuid() != 0:
        log("bench: needs root (namespaces, BPF); run: sudo make bench")
        return 1
    rig.BUILD = build
    started = time.time()
    results = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "quick": QUICK, "machine": rig.machine(), "packets_per_run": PACKETS, "frame_bytes": 64,
               "paced_limit": PACED_LIMIT}
    try:
        held = rig.lock()
    except RuntimeError as e:
        log(f"bench: {e}")
        return 1
    stats_was = sh(["sysctl", "-n", "kernel.bpf_stats_enabled"]).strip()
    try:
        measure_all(results)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        log(f"bench: could not run: {e}")
        return 1
    finally:
        sh(["sysctl", "-qw", f"kernel.bpf_stats_enabled={stats_was}"], check=False)
        held.close()
    results["seconds"] = round(time.time() - started, 1)
    # A run without a throughput figure (a generator the kernel refuses, say)
    # must not take latest.json's place, nor the page's.
    if not any("mpps" in r for r in results.get("throughput", [])):
        why = next((r["error"] for r in results.get("throughput", []) if "error" in r), "no case ran")
        log(f"bench: no throughput case could be measured (the first: {why}): nothing saved; "
            "latest.json and docs/performance.md are as they were")
        return 1
    print(render.table(results))
    name = runs.save(results)
    runs.write_page(render.page(results, name))
    log(f"bench: done in {results['seconds']} s; results in bench/results/{name}.json, "
        "the page in docs/performance.md")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", nargs="?", default=os.path.join(rig.ROOT, "build"),
                   help="the build directory whose binaries run (default: build/)")
    p.add_argument("--report", nargs="*", metavar="FILE",
                   help="measure nothing: render docs/performance.md from a saved result; "
                        "--report [RESULT [PAGE]] (default: bench/results/latest.json and docs/performance.md)")
    p.add_argument("--table", nargs="?", const=runs.LATEST, metavar="RESULT",
                   help="measure nothing: print the table of a saved result (default: latest.json)")
    a = p.parse_args()
    if a.report is not None:
        if len(a.report) > 2:
            p.error("--report takes at most RESULT and PAGE")
        source, page = (a.report + [runs.LATEST, runs.PAGE][len(a.report):])[:2]
        results = runs.load(source)
        runs.write_page(render.page(results, runs.run_id(results)), page)
        return 0
    if a.table:
        print(render.table(runs.load(a.table)))
        return 0
    return run(os.path.abspath(a.build))


if __name__ == "__main__":
    sys.exit(main())
