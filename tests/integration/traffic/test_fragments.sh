#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Rules a fragmented or padded flood cannot slip past, with real tools in the
# test namespaces:
#  (a) a real reflection, fragmented: dnsmasq serves a TXT record of about
#      3 KB, bigger than the link's MTU, so each answer crosses ratewall as
#      IPv4 fragments. Queries with EDNS's 4096-byte buffer (as dig +bufsize=4096
#      asks) from the victim's address, 400 a second, under
#      `udp sport 53 limit 100 per dst`: the victim receives 100 datagrams'
#      worth of fragments a second within 5 % (a datagram is one packet to the
#      limit, and passes or drops whole); dig +bufsize=4096 from another
#      address of the receiver gets every answer.
#  (b) hping3 -S -f (16-byte fragments: ports and flags in the first one) at
#      about 1000 SYNs a second under `tcp flags syn limit 100`: 100 SYNs a
#      second pass within 10 %, each whole; a real client's HTTP requests
#      through the same rule, meanwhile, are all answered.
#  (c) IPv6 SYNs built by scapy as atomic fragments, and behind five
#      Destination Options headers, under the same rule: each source held
#      within 10 %.
#  (d) later fragments whose first never came (scapy, 20 sources, one
#      victim): counted (frag_unmatched), and held by `udp frag limit 100
#      per dst` within 10 %.
#  (e) --ban with a `per dst` rule: after a SYN flood on the victim ends, a
#      real client's connection to it is answered (the victim's budget is
#      limited, never banned).
# Every sender is bounded by a count and a time.
set -u
. "$(dirname "$0")/../lib.sh"

CLIENT=198.18.0.1   # the resolver (dnsmasq) and the HTTP client
VICTIM=198.18.0.254 # the receiver: the reflection's victim, the TCP server
OTHER=198.18.0.250  # another address of the receiver: an innocent DNS client
SYN_SRC=198.18.1.66
PORT=8080
BURST_S=0.1 # the default --burst a key may send at once
# Scapy is Debian's (python3-scapy), for Debian's python.
PY=/usr/bin/python3

# A queue a CPU, each CPU sending on its own (XPS), as a NIC hashes a
# datagram's fragments to one queue: a veth runs a queue's frames in the NAPI
# of the CPU that scheduled it, and the cache of first fragments is per CPU
# (docs/limits.md). With one queue, a packet of curl's from the other CPU
# took the NAPI between a SYN's two fragments in a CI run, and the rest
# followed that CPU's last first (hping3 gives every datagram one IP id):
# 1121 fragments = 2 x 560 + 1.
NQ=$(nproc)
tb_up "$(tb_name)" "$NQ" || { fail "testbed"; finish; exit 1; }
for q in $(seq 0 $((NQ - 1))); do
	ip netns exec "$TB_SND" sh -c "printf %x $((1 << q)) >/sys/class/net/$TB_TX/queues/tx-$q/xps_cpus" ||
		{ fail "testbed: XPS"; finish; exit 1; }
done
ip -n "$TB_SND" addr add "$CLIENT/24" dev "$TB_TX"
ip -n "$TB_RCV" addr add "$VICTIM/24" dev "$TB_RX"
ip -n "$TB_RCV" addr add "$OTHER/24" dev "$TB_RX"
TX_MAC=$(ip -n "$TB_SND" -o link show "$TB_TX" | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')

# rate PASSED SECONDS: per second, one decimal.
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }'; }
# budget LIMIT SECONDS: what a limit admits in that span and its burst.
budget() { awk -v l="$1" -v s="$2" -v b=$BURST_S 'BEGIN { printf "%d", l * (s + b) }'; }
# start_http: a real HTTP server on the victim (30 s at most), once it answers;
# stop_http ends it.
start_http() {
	ip netns exec "$TB_RCV" timeout 30 python3 -m http.server --bind "$VICTIM" $PORT \
		>"$WORK/http.log" 2>&1 &
	HTTP=$!
	for _ in $(seq 50); do
		ip netns exec "$TB_SND" curl -s -o /dev/null --max-time 1 "http://$VICTIM:$PORT/" && break
		sleep 0.1
	done
}
stop_http() {
	kill "$HTTP" 2>/dev/null
	wait "$HTTP" 2>/dev/null
}
# scapy_send SCRIPT: scapy in the sender's namespace, its frames out of TB_TX
# to the receiver (SCRIPT builds the frames and sends them with `out(pkts,
# gap)`, which prints the seconds the sending took).
scapy_send() {
	ip netns exec "$TB_SND" timeout 60 "$PY" - "$TB_TX" "$TB_RX_MAC" "$TX_MAC" <<PY
import sys, time
from scapy.all import Ether, IP, IPv6, TCP, UDP, IPv6ExtHdrFragment, IPv6ExtHdrDestOpt, conf, sendp
conf.verb = 0
iface, dst_mac, src_mac = sys.argv[1:4]
def out(pkts, gap):
    s = conf.L2socket(iface=iface)
    t0 = time.time()
    for i, p in enumerate(pkts):
        while time.time() < t0 + i * gap:
            time.sleep(gap / 4)
        s.send(Ether(src=src_mac, dst=dst_mac) / p)
    print("%.3f" % (time.time() - t0))
    s.close()
$1
PY
}

