#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --metrics: /metrics in the Prometheus text format, scraped with curl inside
# the receiver namespace while sources of known rates send.
#  (a) the page parses as the text format (every sample has a HELP/TYPE'd
#      family, counters end in _total, label values quoted)
#  (b) the top source is there with its rate, limited; only the top-N sources
#      and those over --metrics-min-share's default 1 % appear (bounded
#      cardinality: 40 sources at 0.26 % each are not there), and the share bar
#  (c) after the traffic: received = what the generators sent, passed + dropped
#      = received, per interface
#  (d) other paths 404, other methods 405; a busy port: exit 1, said, nothing
#      attached
set -u
. "$(dirname "$0")/../lib.sh"

PORT=$((20000 + $$ % 10000))
tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
ip -n "$TB_RCV" link set lo up

scrape() { ip netns exec "$TB_RCV" curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics"; }

start_ratewall "$WORK/m.json" --pps 10k --top 3 --metrics "$PORT" --json ||
	fail "ratewall starts with --metrics"
gen --src 198.18.0.1 --rate 30000 --duration 5s >"$WORK/g1" &
G1=$!
gen --src 198.18.0.2 --rate 5000 --duration 5s >"$WORK/g2" &
G2=$!
gen --src 198.18.0.10 --sources 40 --rate 4000 --duration 5s >"$WORK/g3" &
G3=$!
sleep 3
scrape >"$WORK/during.txt"

# (a) the text format, checked line by line
fmt=$(python3 - "$WORK/during.txt" <<'PY'
import re, sys
typed, bad = {}, []
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN)$')
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r'^# TYPE (\S+) (counter|gauge|histogram)$', line)
    if m:
        typed[m.group(1)] = m.group(2)
        continue
    if line.startswith("# HELP "):
        continue
    m = sample.match(line)
    if not m:
        bad.append(line); continue
    name = m.group(1)
    family = re.sub(r'_(bucket|sum|count)$', '', name) if name not in typed else name
    if family not in typed:
        bad.append("untyped " + line)
    elif typed[family] == "counter" and not name.endswith("_total"):
        bad.append("counter without _total " + line)
print(len(typed), len(bad), bad[:2])
PY
)
echo "     (a) families, bad lines: $fmt"
check "(a) /metrics parses as the Prometheus text format" test "$(echo "$fmt" | awk '{ print $2 }')" = 0
lint=$(promtool check metrics <"$WORK/during.txt" 2>&1)
check "(a) promtool check metrics finds nothing to say${lint:+: $lint}" test -z "$lint"
check "(a) ... with its histogram (the families docs/operations/watching.md lists: tests/layout/test_metrics_doc.sh)" \
	grep -q '^ratewall_tick_duration_seconds_bucket{le="+Inf"}' "$WORK/during.txt"

# (b) the top-N and the keys over 1 % (none beyond it here), the heavy source first
top=$(sed -n 's/^ratewall_source_packets_per_second{kind="src",key="[^"]*",source="\([^"]*\)"} \(.*\)/\1 \2/p' "$WORK/during.txt")
n=$(echo "$top" | grep -c .)
first_pps=$(echo "$top" | awk '$1 == "198.18.0.1" { print $2 }')
limited=$(sed -n 's/^ratewall_source_limited{kind="src",key="198.18.0.1",source="198.18.0.1"} //p' "$WORK/during.txt")
# The page is one tick's: the same rate as that tick's report line (its ts is
# the page's last_tick_timestamp). How near the window's count is to the
# generator's pace is test_limit_accuracy's question: a generator held still before
# the window sends what it owes inside it (once, here, 33 065 of 30 000).
page_ts=$(sed -n 's/^ratewall_last_tick_timestamp_seconds //p' "$WORK/during.txt")
report_pps=$(python3 - "$WORK/m.json" "${page_ts:-0}" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "top" in r and abs(r["ts"] - float(sys.argv[2])) < 0.0015:
        print(next((e["pps"] for e in r["top"] if e["key"] == "198.18.0.1"), -1))
PY
)
bar=$(sed -n 's/^ratewall_metrics_share_bar_packets_per_second //p' "$WORK/during.txt")
echo "     (b) sources exported: $n (top 3 of 42 sending); 198.18.0.1 at ${first_pps:-?} pps, limited $limited;" \
	"the report of the page's tick ($page_ts): ${report_pps:-none} pps; the share bar ${bar:-none} pps"
check "(b) only the top-N sources are labelled (3 of 42: none other is over 1 %)" test "$n" -eq 3
check "(b) the share bar is 1 % of the window's 39 kpps: 300-500 pps" \
	eval "at_most 300 ${bar:-0} && at_most ${bar:-0} 500"
check "(b) the heavy source's rate is its tick's, as the report line says it" \
	within "${first_pps:-0}" "${report_pps:--1}" 0.001
check "(b) ... the rate it offers (30k), not what it was let through (10k): 20k-40k" \
	eval "at_most 20000 ${first_pps:-0} && at_most ${first_pps:-0} 40000"
check "(b) ... and marked limited" test "$limited" = 1

# (c) totals against what was sent
wait $G1 $G2 $G3
sleep 1.3 # one more tick after the last frame
scrape >"$WORK/after.txt"
sent=$(( $(sent_of "$WORK/g1") + $(sent_of "$WORK/g2") + $(sent_of "$WORK/g3") ))
metric() { sed -n "s/^$1{interface=\"$TB_RX\"} //p" "$WORK/after.txt"; }
rx=$(metric ratewall_received_packets_total)
passed=$(metric ratewall_passed_packets_total)
dropped=$(metric ratewall_dropped_packets_total)
echo "     (c) sent $sent; received_total $rx, passed $passed + dropped $dropped"
check "(c) received_packets_total is every frame sent" test "$rx" -eq "$sent"
check "(c) passed + dropped = received" test $((passed + dropped)) -eq "$rx"

# (d) the rest of HTTP, and a busy port
code=$(ip netns exec "$TB_RCV" curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")
check "(d) another path: 404" test "$code" = 404
code=$(ip netns exec "$TB_RCV" curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/metrics")
check "(d) another method: 405" test "$code" = 405
ip netns exec "$TB_RCV" "$RW" run lo --metrics "$PORT" --xdp-mode generic --duration 1s \
	>/dev/null 2>"$WORK/busy.err"
rc=$?
check "(d) a busy port: exit 1, said" \
	eval "[ $rc -eq 1 ] && grep -q 'cannot listen on 127.0.0.1:$PORT: Address already in use' '$WORK/busy.err'"
check "(d) ... and nothing attached" eval "! xdp_attached $TB_RCV lo"
stop_ratewall INT
check "ratewall with --metrics exits 0 on SIGINT" test $? -eq 0

finish
