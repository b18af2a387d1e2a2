#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""make bench-ab BASE=<rev>: the throughput rows of `make bench` for BASE and
for the working tree (HEAD), interleaved on one machine, so that a change to
bpf/ or include/ is judged against the same machine in the same minutes.

BASE is checked out with `git worktree add --detach` in BUILD/ab/base and built
there (`make all` and the toys); the worktree is removed at the end, also when
the run fails or is interrupted. Both builds are driven by HEAD's generator
and HEAD's setup of each case, between the two namespaces rig.py creates (as
make bench does). Each round measures every case of every row once for each
build, one right after the other with the same source order: BASE first in
even rounds, HEAD first in odd ones (ABBA), so that a drift of the machine
touches both alike.

Prints, a case a line, BASE's and HEAD's median Mpps and the median of the
rounds' ratios HEAD/BASE with their min-max, and flags those below 0.97. A
case whose program is the same in both builds (the kernel's tag of its
instructions) is marked so: its ratios are the machine's noise, which a line
of its own sums up. Writes bench/results/ab-<run>.json (not kept in git). BENCH_QUICK=1: 1 M
frames a run and no million-source row. Left out: the cases whose program is
the kernel's (nftables, iptables: the same for both builds), those BASE's
benchmark does not have, and those that fail on either build; each is named.
Exits non-zero when it cannot run, or when no case could be measured on both
builds (then nothing is saved).
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import results as runs
import rig
from cases import MEASURED_ROWS, PACKETS, QUICK
from rig import NCPUS, Ratewall, Testbed, log, sh
from throughput import case_setups, throughput

SIDES = ("base", "head")
FLAG_BELOW = 0.97
# Cases whose program is not the build's: the kernel's nftables and iptables.
NOT_BUILT = ("nft_meter", "iptables_hashlimit")
# make's own variables, which a make above us passes down: BASE's build must not see them.
MAKE_ENV = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "BUILD", "BASE", "ROUNDS", "ROWS")


def git(*args, check=True):
    return sh(["git", "-C", rig.ROOT, *args], check=check).strip()


