#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `ratewall memory` plans the kernel memory of every map: on this machine its
# total must match what the kernel reports for the loaded maps (bpftool's
# memlock, the kernel's own map_mem_usage) within 5 %, at the defaults and at
# other sizes; and it plans other CPU counts without loading anything.
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }


for opts in "" "--max-flows 100000 --slots 20" "--max-flows 5000 --slots 4 --pps 1k"; do
	# shellcheck disable=SC2086
	want=$(planned_memory $opts)
	# shellcheck disable=SC2086
	start_ratewall "$WORK/rw.out" $opts --interval 10s || fail "ratewall starts ($opts)"
	got=$(loaded_memory)
	stop_ratewall INT
	echo "     options '${opts:-defaults}': planned $want B, kernel reports $got B"
	check "planned memory matches the kernel within 5% (${opts:-defaults})" within "$want" "$got" 0.05
done

big=$(planned_memory --cpus 64)
echo "     defaults on 64 CPUs: $big B"
# bench/targets.py: MEMORY_TARGET_MIB
check "defaults on 64 CPUs stay within 130 MiB" at_most "$big" $((130 * 1048576))
check "the last line is 'total SIZE'" eval '"$RW" memory | tail -n 1 | grep -Eq "^total [0-9.]+ (B|KiB|MiB|GiB)$"'
"$RW" memory --cpus 0 >/dev/null 2>"$WORK/err"
check "--cpus 0 is refused with exit 2" test $? -eq 2
check "  ... naming the option" grep -q -- "--cpus" "$WORK/err"
"$RW" memory eth0 >/dev/null 2>&1
check "an interface argument is refused with exit 2" test $? -eq 2
# --max-memory sizes the tracked flows to the budget, sketch included.
m=$(planned_memory --max-memory 64M)
check "--max-memory 64M plans at most 64 MiB ($m B)" at_most "$m" $((64 * 1048576))
check "  ... and close to it (> 60 MiB)" at_most $((60 * 1048576)) "$m"
finish
