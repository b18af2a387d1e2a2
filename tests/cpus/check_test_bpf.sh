#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The BPF tests (build/test_bpf: PROG_TEST_RUN on crafted frames, several of
# them pinning one key's packets to every CPU in turn) on this machine's CPUs.
# Each of its tests is one check here, its output kept whole (the figures a
# failing test printed, its notes) so a failure on many CPUs can be read.
set -u
. "$(dirname "$0")/lib.sh"

out=$WORK/test_bpf.out
timeout --kill-after=10 "${TEST_BPF_TIMEOUT:-900}" "$BUILD/test_bpf" >"$out" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok   "*) ok "test_bpf: ${line#ok   }" ;;
	"FAIL "*) fail "test_bpf: ${line#FAIL }" ;;
	# Its own closing line, indented: only this check's finish may start a line so.
	[0-9]*" passed, "*) echo "     test_bpf's own count: $line" ;;
	*) echo "$line" ;;
	esac
done <"$out"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$out"; then
	fail "test_bpf ran to its end (exit $rc)"
fi
finish