# (a) A fragmented reflection: dnsmasq's big TXT answers to one victim.
DNS_LIMIT=100
DNS_RATE=400
DNS_S=4
txt=$(for i in $(seq 12); do printf '"%s",' "$(printf 'r%.0s' $(seq 250))"; done)
ip netns exec "$TB_SND" timeout 60 dnsmasq --keep-in-foreground --conf-file=/dev/null \
	--no-resolv --no-hosts --listen-address="$CLIENT" --bind-interfaces --port=53 \
	--txt-record="big.rw.test,${txt%,}" --edns-packet-max=4096 --pid-file= --user=root \
	>"$WORK/dnsmasq.log" 2>&1 &
DNSMASQ=$!
for _ in $(seq 50); do
	ip netns exec "$TB_RCV" dig @"$CLIENT" big.rw.test TXT +bufsize=4096 +ignore +time=1 \
		+tries=1 >/dev/null 2>&1 && break
	sleep 0.1
done
nft_observe dns ip saddr $CLIENT ip daddr $VICTIM
# +ignore: the answer by UDP, as the reflection's are (no retry by TCP on truncation)
ip netns exec "$TB_RCV" dig -b "$VICTIM" @"$CLIENT" big.rw.test TXT +bufsize=4096 +ignore +time=2 \
	+tries=1 >"$WORK/a.dig" 2>&1
frags=$(nft_count dns)
size=$(sed -n 's/.*MSG SIZE  rcvd: \([0-9]*\).*/\1/p' "$WORK/a.dig")
echo "     one answer of $size bytes crossed as $frags IPv4 fragments"
check "(a) dnsmasq's answer is bigger than the MTU and crosses as fragments ($size bytes, $frags fragments)" \
	test "${size:-0}" -gt 1500 -a "${frags:-0}" -ge 2
cat >"$WORK/a.rules" <<RULES
0.0.0.0/0 udp sport 53 limit $DNS_LIMIT per dst
RULES
start_ratewall "$WORK/a.json" --json --interval 500ms --rules "$WORK/a.rules" ||
	fail "(a) ratewall starts"
before=$(nft_count dns)
# The queries: what dig +bufsize=4096 sends (EDNS, a 4096-byte buffer), from the
# victim's address at DNS_RATE a second, not waiting for answers.
ip netns exec "$TB_RCV" timeout 30 python3 - "$VICTIM" "$CLIENT" $DNS_RATE $DNS_S \
	>"$WORK/a.flood" <<'PY' &
import socket, struct, sys, time
src, dst, rate, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
q = b"".join(bytes([len(l)]) + l.encode() for l in "big.rw.test".split(".")) + b"\0"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((src, 0))
n, t0 = 0, time.time()
while n < rate * secs:
    while time.time() < t0 + n / rate:
        time.sleep(0.0005)
    # header (id, RD, one question, one additional), TXT IN, OPT: 4096-byte buffer
    s.sendto(struct.pack("!HHHHHH", n & 0xffff, 0x0100, 1, 0, 0, 1) + q + struct.pack("!HH", 16, 1)
             + b"\0" + struct.pack("!HHIH", 41, 4096, 0, 0), (dst, 53))
    n += 1
