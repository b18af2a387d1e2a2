#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A spoofed flood (a new random IPv6 source every packet) beside one heavy
# source over its limit and one light source under it, all at once:
#  - the heavy source is admitted at its limit +-5% (nft observer after XDP)
#  - the light source loses nothing (nft count == what the generator sent)
#  - reports stay on time (one a second, none late)
#  - the flood stays in the sketch: few sources tracked, loader memory flat
set -u
. "$(dirname "$0")/../lib.sh"

LIMIT=10000
HEAVY=50000  # pps offered by 198.18.0.1
LIGHT=2000   # pps offered by 198.18.0.2
FLOOD=200000 # pps of spoofed sources from 2001:db8::/32

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
nft_observe heavy ip saddr 198.18.0.1
nft_observe light ip saddr 198.18.0.2

start_ratewall "$WORK/rw.json" --pps 10k --json --interval 1s || fail "ratewall starts"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$RW_PID/status"; }

gen --ipv6 --ipv6-net --src 2001:db8::1 --dist random --sources 4294967295 --seed 7 \
	--rate $FLOOD --duration 10s >"$WORK/flood.gen" &
flood_pid=$!
gen --src 198.18.0.1 --rate $HEAVY --duration 10s >"$WORK/heavy.gen" &
heavy_pid=$!
gen --src 198.18.0.2 --rate $LIGHT --duration 10s >"$WORK/light.gen" &
light_pid=$!
sleep 3
rss0=$(rss)
RATE=$(steady_rate heavy 5)
rss1=$(rss)
wait $flood_pid $heavy_pid $light_pid
sleep 1.2 # one more report after the flood
stop_ratewall INT
rc=$?

light_sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' "$WORK/light.gen")
flood_sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' "$WORK/flood.gen")
light_seen=$(nft_count light)
echo "     flood: $flood_sent spoofed packets; heavy admitted $RATE pps (limit $LIMIT); light sent $light_sent, passed $light_seen; loader RSS ${rss0} -> ${rss1} KiB"

check "the spoofed flood was sent at its rate" at_most $((FLOOD * 8)) "$flood_sent"
check "the heavy source is admitted at its limit +-5% during the flood" within "$RATE" $LIMIT 0.05
check "the light source loses nothing" test "$light_seen" -eq "$light_sent"
check "ratewall exits 0 on SIGINT" test "$rc" -eq 0
check "loader memory stays flat under the flood (< 2 MiB growth)" at_most $((rss1 - rss0)) 2048

python3 - "$WORK/rw.json" "$LIMIT" >"$WORK/verdicts" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ts = [l["ts"] for l in lines]
gaps = [b - a for a, b in zip(ts, ts[1:])]
print("reports", len(lines))
print("max_gap %.3f" % max(gaps))
print("max_tracked", max(l["totals"]["tracked_flows"] for l in lines))
print("max_sketch", max(l["totals"]["window_sketch_packets"] for l in lines))
heavy = [e for l in lines for e in l["top"] if e["key"] == "198.18.0.1"]
print("heavy_limited", int(any(e["limited"] for e in heavy)))
light = [e for l in lines for e in l["top"] if e["key"] == "198.18.0.2"]
print("light_dropped", sum(e["dropped"] for e in light))
PY
cat "$WORK/verdicts" | sed 's/^/     /'
get() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/verdicts"; }
check "a report every second, none late (largest gap <= 1.25 s)" at_most "$(get max_gap)" 1.25
check "at least 10 reports over the run" at_most 10 "$(get reports)"
check "the flood is counted in the sketch, not as tracked flows" at_most 1 "$(get max_sketch)"
# The free budget (sources tracked from their first packet while few are) plus
# collisions while the sketch's noise floor ramps up: at most 1% of a window's flood.
check "tracked flows stay within the free budget + 1% of the flood ($(get max_tracked))" \
	at_most "$(get max_tracked)" $((4096 + FLOOD / 100))
check "the report shows the heavy source limited" test "$(get heavy_limited)" -eq 1
check "the report shows nothing of the light source dropped" test "$(get light_dropped)" -eq 0
finish
