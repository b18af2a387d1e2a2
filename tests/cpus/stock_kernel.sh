#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Debian bookworm's stock kernel (6.1), in the guest tests/cpus/run.sh boots
# on it: its verifier refuses the program (it walked a million instructions
# before the refill was verified once; now it walks 703 k and counts the call
# chain's stack 32 bytes past its 512), and `ratewall run` says so in one
# line that names the kernel, the verifier and the kernels ratewall is
# tested on, exits 1 and leaves nothing attached or pinned. The day 6.1
# loads the program, this fails: the BPF tests and the live checks belong
# here then (run.sh's other guests).
set -u
. "$(dirname "$0")/lib.sh"

echo "     kernel $(uname -r)"
tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
PIN_DIR=/sys/fs/bpf/rwstock$$
mkdir -p "$PIN_DIR"
timeout --kill-after=10 600 nsenter --net="/run/netns/$TB_RCV" "$RW" run "$TB_RX" --pps 1k \
	--persist --pin-dir "$PIN_DIR" >"$WORK/run.out" 2>"$WORK/run.err"
rc=$?
sed 's/^/     /' "$WORK/run.err"
check "ratewall run exits 1, a run-time failure (exit $rc)" test "$rc" = 1
check "... saying one line" test "$(wc -l <"$WORK/run.err")" = 1
check "... that names the kernel, its verifier's limit and the kernels tested" \
	grep -qE "^ratewall: Linux $(uname -r) cannot load the program: its verifier (gave up after [0-9]+ instructions \(limit 1000000\)|refused it \(-v shows why\)); ratewall is tested on Linux 6\.12 and 6\.18" \
	"$WORK/run.err"
check "nothing is attached" eval '! xdp_attached "$TB_RCV" "$TB_RX"'
left=$(cd "$PIN_DIR" && find . -mindepth 1 | sort | tr '\n' ' ')
check "nothing is pinned (${left:-nothing left})" test -z "$left"
finish
