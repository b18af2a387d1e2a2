# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Sourced by the runners (tests/run.sh, tests/cpus/suite.sh, tests/cpus/run.sh).

# tally_start WHY NAME: a runner's start. Without root it says WHY on stderr
# and ends with one failure; else PASSED and FAILED start at 0 and LOG is a
# temporary file (/tmp/NAME.*) removed on exit.
tally_start() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$1" >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
	PASSED=0
	FAILED=0
	FAILURES=""
	LOG=$(mktemp "/tmp/$2.XXXXXX")
	trap 'rm -f "$LOG"' EXIT
}

# tally LABEL RC FILE: adds the last "N passed, N failed" line of FILE to
# PASSED and FAILED, and its FAIL lines under LABEL to FAILURES. A run with
# no such line, or one that exited non-zero with no failure, counts one
# failure more, said under LABEL.
tally() {
	local label=$1 rc=$2 line p f
	FAILURES+=$(awk -v l="$label" '/^FAIL/ { printf "\n%s: %s", l, $0 }' "$3" 2>/dev/null)
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$3" 2>/dev/null | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $label: no result line (exit $rc)"
		FAILURES+=$'\n'"$label: no result line (exit $rc)"
		FAILED=$((FAILED + 1))
		return
	fi
	p=${line%% passed*}
	f=${line#*, }
	f=${f%% failed*}
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $label: exit $rc with no failed test"
		FAILURES+=$'\n'"$label: exit $rc with no failed test"
		FAILED=$((FAILED + 1))
	fi
}

# tally_end: the runner's last lines: every failure again, by its layer, where
# the end of a long log shows it (CI keeps only part of the output), then
# "N passed, N failed".
tally_end() {
	[ -z "$FAILURES" ] || printf '== what failed%s\n' "$FAILURES"
	echo "$PASSED passed, $FAILED failed"
}
