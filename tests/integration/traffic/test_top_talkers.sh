#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# (d) 200 sources with known, distinct packet counts: ratewall's JSON top-10
# is the true top-10, in order, with exact counts; every JSON line follows the
# contract; idle flows are wiped once they leave the window.
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }

# Source i sends 200 + 13 * ((37 i) mod 200) packets: distinct, not in address order.
for i in $(seq 0 199); do echo $((200 + 13 * ((37 * i) % 200))); done >"$WORK/counts"

# A 20 s window holds the whole run, so window counts are the true totals.
start_ratewall "$WORK/d.json" --window 20s --slots 20 --top 10 --interval 500ms --json ||
	fail "ratewall starts"
gen --sources 200 --dist "counts:$WORK/counts" --rate 100k --duration 20s --per-source \
	>"$WORK/d.gen" || fail "generator runs"
sleep 1.2
stop_ratewall TERM; rc=$?
check "ratewall exits 0 on SIGTERM" test "$rc" -eq 0

python3 - "$WORK/counts" "$WORK/d.gen" "$WORK/d.json" <<'PY'
import ipaddress, json, sys

counts = [int(x) for x in open(sys.argv[1])]
gen = json.load(open(sys.argv[2]))
truth = {str(ipaddress.ip_address("198.18.0.1") + i): c for i, c in enumerate(counts)}
want = sorted(truth.items(), key=lambda kv: -kv[1])[:10]
lines = [json.loads(l) for l in open(sys.argv[3])]
results = []

def check(name, cond, detail=""):
    results.append(cond)
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else "  " + detail))

check("(d) the generator sent exactly the asked counts",
      gen["sent"] == sum(counts) and gen["per_source"] == truth, str(gen["sent"]))
last = lines[-1]
got = [(e["key"], e["packets"]) for e in last["top"]]
check("(d) JSON top-10 equals the true top-10, in order, with exact counts",
      got == want, f"got {got} want {want}")
check("(d) ranks are 1..10", [e["rank"] for e in last["top"]] == list(range(1, 11)))
check("(d) window totals hold every packet sent",
      last["totals"]["window_packets"] == sum(counts) and last["totals"]["flows"] == 200,
      str(last["totals"]))

# The contract in docs/json.md: these fields, these types, on every line.
top_fields = {"rank": int, "key": str, "packets": int, "bytes": int, "dropped": int,
              "pps": float, "bps": float, "limited": bool}
tot_fields = ["rx_packets", "rx_bytes", "passed", "dropped", "flows"]
def conforms(o):
    if not (isinstance(o["ts"], float) and isinstance(o["iface"], str)
            and isinstance(o["window_ms"], (int, float)) and isinstance(o["slots"], int)):
        return False
    if not all(isinstance(o["totals"][k], int) for k in tot_fields):
        return False
    return all(isinstance(e[k], t) for e in o["top"] for k, t in top_fields.items())
check("(d) every JSON line follows the contract", all(conforms(o) for o in lines) and len(lines) >= 3,
      f"{len(lines)} lines")
check("(d) window_ms and slots say what was asked",
      last["window_ms"] == 20000 and last["slots"] == 20)
b = last["top"][0]
check("(d) bytes are 64 per frame and bps is 8 x bytes / s",
      b["bytes"] == 64 * b["packets"] and abs(b["bps"] - 8 * 64 * b["pps"]) <= 8 * 64 * 0.05 + 0.05,
      f'{b["bytes"]} bytes, {b["packets"]} packets, {b["bps"]} bps, {b["pps"]} pps')
check("(d) nothing was limited or dropped without a limit",
      all(not e["limited"] and e["dropped"] == 0 for e in last["top"]) and last["totals"]["dropped"] == 0)
print(f"{sum(results)} passed, {len(results) - sum(results)} failed", file=open(sys.argv[3] + ".res", "w"))
sys.exit(0 if all(results) else 1)
PY
read -r p _ f _ <"$WORK/d.json.res" || { p=0; f=1; }
PASSED=$((PASSED + p)); FAILED=$((FAILED + ${f%,}))

# Idle flows leave the map once a whole window passes without traffic.
start_ratewall "$WORK/e.json" --window 1s --slots 4 --interval 250ms --json || fail "ratewall starts"
gen --sources 10 --count 1000 --rate 10k >/dev/null
sleep 2.5
stop_ratewall INT
python3 - "$WORK/e.json" <<'PY' && ok "idle flows are wiped after a whole window" || fail "idle flows are wiped after a whole window"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
peak = max(o["totals"]["flows"] for o in lines)
deleted = sum(o["totals"]["idle_deleted"] for o in lines)
print(f"     flows peaked at {peak}, {deleted} idle flows deleted, last tick {lines[-1]['totals']['flows']} flows")
sys.exit(0 if peak == 10 and deleted >= 10 and lines[-1]["totals"]["flows"] == 0 else 1)
PY

finish
