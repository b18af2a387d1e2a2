#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two sources over every CPU on a live veth (a queue a CPU, the generator's
# thread on CPU k sending into queue k), at once under one --pps limit, the
# default admission:
#   198.18.0.2 under its limit loses nothing (nft after XDP counts every
#     packet the generator sent, and ratewall's own drop count agrees);
#   198.18.0.1 at 2x beside it: no 900 ms (the window less a slot) holds more
#     than the limit, by rwsink's receive timestamps.
# The light source runs at LIVE_LIGHT % of the limit (default 50): in an
# emulated guest the generator does not hold its rate (a source asked for
# 950 pps sent 786 to 1 148 a second on 16 CPUs), so at 95 % some of its
# windows are over the limit and its drops are due. On a real machine, run
# it with LIVE_LIGHT=95 (2 CPUs: nothing lost in 3 of 3 runs).
# LIVE_PPS (1000) and LIVE_SECONDS (18) tune it too.
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=${LIVE_PPS:-1000}
HEAVY=$((2 * LIMIT))
LIGHT=$((LIMIT * ${LIVE_LIGHT:-50} / 100))
DUR=${LIVE_SECONDS:-18}

tb_up "$(tb_name)" "$NCPU" || { fail "testbed with $NCPU queues"; finish; exit 1; }
nft_observe heavy ip saddr 198.18.0.1
nft_observe light ip saddr 198.18.0.2

start_ratewall "$WORK/rw.json" --pps "$LIMIT" --json || { fail "ratewall attaches"; finish; exit 1; }
start_sink --duration "$((DUR + 30))s" --interval 900ms
# Each bounded twice: --count is its whole run at its rate.
gen --src 198.18.0.1 --rate "$HEAVY" --cpus "$NCPU" --duration "${DUR}s" \
	--count $((HEAVY * DUR)) >"$WORK/heavy.json" 2>"$WORK/heavy.err" &
heavy_pid=$!
gen --src 198.18.0.2 --rate "$LIGHT" --cpus "$NCPU" --duration "${DUR}s" \
	--count $((LIGHT * DUR)) >"$WORK/light.json" 2>"$WORK/light.err"
wait "$heavy_pid"
sleep 1
kill -INT "$SINK_PID" 2>/dev/null
wait "$SINK_PID"
heavy_nft=$(nft_count heavy)
light_nft=$(nft_count light)
stop_ratewall INT

heavy_sent=$(sent_of "$WORK/heavy.json" 2>/dev/null || echo 0)
light_sent=$(sent_of "$WORK/light.json" 2>/dev/null || echo 0)
# From ratewall's reports: the light source's CPUs, and all it dropped.
read -r light_cpus rw_dropped < <(python3 - "$WORK/rw.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
light = [e for r in rows for e in r["top"] if e["key"] == "198.18.0.2"]
print(max([e["cpus"] for e in light] or [0]), rows[-1]["totals"]["dropped"] if rows else -1)
PY
)
heavy_max=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["sources"].get("198.18.0.1", {}).get("max_in_interval", 0))' \
	"$WORK/sink.json" 2>/dev/null || echo 999999)
light_lost=$((light_sent - light_nft))
# On a loss, ratewall's drop counters by kind: which part of it dropped.
[ "$light_lost" -ne 0 ] && python3 -c 'import json, sys
t = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]["totals"]
print("     ratewall totals: dropped %d, paced %d, capped %d, cross-CPU sums %d, failed inserts %d"
      % (t["dropped"], t["paced_drops"], t["capped_drops"], t["cross_cpu_checks"], t["failed_inserts"]))' \
	"$WORK/rw.json"
rw_light_dropped=$((rw_dropped - (heavy_sent - heavy_nft)))
echo "     198.18.0.1 offered $HEAVY pps, 198.18.0.2 $LIGHT pps, both from $NCPU CPUs for ${DUR} s"
echo "     light: sent $light_sent, nft counted $light_nft (lost $light_lost; ratewall's drops" \
	"less the heavy one's: $rw_light_dropped); seen on $light_cpus CPUs"
echo "     heavy: sent $heavy_sent, nft $heavy_nft; most admitted in any 900 ms: $heavy_max"
# An emulated guest of 64 CPUs starves some generator threads now and then
# (93 % of the heavy source sent, the light one seen on 61 of 64 in a window):
# these two only make sure the load was there and spread.
check "the generators sent what they were asked (-10%)" \
	eval "[ $((heavy_sent * 100)) -ge $((HEAVY * DUR * 90)) ] && [ $((light_sent * 100)) -ge $((LIGHT * DUR * 90)) ]"
check "the light source's packets arrived on most CPUs ($light_cpus of $NCPU)" \
	at_most $((NCPU * 3 / 4)) "$light_cpus"
check "a source at ${LIVE_LIGHT:-50} % of its limit over $NCPU CPUs loses nothing ($light_lost lost)" \
	test "$light_lost" -eq 0
check "  ... and ratewall's count agrees ($rw_light_dropped)" test "$rw_light_dropped" -eq 0
check "beside it, the source at 2x: no 900 ms over the limit ($heavy_max of $LIMIT)" \
	at_most "$heavy_max" "$LIMIT"
finish
