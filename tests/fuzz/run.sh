#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs every libFuzzer target for SECONDS on a copy of its kept corpus
# (tests/fuzz/corpus/NAME); new inputs go to BUILD/fuzz/found/NAME, crashes to
# BUILD/fuzz/crashes/. Ends with "N passed, N failed".
# Usage: tests/fuzz/run.sh SECONDS [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_EACH=${1:?usage: run.sh SECONDS [BUILD_DIR]}
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
PASSED=0
FAILED=0

mkdir -p "$BUILD/fuzz/crashes"
# One target a CPU at a time: each still gets a whole CPU for its SECONDS.
JOBS=$(nproc 2>/dev/null || echo 1)
run_one() {
	local name=$1 bin=$2
	mkdir -p "$BUILD/fuzz/found/$name"
	"$bin" -max_total_time="$SECONDS_EACH" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$BUILD/fuzz/crashes/$name-" "$BUILD/fuzz/found/$name" \
		"$ROOT/tests/fuzz/corpus/$name" >"$BUILD/fuzz/$name.log" 2>&1
	echo $? >"$BUILD/fuzz/$name.rc"
}
names=()
for bin in "$BUILD"/fuzz/fuzz_*; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	names+=("$name")
	rm -f "$BUILD/fuzz/$name.rc"
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	run_one "$name" "$bin" &
done
wait
for name in "${names[@]}"; do
	log=$BUILD/fuzz/$name.log
	rc=$(cat "$BUILD/fuzz/$name.rc" 2>/dev/null || echo 255)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "ok   fuzz $name: ${runs:-?} inputs in ${SECONDS_EACH} s, ${cov:-cov ?}"
		PASSED=$((PASSED + 1))
	else
		echo "FAIL fuzz $name (exit $rc): see $log; the input is in $BUILD/fuzz/crashes/"
		grep -E "ERROR|does not hold|SUMMARY" "$log" | head -n 5
		FAILED=$((FAILED + 1))
	fi
done
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
