#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Rules that match by protocol, port and TCP flags, against real servers and
# clients in the test namespaces:
#  (a) a SYN flood (the generator: SYNs with correct checksums from 64
#      sources in 198.18.128.0/26, random source ports, 20 000 a second)
#      against a real TCP server (Python, backlog 4096, no SYN cookies, no
#      SYN-ACK retry: a request lives a second) while a real client opens 100
#      connections, 25 a second. Without a rule the flood fills the queue:
#      the kernel's ListenDrops (nstat) climbs by thousands. With
#      `0.0.0.0/0 tcp flags syn limit 20` every connection is answered and
#      ListenDrops and ListenOverflows do not move.
#  (b) DNS reflection: dnsmasq answers dig (the receiver's resolver) while
#      UDP from source port 53 floods the receiver from 256 sources. With
#      `0.0.0.0/0 udp sport 53,123,11211 limit 2000 per dst` and the resolver
#      allowed (`198.18.0.1 udp sport 53 allow`), an nft counter sees the
#      flood held to 2000 a second within 5 % (its rate over the run, and
#      the 100 ms --burst), and every dig query is answered; the victim's
#      budget is ranked, named with its rule, and never a heavy source prefix.
#  (c) a port rule (tcp dport 22) and an ICMP rule (echo requests) each
#      hold their sources within 5 %; `rule list` counts each rule's packets
#      and drops as the generator and nft do, /metrics as `rule list` does;
#      the JSON, every `limited` event and --history name each limited key's rule.
#  (d) bad rules (an unknown protocol, a port out of range, flags on UDP, a
#      range backwards) are refused with file and line; at start nothing is
#      attached, on SIGHUP and `rule add` the rules in force stay.
# Every generator run is bounded by --count and --duration; every server and
# client by its own time bound.
set -u
. "$(dirname "$0")/../lib.sh"

CLIENT=198.18.0.1   # the real client, and the resolver dnsmasq answers on
SERVER=198.18.0.254 # the receiver: the TCP server, dig's host
GATE=198.18.0.253   # a neighbour of the receiver that takes its replies to spoofed sources
FLOOD_NET=198.18.128.0
PORT=8080
PIN_DIR=/sys/fs/bpf/rwmatch$$
# What a limit admits in S seconds: S of its rate and the --burst (100 ms by
# default) a key may send at once.
BURST_S=0.1

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
ip -n "$TB_SND" addr add "$CLIENT/24" dev "$TB_TX"
ip -n "$TB_RCV" addr add "$SERVER/24" dev "$TB_RX"
# Replies to the spoofed sources leave for the sender's MAC, where nothing takes them.
TX_MAC=$(ip -n "$TB_SND" -o link show "$TB_TX" | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
ip -n "$TB_RCV" neigh add "$GATE" lladdr "$TX_MAC" dev "$TB_RX" nud permanent
ip -n "$TB_RCV" route add "$FLOOD_NET/17" via "$GATE" dev "$TB_RX"
# A listener without SYN cookies whose request queue a flood can fill: each
# request lives a second (no SYN-ACK retry), and past 3/4 of 4096 in the
# queue a new one is dropped (ListenDrops).
ip netns exec "$TB_RCV" sysctl -qw net.ipv4.tcp_syncookies=0 net.ipv4.tcp_synack_retries=0 \
	net.ipv4.tcp_max_syn_backlog=4096 net.core.somaxconn=4096

listen_drops() {
	ip netns exec "$TB_RCV" nstat -saz TcpExtListenDrops TcpExtListenOverflows |
		awk '$1 == "TcpExtListenDrops" { d = $2 } $1 == "TcpExtListenOverflows" { o = $2 }
		     END { print d + 0, o + 0 }'
}

# syn_flood NAME: the server, the flood and the client together; "ANSWERED
# FAILED DROPS OVERFLOWS SENT" (the listen counters' growth over the run).
syn_flood() {
	local name=$1 d0 o0 d1 o1
	ip netns exec "$TB_RCV" timeout 20 python3 "$ROOT/tests/integration/traffic/tcp_echo.py" server \
		"$SERVER" $PORT 4096 12 >"$WORK/$name.srv" 2>&1 &
	local srv=$!
	for _ in $(seq 50); do grep -q listening "$WORK/$name.srv" && break; sleep 0.1; done
	read -r d0 o0 <<<"$(listen_drops)"
	gen --proto tcp --tcp-flags syn --random-sport --src 198.18.128.1 --sources 64 --dist random \
		--dst "$SERVER" --dport $PORT --rate 20000 --count 120000 --duration 8s \
		>"$WORK/$name.gen" 2>&1 &
	local g=$!
	sleep 1
	ip netns exec "$TB_SND" timeout 20 python3 "$ROOT/tests/integration/traffic/tcp_echo.py" client \
		"$SERVER" $PORT 100 25 "$CLIENT" >"$WORK/$name.cli" 2>&1
	wait "$g"
	read -r d1 o1 <<<"$(listen_drops)"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c["answered"], c["failed"])' \
		"$WORK/$name.cli" 2>/dev/null | tr '\n' ' ' || echo -n "0 100 "
	echo "$((d1 - d0)) $((o1 - o0)) $(sent_of "$WORK/$name.gen")"
}

