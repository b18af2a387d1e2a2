#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench and make bench-ab when no throughput case could be measured (a
# kernel that refuses the generator's live frames, a generator that fails):
# each exits 1 and saves nothing, so an empty run never takes latest.json's
# or docs/performance.md's place, nor reads as an A/B that found no
# regression (both exited 0 and saved before, bench-ab with "0 cases
# compared"). With one case measured, each saves as before. The scripts'
# own run() with the rig's namespaces, programs and lock stubbed out: no
# root, no network.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT/bench" || exit 1
python3 - <<'PY'
import os
import sys

sys.path.insert(0, ".")
import ab
import bench
import results as runs
import rig

passed = failed = 0


def check(what, cond):
    global passed, failed
    print(("ok   " if cond else "FAIL ") + what)
    passed, failed = passed + bool(cond), failed + (not cond)


class Lock:
    def close(self):
        pass


saved = []
runs.save = lambda res: saved.append("run") or "run"
runs.write_page = lambda text: saved.append("page")
runs.save_ab = lambda res: saved.append("ab") or "ab-run"
rig.lock = Lock
rig.testbed_down = lambda: None
os.geteuid = lambda: 0
refused = {"row": "one_over", "case": "ratewall", "error": "rwgen: this kernel refuses to send live frames"}
measured = {"row": "one_over", "case": "ratewall", "mpps": 5.0}

# make bench
bench.sh = lambda *a, **k: "0"
bench.render.table = lambda res: "(table)"
bench.render.page = lambda res, name: "(page)"
for rows, rc_wanted, saves in (([refused, dict(refused, case="xdp_drop_all")], 1, []), ([refused, measured], 0, ["run", "page"])):
    bench.measure_all = lambda res, rows=rows: res.update(throughput=rows)
    saved.clear()
    rc = bench.run("build")
    check(f"make bench, {sum('mpps' in r for r in rows)} of {len(rows)} throughput cases measured: "
          f"exit {rc_wanted}, saves {saves or 'nothing'} (exit {rc}, saved {saved})", rc == rc_wanted and saved == saves)


# make bench-ab
class Base:
    def __init__(self, build, commit):
        self.path = self.log = self.build = "base"

    def add(self):
        pass

    make = remove = add

    def rows(self):
        return None


class Bed:
    rx = "rx"

    def rcv_cmd(self, *a):
        return list(a)


ab.BaseTree, ab.Testbed, ab.sh, ab.git = Base, lambda n: Bed(), lambda *a, **k: "0", lambda *a, **k: "0" * 40
ab.resolve = lambda rev: "0" * 40
ab.case_setups = lambda tb: {}
ab.Ratewall.stop_all = staticmethod(lambda: None)
row = next(r for r in ab.MEASURED_ROWS if r[0] == "one_over")


def runs_of(ok):
    def measure(tb, setups, builds, todo, rounds, skipped):
        if not ok:
            skipped.append({"row": "one_over", "case": "ratewall", "why": "HEAD: " + refused["error"]})
            return [{"row": "one_over", "case": "ratewall", "round": 0, "build": "base", "error": refused["error"]}]
        return [{"row": "one_over", "case": "ratewall", "round": 0, "build": b, "mpps": 5.0, "prog_tag": b}
                for b in ("base", "head")]
    return measure


ab.plan = lambda base_pairs, only: ([(row, "ratewall")], [])
for ok, rc_wanted, saves in ((False, 1, []), (True, 0, ["ab"])):
    ab.measure = runs_of(ok)
    saved.clear()
    rc = ab.run("build", "HEAD", 1, [])
    check(f"make bench-ab, the case {'measured' if ok else 'left out'} on both builds: exit {rc_wanted}, "
          f"saves {saves or 'nothing'} (exit {rc}, saved {saved})", rc == rc_wanted and saved == saves)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
