#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One source over every CPU on a live veth: a testbed with a queue a CPU,
# the generator's thread on CPU k sending into queue k (so ratewall's XDP
# runs on CPU k), one source at twice its --pps limit.
#   admitted = limit +-2% over a span of steady state, and the source was
#   seen on every CPU
# What passed is counted twice after XDP: by an nft counter (the tests'
# observer) and by rwsink, whose kernel receive timestamps give the count in
# an exact span. The rate is rwsink's: sampling the nft counter from a shell
# is off by its scheduling delays (3% over 10 s on a 16-CPU guest, where
# ratewall's own reports said 99.4%); the two totals must agree.
# LIVE_PPS (1000), LIVE_SPAN seconds measured (10), LIVE_STALL_MS (250: a
# stalled generator's run is measured once more, below) tune it. One run of seven
# at 16 CPUs read 857.5 pps (ratewall's own reports 873.8), the others
# 988.7-999.9, another 972.5 (its generator 432 ms behind). An emulated
# guest's generator stalls now and then (rwgen's behind_ms), and the default
# 100 ms of slack cannot make up for what a longer stall missed; so the
# schedule, not the window alone, with 1 s of slack (LIVE_BURST): its bank
# of 2 s makes up for a stall of up to that. The window alone reads lower
# (969.9 at 16 CPUs, 987.3 at 64): after a stall its admissions come later
# in every window after.
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=${LIVE_PPS:-1000}
OFFERED=$((2 * LIMIT))
SPAN=${LIVE_SPAN:-10}
# Lead-in before the span (the first window fills, a burst is spent), and a
# tail after it so the generator is still sending when the span closes.
LEAD=4
DUR=$((LEAD + SPAN + 4))

# measure: one run on a fresh testbed; sets sent, gen_rc, nft_total, rw_rc,
# in_span, sink_total, rate, spread, rw_rate.
measure() {
	tb_up "$(tb_name)" "$NCPU" || { fail "testbed with $NCPU queues"; finish; exit 1; }
	nft_observe v4 ip saddr 198.18.0.1

	start_ratewall "$WORK/rw.json" --pps "$LIMIT" --burst "${LIVE_BURST:-1s}" --json ||
		{ fail "ratewall attaches"; finish; exit 1; }
	start_sink sink --duration "$((DUR + 30))s" --span-from "${LEAD}s" --span "${SPAN}s"
	gen_spread gen "$OFFERED" "$DUR" --src 198.18.0.1
	gen_rc=$?
	stop_sink
	nft_total=$(nft_count v4)
	stop_ratewall INT
	rw_rc=$?

	sent=$(sent_of "$WORK/gen.json")
	in_span=$(sink_of sink 198.18.0.1 in_span)
	sink_total=$(sink_of sink 198.18.0.1 packets)
	rate=$(awk -v n="$in_span" -v s="$SPAN" 'BEGIN { printf "%.1f", n / s }')
	# The most CPUs any report saw the source on, and the rate ratewall itself
	# passed between reports with the source limited, the edges left out.
	read -r spread rw_rate < <(python3 - "$WORK/rw.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
best = max([e["cpus"] for r in rows for e in r["top"] if e["key"] == "198.18.0.1"] or [0])
lim = [r for r in rows if any(e["key"] == "198.18.0.1" and e["limited"] for e in r["top"])]
rate = 0.0
# The first and last limited report may reach past the flood's edges.
lim = lim[1:-1]
if len(lim) >= 2:
    a, b = lim[0], lim[-1]
    rate = (b["totals"]["passed"] - a["totals"]["passed"]) / (b["ts"] - a["ts"])
print(best, "%.1f" % rate)
PY
)
}

measure
# An emulated guest's vCPUs are not always run: a generator that fell behind
# by more than LIVE_STALL_MS (250) offered less than twice the limit for a
# while, and no bank makes up for all of it (two fresh-CI runs at 16 CPUs read
# 947.1 and 938.2 pps with the generator 664 ms behind; each check passed
# when run again). Such a run is said, and measured once more on a fresh
# testbed; the second run decides, with the same bounds.
behind=$(behind_of gen)
if ! within "$rate" "$LIMIT" 0.02 &&
	awk -v b="$behind" -v m="${LIVE_STALL_MS:-250}" 'BEGIN { exit !(b + 0 > m) }'; then
	echo "     first run: $rate pps with the generator $behind ms behind (the guest stalled it): once more"
	tb_down
	measure
fi
echo "     offered $OFFERED pps from $NCPU CPUs for ${DUR} s (generator sent $sent, exit $gen_rc," \
	"at most $(behind_of gen) ms behind)"
echo "     admitted $in_span in ${SPAN} s from ${LEAD} s on (receive timestamps): ${rate} pps (limit $LIMIT)"
echo "     admitted in all: rwsink $sink_total, nft $nft_total; ratewall's own reports: ${rw_rate} pps"
echo "     ratewall saw 198.18.0.1 on $spread of $NCPU CPUs"
drop_kinds "$WORK/rw.json"
[ -s "$WORK/gen.err" ] && sed 's/^/     rwgen: /' "$WORK/gen.err"
check "the generator sent what it was asked ($sent of $((OFFERED * DUR)), -5%)" \
	at_most $((OFFERED * DUR * 95 / 100)) "$sent"
check "the source's packets arrived on every CPU ($spread of $NCPU)" test "$spread" -eq "$NCPU"
check "the socket observer saw what nft counted ($sink_total, $nft_total)" \
	test "$sink_total" -eq "${nft_total:-0}"
check "one source at 2x over $NCPU CPUs admitted at the limit +-2% ($rate of $LIMIT pps)" \
	within "$rate" "$LIMIT" 0.02
check "ratewall exits 0 on SIGINT" test "$rw_rc" -eq 0
finish
