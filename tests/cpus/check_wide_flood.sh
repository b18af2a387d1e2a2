#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Promotion at T = L/C under a wide flood spread over every CPU (65 536
# sources of 198.18.0.0/16 in a shuffled order, a few packets each: at 64
# CPUs, --pps 1000 and a 10 s window the threshold is 156 packets a CPU),
# with two sources beside it over every CPU too:
#   the flood and 198.19.1.1 at half its limit lose nothing but what met an
#     insert stalled past the wait (stalled_drops; nft after XDP counts every
#     packet; see check_live_under.sh);
#   198.19.2.1 at 2x: the most rwsink saw in any 9 s (the 10 s window less a
#     slot) is the window's limit, within 2 % under, and over by no more than
#     docs/limits.md allows the window it is promoted in (the sketch's noise
#     and a packet a CPU);
#   the reports rank 198.19.2.1 first while it sends, and show no flood
#     source above 3 times what it sent (the generator's exact counts; the
#     10 s window holds most of the run) or, where that is more, what it sent
#     + 4 + C/8 packets: a source of a few packets promoted out of the flood
#     carries what its buckets held over the noise on every CPU (README
#     Limits; at 64 CPUs 4 shown for 1 sent, 11 for 4).
# --burst window: what is checked is the count across CPUs (the most in one
# window), not the schedule, whose slack an emulated guest's catch-ups exceed
# (the 2x source got 685 and 948 pps of 1000 under the default admission at
# 64 CPUs, paced drops).
# Paced, unlike test_wide_flood's flood as fast as the testbed sends, which
# an emulated 16-CPU guest does not get through in 10 minutes; over 16 CPUs
# at 16/C of the rate (5 000 pps at 64: a 64-CPU guest sent 81 % of 20 000
# and 56 % of the light source beside it). Emulated CPUs still fall behind
# now and then, so what is checked of the load is that it was there: 80 %
# of the flood, a tenth of the light source (whose generator gives up what
# it owes beyond 500 ms, as check_live_under.sh says why), the heavy one at
# 1.5x its limit or more.
# WIDE_RATE (flood packets/s; default 20000 up to 16 CPUs) and WIDE_SECONDS (14) tune it;
# WIDE_RW_ARGS are added to ratewall's (e.g. "--clock precise").
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=1000
FLOOD=${WIDE_RATE:-$((20000 * 16 / (NCPU > 16 ? NCPU : 16)))}
DUR=${WIDE_SECONDS:-14}

tb_up "$(tb_name)" "$NCPU" || { fail "testbed with $NCPU queues"; finish; exit 1; }
nft_observe flood ip saddr 198.18.0.0/16
nft_observe light ip saddr 198.19.1.1
nft_observe heavy ip saddr 198.19.2.1

# shellcheck disable=SC2086 # WIDE_RW_ARGS is a list of words
start_ratewall "$WORK/rw.json" --pps "$LIMIT" --window 10s --burst window --json --interval 1s \
	${WIDE_RW_ARGS:-} ||
	{ fail "ratewall attaches"; finish; exit 1; }
start_sink sink --duration "$((DUR + 30))s" --interval 9s --only 198.19.2.1
gen_spread flood "$FLOOD" "$DUR" --src 198.18.0.0 --sources 65536 --dist shuffled --per-source &
flood_pid=$!
gen_spread light $((LIMIT / 2)) "$DUR" --src 198.19.1.1 --catch-up 500ms &
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
heavy_max=$(sink_of sink 198.19.2.1 max_in_interval)
# From the reports: how many ranked the heavy source first, the flood source
# shown most over what it sent (by ratio, and in packets), the threshold the
# loader set, stalled drops.
read -r flood_worst flood_most flood_beyond firsts threshold stalled noise < <(python3 - "$WORK/rw.json" "$WORK/flood.json" "$NCPU" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
sent = json.load(open(sys.argv[2]))["per_source"]
firsts = sum(1 for r in rows if [e["key"] for e in r["top"][:1]] == ["198.19.2.1"])
shown = [(e["packets"], sent.get(e["key"], 0), e["key"])
         for r in rows for e in r["top"] if e["key"].startswith("198.18.")] or [(0, 0, "-")]
ratio = max((p / max(s, 1), k, p, s) for p, s, k in shown)
over = max((p - s, k, p, s) for p, s, k in shown)
allowed = 4 + int(sys.argv[3]) // 8
beyond = max(p - max(3 * s, s + allowed) for p, s, k in shown)
last = rows[-1] if rows else {"promotion": {"packets": -1}, "totals": {"stalled_drops": 0}}
print("%.2f(%s:%d/%d)" % ratio, "%d(%s:%d/%d)" % over, max(beyond, 0), firsts, last["promotion"]["packets"],
      last["totals"]["stalled_drops"], max([r["totals"]["sketch_noise"] for r in rows] or [0]))
PY
)
light_lost=$((light_sent - light_nft))
echo "     flood: $flood_sent packets of 65 536 sources at $FLOOD pps from $NCPU CPUs, nft counted" \
	"$flood_nft; the loader's promotion threshold $threshold; the flood source shown most over" \
	"what it sent: ${flood_worst} by ratio, ${flood_most} in packets (key: shown/sent)"
echo "     light: sent $light_sent, nft $light_nft (lost $light_lost; $stalled stalled drops in all);" \
	"generators at most $(behind_of flood) (flood), $(behind_of light) (light), $(behind_of heavy)" \
	"(heavy) ms behind"
echo "     heavy: sent $heavy_sent; admitted $(nft_count heavy) in all, most in any 9 s $heavy_max" \
	"(the window's limit $((10 * LIMIT))); ranked first in $firsts reports"
drop_kinds "$WORK/rw.json"
check "the load was there: 80 % of the flood, a tenth of the light source, the heavy one at 1.5x or more" \
	eval "[ $((flood_sent * 100)) -ge $((FLOOD * DUR * 80)) ] && [ $((light_sent * 100)) -ge $((LIMIT / 2 * DUR * 10)) ] && [ $((heavy_sent * 100)) -ge $((2 * LIMIT * DUR * 75)) ]"
check "a wide flood over $NCPU CPUs and a source at 50 % of its limit inside it lose nothing but what met a stalled insert ($((flood_sent - flood_nft)) and $light_lost lost, $stalled stalled drops)" \
	at_most $((flood_sent - flood_nft + light_lost)) "$stalled"
check "the socket observer lost nothing ($(sink_drops sink) socket drops)" test "$(sink_drops sink)" -eq 0
# Over by no more than docs/limits.md says of the window a source is promoted
# in: the noise N a CPU (what it inherits is its buckets less their mean),
# and the race of a packet a CPU; N rounded up. 10 079 at 16 CPUs with N = 6.
over_ok=$((10 * LIMIT + NCPU * (${noise:-0} + 1) + NCPU - 1))
check "inside it, a source at 2x is held to its limit: the most in any 9 s within 2 % under it, over by no more than a packet and the noise ($noise) a CPU ($heavy_max of $((10 * LIMIT)), at most $over_ok)" \
	eval "[ $heavy_max -le $over_ok ] && [ $((heavy_max * 100)) -ge $((10 * LIMIT * 98)) ]"
check "the reports rank it first while it sends ($firsts of them)" at_most $((DUR / 2)) "$firsts"
check "no flood source is shown above 3 times what it sent, or it + $((4 + NCPU / 8)) packets (${flood_worst%%(*}x; +${flood_most%%(*})" \
	test "$flood_beyond" -eq 0
finish
