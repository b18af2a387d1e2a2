#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# (e) IPv6 sources: each of four sources at 2.5x the limit, each in its own
# /64 of 2001:db8::/32, is held to the limit (counted by an nft observer) and
# ranked under its /64 (the default --v6-prefix).
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
nft_observe v6 ip6 saddr 2001:db8::1

start_ratewall "$WORK/v6.json" --pps 10k --json || fail "ratewall starts"
gen --ipv6 --ipv6-net --sources 4 --rate 100k --duration 9s >"$WORK/v6.gen" &
GEN_PID=$!
sleep 2.5
rate=$(steady_rate v6 5)
wait $GEN_PID
stop_ratewall INT
echo "     (e) 2001:db8::1 offered 25000 pps, admitted $rate pps over 5 s (limit 10000)"
check "(e) an IPv6 source is admitted at the limit +-5%" within "$rate" 10000 0.05
python3 - "$WORK/v6.json" <<'PY' && ok "(e) the JSON ranks the four IPv6 sources, all limited" ||
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
mid = lines[len(lines) // 2]
keys = sorted(e["key"] for e in mid["top"])
print(f"     mid-run top: {[(e['key'], round(e['pps']), round(e['drop_pps'])) for e in mid['top']]}")
want = sorted(["2001:db8::/64"] + [f"2001:db8:0:{i}::/64" for i in range(1, 4)])
sys.exit(0 if keys == want and all(e["limited"] for e in mid["top"]) else 1)
PY
	fail "(e) the JSON ranks the four IPv6 sources, all limited"

finish
