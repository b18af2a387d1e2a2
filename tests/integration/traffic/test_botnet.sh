#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A botnet with more sources over their limit than the table holds, against
# the receiver's exact counts (an nft counter after XDP): 16 Ki, 64 Ki and
# 256 Ki sources at 3x, 2x and 1.2x their limit in a shuffled order, as fast
# as the testbed sends, with the default table, --max-flows 4096 and
# --max-flows 1M, held to sources x limit x 1.10 (docs/limits.md: the
# crowd's bound).
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" || { fail "testbed"; finish; exit 1; }
nft_observe bot meta l4proto udp

# botnet SOURCES EACH TABLE: one run. The limit is --pps 1 in a --window 10s
# (10 packets a window); every source sends EACH packets, all within one
# window (or the test says how long the generator took), and the receiver's
# count over the whole run is held to sources x 10 x 1.10 (--burst window:
# the window's bound, not the schedule's 1 a second). The table is
# --max-flows (default: none given); 256 Ki sources are IPv6 /64s
# (198.18.0.0/15 holds 128 Ki addresses).
botnet() {
	local n=$1 each=$2 table=$3 name="$1-$3" src=(--src 198.18.0.0) before t0 t1
	local args=(--pps 1 --window 10s --burst window --json --interval 1s)
	[ "$table" = default ] || args+=(--max-flows "$table")
	[ "$n" -le 131072 ] || src=(--ipv6 --ipv6-net --src 2001:db8::)
	start_ratewall "$WORK/$name.json" "${args[@]}" || { fail "ratewall starts ($name)"; return; }
	# From its first report on: the loader has made its maps and runs its tick.
	for _ in $(seq 50); do [ -s "$WORK/$name.json" ] && break; sleep 0.1; done
	before=$(nft_count bot) t0=$(date +%s.%N)
	gen "${src[@]}" --sources "$n" --dist shuffled --count $((n * each)) --duration 20s \
		>"$WORK/$name.gen"
	t1=$(date +%s.%N)
	sleep 1.1 # one more report, with the last drops
	stop_ratewall INT
	python3 - "$WORK/$name" "$n" "$each" "$table" "$before" "$(nft_count bot)" "$t0" "$t1" <<'PY'
import json, math, sys

base, n, each, table = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
admitted = int(sys.argv[6]) - int(sys.argv[5])
took = float(sys.argv[8]) - float(sys.argv[7])
sent = json.load(open(base + ".gen"))["sent"]
last = [json.loads(l) for l in open(base + ".json")][-1]["totals"]
limit = 10  # --pps 1 in a 10 s window
bound = math.ceil(took / 10) * n * limit * 1.10
print(f"     {n} sources x {each} packets ({sent / took / 1e6:.2f} Mpps, {took:.1f} s), limit {limit} a window, "
      f"table {table}: {admitted} admitted, {admitted / (n * limit):.3f}x the limits; tracked "
      f"{last['tracked_flows']}, crowd drops {last['crowd_drops']}, capped {last['capped_drops']}")
ok = sent == n * each and took < 10 and admitted <= bound
print(("ok   " if ok else "FAIL ") + f"({table}) {n} sources at {each / limit:.1f}x their limit admitted at "
      "most the limits + 10 %" + ("" if ok else f"  admitted {admitted}, bound {bound:.0f}, sent {sent}"
                                   f" in {took:.1f} s (must be one window)"))
sys.exit(0 if ok else 1)
PY
	if [ $? -eq 0 ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
}

# Fewer packets a source as the sources grow: 256 Ki x 12 is 3.1 M packets,
# 3 to 8 s of this testbed's generator, inside the one window with room.
for spec in "16384 30" "65536 20" "262144 12"; do
	for table in default 4096 1048576; do
		# shellcheck disable=SC2086
		botnet $spec "$table"
	done
done
finish
