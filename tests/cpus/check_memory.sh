#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The memory plan per CPU: `ratewall memory --cpus N` (N = this machine's
# possible CPUs: what the kernel sizes every per-CPU map by) against what the
# kernel says the loaded maps take (bpftool's memlock, the kernel's own
# map_mem_usage), within 10 %, at the defaults and at a bigger table. On 2
# CPUs the per-CPU maps are a small part of the total; at 64 they are most of
# it, so a per-CPU term the plan gets wrong shows here first.
set -u
. "$(dirname "$0")/lib.sh"

POSSIBLE=$(python3 -c 'import re
s = open("/sys/devices/system/cpu/possible").read().strip()
print(sum(int(b) - int(a) + 1 if b else 1 for a, b in re.findall(r"(\d+)(?:-(\d+))?", s)))')

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }

planned() { planned_memory --cpus "$POSSIBLE" "$@"; }

echo "     $POSSIBLE possible CPUs, $NCPU online"
for opts in "" "--max-flows 262144 --slots 20"; do
	# shellcheck disable=SC2086
	want=$(planned $opts)
	# shellcheck disable=SC2086
	if ! start_ratewall "$WORK/rw.out" $opts --interval 10s; then
		fail "ratewall starts (${opts:-defaults})"
		sed 's/^/     /' "$WORK/rw.out.err"
		continue
	fi
	got=$(loaded_memory)
	stop_ratewall INT
	pct=$(awk -v w="$want" -v g="$got" 'BEGIN { if (g > 0) printf "%+.1f", 100 * (w - g) / g }')
	echo "     ${opts:-defaults}: planned $want B for $POSSIBLE CPUs, the kernel reports $got B ($pct %)"
	check "memory plan for $POSSIBLE CPUs within 10% of the kernel's (${opts:-defaults}: $pct %)" \
		within "$want" "${got:-0}" 0.10
done
finish
