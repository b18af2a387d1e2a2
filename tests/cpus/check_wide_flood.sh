#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Promotion at T = L/C under a wide flood spread over every CPU (65 536
# sources of 198.18.0.0/16 in a shuffled order, a few packets each: at 64
# CPUs and --pps 1000 the threshold is 15 packets a CPU), with two sources
# beside it over every CPU too:
#   the flood and 198.19.1.1 at half its limit lose nothing but what met an
#     insert stalled past the wait (stalled_drops; nft after XDP counts every
#     packet; see check_live_under.sh);
#   198.19.2.1 at 2x is held to its limit (+-2 %, rwsink's exact span) and no
#     9 s (the 10 s window less a slot) holds more than the window's limit;
#   the reports rank 198.19.2.1 first while it sends, and show no flood
#     source above 3 times what it sent (the generator's exact counts; the
#     10 s window holds most of the run).
# Paced, unlike test_wide_flood's flood as fast as the testbed sends, which
# an emulated 16-CPU guest does not get through in 10 minutes.
# WIDE_RATE (flood packets/s, default 20000) and WIDE_SECONDS (14) tune it;
# WIDE_RW_ARGS are added to ratewall's (e.g. "--clock precise").
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=1000
FLOOD=${WIDE_RATE:-20000}
DUR=${WIDE_SECONDS:-14}
LEAD=3
SPAN=$((DUR - LEAD - 3))

tb_up "$(tb_name)" "$NCPU" || { fail "testbed with $NCPU queues"; finish; exit 1; }
nft_observe flood ip saddr 198.18.0.0/16
nft_observe light ip saddr 198.19.1.1
nft_observe heavy ip saddr 198.19.2.1

# shellcheck disable=SC2086 # WIDE_RW_ARGS is a list of words
start_ratewall "$WORK/rw.json" --pps "$LIMIT" --window 10s --json --interval 1s ${WIDE_RW_ARGS:-} ||
	{ fail "ratewall attaches"; finish; exit 1; }
start_sink sink --duration "$((DUR + 30))s" --interval 9s --span-from "${LEAD}s" --span "${SPAN}s" \
	--only 198.19.2.1
gen_spread flood "$FLOOD" "$DUR" --src 198.18.0.0 --sources 65536 --dist shuffled --per-source &
flood_pid=$!
gen_spread light $((LIMIT / 2)) "$DUR" --src 198.19.1.1 &
light_pid=$!
gen_spread heavy $((2 * LIMIT)) "$DUR" --src 198.19.2.1
wait "$flood_pid" "$light_pid"
stop_sink
flood_nft=$(nft_count flood)
light_nft=$(nft_count light)
stop_ratewall INT

flood_sent=$(sent_of "$WORK/flood.json")
light_sent=$(sent_of "$WORK/light.json")
heavy_sent=$(sent_of "$WORK/heavy.json")
heavy_rate=$(awk -v n="$(sink_of sink 198.19.2.1 in_span)" -v s="$SPAN" 'BEGIN { printf "%.1f", n / s }')
heavy_max=$(sink_of sink 198.19.2.1 max_in_interval)
# From the reports: how many ranked the heavy source first, the flood source
# shown most over what it sent, the threshold the loader set, stalled drops.
read -r firsts flood_worst threshold stalled < <(python3 - "$WORK/rw.json" "$WORK/flood.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
sent = json.load(open(sys.argv[2]))["per_source"]
firsts = sum(1 for r in rows if [e["key"] for e in r["top"][:1]] == ["198.19.2.1"])
shown = [(e["packets"] / max(sent.get(e["key"], 0), 1), e["key"], e["packets"], sent.get(e["key"], 0))
         for r in rows for e in r["top"] if e["key"].startswith("198.18.")]
worst = max(shown or [(0, "-", 0, 0)])
last = rows[-1] if rows else {"promotion": {"packets": -1}, "totals": {"stalled_drops": 0}}
print(firsts, "%.2f(%s:%d/%d)" % worst, last["promotion"]["packets"], last["totals"]["stalled_drops"])
PY
)
light_lost=$((light_sent - light_nft))
echo "     flood: $flood_sent packets of 65 536 sources at $FLOOD pps from $NCPU CPUs, nft counted" \
	"$flood_nft; the loader's promotion threshold $threshold; the flood source shown most over" \
	"what it sent: ${flood_worst} (ratio, key: shown/sent)"
echo "     light: sent $light_sent, nft $light_nft (lost $light_lost; $stalled stalled drops in all)"
echo "     heavy: sent $heavy_sent; admitted $heavy_rate pps over ${SPAN} s (limit $LIMIT), most in any" \
	"9 s $heavy_max; ranked first in $firsts reports"
drop_kinds "$WORK/rw.json"
check "the generators sent what they were asked (-10%)" \
	eval "[ $((flood_sent * 100)) -ge $((FLOOD * DUR * 90)) ] && [ $((light_sent * 100)) -ge $((LIMIT / 2 * DUR * 90)) ] && [ $((heavy_sent * 100)) -ge $((2 * LIMIT * DUR * 90)) ]"
check "a wide flood over $NCPU CPUs and a source at 50 % of its limit inside it lose nothing but what met a stalled insert ($((flood_sent - flood_nft)) and $light_lost lost, $stalled stalled drops)" \
	at_most $((flood_sent - flood_nft + light_lost)) "$stalled"
check "the socket observer lost nothing ($(sink_drops sink) socket drops)" test "$(sink_drops sink)" -eq 0
check "inside it, a source at 2x is held to its limit within 2 % ($heavy_rate pps)" \
	within "$heavy_rate" "$LIMIT" 0.02
check "  ... and no 9 s holds more than the 10 s window's limit ($heavy_max)" at_most "$heavy_max" $((10 * LIMIT))
check "the reports rank it first while it sends ($firsts of them)" at_most $((DUR / 2)) "$firsts"
check "no flood source is shown above 3 times what it sent (${flood_worst%%(*})" at_most "${flood_worst%%(*}" 3
finish
