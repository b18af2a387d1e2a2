#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The traffic generator: it refuses every unsafe target before sending
# anything, keeps its sources inside the test ranges, reports exactly what it
# sent per source, and stays inside its packet and time bounds.
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" 2 || { fail "testbed"; finish; exit 1; }
# A veth takes redirected frames only when its peer runs XDP: pass them on to nft.
ip -n "$TB_RCV" link set dev "$TB_RX" xdpdrv obj "$BUILD/xdp_pass_all.bpf.o" sec xdp
nft_observe all ip saddr 198.18.0.0/15

# refused PATTERN ARGS...: rwgen (inside the sender namespace) exits 2 naming why.
refused() {
	local pattern=$1 rc
	shift
	ip netns exec "$TB_SND" "$GEN" "$@" >/dev/null 2>"$WORK/err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q -- "$pattern" "$WORK/err"
}

# In the root namespace it refuses before looking any further (default route or not a veth).
rc=0
"$GEN" --dev lo --count 1 >/dev/null 2>"$WORK/err" || rc=$?
check "refuses to send from the root namespace or out of a non-veth: $(cat "$WORK/err")" \
	eval "[ $rc -eq 2 ] && grep -q refusing '$WORK/err'"
check "refuses a non-veth device inside a test namespace" refused "not a veth" --dev lo --count 1
check "refuses sources outside 198.18.0.0/15" refused "198.18.0.0/15" --dev "$TB_TX" --src 10.0.0.1 --count 1
check "refuses a source range that runs past 198.19.255.255" \
	refused "198.18.0.0/15" --dev "$TB_TX" --src 198.19.255.250 --sources 10 --count 1
check "refuses IPv6 sources outside 2001:db8::/32" \
	refused "2001:db8::/32" --dev "$TB_TX" --ipv6 --src 2001:db9::1 --count 1
check "refuses a duration over an hour" refused "at most 1h" --dev "$TB_TX" --duration 2h
check "refuses destinations outside 198.18.0.0/15" refused "--dst: '203.0.113.5' must be inside" \
	--dev "$TB_TX" --dst 203.0.113.5 --count 1
check "refuses a destination range that runs past 198.19.255.255" refused "198.18.0.0/15" \
	--dev "$TB_TX" --vary dst --dst 198.19.255.250 --sources 10 --count 1
check "refuses ports past 65535" refused "past 65535" --dev "$TB_TX" --vary sport --sport 65530 \
	--sources 10 --count 1
check "refuses an unknown --vary" refused "not one of src, dst, sport, dport" --dev "$TB_TX" \
	--vary proto --count 1
check "refuses --ipv6-net without --ipv6" refused "needs --ipv6" --dev "$TB_TX" --ipv6-net --count 1
check "refuses --catch-up without --rate" refused "needs --rate" --dev "$TB_TX" --catch-up 20ms --count 1
check "refuses an unknown --via" refused "not one of live, packet" --dev "$TB_TX" --via pktgen --count 1

# Either way out delivers every frame; live frames where the kernel runs them,
# else rwgen says so (exit 1) and its default falls back to the packet socket.
# via_run ARGS...: 2000 frames; sets RC, SEEN (nft's count) and VIA (the report's).
via_run() {
	local before
	before=$(nft_count all)
	RC=0
	gen "$@" --sources 5 --count 2000 --cpus 2 >"$WORK/via.json" 2>"$WORK/via.err" || RC=$?
	sleep 0.3
	SEEN=$(( $(nft_count all) - before ))
	VIA=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["via"])' "$WORK/via.json" 2>/dev/null)
}
via_run --via packet
check "--via packet: 2000 frames seen, reported as packet ($RC, $VIA, $SEEN)" \
	eval "[ $RC -eq 0 ] && [ '$VIA' = packet ] && [ $SEEN -eq 2000 ]"
via_run --via live
want=live
if [ "$RC" -eq 1 ] && grep -q "refuses to send live frames" "$WORK/via.err"; then
	want=packet
	check "--via live on a kernel that refuses live frames: exit 1, says so, sends nothing ($SEEN)" \
		test "$SEEN" -eq 0
