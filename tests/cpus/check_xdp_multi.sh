#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ratewall beside xdp-filter in libxdp's dispatcher
# (tests/integration/service/test_xdp_multi.sh) on a kernel that runs
# extension programs, which the host's may not: each of its checks is one
# here, its notes kept.
set -u
. "$(dirname "$0")/lib.sh"

out=$WORK/xdp_multi.out
timeout --kill-after=10 "${XDP_MULTI_TIMEOUT:-600}" \
	"$ROOT/tests/integration/service/test_xdp_multi.sh" >"$out" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok   "*) ok "xdp_multi: ${line#ok   }" ;;
	"FAIL "*) fail "xdp_multi: ${line#FAIL }" ;;
	[0-9]*" passed, "*) echo "     test_xdp_multi's own count: $line" ;;
	*) echo "$line" ;;
	esac
done <"$out"
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$out" || fail "test_xdp_multi ran to its end (exit $rc)"
# This check is for the dispatcher: a guest whose kernel refused it says so.
grep -q "refuses extension programs" "$out" && fail "the guest's kernel ran libxdp's dispatcher"
finish