print(n, "%.3f" % (time.time() - t0))
PY
FLOOD=$!
answered=0
for _ in $(seq 10); do
	sleep 0.3
	ip netns exec "$TB_RCV" dig -b "$OTHER" @"$CLIENT" big.rw.test TXT +bufsize=4096 +ignore \
		+time=2 +tries=1 2>/dev/null | grep -q "MSG SIZE  rcvd: $size" && answered=$((answered + 1))
done
wait "$FLOOD"
sleep 0.5
stop_ratewall
kill "$DNSMASQ" 2>/dev/null
wait "$DNSMASQ" 2>/dev/null
read -r queries secs <"$WORK/a.flood"
passed=$(($(nft_count dns) - before))
want=$(($(budget $DNS_LIMIT "$secs") * frags))
echo "     $queries queries in $secs s: the victim received $passed fragments, $(rate "$passed" "$secs") a second ($frags a datagram; budget $want); dig from $OTHER answered $answered of 10"
check "(a) the victim receives $DNS_LIMIT datagrams' worth of fragments a second within 5 % ($passed vs $want)" \
	within "$passed" "$want" 0.05
check "(a) ... every datagram whole: fragments passed are a multiple of $frags ($passed)" \
	test $((passed % frags)) -eq 0
check "(a) dig +bufsize=4096 from another address gets every answer during the flood" \
	test "$answered" -eq 10
check "(a) ratewall counted first and later fragments" python3 - "$WORK/a.json" "$queries" "$frags" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
t = rows[-1]["totals"]
n, k = int(sys.argv[2]), int(sys.argv[3])
sys.exit(not (t["frag_first"] >= n and t["frag_later"] >= n * (k - 1) and t["frag_unmatched"] == 0))
PY

# (b) hping3 -S -f against `tcp flags syn limit 100`, and a real client beside it;
# the rate is read over 3 s of the flood's steady state (steady_span: the
# shortest and longest the span can have been).
SYN_LIMIT=100
cat >"$WORK/syn.rules" <<RULES
0.0.0.0/0 tcp flags syn limit $SYN_LIMIT
::/0 tcp flags syn limit $SYN_LIMIT
RULES
nft_observe synfirst ip saddr $SYN_SRC ip frag-off \& 0x1fff == 0
nft_observe synall ip saddr $SYN_SRC
start_http
start_ratewall "$WORK/b.json" --json --rules "$WORK/syn.rules" || fail "(b) ratewall starts"
# hping3 on one CPU, so on one queue (the testbed's comment): it moved between
# CPUs between a SYN's two fragments once (1113 fragments = 2 x 556 + 1).
ip netns exec "$TB_SND" taskset -c 0 timeout 20 hping3 -S -f -p $PORT -a $SYN_SRC -i u1000 -c 5000 "$VICTIM" \
	>/dev/null 2>&1 &
HPING=$!
ip netns exec "$TB_SND" sh -c "ok=0; for i in \$(seq 20); do
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 3 http://$VICTIM:$PORT/ | grep -q 200 && ok=\$((ok + 1))
	sleep 0.15; done; echo \$ok" >"$WORK/b.curl" 2>/dev/null &
