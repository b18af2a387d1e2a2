#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The cross-CPU checks, run inside a guest of many CPUs by tests/cpus/run.sh
# (or by hand anywhere the integration tests run): every tests/cpus/check_*.sh
# in name order, each ending with its own "N passed, N failed"; then the sum.
# A check is one file: add tests/cpus/check_<what>.sh, source lib.sh, call
# check/ok/fail and finish (see check_live_limit.sh).
# CHECKS="name ..." runs only those (file names without check_ and .sh).
# Usage: tests/cpus/suite.sh [BUILD_DIR]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/tests/tally.sh"
BUILD=$(cd "${1:-${BUILD:-$ROOT/build}}" && pwd)
export BUILD
NCPU=$(nproc)

tally_start "the cross-CPU checks need root (BPF programs, network namespaces)" rwcpus

echo "== cross-CPU checks on $NCPU CPUs ($(uname -r))"
for t in "$HERE"/check_*.sh; do
	name=$(basename "$t" .sh)
	name=${name#check_}
	if [ -n "${CHECKS:-}" ] && ! [[ " $CHECKS " == *" $name "* ]]; then
		continue
	fi
	t0=$SECONDS
	echo "== $name [$NCPU CPUs]"
	# Generous: a 64-CPU guest on two host cores runs everything slowly.
	timeout --kill-after=10 "${CHECK_TIMEOUT:-1200}" "$t" >"$LOG" 2>&1
	rc=$?
	cat "$LOG"
	echo "   ($((SECONDS - t0)) s)"
	tally "[$NCPU CPUs] $name" "$rc" "$LOG"
done
tally_end
[ "$FAILED" -eq 0 ]