# (a) without the rule, then with it
start_ratewall "$WORK/a0.json" --json || fail "(a) ratewall starts"
read -r ans fails drops overflows sent <<<"$(syn_flood a0)"
stop_ratewall
# What each run saw, a line each: docs/operations/recipes.md's capture recipe-syn.
mkdir -p "$WORK/captures"
echo "without a rule: $sent SYNs sent; client $ans answered, $fails failed; ListenDrops +$drops, ListenOverflows +$overflows" |
	tee "$WORK/captures/recipe-syn.txt" | sed 's/^/     /'
check "(a) without a rule the flood overflows the listener (ListenDrops +$drops)" \
	test "$drops" -gt 1000
cat >"$WORK/syn.rules" <<RULES
0.0.0.0/0 tcp flags syn limit 20
RULES
start_ratewall "$WORK/a1.json" --json --rules "$WORK/syn.rules" || fail "(a) ratewall starts with the rule"
read -r ans fails drops overflows sent <<<"$(syn_flood a1)"
stop_ratewall
echo "tcp flags syn limit 20: $sent SYNs sent; client $ans answered, $fails failed; ListenDrops +$drops, ListenOverflows +$overflows" |
	tee -a "$WORK/captures/recipe-syn.txt" | sed 's/^/     /'
captured recipe-syn 's/ListenDrops/ListenDropped/'
check "(a) with the SYN rule all 100 connections are answered" test "$ans" -eq 100
check "(a) with the SYN rule ListenDrops and ListenOverflows do not move" \
	test "$drops" -eq 0 -a "$overflows" -eq 0

# (b) DNS reflection: the resolver's answers pass, the flood is held per destination
REFL_LIMIT=2000
REFL_S=4
cat >"$WORK/refl.rules" <<RULES
0.0.0.0/0 udp sport 53,123,11211 limit $REFL_LIMIT per dst   # reflection toward any victim
$CLIENT udp sport 53 allow                           # our own resolver
RULES
ip netns exec "$TB_SND" timeout 40 dnsmasq --keep-in-foreground --conf-file=/dev/null \
	--no-resolv --no-hosts --listen-address="$CLIENT" --bind-interfaces --port=53 \
	--address=/probe.rw.test/198.18.0.99 --pid-file= --user=root >"$WORK/dnsmasq.log" 2>&1 &
DNSMASQ=$!
nft_observe refl ip saddr $FLOOD_NET/17 udp sport 53
start_ratewall "$WORK/b.json" --json --rules "$WORK/refl.rules" --levels v4:32,24 ||
	fail "(b) ratewall starts"
gen --src 198.18.128.1 --sources 256 --dist random --sport 53 --dst "$SERVER" --dport 33333 \
	--rate 20000 --count $((20000 * REFL_S)) --duration $((REFL_S + 5))s >"$WORK/b.gen" 2>&1 &
GEN_PID=$!
answered=0
for i in $(seq 20); do
	sleep 0.1
	a=$(ip netns exec "$TB_RCV" timeout 5 dig @"$CLIENT" probe.rw.test A +short +time=1 +tries=2 2>/dev/null)
	[ "$a" = 198.18.0.99 ] && answered=$((answered + 1))
