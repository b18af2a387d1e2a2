#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Limit accuracy on a real veth, measured by observers ratewall does not
# control: an nft counter after XDP, and an AF_PACKET socket's timestamps.
#  (a) one source at 10x the limit, one CPU: admitted = limit +-5% over 5 s
#  (b) the same source spread over every CPU: same bound, and ratewall saw it
#      on every CPU
#  (c) over any interval of (N-1)/N of the window: admitted <= limit + 2%
#  (+) a byte-rate limit: admitted bits/s = limit +-5%
# (a) reads time with the precise clock, the others with the default (coarse).
set -u
. "$(dirname "$0")/../lib.sh"

LIMIT=10000
OFFERED=100000
CPUS=$(nproc)

tb_up "$(tb_name)" "$CPUS" || { fail "testbed"; finish; exit 1; }
nft_observe v4 ip saddr 198.18.0.1

# flood_and_measure NAME RATEWALL_ARGS... -- GEN_ARGS...: floods for 9 s and
# sets RATE to what the nft observer admitted per second over 5 s of steady
# state, and RC to ratewall's exit status after SIGINT.
flood_and_measure() {
	local name=$1 rw_args=()
	shift
	while [ "$1" != "--" ]; do rw_args+=("$1"); shift; done
	shift
	start_ratewall "$WORK/$name.json" "${rw_args[@]}" --json || fail "($name) ratewall starts"
	gen --rate $OFFERED --duration 9s "$@" >"$WORK/$name.gen" &
	local gen_pid=$!
	sleep 2.5
	RATE=$(steady_rate v4 5)
	wait $gen_pid
	stop_ratewall INT
	RC=$?
}

# (a) one CPU, on the precise clock (the rest take the default: auto, i.e. coarse
# for 100 ms slots), so both clocks meet the bound
flood_and_measure a --pps 10k --clock precise -- --cpus 1
rate=$RATE rc=$RC
echo "     (a) one CPU: offered ${OFFERED} pps, admitted ${rate} pps over 5 s (limit ${LIMIT})"
check "(a) one source at 10x the limit is admitted at the limit +-5%" within "$rate" $LIMIT 0.05
check "(a) ratewall exits 0 on SIGINT" test "$rc" -eq 0

# (b) every CPU: the generator's thread on CPU k lands on receive queue k
flood_and_measure b --pps 10k -- --cpus "$CPUS"
rate=$RATE
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
start_sink c --duration 8s --interval 900ms
before=$(nft_count v4)
gen --rate $OFFERED --duration 6s --cpus "$CPUS" >"$WORK/c.gen"
wait $SINK_PID
after=$(nft_count v4)
stop_ratewall INT
worst=$(sink_of c 198.18.0.1 max_in_interval)
seen=$(sink_of c 198.18.0.1 packets)
echo "     (c) most admitted in any 900 ms: $worst (limit $LIMIT per 1 s window); socket saw $seen, nft $((after - before))"
check "(c) the socket observer saw every admitted packet" test "$seen" -eq $((after - before))
check "(c) admitted in any (N-1)/N window <= limit + 2%" at_most "$worst" $((LIMIT * 102 / 100))

# (+) bits per second: 64-byte frames at 100 kpps offer 51.2 Mbit/s; cap at 4 Mbit/s
flood_and_measure bps --bps 4M -- --cpus 1
bits=$(awk -v r="$RATE" 'BEGIN { printf "%.0f", r * 64 * 8 }')
echo "     (+) byte limit: admitted $bits bit/s (limit 4000000)"
check "(+) a --bps limit admits the byte rate +-5%" within "$bits" 4000000 0.05

finish
