#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The truth under a wide flood, against the generator's exact counts.
#
# (a) 65 536 sources spread evenly over 198.18.0.0/16, as fast as the testbed
#     sends, each far under its limit (--pps 500 in a 10 s window: 5 000; the
#     flood's noise in the sketch is well above that limit's threshold), with
#     known heavy sources sending known counts in a burst while it runs, and a
#     light source under its limit beside them. In every report: no flood
#     source shown above 3 times what it sent, the known sources within 5 %
#     once sent, heavy prefixes summing to at most 100 % plus the noise, the
#     /16 reported as the /16 and none of its /24s; nothing of the flood or of
#     the light source dropped.
# (b) A spoofed flood, a new IPv6 source every packet, at --pps 1000: nothing
#     dropped; at --pps 100: no more than the bound in docs/limits.md; and a source at
#     10 times its limit inside it held to its rate and its bank (2 x --burst:
#     -5 % to +1 % of R x S + 2 x R x --burst over a span S).
# "Nothing dropped" allows what met an insert stalled on another CPU past the
# wait (stalled_drops, docs/limits.md): none on one CPU.
# WIDE_CPUS=N (default 1): a queue a CPU and every generator spread over N
# CPUs (on 2 here one run lost 1 of 8.4 million flood packets and 1 of 14.7
# million spoofed ones, before stalled drops were counted; the next, none).
set -u
. "$(dirname "$0")/../lib.sh"

CPUS=${WIDE_CPUS:-1}
tb_up "$(tb_name)" "$CPUS" || { fail "testbed"; finish; exit 1; }

# --- (a) -------------------------------------------------------------------------
# Known sources 198.19.0.1..9: 12 000 to 28 000 packets each in 4.5 s, from
# before the flood to its end; 198.19.0.10: 30 000 packets in a burst two
# seconds into the flood (promoted out of the flood's noise); a light source
# 198.19.1.1 at 400 pps.
for i in $(seq 0 8); do echo $((12000 + 2000 * ((7 * i) % 9))); done >"$WORK/known.counts"
nft_observe flood ip saddr 198.18.0.0/16
nft_observe light ip saddr 198.19.1.1

start_ratewall "$WORK/a.json" --pps 500 --window 10s --top 30 --levels v4:32,24,16 --json \
	--interval 1s || fail "ratewall starts"
gen --cpus "$CPUS" --src 198.19.0.1 --sources 9 --dist "counts:$WORK/known.counts" --rate 40k --duration 6s \
	--per-source >"$WORK/known.gen" &
known_pid=$!
gen --cpus "$CPUS" --src 198.19.1.1 --rate 400 --duration 5s >"$WORK/light.gen" &
light_pid=$!
sleep 0.5
gen --cpus "$CPUS" --src 198.18.0.0 --sources 65536 --dist shuffled --duration 4s --per-source \
	>"$WORK/flood.gen" &
flood_pid=$!
sleep 2
gen --cpus "$CPUS" --src 198.19.0.10 --count 30000 --rate 300k --duration 2s --per-source >"$WORK/burst.gen"
wait $flood_pid $light_pid $known_pid
date +%s.%N >"$WORK/known.done"
sleep 1.2 # a report after everything was sent, still inside the window
stop_ratewall INT
rc=$?
check "(a) ratewall exits 0" test "$rc" -eq 0

echo "$(nft_count flood) $(nft_count light)" >"$WORK/observed"
python3 - "$WORK" <<'PY'
import ipaddress, json, os, sys

w = sys.argv[1]
load = lambda f: json.load(open(os.path.join(w, f)))
flood, known, light = load("flood.gen"), load("known.gen"), load("light.gen")
known["per_source"].update(load("burst.gen")["per_source"])
known["sent"] += load("burst.gen")["sent"]
# A report stamps its time once it has read everything: one a little after
# the generators ended may have read the table before their last packets.
known_done = float(open(os.path.join(w, "known.done")).read()) + 0.5
seen_flood, seen_light = (int(x) for x in open(os.path.join(w, "observed")).read().split())
lines = [json.loads(l) for l in open(os.path.join(w, "a.json"))]
results = []

def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else "  " + str(detail)))

fsent = flood["per_source"]
ksent = known["per_source"]
print(f"     flood: {flood['sent']} packets over 65 536 sources ({flood['sent'] / 4 / 1e6:.2f} Mpps), "
      f"{flood['sent'] // 65536} a source; known: {known['sent']} packets; light: {light['sent']}")
# Reports from the first one whose window holds flood traffic on.
flooded = [o for o in lines if o["totals"]["window_packets"] > 100000]
check("(a) at least 5 reports during the flood", len(flooded) >= 5, len(flooded))
worst_flood, worst_known, worst_sum, bad_prefix, missing16 = 0.0, 0.0, 0.0, [], 0
noise = max(o["totals"].get("sketch_noise", 0) for o in lines)
for o in flooded:
    for e in o["top"]:
        k = e["key"]
        if k in fsent:
            worst_flood = max(worst_flood, e["packets"] / max(fsent[k], 1))
        elif k in ksent and o["ts"] > known_done:
            worst_known = max(worst_known, abs(e["packets"] - ksent[k]) / ksent[k])
        elif k in ksent:
            worst_known = max(worst_known, e["packets"] / ksent[k] - 1)  # never above its total
    if o["ts"] > known_done:
        shown = {e["key"] for e in o["top"]}
        check_all = all(k in shown for k in ksent)
        if not check_all:
            worst_known = max(worst_known, 1.0)
    total = sum(h["share"] for h in o["hhh"])
    worst_sum = max(worst_sum, total)
    for h in o["hhh"]:
        p = ipaddress.ip_network(h["prefix"], strict=False)
        if p.prefixlen == 24 and p.subnet_of(ipaddress.ip_network("198.18.0.0/16")):
            bad_prefix.append((o["ts"], h["prefix"], h["share"]))
    if not any(h["prefix"] == "198.18.0.0/16" for h in o["hhh"]):
        missing16 += 1