done
wait "$GEN_PID"
sleep 0.3
stop_ratewall
kill "$DNSMASQ" 2>/dev/null
wait "$DNSMASQ" 2>/dev/null
passed=$(nft_count refl)
sent=$(sent_of "$WORK/b.gen")
secs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seconds"])' "$WORK/b.gen" 2>/dev/null || echo 0)
want=$(awk -v l=$REFL_LIMIT -v s="$secs" -v b=$BURST_S 'BEGIN { printf "%d", l * (s + b) }')
echo "reflection: $sent sent in ${secs} s from 256 sources, $passed reached the receiver (budget $want); dig answered $answered of 20" |
	tee "$WORK/captures/recipe-reflection.txt" | sed 's/^/     /'
captured recipe-reflection 's/ reached the receiver/ passed/'
check "(b) every dig query is answered during the flood" test "$answered" -eq 20
check "(b) the flood is held to its per-destination budget within 5 % ($passed vs $want)" \
	within "$passed" "$want" 0.05
# The victim's budget is a destination: ranked (named with its rule), never a heavy source prefix.
check "(b) the victim's budget is ranked with its rule, and is no source prefix (--levels)" \
	python3 - "$WORK/b.json" "$SERVER" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
victim = [e for r in rows for e in r["top"] if e["key"].startswith(sys.argv[2] + " dst [rule ")]
heavy = [h["prefix"] for r in rows for h in r["hhh"]]
sys.exit(not victim or any(p.startswith(sys.argv[2]) for p in heavy))
PY

# (c) a port rule and an ICMP rule, on a pinned instance: held, named, counted
PORT_LIMIT=500
ICMP_LIMIT=300
RUN_S=3
cat >"$WORK/c.rules" <<RULES
0.0.0.0/0 tcp dport 22 limit $PORT_LIMIT
0.0.0.0/0 icmp type echo-request limit $ICMP_LIMIT
RULES
nft_observe ssh tcp dport 22
nft_observe ping icmp type echo-request
start_persist "$WORK/c.json" "$TB_RX" --json --rules "$WORK/c.rules" --events "$WORK/c.events" \
	--history "$WORK/c.db" --metrics 9464 || fail "(c) ratewall starts"
gen --proto tcp --tcp-flags ack --src 198.18.1.5 --dst "$SERVER" --dport 22 --rate 2000 \
	--count $((2000 * RUN_S)) --duration $((RUN_S + 4))s >"$WORK/c.ssh.gen" 2>&1
gen --proto icmp --src 198.18.1.6 --dst "$SERVER" --rate 1500 --count $((1500 * RUN_S)) \
	--duration $((RUN_S + 4))s >"$WORK/c.ping.gen" 2>&1
