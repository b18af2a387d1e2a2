#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Limit accuracy on a real veth, measured by observers ratewall does not
# control: an nft counter after XDP, and an AF_PACKET socket's timestamps.
#  (a) one source at 10x the limit, one CPU: admitted = limit +-5% over 5 s
#  (b) the same source spread over every CPU: same bound, and ratewall saw it
#      on every CPU
#  (c) over any interval of (N-1)/N of the window: admitted <= limit + 2%
#  (+) a byte-rate limit: admitted bits/s = limit +-5%
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=10000
OFFERED=100000
CPUS=$(nproc)

tb_up "$(tb_name)" "$CPUS" || { fail "testbed"; finish; exit 1; }
nft_observe v4 ip saddr 198.18.0.1

# (a) one CPU
start_ratewall "$WORK/a.json" --pps 10k --json || fail "(a) ratewall starts"
gen --rate $OFFERED --duration 9s --cpus 1 >"$WORK/a.gen" &
GEN_PID=$!
sleep 2.5
rate=$(steady_rate v4 5)
wait $GEN_PID
stop_ratewall INT; rc=$?
echo "     (a) one CPU: offered ${OFFERED} pps, admitted ${rate} pps over 5 s (limit ${LIMIT})"
check "(a) one source at 10x the limit is admitted at the limit +-5%" within "$rate" $LIMIT 0.05
check "(a) ratewall exits 0 on SIGINT" test "$rc" -eq 0

# (b) every CPU: the generator's thread on CPU k lands on receive queue k
start_ratewall "$WORK/b.json" --pps 10k --json || fail "(b) ratewall starts"
gen --rate $OFFERED --duration 9s --cpus "$CPUS" >"$WORK/b.gen" &
GEN_PID=$!
sleep 2.5
rate=$(steady_rate v4 5)
wait $GEN_PID
stop_ratewall INT
spread=$(python3 - "$WORK/b.json" <<'PY'
import json, sys
best = 0
for line in open(sys.argv[1]):
    for e in json.loads(line)["top"]:
        if e["key"] == "198.18.0.1":
            best = max(best, e["cpus"])
print(best)
PY
)
echo "     (b) $CPUS CPUs: admitted ${rate} pps over 5 s, source seen on $spread CPUs"
check "(b) the source's packets arrived on every CPU ($CPUS)" test "$spread" -eq "$CPUS"
check "(b) spread over every CPU, admitted at the limit +-5%" within "$rate" $LIMIT 0.05

# (c) the tightest promise of a slot-granular window: any (N-1)/N window
start_ratewall "$WORK/c.json" --pps 10k --window 1s --slots 10 --json || fail "(c) ratewall starts"
ip netns exec "$TB_RCV" "$SINK" --dev "$TB_RX" --duration 8s --interval 900ms \
	>"$WORK/c.sink" 2>"$WORK/c.sink.err" &
SINK_PID=$!
sleep 0.5
before=$(nft_count v4)
gen --rate $OFFERED --duration 6s --cpus "$CPUS" >"$WORK/c.gen"
wait $SINK_PID
after=$(nft_count v4)
stop_ratewall INT
read -r worst seen < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sources"]["198.18.0.1"]; print(s["max_in_interval"], s["packets"])' "$WORK/c.sink" 2>/dev/null || echo "999999999 0")
echo "     (c) most admitted in any 900 ms: $worst (limit $LIMIT per 1 s window); socket saw $seen, nft $((after - before))"
check "(c) the socket observer saw every admitted packet" test "$seen" -eq $((after - before))
check "(c) admitted in any (N-1)/N window <= limit + 2%" at_most "$worst" $((LIMIT * 102 / 100))

# (+) bits per second: 64-byte frames at 100 kpps offer 51.2 Mbit/s; cap at 4 Mbit/s
start_ratewall "$WORK/d.json" --bps 4M --json || fail "(+) ratewall starts"
gen --rate $OFFERED --duration 9s --cpus 1 >"$WORK/d.gen" &
GEN_PID=$!
sleep 2.5
rate=$(steady_rate v4 5)
wait $GEN_PID
stop_ratewall INT
bits=$(awk -v r="$rate" 'BEGIN { printf "%.0f", r * 64 * 8 }')
echo "     (+) byte limit: admitted $bits bit/s (limit 4000000)"
check "(+) a --bps limit admits the byte rate +-5%" within "$bits" 4000000 0.05

finish
