#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What libxdp's dispatcher costs ratewall a packet: the benchmark's 64 Ki row
(cases.py "64k_over") with ratewall alone on the interface and alone in the
dispatcher (--xdp-mode multi), interleaved in rounds on one testbed (each
round in the other order), so both meet the same machine in the same state.

Writes bench/results/dispatcher.json, which `bench.py --report` renders into
docs/performance.md's section on the dispatcher (--no-save: print only). A
kernel that refuses extension programs, which the dispatcher runs, cannot be
measured: it says so and exits 0. The guests of `make test-cpus` run Debian's
6.12, which allows them:
  tests/cpus/guest/boot.sh 2 env RW_HOST_CPU="..." python3 bench/dispatcher.py build
(RW_HOST_CPU: the host's CPU, which an emulated guest's /proc/cpuinfo does not name).

Usage: python3 bench/dispatcher.py [BUILD_DIR] [--rounds N] [--no-save]"""
import argparse
import datetime
import json
import os
import statistics
import sys

import results as runs
import rig
from cases import MULTI_CASE, MULTI_REFUSED, PACKETS, ROWS, RUNS
from rig import Testbed, log, sh
from throughput import case_setups, throughput

ROW = next(r for r in ROWS if r[0] == "64k_over")
CASES = ("ratewall", MULTI_CASE)


def measure(rounds):
    """Each round both cases (throughput(): warm-up, a stats-on run, RUNS measured runs)."""
    tb = Testbed(1)
    try:
        for_case = case_setups(tb)
        out = []
        for i in range(rounds):
            rnd = {"round": i + 1, "order": list(CASES if i % 2 == 0 else reversed(CASES))}
            for case in rnd["order"]:
                try:
                    r = throughput(tb, ROW, case, *for_case(ROW, case), seed=3 + i)
                except RuntimeError as e:
                    if MULTI_REFUSED in str(e):
                        return None
                    raise
                rnd[case] = {k: r.get(k) for k in ("mpps", "runs_mpps", "prog_ns_in_situ", "dropped_by_case",
                                                   "sent")}
                log(f"  round {i + 1}: {case:15s} {r['mpps']:.3f} Mpps, in situ {r.get('prog_ns_in_situ')} ns")
            out.append(rnd)
        return out
    finally:
        rig.Ratewall.stop_all()
        rig.testbed_down()


def summary(rounds):
    """Per round the dispatcher's cost a packet (1/Mpps in dispatcher - 1/Mpps alone, ns)
    and in situ; the medians."""
    for r in rounds:
        a, m = r["ratewall"], r[MULTI_CASE]
        r["cost_ns"] = round(1e3 / m["mpps"] - 1e3 / a["mpps"], 1)
        if a.get("prog_ns_in_situ") is not None and m.get("prog_ns_in_situ") is not None:
            r["cost_ns_in_situ"] = round(m["prog_ns_in_situ"] - a["prog_ns_in_situ"], 1)
    med = {"ratewall_mpps": statistics.median(r["ratewall"]["mpps"] for r in rounds),
           "multi_mpps": statistics.median(r[MULTI_CASE]["mpps"] for r in rounds),
           "cost_ns": statistics.median(r["cost_ns"] for r in rounds)}
    insitu = [r["cost_ns_in_situ"] for r in rounds if "cost_ns_in_situ" in r]
    if insitu:
        med["cost_ns_in_situ"] = statistics.median(insitu)
    return med


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build", nargs="?", default=os.path.join(rig.ROOT, "build"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--no-save", action="store_true")
    a = p.parse_args()
    if os.geteuid() != 0:
        log("dispatcher: needs root (namespaces, BPF)")
        return 1
    if a.rounds < 1:
        p.error("--rounds: at least 1")
    rig.BUILD = os.path.abspath(a.build)
    res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": rig.machine(), "host_cpu": os.environ.get("RW_HOST_CPU", "").strip() or None,
           "row": ROW[0], "label": ROW[1], "packets_per_run": PACKETS, "runs_per_case": RUNS}
    held = rig.lock()
    stats_was = sh(["sysctl", "-n", "kernel.bpf_stats_enabled"]).strip()
    try:
        log(f"dispatcher: {ROW[1]}, ratewall alone and in libxdp's dispatcher, {a.rounds} rounds")
        rounds = measure(a.rounds)
    finally:
        sh(["sysctl", "-qw", f"kernel.bpf_stats_enabled={stats_was}"], check=False)
        held.close()
    if rounds is None:
        log(f"dispatcher: skipped: Linux {res['machine']['kernel']} refuses extension programs, "
            "which libxdp's dispatcher runs")
        return 0
    res["rounds"] = rounds
    res["median"] = summary(rounds)
    print(json.dumps(res, indent=1))
    if not a.no_save:
        with open(runs.DISPATCHER, "w") as f:
            json.dump(res, f, indent=1)
        log(f"dispatcher: saved to {os.path.relpath(runs.DISPATCHER, rig.ROOT)}; "
            "python3 bench/bench.py --report renders it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