CURL=$!
sleep 1
read -r first short long <<<"$(steady_span synfirst 3)"
wait "$CURL"
wait "$HPING"
sleep 0.3
stop_ratewall
stop_http
all_first=$(nft_count synfirst)
all=$(nft_count synall)
ok=$(cat "$WORK/b.curl")
orphans=$(python3 -c 'import json, sys
print([json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]["totals"]["frag_unmatched"])' "$WORK/b.json" 2>/dev/null)
echo "     hping3 -S -f: $first SYNs passed in $short-$long s of the flood, $(rate "$first" "$short") a second; in all $all_first SYNs passed whole ($all fragments; later ones without their first: ${orphans:-?}); the client's requests answered: $ok of 20"
check "(b) fragmented SYNs are held by the SYN rule within 10 % ($first in $short-$long s)" \
	awk -v n="$first" -v a="$short" -v b="$long" -v l=$SYN_LIMIT \
	'BEGIN { exit !(n >= 0.9 * l * a && n <= 1.1 * l * b) }'
check "(b) ... each passed whole (16-byte first fragment and its rest: $all = 2 x $all_first)" \
	test "$all" -eq $((2 * all_first))
check "(b) a real client's HTTP requests through the same rule are all answered ($ok of 20)" \
	test "${ok:-0}" -eq 20

# (c) IPv6 SYNs as atomic fragments, and behind five Destination Options headers
V6_A=2001:db8:1::66
V6_B=2001:db8:2::67
nft_observe v6a ip6 saddr $V6_A
nft_observe v6b ip6 saddr $V6_B
start_ratewall "$WORK/c.json" --json --rules "$WORK/syn.rules" || fail "(c) ratewall starts"
secs=$(scapy_send "
syn = TCP(sport=40000, dport=80, flags='S')
a = IPv6(src='$V6_A', dst='2001:db8::fe') / IPv6ExtHdrFragment(offset=0, m=0, id=7) / syn
b = IPv6(src='$V6_B', dst='2001:db8::fe') / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / \
    IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / IPv6ExtHdrDestOpt() / syn
out([p for _ in range(1500) for p in (a, b)], 0.001)
")
sleep 0.3
stop_ratewall
want=$(budget $SYN_LIMIT "$secs")
va=$(nft_count v6a)
vb=$(nft_count v6b)
echo "     IPv6 SYNs for $secs s, 1500 a source: atomic fragments $va passed, five destination options $vb (budget $want each)"
check "(c) IPv6 SYNs as atomic fragments are held within 10 % ($va vs $want)" within "$va" "$want" 0.10
check "(c) IPv6 SYNs behind five destination options are held within 10 % ($vb vs $want)" \
	within "$vb" "$want" 0.10

# (d) later fragments with no first: counted, and budgeted by a frag rule
FRAG_LIMIT=100
cat >"$WORK/d.rules" <<RULES
0.0.0.0/0 udp frag limit $FRAG_LIMIT per dst
RULES
nft_observe orphans ip saddr 198.18.2.0/24 ip daddr $VICTIM
start_ratewall "$WORK/d.json" --json --interval 500ms --rules "$WORK/d.rules" ||
	fail "(d) ratewall starts"
secs=$(scapy_send "
import random
random.seed(7)
out([IP(src='198.18.2.%d' % (1 + i % 20), dst='$VICTIM', id=random.randrange(65536), proto=17,
        frag=185) / (b'x' * 64) for i in range(1500)], 0.002)
")
sleep 0.7
stop_ratewall
want=$(budget $FRAG_LIMIT "$secs")
passed=$(nft_count orphans)
unmatched=$(python3 -c 'import json, sys; print([json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]["totals"]["frag_unmatched"])' "$WORK/d.json" 2>/dev/null)
echo "     1500 later fragments from 20 sources in $secs s, their firsts never sent: $passed passed (budget $want), frag_unmatched $unmatched"
check "(d) later fragments with no first are counted (frag_unmatched $unmatched of 1500)" \
	test "${unmatched:-0}" -eq 1500
check "(d) ... and held by \`udp frag limit $FRAG_LIMIT per dst\` within 10 % ($passed vs $want)" \
	within "$passed" "$want" 0.10

# (e) --ban with a per dst rule: the victim's budget is limited, never banned
cat >"$WORK/e.rules" <<RULES
0.0.0.0/0 tcp flags syn limit 100 per dst
RULES
start_http
start_ratewall "$WORK/e.json" --json --ban 30s --events "$WORK/e.events" --rules "$WORK/e.rules" ||
	fail "(e) ratewall starts"
gen --proto tcp --tcp-flags syn --random-sport --src 198.18.128.1 --sources 64 --dist random \
	--dst "$VICTIM" --dport $PORT --rate 2000 --count 4000 --duration 4s >"$WORK/e.gen" 2>&1
sleep 1.2 # the flood's window is over; a 30 s ban would not be
code=$(ip netns exec "$TB_SND" curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://$VICTIM:$PORT/")
stop_ratewall
stop_http
echo "     SYN flood of $(sent_of "$WORK/e.gen") from 64 sources, then the client: HTTP $code"
check "(e) the victim was limited during the flood" grep -q '"event": "limited"' "$WORK/e.events"
check "(e) ... never banned" eval "! grep -q '\"event\": \"banned\"' '$WORK/e.events'"
check "(e) after the flood a legitimate connection to the victim is answered (HTTP $code)" \
	test "$code" = 200
check "(e) --ban says at start that a per dst budget is never banned" \
	grep -q "never ban" "$WORK/e.json.err"
finish