def resolve(rev):
    """The commit a revision names, or None."""
    r = subprocess.run(["git", "-C", rig.ROOT, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 and rev.strip() else None


class BaseTree:
    """BASE in a detached worktree under the HEAD build, built with its own Makefile."""

    def __init__(self, build, commit):
        self.path = os.path.join(build, "ab", "base")
        self.log = os.path.join(build, "ab", "base-build.log")
        self.build = os.path.join(self.path, "build")
        self.commit = commit

    def add(self):
        self.remove()  # one a killed run left
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        git("worktree", "add", "--detach", self.path, self.commit)

    def make(self):
        """make all and BASE's own toys (its Makefile's TOYS, none if it has none)."""
        env = {k: v for k, v in os.environ.items() if k not in MAKE_ENV}
        make = ["make", "-C", self.path, "--no-print-directory", "BUILD=build"]
        # A recipe is expanded after every makefile is read: it sees the Makefile's TOYS.
        toys = sh(make + ["--eval", "ab-toys: ; @echo $(TOYS)", "ab-toys"], env=env).split()
        with open(self.log, "w") as f:
            r = subprocess.run(make + [f"-j{NCPUS}", "all", *toys],
                               stdout=f, stderr=subprocess.STDOUT, env=env, timeout=1800)
        if r.returncode != 0:
            with open(self.log) as f:
                tail = "".join(f.readlines()[-15:])
            raise RuntimeError(f"BASE {self.commit[:12]} does not build (make exit {r.returncode}; "
                               f"all of it in {self.log}):\n{tail}")

    def rows(self):
        """The (row, case) pairs BASE's benchmark has (its bench/cases.py), or None if it has none."""
        bench = os.path.join(self.path, "bench")
        code = ("import json, cases; rows = getattr(cases, 'ROWS_ALL', None) or cases.ROWS; "
                "print(json.dumps([[r[0], c] for r in rows for c in r[5]]))")
        r = subprocess.run([sys.executable, "-c", code], cwd=bench, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            return None
        return {tuple(p) for p in json.loads(r.stdout)}

    def remove(self):
        if os.path.exists(os.path.join(self.path, ".git")):
            git("worktree", "remove", "--force", self.path, check=False)
        if os.path.exists(self.path):
            shutil.rmtree(self.path)
        git("worktree", "prune", check=False)


def plan(base_pairs, only):
    """The (row, case) pairs to measure, and those left out with why."""
    todo, skipped = [], []
    for row in MEASURED_ROWS:
        if only and row[0] not in only:
            continue
        for case in row[5]:
            if case in NOT_BUILT:
                continue
            if base_pairs is not None and (row[0], case) not in base_pairs:
                skipped.append({"row": row[0], "case": case, "why": "not in BASE's bench/cases.py"})
            else:
                todo.append((row, case))
    return todo, skipped


FAILS = (RuntimeError, subprocess.TimeoutExpired, ValueError, OSError)


def once(tb, for_case, row, case, rnd):
    """One measured run of a case on the build rig.BUILD names; a failure is tried once more
    (on a shared machine a neighbour's burst can starve a check run)."""
    for attempt in (1, 2):
        try:
            return throughput(tb, row, case, *for_case(row, case), runs=1, seed=3 + rnd)
        except FAILS as e:
            if attempt == 2:
                raise
            log(f"  {row[0]:13s} {case:20s} {e}; once more")


def measure(tb, for_case, builds, todo, rounds, skipped):
    """Every case of todo, for each build, over the rounds (ABBA); the runs, a dict a build a round.
    A case that fails on either build in the first round is left out (into skipped)."""
    out = []
    dead = set()
    for rnd in range(rounds):
        order = SIDES if rnd % 2 == 0 else SIDES[::-1]
        log(f"ab: round {rnd + 1} of {rounds}, {order[0].upper()} first")
        for row, case in todo:
            if (row[0], case) in dead:
                continue
            got = {}
            for side in order:
                rig.BUILD = builds[side]
                try:
                    r = once(tb, for_case, row, case, rnd)
                    got[side] = {k: r[k] for k in ("mpps", "sent", "dropped_by_case", "prog_ns_in_situ",
                                                   "prog_tag") if k in r}
                except FAILS as e:
                    got[side] = {"error": str(e)[:300]}
                    if rnd == 0:  # a case that cannot run on one side is left out from the start
                        dead.add((row[0], case))
                        skipped.append({"row": row[0], "case": case, "why": f"{side.upper()}: {str(e)[:200]}"})
                        break
            for side, g in got.items():
                out.append({"row": row[0], "case": case, "round": rnd, "build": side, **g})
            if (row[0], case) in dead:
                log(f"  {row[0]:13s} {case:20s} skipped: {skipped[-1]['why']}")
            elif all("mpps" in got[s] for s in SIDES):
                log(f"  {row[0]:13s} {case:20s} BASE {got['base']['mpps']:7.3f}  HEAD {got['head']['mpps']:7.3f}"
                    f"  {got['head']['mpps'] / got['base']['mpps']:6.3f}")
            else:
                log(f"  {row[0]:13s} {case:20s} error: " + "; ".join(
                    f"{s.upper()}: {g['error']}" for s, g in got.items() if "error" in g))
    rig.BUILD = builds["head"]
    return out


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summarize(measured, todo):
    """A line a case: the medians of each build, the median of the rounds' ratios and their range."""
    lines = []
    for row, case in todo:
        runs_of = {s: {m["round"]: m for m in measured if m["row"] == row[0] and m["case"] == case
                       and m["build"] == s and "mpps" in m} for s in SIDES}
        both = sorted(set(runs_of["base"]) & set(runs_of["head"]))
        if not both:
            continue
        ratios = [runs_of["head"][r]["mpps"] / runs_of["base"][r]["mpps"] for r in both]
        line = {"row": row[0], "case": case, "rounds": len(both),
                "base_mpps": round(median([runs_of["base"][r]["mpps"] for r in both]), 3),
                "head_mpps": round(median([runs_of["head"][r]["mpps"] for r in both]), 3),
                "ratio": round(median(ratios), 3), "ratio_min": round(min(ratios), 3),
                "ratio_max": round(max(ratios), 3), "ratios": [round(x, 3) for x in ratios]}
        # The same instructions on both sides (the kernel's tag): its ratios are the machine's noise.
        tags = {s: {runs_of[s][r].get("prog_tag") for r in both} for s in SIDES}
        line["same_program"] = tags["base"] == tags["head"] and None not in tags["base"] and len(tags["base"]) == 1
        # What the case dropped, a share of what it was sent: a build that lets a flood
        # through is faster for it, and must not pass for an improvement.
        for s in SIDES:
            shares = [runs_of[s][r]["dropped_by_case"] / runs_of[s][r]["sent"] for r in both
                      if "dropped_by_case" in runs_of[s][r] and runs_of[s][r]["sent"]]
            if shares:
                line[f"{s}_dropped_share"] = round(median(shares), 4)
        lines.append(line)
    return lines


def table(res):
    """The comparison, a case a line, as printed at the end of a run."""
    out = [f"A/B, {res['rounds']} round{'s' if res['rounds'] > 1 else ''} ({'quick, ' if res['quick'] else ''}{res['packets_per_run']} frames "
           f"a run), {res['machine']['cpu_model']}, {res['machine']['cores']} cores, "
           f"kernel {res['machine']['kernel']}",
           f"BASE {res['base']['commit'][:12]} ({res['base']['rev']}), HEAD {res['head']['commit'][:12]}"
           + (" with uncommitted changes" if res["head"]["dirty"] else ""),
           "",
           f"{'row':14s}{'case':21s}{'BASE Mpps':>10s}{'HEAD Mpps':>10s}{'HEAD/BASE':>10s}  {'min-max':13s}"]
    for l in res["lines"]:
        note = ""
        if l["ratio"] < FLAG_BELOW:
            note = f"below {FLAG_BELOW}x" + (" in every round" if l["ratio_max"] < FLAG_BELOW else "")
        if l.get("same_program"):
            note += ("; " if note else "") + "same program"
        b, h = l.get("base_dropped_share"), l.get("head_dropped_share")
        if b is not None and h is not None and abs(b - h) > 0.01:
            note += ("; " if note else "") + f"HEAD drops {h:.1%} of what it is sent, BASE {b:.1%}"
        out.append(f"{l['row']:14s}{l['case']:21s}{l['base_mpps']:10.3f}{l['head_mpps']:10.3f}"
                   f"{l['ratio']:10.3f}  {l['ratio_min']:.3f}-{l['ratio_max']:.3f}  {note}".rstrip())
    changed = [l for l in res["lines"] if not l.get("same_program")]
    same = [l for l in res["lines"] if l.get("same_program")]
    slower = [l for l in changed if l["ratio"] < FLAG_BELOW]
    out += ["", f"{len(res['lines'])} cases compared, {len(changed)} with a program that differs between "
            f"the builds, {len(slower)} of those below {FLAG_BELOW}x (the median of the rounds' ratios)"
            + (": " + ", ".join(f"{l['row']} {l['case']}" for l in slower) if slower else "")]
    if same:
        # What this run's noise is: the cases whose program did not change.
        meds = [l["ratio"] for l in same]
        every = [x for l in same for x in l["ratios"]]
        out.append(f"noise in this run, from the {len(same)} cases whose program is the same in both builds: "
                   f"medians {min(meds):.3f}-{max(meds):.3f}, single rounds {min(every):.3f}-{max(every):.3f}")
    if res["skipped"]:
        out.append("left out:")
        out += [f"  {s['row']} {s['case']}: {s['why']}" for s in res["skipped"]]
    out.append(f"not compared in any row: {', '.join(NOT_BUILT)} (the kernel's, the same for both builds)")
    return "\n".join(out)


def interrupted(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def run(build, base_rev, rounds, only):
    base_commit = resolve(base_rev)
    if not base_commit:
        log(f"bench-ab: BASE={base_rev!r} names no commit of this repository (git rev-parse)")
        return 2
    if os.geteuid() != 0:
        log("bench-ab: needs root (namespaces, BPF); run: sudo make bench-ab BASE=...")
        return 1
    unknown = sorted(set(only) - {r[0] for r in MEASURED_ROWS})
    if unknown:
        log(f"bench-ab: no such row{'s' if len(unknown) > 1 else ''} here: {', '.join(unknown)} "
            f"(rows: {', '.join(r[0] for r in MEASURED_ROWS)})")
        return 2
    rig.BUILD = build
    rig.GEN = os.path.join(build, "rwgen")  # one generator for both builds
    # Ctrl-C and SIGTERM end the run through the cleaning up below, even where
    # SIGINT came ignored (a background job of a shell).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupted)
    started = time.time()
    res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "quick": QUICK, "machine": rig.machine(), "packets_per_run": PACKETS, "frame_bytes": 64,
           "rounds": rounds, "base": {"rev": base_rev, "commit": base_commit},
           "head": {"commit": git("rev-parse", "HEAD"),
                    "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}}
    base = BaseTree(build, base_commit)
    try:
        held = rig.lock()
    except RuntimeError as e:
        log(f"bench-ab: {e}")
        return 1
    stats_was = sh(["sysctl", "-n", "kernel.bpf_stats_enabled"]).strip()
    try:
        log(f"bench-ab: BASE {base_commit[:12]} into {base.path}")
        base.add()
        log(f"bench-ab: building BASE (log: {base.log})")
        base.make()
        base_pairs = base.rows()
        todo, skipped = plan(base_pairs, only)
        if base_pairs is None:
            log("bench-ab: BASE has no bench/cases.py: every case is tried, those that fail are left out")
        tb = Testbed(1)
        # As make bench: the stack takes IPv6 (what the pass rows send goes up it).
        sh(tb.rcv_cmd("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=0"))
        sh(tb.rcv_cmd("sysctl", "-qw", f"net.ipv6.conf.{tb.rx}.disable_ipv6=0"))
        log(f"bench-ab: {len(todo)} cases, {rounds} rounds, {PACKETS} frames a run, generator on CPU 0")
        res["measured"] = measure(tb, case_setups(tb), {"base": base.build, "head": build}, todo, rounds, skipped)
        res["lines"], res["skipped"] = summarize(res["measured"], todo), skipped
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        log(f"bench-ab: could not run: {e}")
        return 1
    except KeyboardInterrupt:
        log("bench-ab: interrupted; cleaning up")
        return 130
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):  # let the cleaning up finish
            signal.signal(sig, signal.SIG_IGN)
        Ratewall.stop_all()
        rig.testbed_down()  # also one whose making the interrupt cut short
        sh(["sysctl", "-qw", f"kernel.bpf_stats_enabled={stats_was}"], check=False)
        base.remove()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        held.close()
    res["seconds"] = round(time.time() - started, 1)
    print(table(res))
    if not res["lines"]:
        log("bench-ab: no case was measured on both builds (left out: above): nothing compared, nothing saved")
        return 1
    name = runs.save_ab(res)
    log(f"bench-ab: done in {res['seconds']} s; results in bench/results/{name}.json")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", nargs="?", default=os.path.join(rig.ROOT, "build"),
                   help="HEAD's build directory (default: build/); BASE is built in BUILD/ab/base")
    p.add_argument("--base", metavar="REV", help="the git revision to compare against (required)")
    p.add_argument("--rounds", type=int, default=3, metavar="N", help="rounds, each build once a case (default 3)")
    p.add_argument("--rows", default="", metavar="KEY,...", help="these rows only (keys as in cases.py)")
    p.add_argument("--table", metavar="RESULT", help="measure nothing: print the table of a saved A/B result")
    a = p.parse_args()
    if a.table:
        print(table(runs.load(a.table)))
        return 0
    if not a.base:
        p.error("--base REV is required (make bench-ab BASE=<rev>)")
    if a.rounds < 1:
        p.error("--rounds must be 1 or more")
    only = [k for k in a.rows.split(",") if k]
    return run(os.path.abspath(a.build), a.base, a.rounds, only)


if __name__ == "__main__":
    sys.exit(main())