else
	check "--via live: 2000 frames seen, reported as live ($RC, $VIA, $SEEN)" \
		eval "[ $RC -eq 0 ] && [ '$VIA' = live ] && [ $SEEN -eq 2000 ]"
fi
via_run
check "by default: live frames where the kernel runs them, else the packet socket ($want: $RC, $VIA, $SEEN)" \
	eval "[ $RC -eq 0 ] && [ '$VIA' = $want ] && [ $SEEN -eq 2000 ]"

before=$(nft_count all)
gen --dist zipf:1 --sources 10 --count 10000 --cpus 2 --per-source >"$WORK/zipf.json"
sleep 0.3
seen=$(( $(nft_count all) - before ))
python3 - "$WORK/zipf.json" "$seen" <<'PY' && ok "zipf:1 over 10 sources: exact total, every packet seen, counts fall as 1/rank" ||
import json, sys
g = json.load(open(sys.argv[1])); seen = int(sys.argv[2])
c = list(g["per_source"].values())
print(f"     zipf counts {c}, sent {g['sent']}, nft saw {seen}")
sys.exit(0 if g["sent"] == 10000 == sum(c) == seen and all(a >= b for a, b in zip(c, c[1:]))
         and 1.9 < c[0] / c[1] < 2.1 else 1)
PY
	fail "zipf:1 over 10 sources: exact total, every packet seen, counts fall as 1/rank"

gen --sources 7 --count 1001 --cpus 2 --per-source >"$WORK/uni.json"
python3 - "$WORK/uni.json" <<'PY' && ok "uniform over 7 sources on 2 CPUs: 1001 packets, counts within 1 of each other" ||
import json, sys
g = json.load(open(sys.argv[1])); c = list(g["per_source"].values())
sys.exit(0 if g["sent"] == 1001 == sum(c) and max(c) - min(c) <= 1 and sum(g["per_cpu"]) == 1001 else 1)
PY
	fail "uniform over 7 sources on 2 CPUs: 1001 packets, counts within 1 of each other"

# Destinations and ports vary as sources do, each value counted by its own nft rule.
for d in 1 2 3; do nft_observe "d$d" ip daddr "198.19.0.$d"; done
for p in 53 54; do nft_observe "p$p" udp dport "$p"; done
gen --vary dst --dst 198.19.0.1 --sources 3 --count 3000 >/dev/null
gen --vary dport --dport 53 --sources 4 --count 4000 --per-source >"$WORK/ports.json"
sleep 0.3
got="$(nft_count d1) $(nft_count d2) $(nft_count d3) $(nft_count p53) $(nft_count p54)"
check "--vary dst over 3 destinations and --vary dport over 4 ports: nft sees 1000 each ($got)" \
	eval "[ '$got' = '1000 1000 1000 1000 1000' ] && grep -q '\"53\": 1000, \"54\": 1000' '$WORK/ports.json'"

gen --ipv6 --ipv6-net --sources 3 --count 3 --per-source >"$WORK/net.json"
check "--ipv6-net: each source in its own /64 ($(cat "$WORK/net.json"))" \
	grep -q '"2001:db8::1": 1, "2001:db8:0:1::1": 1, "2001:db8:0:2::1": 1' "$WORK/net.json"

gen --rate 20k --duration 1s >"$WORK/paced.json"
python3 - "$WORK/paced.json" <<'PY' && ok "paced 20 kpps for 1 s: sends about 20000 and stops on time" ||
import json, sys
g = json.load(open(sys.argv[1]))
print(f"     paced: sent {g['sent']} in {g['seconds']:.3f} s")
sys.exit(0 if 18000 <= g["sent"] <= 20500 and g["seconds"] < 1.3 else 1)
PY
	fail "paced 20 kpps for 1 s: sends about 20000 and stops on time"

# A thread held still for a second (as an emulated guest's vCPU is): it says
# how far behind it fell, and sends all it owes after, or with --catch-up
# gives it up. Started directly, so $! is rwgen itself (ip netns exec execs it).
# With --catch-up 20ms: 2 s of its pace sent (4000), plus, after the stall, at
# most 20 ms and its usual cycle (one call, 24-64 ms here: 40 + 48-128), less
# what fell due after its last call before the deadline (up to a cycle):
# 3870-4170. Before, the catch-up counted the cost of its own calls as falling
# behind and sent 2167-2689 (issue 43). A SIGSTOP in a call of more than one
# batch cut it short (EINTR), which it took for a failure and exited.
ip netns exec "$TB_SND" "$GEN" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" --rate 2000 --duration 3s \
	>"$WORK/owes.json" &
