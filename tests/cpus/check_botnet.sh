#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A botnet beyond the table, its packets spread over every CPU: 4 096 sources
# of 198.18.0.0/20 at 1.5 times a limit of 10 a window (--pps 1 in a 10 s
# window), sent from a generator thread on every CPU, so each source comes in
# on many of them. With --max-flows 512 (one in eight tracked at most) and
# with the default table, the receiver's nft count over the run (inside one
# window) is held to sources x limit x 1.10 (docs/limits.md: the crowd's
# bound, each CPU holding its share of it). --burst window: the window's
# bound is what is checked, not the schedule's (1 a second, which tracked
# keys would be held to).
set -u
. "$(dirname "$0")/lib.sh"

SOURCES=4096
EACH=15

tb_up "$(tb_name)" "$NCPU" || { fail "testbed with $NCPU queues"; finish; exit 1; }
nft_observe bot ip saddr 198.18.0.0/20

for table in 512 default; do
	args=(--pps 1 --window 10s --burst window --json --interval 1s)
	[ "$table" = default ] || args+=(--max-flows "$table")
	start_ratewall "$WORK/$table.json" "${args[@]}" || { fail "ratewall attaches ($table)"; continue; }
	for _ in $(seq 100); do [ -s "$WORK/$table.json" ] && break; sleep 0.1; done
	before=$(nft_count bot) t0=$(date +%s.%N)
	gen --cpus "$NCPU" --src 198.18.0.0 --sources "$SOURCES" --dist shuffled \
		--count $((SOURCES * EACH)) --duration 20s >"$WORK/$table.gen" 2>"$WORK/$table.gen.err"
	t1=$(date +%s.%N)
	sleep 1.5
	stop_ratewall INT
	after=$(nft_count bot)
	read -r sent took crowd capped tracked < <(python3 - "$WORK/$table" "$t0" "$t1" <<'PY'
import json, sys
sent = json.load(open(sys.argv[1] + ".gen"))["sent"]
t = [json.loads(l) for l in open(sys.argv[1] + ".json") if l.startswith("{")][-1]["totals"]
print(sent, "%.1f" % (float(sys.argv[3]) - float(sys.argv[2])), t["crowd_drops"], t["capped_drops"],
      t["tracked_flows"])
PY
)
	admitted=$((after - before))
	echo "     table $table: $sent packets of $SOURCES sources from $NCPU CPUs in $took s," \
		"$admitted admitted (the limits: $((SOURCES * 10))); crowd drops $crowd, capped $capped," \
		"tracked $tracked"
	check "($table) sent within one window" awk -v t="$took" -v s="$sent" \
		"BEGIN { exit !(t < 10 && s == $((SOURCES * EACH))) }"
	check "($table) $SOURCES sources over their limit on $NCPU CPUs held to the limits + 10 %" \
		at_most "$admitted" $((SOURCES * 10 * 110 / 100))
done
finish