sleep 1.2 # a tick with both in its window
for what in ssh:$PORT_LIMIT ping:$ICMP_LIMIT; do
	name=${what%%:*}
	limit=${what#*:}
	passed=$(nft_count "$name")
	secs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seconds"])' \
		"$WORK/c.$name.gen" 2>/dev/null || echo 0)
	want=$(awk -v l="$limit" -v s="$secs" -v b=$BURST_S 'BEGIN { printf "%d", l * (s + b) }')
	echo "     $name: $(sent_of "$WORK/c.$name.gen") sent in $secs s, $passed passed (limit $limit a second: $want)"
	check "(c) the $name rule holds its source within 5 % ($passed vs $want)" within "$passed" "$want" 0.05
done
"$RW" rule list --pin-dir "$PIN_DIR" >"$WORK/c.list" 2>&1
cat "$WORK/c.list" | sed 's/^/     /'
check "(c) rule list shows each rule's packets and drops" python3 - "$WORK/c.list" \
	"$(sent_of "$WORK/c.ssh.gen")" "$(sent_of "$WORK/c.ping.gen")" "$(nft_count ssh)" "$(nft_count ping)" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
sent = {"tcp dport 22": int(sys.argv[2]), "icmp type 8": int(sys.argv[3])}
passed = {"tcp dport 22": int(sys.argv[4]), "icmp type 8": int(sys.argv[5])}
seen = 0
for l in lines:
    m = re.search(r"# rule \d+: (\d+) packets, (\d+) dropped", l)
    for what in sent:
        if m and what in l:
            seen += 1
            assert int(m.group(1)) == sent[what], l
            assert int(m.group(2)) == sent[what] - passed[what], l
sys.exit(seen != 2)
PY
check "(c) the JSON names the rule of each limited key and counts its drops" python3 - "$WORK/c.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
last = [r for r in rows if r["rules"]][-1]
ids = {r["rule"].split(" limit")[0]: r["id"] for r in last["rules"] if r["dropped"] > 0}
assert set(ids) == {"0.0.0.0/0 tcp dport 22", "0.0.0.0/0 icmp type 8"}, ids
limited = [e for r in rows for e in r["top"] if e["limited"]]
named = {e["rule"] for e in limited if "rule" in e and e["key"].endswith("[rule %d]" % e["rule"])}
sys.exit(named != set(ids.values()))
PY
ip netns exec "$TB_RCV" curl -s --max-time 5 http://127.0.0.1:9464/metrics >"$WORK/c.metrics"
check "(c) /metrics counts each rule's packets and drops as rule list does" python3 - \
	"$WORK/c.metrics" "$WORK/c.list" <<'PY'
import re, sys
metrics = open(sys.argv[1]).read()
for l in open(sys.argv[2]):
    m = re.match(r"(.*?) +# rule (\d+): (\d+) packets, (\d+) dropped", l)
    if not m:
        continue
    text, rid, packets, dropped = m.groups()
    for name, want in (("ratewall_rule_packets_total", packets), ("ratewall_rule_dropped_packets_total", dropped)):
        if f'{name}{{rule="{rid}",text="{text}"}} {want}\n' not in metrics:
            sys.exit(f"no {name} {rid} {want}")
PY
check "(c) each limited event names its rule" python3 - "$WORK/c.events" "$WORK/c.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
ids = {r["id"] for r in [r for r in rows if r["rules"]][-1]["rules"]}
ev = [json.loads(l) for l in open(sys.argv[1]) if '"limited"' in l]
sys.exit(not ev or any(e.get("rule") not in ids or "[rule %d]" % e["rule"] not in e["key"] for e in ev)
         or {e["rule"] for e in ev} != ids)
PY
check "(c) --history keeps the rule of each limited key" test "$(sqlite3 "$WORK/c.db" \
	"SELECT COUNT(DISTINCT rule) FROM top WHERE limited = 1 AND rule LIKE '0.0.0.0/0 %'")" -eq 2

# (d) bad rules: refused with file and line; the rules in force stay
i=0
for bad in "0.0.0.0/0 ftp limit 5|'ftp' is not an action" \
	"0.0.0.0/0 tcp dport 70000 limit 5|dport: '70000' is not a port (0 to 65535)" \
	"0.0.0.0/0 udp flags syn limit 5|flags: only tcp has flags" \
	"0.0.0.0/0 udp dport 2000-1000 deny|dport: the range 2000-1000 runs backwards"; do
	i=$((i + 1))
	printf '0.0.0.0/0 tcp flags syn limit 20\n%s\n' "${bad%%|*}" >"$WORK/bad$i.rules"
	ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --rules "$WORK/bad$i.rules" --json \
		--pin-dir "$WORK/nopins" >/dev/null 2>"$WORK/bad$i.err"
	rc=$?
	check "(d) '${bad%%|*}' at start: exit 2, file and line ($(head -c 120 "$WORK/bad$i.err"))" \
		grep -qF "$WORK/bad$i.rules:2: ${bad#*|}" "$WORK/bad$i.err"
	check "(d) ... exit status 2 ($rc)" test "$rc" -eq 2
done
check "(d) the pinned instance is still the only program on the interface" \
	test "$(ip -n "$TB_RCV" -d link show "$TB_RX" | grep -c 'prog/xdp')" -eq 1
cp "$WORK/bad3.rules" "$WORK/c.rules"
: >"$WORK/c.json.err.hup"
kill -HUP "$RW_PID"
for _ in $(seq 40); do grep -q "rules not reloaded" "$WORK/c.json.err" && break; sleep 0.05; done
check "(d) SIGHUP with a bad file: refused by file and line" \
	grep -qF "rules not reloaded, the old ones stay: $WORK/c.rules:2: flags: only tcp has flags" \
	"$WORK/c.json.err"
"$RW" rule add "0.0.0.0/0 udp dport 0-70000 deny" --pin-dir "$PIN_DIR" 2>"$WORK/d.add.err"
check "(d) rule add of a bad rule exits 2" test $? -eq 2
check "(d) the rules in force stay as they were" \
	test "$(rules_in_force --pin-dir "$PIN_DIR")" = "$(sed 's/ *#.*//' "$WORK/c.list")"
stop_ratewall

finish
