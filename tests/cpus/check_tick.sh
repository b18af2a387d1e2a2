#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The loader's tick over this machine's per-CPU arrays: tickbench (the real
# maps, loaded as `ratewall run` loads them) fills TICK_FLOWS tracked keys
# (default 1 Mi) live on every CPU, then times the tick (batch read, window
# sums over every CPU's record, ranking). Checked: every key placed is read
# back, and the top key's window is exactly what tests/harness/flowfill.c wrote: 1000
# packets in the live slot of every CPU's record and 999 + s in history slot
# s = 1..9 (a CPU's record missed or read twice is off by 1000); said: the
# tick's time at this CPU count (a guest runs at its own pace: no bar on it).
set -u
. "$(dirname "$0")/lib.sh"

FLOWS=${TICK_FLOWS:-1048576}
ROUNDS=${TICK_ROUNDS:-2}

timeout --kill-after=10 "${TICK_TIMEOUT:-1500}" "$BUILD/tickbench" "$FLOWS" "$ROUNDS" \
	>"$WORK/tick.json" 2>"$WORK/tick.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	fail "tickbench $FLOWS keys on $NCPU CPUs ran (exit $rc)"
	sed 's/^/     /' "$WORK/tick.err" | tail -n 5
	finish
	exit 1
fi
read -r placed seen cpus tick_med tick_max rss top1 < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
print(t["placed"], t["seen"], t["cpus"], t["tick_ms_median"], t["tick_ms_max"],
      t["peak_rss_kib"], t["top1_packets"])' "$WORK/tick.json")
echo "     $placed keys live on $cpus CPUs: tick $tick_med ms (median of $ROUNDS, at most" \
	"$tick_max), peak RSS $rss KiB, top key $top1 packets"
check "tickbench saw this machine's CPUs ($cpus)" test "$cpus" -eq "$NCPU"
check "most of the $FLOWS keys were placed ($placed)" at_most $((FLOWS * 95 / 100)) "$placed"
check "the tick read back every key placed ($seen of $placed)" test "$seen" -eq "$placed"
want=$((1000 * cpus + 9 * 999 + 45))
check "the top key's window sums every CPU's record ($top1, want $want)" test "$top1" -eq "$want"
finish
