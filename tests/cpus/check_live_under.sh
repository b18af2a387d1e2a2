#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two sources over every CPU on a live veth (a queue a CPU, the generator's
# thread on CPU k sending into queue k), at once under one --pps limit:
#   198.18.0.1 at 2x its limit: admitted at the limit +-2 % over a span of
#     steady state (rwsink's receive timestamps, as check_live_limit.sh);
#   198.18.0.2 at 0.95x: loses nothing (every packet the generator sent is
#     counted by nft after XDP, and no report shows it with a drop), and the
#     heavy source beside it does not change that.
# LIVE_PPS (1000) and LIVE_SPAN seconds measured (10) tune it.
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=${LIVE_PPS:-1000}
HEAVY=$((2 * LIMIT))
LIGHT=$((LIMIT * 95 / 100))
SPAN=${LIVE_SPAN:-10}
LEAD=4
DUR=$((LEAD + SPAN + 4))

tb_up "$(tb_name)" "$NCPU" || { fail "testbed with $NCPU queues"; finish; exit 1; }
nft_observe heavy ip saddr 198.18.0.1
nft_observe light ip saddr 198.18.0.2

start_ratewall "$WORK/rw.json" --pps "$LIMIT" --json || { fail "ratewall attaches"; finish; exit 1; }
ip netns exec "$TB_RCV" "$SINK" --dev "$TB_RX" --duration "$((DUR + 30))s" \
	--span-from "${LEAD}s" --span "${SPAN}s" >"$WORK/sink.json" 2>"$WORK/sink.err" &
sink_pid=$!
for _ in $(seq 200); do
	grep -q listening "$WORK/sink.err" 2>/dev/null && break
	sleep 0.05
done
# Each bounded twice: --count is its whole run at its rate.
gen --src 198.18.0.1 --rate "$HEAVY" --cpus "$NCPU" --duration "${DUR}s" \
	--count $((HEAVY * DUR)) >"$WORK/heavy.json" 2>"$WORK/heavy.err" &
heavy_pid=$!
gen --src 198.18.0.2 --rate "$LIGHT" --cpus "$NCPU" --duration "${DUR}s" \
	--count $((LIGHT * DUR)) >"$WORK/light.json" 2>"$WORK/light.err"
wait "$heavy_pid"
sleep 1
kill -INT "$sink_pid" 2>/dev/null
wait "$sink_pid"
heavy_nft=$(nft_count heavy)
light_nft=$(nft_count light)
stop_ratewall INT

heavy_sent=$(sent_of "$WORK/heavy.json" 2>/dev/null || echo 0)
light_sent=$(sent_of "$WORK/light.json" 2>/dev/null || echo 0)
in_span=$(python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["sources"].get("198.18.0.1", {}).get("in_span", 0))' \
	"$WORK/sink.json" 2>/dev/null || echo 0)
rate=$(awk -v n="$in_span" -v s="$SPAN" 'BEGIN { printf "%.1f", n / s }')
# The light source in the reports: on how many CPUs at most, the most it had
# dropped in any window.
read -r light_cpus light_drops < <(python3 - "$WORK/rw.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
es = [e for r in rows for e in r["top"] if e["key"] == "198.18.0.2"]
print(max([e["cpus"] for e in es] or [0]), max([e["dropped"] for e in es] or [0]))
PY
)
echo "     198.18.0.1 offered $HEAVY pps, 198.18.0.2 $LIGHT pps, both from $NCPU CPUs for ${DUR} s"
echo "     heavy: sent $heavy_sent, admitted $in_span in ${SPAN} s from ${LEAD} s on: $rate pps" \
	"(limit $LIMIT); nft $heavy_nft in all"
echo "     light: sent $light_sent, nft counted $light_nft; seen on $light_cpus CPUs, most" \
	"dropped in a window $light_drops"
check "the generators sent what they were asked (-5%)" \
	eval "[ $((heavy_sent * 100)) -ge $((HEAVY * DUR * 95)) ] && [ $((light_sent * 100)) -ge $((LIGHT * DUR * 95)) ]"
check "the light source's packets arrived on every CPU ($light_cpus of $NCPU)" \
	test "$light_cpus" -eq "$NCPU"
check "a source at 0.95x over $NCPU CPUs loses nothing (nft $light_nft of $light_sent sent)" \
	test "$light_nft" -eq "$light_sent"
check "  ... and no report shows it with a drop (most: $light_drops)" test "$light_drops" -eq 0
check "beside it, one source at 2x admitted at the limit +-2% ($rate of $LIMIT pps)" \
	within "$rate" "$LIMIT" 0.02
finish
