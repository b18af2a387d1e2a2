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

# --samples: its ring buffer and key map, each as the kernel charges them.
planned_map() { # NAME ARGS...: the bytes `ratewall memory ARGS` plans for map NAME
	local name=$1; shift
	"$RW" memory "$@" | awk -v n="$name" '$1 == n {
		m = 1; if ($3 == "KiB") m = 1024; if ($3 == "MiB") m = 1048576; if ($3 == "GiB") m = 1073741824
		printf "%.0f\n", $2 * m }'
}
loaded_map() { # NAME: the memlock of the newest program's map NAME
	bpftool prog show name ratewall_xdp -j | python3 -c '
import json, subprocess, sys
progs = json.load(sys.stdin)
progs = progs if isinstance(progs, list) else [progs]
for m in max(progs, key=lambda p: p["id"])["map_ids"]:
    info = json.loads(subprocess.check_output(["bpftool", "map", "show", "id", str(m), "-j"]))
    if info.get("name") == sys.argv[1]:
        print(info["bytes_memlock"])' "$1"
}
mkdir -p "$WORK/samples"
start_ratewall "$WORK/rw.out" --samples "$WORK/samples" --interval 10s || fail "ratewall starts (--samples)"
for m in pcap_ring pcap_keys; do
	got=$(loaded_map $m)
	want=$(planned_map $m --samples "$WORK/samples")
	echo "     --samples: $m planned ${want:-?} B, kernel reports ${got:-?} B"
	check "--samples: $m's planned memory matches the kernel within 5%" within "${want:-0}" "${got:-1}" 0.05
done
got=$(loaded_memory)
stop_ratewall INT
want=$(planned_memory --samples "$WORK/samples")
check "--samples: planned total matches the kernel within 5% ($want B, kernel $got B)" \
	within "$want" "$got" 0.05
check "--samples plans 4 MiB more than without" \
	at_most $(($(planned_memory) + 4 * 1048576)) "$want"

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