print(f"     worst flood source shown at {worst_flood:.2f}x what it sent; known sources off by "
      f"{100 * worst_known:.1f} % at worst; heavy prefixes summing to {worst_sum:.1f} % at most; "
      f"largest noise reported {noise}")
check("(a) no flood source shown above 3x what it sent, in any report", worst_flood <= 3.0, worst_flood)
check("(a) every known source shown within 5 % of what it sent, in every report after it sent",
      worst_known <= 0.05, worst_known)
check("(a) heavy prefixes sum to at most 100 % (+1 % noise) in every report", worst_sum <= 101.0, worst_sum)
check("(a) none of the flood's /24s is reported heavy", not bad_prefix, bad_prefix[:5])
check("(a) the flood is reported as 198.18.0.0/16 from its first report on", missing16 == 0, missing16)
# Spread over CPUs (WIDE_CPUS), an insert on one may outlast another's wait
# (stalled_drops, docs/limits.md); on one CPU there is none.
stalled = lines[-1]["totals"]["stalled_drops"]
lost = {"flood": flood["sent"] - seen_flood, "light": light["sent"] - seen_light}
check("(a) nothing of the flood dropped but what met a stalled insert (observer after XDP)",
      lost["flood"] + lost["light"] <= stalled, f"{lost}, {stalled} stalled drops")
check("(a) nothing of the light source dropped but what met a stalled insert",
      lost["light"] <= stalled, f"{lost}, {stalled} stalled drops")
check("(a) no capped drops", lines[-1]["totals"]["capped_drops"] == 0, lines[-1]["totals"]["capped_drops"])
print(f"{sum(results)} passed, {len(results) - sum(results)} failed", file=open(os.path.join(w, "a.res"), "w"))
PY
read -r p _ f _ <"$WORK/a.res" || { p=0; f=1; }
PASSED=$((PASSED + p)); FAILED=$((FAILED + ${f%,}))

# --- (b) -------------------------------------------------------------------------
# A spoofed flood: a random IPv6 /128 every packet, as fast as the testbed
# sends, beside 198.19.2.1 at 10 times its limit. spoofed LIMIT: the run at
# --pps LIMIT; prints "flood-sent flood-passed heavy-pps".
spoofed() {
	local limit=$1 rate
	ip netns exec "$TB_RCV" nft flush ruleset
	nft_observe flood ip6 saddr 2001:db8::/32
	nft_observe heavy ip saddr 198.19.2.1
	start_ratewall "$WORK/b$limit.json" --pps "$limit" --v6-prefix 128 --json --interval 1s ||
		fail "(b) ratewall starts at --pps $limit"
	gen --cpus "$CPUS" --ipv6 --src 2001:db8::1 --dist random --sources 4294967295 --seed "$limit" \
		--duration 3s >"$WORK/b$limit.gen" &
	local flood_pid=$!
	gen --cpus "$CPUS" --src 198.19.2.1 --rate $((10 * limit)) --duration 3s >/dev/null &
	local heavy_pid=$!
	sleep 1
	span=$(steady_span heavy 1.6)
	wait $flood_pid $heavy_pid
	stop_ratewall INT
	echo "$(sent_of "$WORK/b$limit.gen") $(nft_count flood) $span $(python3 -c 'import json, sys
print([json.loads(l) for l in open(sys.argv[1])][-1]["totals"]["stalled_drops"])' "$WORK/b$limit.json")"
}
read -r sent seen heavy shortest longest stalled < <(spoofed 1000)
echo "     --pps 1000: $sent spoofed packets, $((sent - seen)) dropped ($stalled stalled drops); the source" \
	"at 10x its limit: $heavy packets in a span of $shortest to $longest s"
check "(b) a spoofed flood at --pps 1000 loses nothing but what met a stalled insert" \
	at_most $((sent - seen)) "$stalled"
# Its schedule (--burst 100ms, the default) admits at most R x S plus its
# bank in any span S: the bank is 2 x --burst (bpf/limit.h: "a window holds
# up to R x the window plus the bank"), 200 packets here. The test held it to
# one burst, R x S + 100, and failed 2 of 3 runs alone once the span was
# measured right (1 748 and 1 740 packets in at most 1.619 and 1.616 s); read
# on the middles of the nft runs it had failed once beside other tests
# (1 087.3 pps). So, against the longest and the shortest the span can have
# been (each read falls somewhere inside its nft run): at most R x S + 200
# and 1 % for the packets in flight, at least 5 % under R x S - 100.
check "(b) inside it, a source at 10x its limit is held to its rate and bank ($heavy in $shortest-$longest s)" \
	awk -v n="${heavy:-0}" -v s="${shortest:-1}" -v l="${longest:-0}" \
	'BEGIN { exit !(n >= 0.95 * (1000 * s - 100) && n <= 1.01 * (1000 * l + 200)) }'
# docs/limits.md: at --pps 100 (a threshold of 50 a CPU on two CPUs) under
# about 1 000 packets of noise a bucket, a spoofed packet meets its cap when
# both its buckets stand 50 above the noise: about 0.3 %; at most 1 % here.
read -r sent seen heavy _ _ _ < <(spoofed 100)
echo "     --pps 100: $sent spoofed packets, $((sent - seen)) dropped; the source at 10x its limit: $heavy packets in 1.6 s"
check "(b) a spoofed flood at --pps 100 loses at most 1 %" at_most $((100 * (sent - seen))) "$sent"

finish
