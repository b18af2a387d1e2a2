#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two sources over every CPU on a live veth (a queue a CPU, the generator's
# thread on CPU k sending into queue k), at once under one --pps limit, the
# default admission:
#   198.18.0.2 under its limit loses nothing (nft after XDP counts every
#     packet the generator sent, and ratewall's own drop count agrees) but
#     what met an insert of its key stalled past the wait (stalled_drops: a
#     guest's CPU descheduled in the middle of an insert, at its first
#     packets; see bpf/untracked.h);
#   198.18.0.1 at 2x beside it: no 900 ms (the window less a slot) holds more
#     than the limit, by rwsink's receive timestamps (and the race the
#     docs/limits.md accepts at a promotion: a packet a CPU, once).
# The light source runs at LIVE_LIGHT % of the limit (default 50): in an
# emulated guest the generator does not hold its rate (a source asked for
# 950 pps sent 786 to 1 148 a second on 16 CPUs), so at 95 % some of its
# windows are over the limit and its drops are due. On a real machine, run
# it with LIVE_LIGHT=95 (2 CPUs: nothing lost in 3 of 3 runs).
# Its generator gives up what it owes beyond 500 ms of its pace (--catch-up):
# a guest's generator falls behind when its vCPUs are not run (rwgen's
# behind_ms: up to 6 s at 64 CPUs), and all it owed sent at once put 132
# packets over the limit in one window (ratewall dropped exactly those; 20
# in another run). With 500 ms a 1 s window holds at most 1.5 s of its
# pace and a packet a thread: 814 at 64 CPUs, under the limit. What it
# gives up goes unsent: at 64 CPUs, where a thread's turn can be seconds
# apart, 100 ms left 68 % unsent (77 % in check_wide_flood); so a tenth of
# what it was asked, on most CPUs, is the least the check takes as a load.
# The schedule's slack is 1 s (LIVE_BURST), as in check_live_limit.sh: a
# catch-up of 500 ms of its pace on every thread together is more than the
# default 100 ms takes at once.
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

start_ratewall "$WORK/rw.json" --pps "$LIMIT" --burst "${LIVE_BURST:-1s}" --json || { fail "ratewall attaches"; finish; exit 1; }
start_sink sink --duration "$((DUR + 30))s" --interval 900ms
gen_spread heavy "$HEAVY" "$DUR" --src 198.18.0.1 &
heavy_pid=$!
gen_spread light "$LIGHT" "$DUR" --src 198.18.0.2 --catch-up 500ms
wait "$heavy_pid"
stop_sink
heavy_nft=$(nft_count heavy)
light_nft=$(nft_count light)
stop_ratewall INT

heavy_sent=$(sent_of "$WORK/heavy.json")
light_sent=$(sent_of "$WORK/light.json")
# From ratewall's reports: the light source's CPUs, all it dropped, and its
# window's drops report by report.
read -r light_cpus rw_dropped stalled light_drops < <(python3 - "$WORK/rw.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
light = [e for r in rows for e in r["top"] if e["key"] == "198.18.0.2"]
last = rows[-1]["totals"] if rows else {"dropped": -1, "stalled_drops": 0}
print(max([e["cpus"] for e in light] or [0]), last["dropped"], last["stalled_drops"],
      ",".join(str(e["dropped"]) for e in light) or "-")
PY
)
heavy_max=$(sink_of sink 198.18.0.1 max_in_interval)
light_lost=$((light_sent - light_nft))
# On a loss, ratewall's drop counters by kind: which part of it dropped.
[ "$light_lost" -ne 0 ] && drop_kinds "$WORK/rw.json"
rw_light_dropped=$((rw_dropped - (heavy_sent - heavy_nft)))
echo "     198.18.0.1 offered $HEAVY pps, 198.18.0.2 $LIGHT pps, both from $NCPU CPUs for ${DUR} s"
echo "     light: sent $light_sent, nft counted $light_nft (lost $light_lost; ratewall's drops" \
	"less the heavy one's: $rw_light_dropped); seen on up to $light_cpus CPUs in a window; its window's drops" \
	"report by report: $light_drops; its generator at most $(behind_of light) ms behind"
echo "     heavy: sent $heavy_sent, nft $heavy_nft; most admitted in any 900 ms: $heavy_max;" \
	"its generator at most $(behind_of heavy) ms behind"
# An emulated guest of 64 CPUs starves some generator threads now and then
# (93 % of the heavy source sent): these two only make sure the load was
# there and spread. The spread is the generator's own: how many of its
# threads, one pinned to each CPU and sending into that CPU's queue, sent the
# light source at all. ratewall's figure is a window's (the CPUs with a
# count in the last second), and at 500 pps over 64 CPUs a window holds 8
# packets a CPU: a guest that does not run a third of its vCPUs for a second
# shows 45 of 64 (a CI run), though every thread sent.
light_threads=$(python3 -c "import json, sys; print(sum(1 for n in json.load(open(sys.argv[1]))['per_cpu'] if n))" \
	"$WORK/light.json" 2>/dev/null || echo 0)
check "the generators sent what they were asked (-10%; the light one a tenth of it)" \
	eval "[ $((heavy_sent * 100)) -ge $((HEAVY * DUR * 90)) ] && [ $((light_sent * 100)) -ge $((LIGHT * DUR * 10)) ]"
check "the light source was sent from every CPU ($light_threads of $NCPU; ratewall saw it on up to $light_cpus in one window)" \
	test "$light_threads" -eq "$NCPU"
check "a source at ${LIVE_LIGHT:-50} % of its limit over $NCPU CPUs loses nothing but what met a stalled insert ($light_lost lost, $stalled stalled drops in all)" \
	at_most "$light_lost" "$stalled"
check "  ... and ratewall's drops say the same ($rw_light_dropped)" test "$rw_light_dropped" -eq "$light_lost"
# One packet a CPU over, once, is the race docs/limits.md accepts at a
# promotion (a packet in flight on another CPU, untracked, as the insert
# reads that CPU's sketch): 1 001-1 005 in four runs at 16 and 64 CPUs,
# 1 000 in the others.
check "beside it, the source at 2x: no 900 ms over the limit, and the promotion's race of a packet a CPU ($heavy_max of $LIMIT + $((NCPU - 1)))" \
	at_most "$heavy_max" $((LIMIT + NCPU - 1))
finish
