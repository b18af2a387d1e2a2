#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Keys beyond the source (--key dst|pair|flow, --v6-prefix), against nft
# counters per destination, per port and per source prefix:
#  (a) --key dst: three destinations, one over its cap from 200 sources: it is
#      held within 5 % while the other two lose nothing; the ranking of
#      destinations is what the generators sent; metrics carry kind="dst"
#      (promtool lints the page)
#  (b) --key pair: one source to two destinations, one budget per pair; the
#      limited events name the pair
#  (c) --key flow: one source to one destination on two ports, one budget per
#      flow; the ranking shows "udp A:p -> B:q"
#  (d) --v6-prefix: 1000 addresses of one /64, each far under the limit, are
#      one key at the default (held to the limit together), 1000 at 128
#  (e) bad --key / --v6-prefix: exit 2, said, nothing attached
#  (g) --rank dst,pair beside --key src, with a spoofed IPv6 flood beside the
#      senders: all three rankings are the generators' keys at their rates,
#      only the source is limited, every report on time; /metrics carries each
#      kind; bad --rank values refused
#  (f) --persist --key src, then --replace --key flow: new tables, said so;
#      status names the key; `ratewall top` (tmux, 80x24) heads its table FLOW
#      and shows each flow on one row, both ends kept
set -u
. "$(dirname "$0")/../lib.sh"

PIN_DIR=/sys/fs/bpf/rwtest_keys_$$
S=rwkeys$$
tmx() { tmux -L "$S" -f /dev/null "$@"; }
trap 'tmx kill-server 2>/dev/null; in_rcv "$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1; rm -rf "$PIN_DIR"; cleanup' EXIT

PORT=$((30000 + $$ % 10000))
tb_up "$(tb_name)" 2 || { fail "testbed"; finish; exit 1; }
ip -n "$TB_RCV" link set lo up
for d in 1 2 3; do nft_observe "d$d" ip daddr "198.19.0.$d"; done
for p in 53 54; do nft_observe "p$p" udp dport "$p"; done
nft_observe v6 ip6 saddr 2001:db8::/64

# rates SECONDS NAME...: each observer's packets/s over the same span, on one line.
rates() { nft_rates "$@" | paste -sd ' '; }

