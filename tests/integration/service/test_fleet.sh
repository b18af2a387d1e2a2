#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The fleet view: Debian's Prometheus scrapes three ratewall instances (three
# testbeds, each its own receiver namespace) over veth links from a monitor
# namespace, and answers "top sources across all hosts" in PromQL:
#  (a) topk(10, sum by (source) (avg_over_time(...[5s]))) gives each source's
#      rate summed over the hosts, within 15 % of what the generators send
#      (paced senders come in bursts), heaviest first
#  (b) the alerting rule RatewallSourceLimited fires for the source that is
#      over its limit on some host, and only for it
# Everything (namespaces, links, Prometheus) is removed on exit.
set -u
. "$(dirname "$0")/../lib.sh"

BASE=$(tb_name)
MON=${BASE}mon
RCVS=() SNDS=() TXS=() MACS=() ADDRS=() RW_PIDS=()

ip netns add "$MON" || { fail "monitor namespace"; finish; exit 1; }
EXTRA_NS="$MON"
ip -n "$MON" link set lo up
for i in 1 2 3; do
	tb_up "${BASE}$i" 1 || { fail "testbed $i"; finish; exit 1; }
	EXTRA_NS="$EXTRA_NS $TB_SND $TB_RCV"
	RCVS+=("$TB_RCV") SNDS+=("$TB_SND") TXS+=("$TB_TX") MACS+=("$TB_RX_MAC")
	# a /30 from 198.18.250.0/24 per host: the host's end .4i+1, the monitor's .4i+2
	ip link add "${BASE}m$i" netns "$MON" type veth peer "${BASE}h$i" netns "$TB_RCV"
	ip -n "$TB_RCV" addr add "198.18.250.$((4 * i + 1))/30" dev "${BASE}h$i"
	ip -n "$MON" addr add "198.18.250.$((4 * i + 2))/30" dev "${BASE}m$i"
	ip -n "$TB_RCV" link set "${BASE}h$i" up
	ip -n "$MON" link set "${BASE}m$i" up
	ADDRS+=("198.18.250.$((4 * i + 1)):9100")
	ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --pps 10k --top 5 --metrics "${ADDRS[-1]}" \
		--levels v4:24,16 --ban 30s --history "$WORK/h$i.db" \
		--json >"$WORK/rw$i.json" 2>"$WORK/rw$i.err" &
	RW_PIDS+=($!)
done
TB_SND="" TB_RCV="" # all three are in EXTRA_NS; nothing left for tb_down

# host i's traffic: "SOURCE PPS ..." (limit 10k: 198.18.0.1 is over on hosts 1 and 2;
# the others stay a third under it, as paced senders come in bursts)
TRAFFIC=("198.18.0.1 20000 198.18.0.2 3000" "198.18.0.1 15000 198.18.0.3 4000"
	 "198.18.0.4 6500 198.18.0.2 2000")

cat >"$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$ROOT/dist/ratewall.rules.yml"]
scrape_configs:
  - job_name: ratewall
    static_configs:
      - targets: ["${ADDRS[0]}", "${ADDRS[1]}", "${ADDRS[2]}"]
YML
check "promtool accepts the recording and alerting rules" promtool check rules "$ROOT/dist/ratewall.rules.yml"
ip netns exec "$MON" prometheus --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/tsdb" --web.listen-address=127.0.0.1:9090 \
	>"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
query() { # query PROMQL: the API's JSON
	ip netns exec "$MON" curl -s --max-time 5 --data-urlencode "query=$1" \
		http://127.0.0.1:9090/api/v1/query
}
for _ in $(seq 100); do
	ip netns exec "$MON" curl -sf --max-time 1 http://127.0.0.1:9090/-/ready >/dev/null && break
	sleep 0.2
done

