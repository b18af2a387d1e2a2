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
for bin in "$BUILD"/fuzz/fuzz_*; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	found=$BUILD/fuzz/found/$name
	mkdir -p "$found"
	log=$BUILD/fuzz/$name.log
	"$bin" -max_total_time="$SECONDS_EACH" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$BUILD/fuzz/crashes/$name-" "$found" "$ROOT/tests/fuzz/corpus/$name" \
		>"$log" 2>&1
	rc=$?
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