owes=$!
ip netns exec "$TB_SND" "$GEN" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" --rate 2000 --duration 3s \
	--catch-up 20ms >"$WORK/gives.json" &
gives=$!
sleep 1
kill -STOP "$owes" "$gives"
sleep 1
kill -CONT "$owes" "$gives"
wait "$owes" "$gives"
python3 - "$WORK/owes.json" "$WORK/gives.json" <<'PY' && ok "held still for 1 s of 3 at 2000 pps: behind by about 1 s; sends all it owes (about 6000), or with --catch-up 20ms about 4000" ||
import json, sys
o, g = (json.load(open(f)) for f in sys.argv[1:3])
print(f"     all it owes: sent {o['sent']}, {o['behind_ms']} ms behind; --catch-up 20ms: sent {g['sent']},"
      f" {g['behind_ms']} ms behind")
sys.exit(0 if 5700 <= o["sent"] <= 6000 and 3400 <= g["sent"] <= 4600 and
         o["behind_ms"] >= 800 and g["behind_ms"] >= 800 else 1)
PY
	fail "held still for 1 s of 3 at 2000 pps: behind by about 1 s; sends all it owes (about 6000), or with --catch-up 20ms about 4000"

# One whose 2400 packets fall due in 1.2 s, held still from 1 s to 2 s: its
# last packets go out some 800 ms after they were due (less the time it took
# to start), the flood that much longer than its schedule (last_late_ms; the
# two above caught up long before their last packet, which went out on
# time). Alone: a third generator beside the two above took from what the
# one with --catch-up sent, in an emulated guest below its bound.
ip netns exec "$TB_SND" "$GEN" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" --rate 2000 --count 2400 \
	>"$WORK/late.json" &
late=$!
sleep 1
kill -STOP "$late"
sleep 1
kill -CONT "$late"
wait "$late"
python3 - "$WORK/late.json" "$WORK/owes.json" "$WORK/gives.json" <<'PY' && ok "held still past the end of its schedule: its last packets went out about 800 ms late (last_late_ms); caught up before it: on time" ||
import json, sys
l, o, g = (json.load(open(f)) for f in sys.argv[1:4])
print(f"     2400 due in 1.2 s, held still 1-2 s: sent {l['sent']}, the last {l['last_late_ms']} ms late;"
      f" caught up: {o['last_late_ms']} and {g['last_late_ms']} ms")
sys.exit(0 if l["sent"] == 2400 and 300 <= l["last_late_ms"] <= 1500 and
         o["last_late_ms"] < 300 and g["last_late_ms"] < 300 else 1)
PY
	fail "held still past the end of its schedule: its last packets went out about 800 ms late (last_late_ms); caught up before it: on time"

# SIGTERM ends a run sooner and still reports it: a test ends its flood when
# its measurement is done (gen_start / gen_stop in lib.sh).
nft_count_before=$(nft_count all)
t0=$(date +%s.%N)
gen_start "$WORK/stopped.json" --rate 20k --duration 60s
sleep 1
gen_stop
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
sleep 0.2
seen=$(( $(nft_count all) - nft_count_before ))
python3 - "$WORK/stopped.json" "$took" "$seen" <<'PY' && ok "SIGTERM: a 60 s run stops at once, says so, and reports what it sent" ||
import json, sys
g, took, seen = json.load(open(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3])
print(f"     stopped after {g['seconds']:.2f} s ({took:.2f} s from its start to its exit): sent {g['sent']},"
      f" the receiver saw {seen}, stopped {g['stopped']}")
sys.exit(0 if g["stopped"] is True and took < 5 and g["sent"] == seen and
         0.5 * 20000 <= g["sent"] <= 20000 * (g["seconds"] + 0.1) else 1)
PY
	fail "SIGTERM: a 60 s run stops at once, says so, and reports what it sent"

finish