# mid_top FILE: the key, pps and limited of each top row in a mid-run JSON report.
mid_top() {
	python3 - "$1" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
mid = lines[len(lines) // 2]
print(mid["key_kind"], json.dumps([[e["key"], round(e["pps"]), e["limited"]] for e in mid["top"]],
                                  ensure_ascii=False))
PY
}

# (a) --key dst
start_ratewall "$WORK/dst.json" --key dst --pps 10k --json --metrics "$PORT" ||
	fail "(a) ratewall --key dst starts"
gen --vary src --src 198.18.1.0 --sources 200 --dst 198.19.0.1 --rate 30k --duration 9500ms \
	>"$WORK/g1" &
G="$!"
gen --vary src --src 198.18.2.0 --sources 50 --dst 198.19.0.2 --rate 6k --duration 9500ms >"$WORK/g2" &
G="$G $!"
gen --vary src --src 198.18.3.0 --sources 50 --dst 198.19.0.3 --rate 3k --duration 9500ms >"$WORK/g3" &
G="$G $!"
sleep 2.5
b2=$(nft_count d2)
b3=$(nft_count d3)
read -r r1 r2 r3 < <(rates 6 d1 d2 d3)
ip netns exec "$TB_RCV" curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$WORK/dst.metrics"
# shellcheck disable=SC2086
wait $G
sleep 0.3
stop_ratewall INT
echo "     (a) admitted to 198.19.0.1 $r1 pps (offered 30000, limit 10000); .2 $r2 (6000); .3 $r3 (3000)"
check "(a) the destination over its cap is held within 5 %" within "$r1" 10000 0.05
sent2=$(( $(sent_of "$WORK/g2") )); sent3=$(( $(sent_of "$WORK/g3") ))
seen2=$(nft_count d2); seen3=$(nft_count d3)
check "(a) the other two destinations lose nothing (sent $sent2 / $sent3, seen $seen2 / $seen3)" \
	eval "[ $sent2 -eq $seen2 ] && [ $sent3 -eq $seen3 ] && [ $b2 -gt 0 ] && [ $b3 -gt 0 ]"
top=$(mid_top "$WORK/dst.json")
echo "     (a) mid-run top: $top"
python3 - "$WORK/dst.json" <<'PY' && ok "(a) the ranking is the three destinations, in the generators' order and rates" ||
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
mid = lines[len(lines) // 2]
keys = [e["key"] for e in mid["top"]]
pps = [e["pps"] for e in mid["top"]]
ok = (mid["key_kind"] == "dst" and keys == ["198.19.0.1", "198.19.0.2", "198.19.0.3"] and
      abs(pps[0] - 30000) < 3000 and abs(pps[1] - 6000) < 600 and abs(pps[2] - 3000) < 300 and
      [e["limited"] for e in mid["top"]] == [True, False, False])
sys.exit(0 if ok else 1)
PY
	fail "(a) the ranking is the three destinations, in the generators' order and rates"
check "(a) /metrics: the destination with kind=\"dst\", and promtool finds nothing to lint" \
	eval "grep -q '^ratewall_source_packets_per_second{kind=\"dst\",key=\"198.19.0.1\"} ' '$WORK/dst.metrics' &&
	      promtool check metrics <'$WORK/dst.metrics'"

# two_budgets PART KIND OBS1 OBS2 "GEN1 ARGS" "GEN2 ARGS" [RATEWALL ARGS...]: two
# generators at 25 kpps under --key KIND, limit 10 kpps; each observer must see
# its own budget. The report in $WORK/KIND.json.
two_budgets() {
	local part=$1 kind=$2 o1=$3 o2=$4 g1=$5 g2=$6 r1 r2 g
	shift 6
	start_ratewall "$WORK/$kind.json" --key "$kind" --pps 10k --json "$@" ||
		fail "($part) ratewall --key $kind starts"
	# shellcheck disable=SC2086
	gen $g1 --rate 25k --duration 9500ms >/dev/null &
	g="$!"
	# shellcheck disable=SC2086
	gen $g2 --rate 25k --duration 9500ms >/dev/null &
	g="$g $!"
	sleep 2.5
	read -r r1 r2 < <(rates 6 "$o1" "$o2")
	# shellcheck disable=SC2086
	wait $g
	stop_ratewall INT
	echo "     ($part) admitted $r1 and $r2 pps (limit 10000 each)"
	check "($part) each $kind is held to its own budget within 5 %" \
		eval "within $r1 10000 0.05 && within $r2 10000 0.05"
	echo "     ($part) mid-run top: $(mid_top "$WORK/$kind.json")"
}

# (b) --key pair: 198.18.0.1 to two destinations
two_budgets b pair d1 d2 "--src 198.18.0.1 --dst 198.19.0.1" "--src 198.18.0.1 --dst 198.19.0.2" \
	--events "$WORK/pair.events"
check "(b) the ranking names both pairs, limited" \
	eval "mid_top '$WORK/pair.json' | grep -q '^pair .*\"198.18.0.1 → 198.19.0.1\", [0-9]*, true.*\"198.18.0.1 → 198.19.0.2\", [0-9]*, true\\|^pair .*\"198.18.0.1 → 198.19.0.2\", [0-9]*, true.*\"198.18.0.1 → 198.19.0.1\", [0-9]*, true'"
check "(b) a limited event for each pair, of kind pair" \
	eval "grep -q '\"event\": \"limited\", \"kind\": \"pair\", \"key\": \"198.18.0.1 → 198.19.0.1\"' '$WORK/pair.events' &&
	      grep -q '\"event\": \"limited\", \"kind\": \"pair\", \"key\": \"198.18.0.1 → 198.19.0.2\"' '$WORK/pair.events'"
check "(b) the JSON says key_kind pair" grep -q '"key_kind": "pair"' "$WORK/pair.json"

# (c) --key flow: 198.18.0.1 -> 198.19.0.1 on ports 53 and 54
two_budgets c flow p53 p54 "--src 198.18.0.1 --dst 198.19.0.1 --sport 5353 --dport 53" \
	"--src 198.18.0.1 --dst 198.19.0.1 --sport 5353 --dport 54"
check "(c) the ranking shows both flows as protocol, ends and ports" \
	eval "mid_top '$WORK/flow.json' | grep -q 'udp 198.18.0.1:5353 → 198.19.0.1:53' &&
	      mid_top '$WORK/flow.json' | grep -q 'udp 198.18.0.1:5353 → 198.19.0.1:54'"

# (d) 1000 addresses of 2001:db8::/64 at 30 pps each (30 kpps in all), limit 10 kpps.
# v6run NAME ARGS...: "SENT SEEN PACKETS SHORTEST LONGEST": what the generator
# sent and nft saw over the whole run, and what it saw in a span of 3 s with
# the shortest and longest that span can have been (steady_span).
v6run() {
	local before span
	start_ratewall "$WORK/v6$1.json" --pps 10k --json "${@:2}" || fail "(d) ratewall starts"
	before=$(nft_count v6)
	gen --ipv6 --sources 1000 --rate 30k --duration 6500ms >"$WORK/v6$1.gen" &
	local g=$!
	sleep 2.5
	span=$(steady_span v6 3)
	wait $g
	stop_ratewall INT
	echo "$(sent_of "$WORK/v6$1.gen") $(($(nft_count v6) - before)) $span"
}
read -r _ _ n64 short64 long64 < <(v6run 64)
read -r sent128 seen128 n128 short128 long128 < <(v6run 128 --v6-prefix 128)
echo "     (d) one /64 sending 30000 pps from 1000 addresses: at /64 $n64 packets passed in" \
	"$short64-$long64 s; at /128 $n128 in $short128-$long128 s, and $seen128 of the $sent128 sent in all"
# The limit's schedule admits at most R x S plus its bank (2 x --burst, 2 000
# packets at 10 kpps) in any span S; each read falls somewhere inside its nft
# run, so the bound is checked against the longest and the shortest the span
# can have been (as test_wide_flood (b) does). Read as a rate over the nft
# runs' middles it read 10 890 pps once on a loaded machine.
check "(d) at the default /64 the 1000 addresses share one budget (R x S + bank, 5 % under R x S)" \
	awk -v n="${n64:-0}" -v s="${short64:-1}" -v l="${long64:-0}" \
	'BEGIN { exit !(n >= 0.95 * (10000 * s - 1000) && n <= 1.01 * (10000 * l + 2000)) }'
# At /128 every address is far under its limit: nothing is dropped, whatever
# pace the generator kept; and that pace was over the /64's limit, or the
# check would say nothing.
check "(d) with --v6-prefix 128 each address has its own: all $sent128 sent pass" \
	eval "[ '${sent128:-0}' -gt 0 ] && [ '${sent128:-0}' = '${seen128:-}' ]"
check "(d) ... at a pace over the /64's limit (over 1.5 x 10000 pps)" \
	awk -v n="${n128:-0}" -v l="${long128:-1}" 'BEGIN { exit !(n / l > 15000) }'
check "(d) ranked as the /64" grep -q '"key": "2001:db8::/64"' "$WORK/v664.json"

# refused PART "ARGS"...: each `ratewall run` with ARGS exits 2, says why, attaches nothing.
refused() {
	local part=$1 bad rc
	shift
	for bad in "$@"; do
		rc=0
		# shellcheck disable=SC2086
		ip netns exec "$TB_RCV" "$RW" run "$TB_RX" $bad >/dev/null 2>"$WORK/bad.err" || rc=$?
		check "($part) run $bad: exit 2, said ($(head -c 90 "$WORK/bad.err")), nothing attached" \
			eval "[ $rc -eq 2 ] && [ -s '$WORK/bad.err' ] && ! xdp_attached $TB_RCV $TB_RX"
	done
}

# (e) bad values
refused e "--key source" "--key" "--v6-prefix 0" "--v6-prefix 129"

# (g) --rank dst,pair beside --key src, under a spoofed flood
start_ratewall "$WORK/rank.json" --pps 10k --rank dst,pair --json --metrics "$PORT" ||
	fail "(g) ratewall --rank dst,pair starts"
# --catch-up 100ms: a paced sender the flood held back gives up what it owes
# beyond 100 ms, rather than send it later inside the reports read: once the
# 4k one read 11.7 % over its whole-run average in them (4 408 of 3 947).
gen --src 198.18.0.1 --dst 198.19.0.1 --rate 8k --catch-up 100ms --duration 9s >"$WORK/g_a.json" &
G="$!"
gen --src 198.18.0.1 --dst 198.19.0.2 --rate 4k --catch-up 100ms --duration 9s >"$WORK/g_b.json" &
G="$G $!"
gen --src 198.18.0.2 --dst 198.19.0.1 --rate 3k --catch-up 100ms --duration 9s >"$WORK/g_c.json" &
G="$G $!"
gen --ipv6 --ipv6-net --dist random --sources 4294967295 --seed 5 --rate 100k --duration 9s \
	>"$WORK/g_f.json" &
G="$G $!"
sleep 5
ip netns exec "$TB_RCV" curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$WORK/rank.metrics"
# shellcheck disable=SC2086
wait $G
stop_ratewall INT
mkdir -p "$WORK/captures"
python3 - "$WORK/rank.json" "$WORK"/g_{a,b,c,f}.json "$WORK/captures/key-rank.txt" <<'PY' && ok "(g) sources, destinations and pairs ranked at once, each as sent" ||
import json, sys
# The steady reports (the generators start late in the first and stop in the last two):
# each report's top 3 of each kind, in order, and their rates averaged over those reports,
# within 10 % of what was sent (a window of bursty paced senders reads a few % off).
rows = [json.loads(l) for l in open(sys.argv[1])][2:-2]
def kind(r, k): return r["top"] if k == "src" else r["rankings"].get(k, [])
ok = all(r["key_kind"] == "src" and sorted(r["rankings"]) == ["dst", "pair"] for r in rows)
# The truth: what each generator really sent a second (a paced one falls behind when
# the flood takes the CPU, and catches up later).
a, b, c, f = (json.load(open(p)) for p in sys.argv[2:6])
a, b, c, f = (g["sent"] / g["seconds"] for g in (a, b, c, f))
want = {"src": [("198.18.0.1", a + b, True), ("198.18.0.2", c, False)],
        "dst": [("2001:db8:ffff::/64", f, False), ("198.19.0.1", a + c, False),
                ("198.19.0.2", b, False)],
        "pair": [("198.18.0.1 → 198.19.0.1", a, False), ("198.18.0.1 → 198.19.0.2", b, False),
                 ("198.18.0.2 → 198.19.0.1", c, False)]}
print(f"     (g) the generators sent {a:.0f}, {b:.0f}, {c:.0f} pps and the flood {f:.0f}")
# Each kind's line: docs/usage.md's capture key-rank too.
capture = open(sys.argv[6], "w")
for k, w in want.items():
    keys = [[e["key"] for e in kind(r, k)[:len(w)]] for r in rows]
    avg = [sum(kind(r, k)[i]["pps"] for r in rows) / len(rows) for i in range(len(w))]
    lim = [all(kind(r, k)[i]["limited"] for r in rows) for i in range(len(w))]
    line = f"(g) {k}: {[(key, round(a), l) for (key, _, _), a, l in zip(w, avg, lim)]}"
    print(f"     {line} over {len(rows)} reports")
    print(line, file=capture)
    ok = ok and all(x == [key for key, _, _ in w] for x in keys) and all(
        abs(a - rate) <= 0.1 * rate and l == limited for (_, rate, limited), a, l in zip(w, avg, lim))
sys.exit(0 if ok else 1)
PY
	fail "(g) sources, destinations and pairs ranked at once, each as sent"
captured key-rank "s/^(g) dst: /(g) dest: /"
gaps=$(python3 -c '
import json, sys
ts = [json.loads(l)["ts"] for l in open(sys.argv[1])]
ticks = [json.loads(l)["tick_ms"] for l in open(sys.argv[1])]
print(f"{max(b - a for a, b in zip(ts, ts[1:])):.3f} {max(ticks):.1f}")' "$WORK/rank.json")
check "(g) under the flood every report on time (largest gap s, longest tick ms: $gaps)" \
	eval "awk -v g='${gaps% *}' 'BEGIN { exit !(g < 1.2) }'"
check "(g) /metrics: a series per kind, promtool finds nothing to lint" \
	eval "grep -q '^ratewall_source_packets_per_second{kind=\"dst\",key=\"198.19.0.1\"} ' '$WORK/rank.metrics' &&
	      grep -q '^ratewall_source_packets_per_second{kind=\"pair\",key=\"198.18.0.1 → 198.19.0.2\"} ' '$WORK/rank.metrics' &&
	      grep -q '^ratewall_source_packets_per_second{kind=\"src\",key=\"198.18.0.1\",source=\"198.18.0.1\"} ' '$WORK/rank.metrics' &&
	      promtool check metrics <'$WORK/rank.metrics'"
refused g "--rank src" "--rank dst,dst" "--rank dst,nope" "--key dst --rank dst"

# (f) --persist, then --replace with another key
start_persist "$WORK/f1.json" "$TB_RX" --pps 10k --json --duration 2s || fail "(f) --persist starts"
wait "$RW_PID"
start_persist "$WORK/f2.json" "$TB_RX" --key flow --rank src --pps 10k --json --replace ||
	fail "(f) --replace --key flow --rank src starts"
check "(f) --replace with another key says the tables start afresh ($(grep -o 'flow state.*' "$WORK/f2.json.err"))" \
	grep -q 'started afresh (its key changed: new tables)' "$WORK/f2.json.err"
in_rcv "$RW" status --pin-dir "$PIN_DIR" >"$WORK/f.status" 2>&1
check "(f) status names the key ($(grep -E '^ +keys ' "$WORK/f.status" | sed 's/^ *//'))" \
	grep -qE '^ +keys +flow \(IPv6 addresses by /64\); also ranked: src' "$WORK/f.status"
gen --src 198.18.0.1 --dst 198.19.0.1 --sport 40000 --dport 53 --rate 20k --duration 12s >/dev/null &
G="$!"
gen --ipv6 --src 2001:db8:1234:5678::77 --dst 2001:db8:ffff::1 --sport 40001 --dport 443 \
	--rate 3k --duration 12s >/dev/null &
G="$G $!"
tmx new-session -d -s "$S" -x 80 -y 24 "bash --norc --noprofile"
tmx send-keys -t "$S" "export LC_ALL=C.UTF-8 PS1='$ '; clear" Enter
tmx send-keys -t "$S" "nsenter --net=/run/netns/$TB_RCV $RW top $TB_RX --pin-dir $PIN_DIR" Enter
# shown REGEX TENTHS SETTLE FILE: waits until the screen shows REGEX, lets it settle, keeps it.
shown() {
	for _ in $(seq "$2"); do
		tmx capture-pane -p -t "$S" | grep -q "$1" && break
		sleep 0.1
	done
	sleep "$3"
	tmx capture-pane -p -t "$S" >"$4"
}
shown '^ *2 ' 80 1.5 "$WORK/top.txt"
tmx send-keys -t "$S" n
shown '^view sources' 50 0.3 "$WORK/top_src.txt"
tmx send-keys -t "$S" q
sed '/^ *$/d; s/^/     | /' "$WORK/top_src.txt"
check "(f) n switches to the sources ranked beside the flows (--rank src), never limited" \
	eval "grep -qE '^ +# SOURCE ' '$WORK/top_src.txt' &&
	      grep -qE '^ +1 198\.18\.0\.1 +[0-9.]+k' '$WORK/top_src.txt' &&
	      grep -qE '^ +2 2001:db8:1234:5678::/64 ' '$WORK/top_src.txt' &&
	      ! grep -qE '^ +[0-9]+ .* yes' '$WORK/top_src.txt'"
sed '/^ *$/d; s/^/     | /' "$WORK/top.txt"
check "(f) top heads the key column FLOW and names the view flows" \
	eval "grep -qE '^ +# FLOW ' '$WORK/top.txt' && grep -q '^view flows ' '$WORK/top.txt'"
check "(f) an IPv4 flow on one row, whole" \
	grep -qE '^ +1 udp 198\.18\.0\.1:40000 → 198\.19\.0\.1:53 .* yes' "$WORK/top.txt"
check "(f) an IPv6 flow cut to fit, both ends kept, the shorter whole" \
	grep -qE '^ +2 udp \[2001:db8[0-9a-f:]*~ → \[2001:db8:ffff::1\]:443 ' "$WORK/top.txt"
wide=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 80 for l in open(sys.argv[1], encoding="utf-8")))' "$WORK/top.txt")
check "(f) every line fits 80 columns" test "$wide" -eq 0
# shellcheck disable=SC2086
wait $G
stop_ratewall INT
in_rcv "$RW" stop "$TB_RX" --pin-dir "$PIN_DIR" >/dev/null 2>&1
check "(f) stopped: nothing attached" eval "! xdp_attached $TB_RCV $TB_RX"

finish