PIDS=()
for i in 0 1 2; do
	read -r -a t <<<"${TRAFFIC[$i]}"
	for ((k = 0; k < ${#t[@]}; k += 2)); do
		ip netns exec "${SNDS[$i]}" "$GEN" --dev "${TXS[$i]}" --dst-mac "${MACS[$i]}" \
			--src "${t[$k]}" --rate "${t[$((k + 1))]}" --duration 14s \
			>"$WORK/gen.$i.${t[$k]}" &
		PIDS+=($!)
	done
done
sleep 9 # the windows fill, scrapes come every second, rules evaluate every second

# Averaged over 5 s of scrapes: paced generators send in bursts of a few ms.
PROMQL='topk(10, sum by (source) (avg_over_time(ratewall_source_packets_per_second[5s])))'
query "$PROMQL" >"$WORK/topk.json"
query 'ALERTS{alertname="RatewallSourceLimited",alertstate="firing"}' >"$WORK/alerts.json"
query 'count(up == 1)' >"$WORK/up.json"
wait "${PIDS[@]}"
# What was really sent, per source, summed over the hosts (the generators' own rates).
EXPECT=$(python3 - "$WORK"/gen.* <<'PY'
import json, os, sys
sent = {}
for path in sys.argv[1:]:
    src = os.path.basename(path).split(".", 2)[2]
    sent[src] = sent.get(src, 0) + json.load(open(path))["pps"]
print(" ".join("%s %.0f" % kv for kv in sorted(sent.items(), key=lambda kv: -kv[1])))
PY
)
read -r up got order <<<"$(python3 - "$WORK/up.json" "$WORK/topk.json" <<'PY'
import json, sys
up = json.load(open(sys.argv[1]))["data"]["result"]
top = json.load(open(sys.argv[2]))["data"]["result"]
rows = sorted(((r["metric"]["source"], float(r["value"][1])) for r in top), key=lambda x: -x[1])
print(up[0]["value"][1] if up else 0, ",".join("%s=%.0f" % r for r in rows), ",".join(s for s, _ in rows))
PY
)"
echo "     PromQL: $PROMQL"
echo "     (a) answer: $got; the generators sent: $EXPECT; targets up: $up"
check "(a) Prometheus scrapes all three hosts" test "$up" = 3
check "(a) heaviest first across the fleet" test "$order" = "198.18.0.1,198.18.0.4,198.18.0.2,198.18.0.3"
ok_rates=$(python3 - "$WORK/topk.json" "$EXPECT" <<'PY'
import json, sys
top = {r["metric"]["source"]: float(r["value"][1]) for r in json.load(open(sys.argv[1]))["data"]["result"]}
want = sys.argv[2].split()
want = {want[i]: float(want[i + 1]) for i in range(0, len(want), 2)}
print(all(abs(top.get(s, 0) - v) <= 0.15 * v for s, v in want.items()))
PY
)
check "(a) each source's fleet rate is what the generators sent, within 15%" test "$ok_rates" = True
firing=$(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['data']['result']
print(','.join(sorted(x['metric']['source'] for x in r)))" "$WORK/alerts.json")
echo "     (b) RatewallSourceLimited firing for: ${firing:-nobody}"
check "(b) the alert fires for the source over its limit, and only for it" test "$firing" = "198.18.0.1"

# (c) and (d) ask Prometheus about the moment (a) asked, while the traffic ran
# (a source gone from the window is gone from /metrics, and from an instant query).
AT=$(stat -c %Y "$WORK/topk.json")
# (c) Every query of the dashboard (dist/ratewall-dashboard.json) and its variables answers.
ip netns exec "$MON" python3 "$ROOT/tests/harness/check_dashboard.py" --prometheus http://127.0.0.1:9090 \
	--time "$AT" >"$WORK/dashboard.out" 2>&1
rc=$?
grep -v '^ok  ' "$WORK/dashboard.out" | sed 's/^/     /'
check "(c) every dashboard panel's query answers with data" test "$rc" = 0
# ... and a query of a family nobody serves is named, so the check above can fail.
sed 's/ratewall_tracked_sources{/ratewall_tracked_nothing{/' "$ROOT/dist/ratewall-dashboard.json" \
	>"$WORK/planted-dashboard.json"
ip netns exec "$MON" python3 "$ROOT/tests/harness/check_dashboard.py" --prometheus http://127.0.0.1:9090 \
	--time "$AT" "$WORK/planted-dashboard.json" >"$WORK/planted.out" 2>&1
rc=$?
check "(c) a planted panel without data is named" \
	grep -q '^1 of [0-9]* queries failed: panel [0-9]* "Tracked keys" A (no data)$' "$WORK/planted.out"
check "(c) ... and fails the check" test "$rc" = 1

# (d) Which alerts of dist/ratewall.rules.yml are up in this fleet: limited and
# banned (firing: no `for`) for 198.18.0.1 alone; a heavy prefix on each host
# (pending or firing: it waits 2 minutes), 198.18.0.0/24 holding all of the
# traffic; hosts 1 and 2 dropping over 10 % (198.18.0.1 is over the limit
# there), host 3 not. Never a late tick, a target down or missing, a history
# error: neither then nor now.
query_at() { # query_at TIME PROMQL
	ip netns exec "$MON" curl -s --max-time 5 --data-urlencode "query=$2" --data-urlencode "time=$1" \
		http://127.0.0.1:9090/api/v1/query
}
query_at "$AT" 'ALERTS{alertname=~"Ratewall.*"}' >"$WORK/alerts_then.json"
query_at "$(date +%s)" 'ALERTS{alertname=~"Ratewall.*"}' >"$WORK/alerts_now.json"
IFS='|' read -r firing heavy dropping other <<<"$(python3 - "$WORK"/alerts_{then,now}.json "${ADDRS[@]}" <<'PY'
import json, sys
host = {a: "host%d" % i for i, a in enumerate(sys.argv[3:], 1)}
firing, heavy, dropping, other = set(), set(), set(), set()
for path in sys.argv[1:3]:
    for r in json.load(open(path))["data"]["result"]:
        m = r["metric"]
        name, where = m["alertname"], host.get(m.get("instance"), m.get("instance", ""))
        if path == sys.argv[1] and name in ("RatewallSourceLimited", "RatewallSourceBanned"):
            (firing if m["alertstate"] == "firing" else other).add("%s=%s" % (name, m.get("source")))
        elif path == sys.argv[1] and name == "RatewallHeavyPrefix":
            heavy.add("%s@%s" % (m["prefix"], where))
        elif path == sys.argv[1] and name == "RatewallHostDropping":
            dropping.add(where)
        elif path == sys.argv[1] or name not in ("RatewallSourceLimited", "RatewallSourceBanned",
                                                  "RatewallHeavyPrefix", "RatewallHostDropping"):
            other.add("%s:%s@%s" % (name, m["alertstate"], where))
print("|".join(",".join(sorted(x)) for x in (firing, heavy, dropping, other)))
PY
)"
echo "     (d) firing: ${firing:-none}; heavy prefix: ${heavy:-none}; dropping: ${dropping:-none}; other: ${other:-none}"
check "(d) limited and banned fire for 198.18.0.1 alone" \
	test "$firing" = "RatewallSourceBanned=198.18.0.1,RatewallSourceLimited=198.18.0.1"
check "(d) a heavy prefix on each host (pending or firing)" \
	test "$heavy" = "198.18.0.0/24@host1,198.18.0.0/24@host2,198.18.0.0/24@host3"
check "(d) hosts 1 and 2 drop over 10 % (pending or firing), host 3 not" test "$dropping" = "host1,host2"
check "(d) no tick late, target down or missing, history error: then or now" test -z "$other"
kill -INT "${RW_PIDS[@]}" "$PROM_PID" 2>/dev/null
wait "${RW_PIDS[@]}" "$PROM_PID" 2>/dev/null

finish
