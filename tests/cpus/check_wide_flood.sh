#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The truth under a wide flood (tests/integration/test_wide_flood.sh) with
# every generator spread over this machine's CPUs and a queue a CPU: the
# promotion threshold is T = L/C, so on many CPUs it sits far below the
# flood's sketch noise, the case 2 CPUs hid. Each of its checks is one here.
set -u
. "$(dirname "$0")/lib.sh"

WIDE_CPUS=$NCPU timeout --kill-after=10 "${WIDE_TIMEOUT:-1200}" \
	"$ROOT/tests/integration/test_wide_flood.sh" >"$WORK/wide.out" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok   "*) ok "wide flood: ${line#ok   }" ;;
	"FAIL "*) fail "wide flood: ${line#FAIL }" ;;
	[0-9]*" passed, "*) echo "     test_wide_flood's own count: $line" ;;
	*) echo "$line" ;;
	esac
done <"$WORK/wide.out"
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$WORK/wide.out" || fail "test_wide_flood ran to its end (exit $rc)"
finish
