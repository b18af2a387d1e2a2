#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The layout check (tools/check_rooms.py): the tree passes it, and it fails on
# each thing it exists to catch, planted in a copy of the tree: an include that
# points up the rooms, a circle of headers (in user/, the generator, bench/), of
# units or of folders, a room over a fifth of user/, a cli/ unit off the
# command-line path, a generator part that calls into the generator's main
# file, a tooling folder bigger than the largest product folder. No root, no
# network.
#
# A planted defect is known by its own message, and a planted thing the check
# must accept by adding no finding to an unchanged copy's: so each test holds
# whether or not the tree itself passes (the first test says that).
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tools/check_rooms.py"
# What the check reads (without git: it counts every file).
COPY=(user bpf include tools bench tests Makefile)

# findings DIR: what the check finds there (its BROKEN lines, their numbers
# aside: a planted file moves them) and its exit status.
findings() {
	local out rc
	out=$(python3 "$CHECK" "$1" 2>&1)
	rc=$?
	grep '^  BROKEN: ' <<<"$out" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g'
	echo "exit $rc"
}

# expect_nothing_new NAME: the check finds in the copy what it finds in an unchanged one.
expect_nothing_new() {
	local now
	now=$(findings "$WORK/t")
	if [ "$now" = "$UNCHANGED" ]; then
		ok "$1"
	else
		fail "$1: $(diff <(echo "$UNCHANGED") <(echo "$now") | grep '^[<>]' | head -n 3)"
	fi
}

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE '^[0-9]+ files, [0-9]+ includes between rooms, 0 upward or circular$' <<<"$out"; then
	ok "the tree: no include points up the rooms, no circle, no room over the share, every cli/ unit on the" \
		"command-line path, no tooling folder over the bound"
else
	fail "the tree breaks a rule of the layout (exit $rc)"
fi
# Every room the Makefile builds is one the check knows, in the same order.
mk=$(sed -n 's/^ROOMS := //p' "$ROOT/Makefile")
py=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import check_rooms; print(" ".join(check_rooms.ROOMS[:-1]))' "$ROOT/tools")
if [ -n "$mk" ] && [ "$mk" = "$py" ]; then
	ok "the Makefile's rooms ($mk) are the check's"
else
	fail "the Makefile's rooms ($mk) differ from the check's ($py)"
fi

copy "${COPY[@]}"
UNCHANGED=$(findings "$WORK/t")
if [ "$UNCHANGED" = "$(findings "$ROOT")" ]; then
	ok "an unchanged copy (no git: every file counts) finds what the tree finds"
else
	fail "an unchanged copy finds other things than the tree: $UNCHANGED"
fi

copy "${COPY[@]}"
sed -i '0,/#include/s//#include "views\/view.h"\n#include/' "$WORK/t/user/kernel/table.c"
expect "kernel including views is refused" 1 'user/kernel/table.c includes views/view.h: kernel may not include views'
expect "... and is a circle of folders (views include kernel)" 1 'folder circle: user/kernel -> user/views -> user/kernel'

# model/ is the lowest room: it includes no other, every other may include it.
copy "${COPY[@]}"
mkdir -p "$WORK/t/user/model"
printf '#include <stdint.h>\n' >"$WORK/t/user/cli/planted.h"
printf '#include "cli/planted.h"\n' >"$WORK/t/user/model/planted.h"
expect "model including cli is refused" 1 'user/model/planted.h includes cli/planted.h: model may not include cli'

copy "${COPY[@]}"
mkdir -p "$WORK/t/user/model"
printf '#include <stdint.h>\n' >"$WORK/t/user/model/planted.h"
printf '#include "model/planted.h"\n' >>"$WORK/t/user/cli/options.c"
expect_nothing_new "cli including model is accepted"

copy "${COPY[@]}"
sed -i '0,/#include/s//#include "run.h"\n#include/' "$WORK/t/user/service/pins.c"
expect "a room including the top (run.h) is refused" 1 'service may not include top'

copy "${COPY[@]}"
printf '#include "cli/b.h"\n' >"$WORK/t/user/cli/a.h"
printf '#include "cli/a.h"\n' >"$WORK/t/user/cli/b.h"
expect "a circle of headers in one room is refused" 1 'include cycle: user/cli/a.h -> user/cli/b.h -> user/cli/a.h'

copy "${COPY[@]}"
sed -i '0,/#include "maps.h"/s//#include "maps.h"\n#include "policy.h"/' "$WORK/t/bpf/sketch.h"
expect "a data-path header including a later one is refused" 1 'bpf/sketch.h includes policy.h, which comes after it'

copy "${COPY[@]}"
printf '#include "maps.h"\n' >"$WORK/t/bpf/stray.h"
expect "a data-path header without a place in the order is refused" 1 'bpf/stray.h has no place'

copy "${COPY[@]}"
printf '\nvoid rwgen_planted(void)\n{\n}\n' >>"$WORK/t/tools/rwgen/rwgen.c"
printf '\nvoid rwgen_frame_uses(void);\nvoid rwgen_frame_uses(void)\n{\n\trwgen_planted();\n}\n' >>"$WORK/t/tools/rwgen/frame.c"
expect "a generator part calling into rwgen.c is refused" 1 \
	'tools/rwgen/frame.c calls rwgen_planted, defined in tools/rwgen/rwgen.c'

copy "${COPY[@]}"
sed -i '0,/#include <stdint.h>/s//#include <stdint.h>\n#include "schedule.h"/' "$WORK/t/tools/rwgen/opts.h"
expect "a circle of the generator's headers is refused" 1 \
	'include cycle: tools/rwgen/opts.h -> tools/rwgen/schedule.h -> tools/rwgen/opts.h'

copy "${COPY[@]}"
printf '#include "b.h"\n' >"$WORK/t/bench/a.h"
printf '#include "a.h"\n' >"$WORK/t/bench/b.h"
expect "a circle of headers in bench/ is refused" 1 'include cycle: bench/a.h -> bench/b.h -> bench/a.h'

# Across folders, as the compiler finds them through the Makefile's -I folders:
# a shared header including the harness's flowfill.h, which includes a header
# of user/ that includes the shared one.
copy "${COPY[@]}"
printf '#include "flowfill.h"\n' >>"$WORK/t/include/ratewall_window.h"
expect "a circle through the -I folders is refused" 1 \
	'include cycle: user/kernel/table.h -> include/ratewall_window.h -> tests/harness/flowfill.h -> user/kernel/table.h'

# Units (a .c and its .h): two files that use each other, through their headers
# or through calls alone, are one circle; a file and its own header are not.
# plant_c FILE DEFINES CALLS [INCLUDE...]: a .c defining a function that calls CALLS (none if "").
plant_c() {
	local f=$1 def=$2 call=$3 inc
	shift 3
	: >"$WORK/t/$f"
	for inc in "$@"; do
		printf '#include "%s"\n' "$inc" >>"$WORK/t/$f"
	done
	printf 'void %s(void)\n{\n' "$def" >>"$WORK/t/$f"
	[ -n "$call" ] && printf '\t%s();\n' "$call" >>"$WORK/t/$f"
	printf '}\n' >>"$WORK/t/$f"
}

copy "${COPY[@]}"
printf 'void rw_planta(void);\n' >"$WORK/t/user/views/planta.h"
printf 'void rw_plantb(void);\n' >"$WORK/t/user/views/plantb.h"
plant_c user/views/planta.c rw_planta rw_plantb views/planta.h views/plantb.h
plant_c user/views/plantb.c rw_plantb rw_planta views/plantb.h views/planta.h
expect "two files of a room that include each other's header are a circle" 1 \
	'unit circle: user/views/planta -> user/views/plantb -> user/views/planta '\
'\(user/views/planta.c includes user/views/plantb.h; user/views/plantb.c includes user/views/planta.h\)'

# As run.c and run_start.c: one header declares both files' functions.
copy "${COPY[@]}"
printf 'void rw_plantp(void);\nvoid rw_plantq(void);\n' >"$WORK/t/user/views/plantparts.h"
plant_c user/views/plantp.c rw_plantp rw_plantq views/plantparts.h
plant_c user/views/plantq.c rw_plantq rw_plantp views/plantparts.h
expect "two files that call each other through a shared header are a circle" 1 \
	'unit circle: user/views/plantp -> user/views/plantq -> user/views/plantp '\
'\(user/views/plantp.c calls rw_plantq; user/views/plantq.c calls rw_plantp\)'

copy "${COPY[@]}"
printf 'void rw_plantp(void);\nvoid rw_plantq(void);\n' >"$WORK/t/user/views/plantparts.h"
plant_c user/views/plantp.c rw_plantp rw_plantq views/plantparts.h
plant_c user/views/plantq.c rw_plantq "" views/plantparts.h
printf '%s\n' '/* rw_plantp() */' 'static const char *s = "rw_plantp()";' 'struct rw_plantp;' \
	'static int plant_member(struct s *p)' '{' '	return p->rw_plantp + p[0].rw_plantp;' '}' >>"$WORK/t/user/views/plantq.c"
expect_nothing_new "one way, and the name in a comment, a string, a tag or a member, is no circle"

copy "${COPY[@]}"
printf 'void rw_plantself(void);\nvoid rw_plantself_too(void);\n' >"$WORK/t/user/views/plantself.h"
plant_c user/views/plantself.c rw_plantself "" views/plantself.h
printf 'void rw_plantself_too(void)\n{\n\trw_plantself();\n}\n' >>"$WORK/t/user/views/plantself.c"
expect_nothing_new "a file including its own header, calling its own function, is no circle"

# Folders: bench/ and tools/rwgen/ each call into the other, no two units do.
copy "${COPY[@]}"
plant_c tools/rwgen/plantp.c rwgen_plantp bench_plantq
plant_c bench/plantq.c bench_plantq ""
plant_c bench/plantr.c bench_plantr rwgen_plantr
plant_c tools/rwgen/plantr.c rwgen_plantr ""
expect "two folders that call into each other are a circle" 1 \
	'folder circle: bench -> tools/rwgen -> bench \(bench/plantr.c calls rwgen_plantr; tools/rwgen/plantp.c calls bench_plantq\)'

# Rooms' lines, as the check counts them: rank/ (a small room) grown to a fifth
# of user/'s lines passes, one line more is refused.
copy "${COPY[@]}"
counted=$(python3 "$CHECK" "$WORK/t")
total=$(sed -nE "s/.* of user\/'s ([0-9]+):$/\1/p" <<<"$counted")
rank=$(awk '$1 == "rank" && $4 == "%" { print $2 }' <<<"$counted")
grow=$(((20 * total - 100 * rank) / 80))  # the most lines that keep rank at or under 20 %
head -c "$grow" /dev/zero | tr '\0' '\n' >>"$WORK/t/user/rank/rank.c"
expect_nothing_new "a room at a fifth of user/'s lines is accepted"
printf '\n' >>"$WORK/t/user/rank/rank.c"
expect "a room over a fifth of user/'s lines is refused" 1 \
	"user/rank/ holds $((rank + grow + 1)) lines, 20\.[0-9] % of user/'s $((total + grow + 1)): over 20 %"

copy "${COPY[@]}"
head -c "$total" /dev/zero | tr '\0' '\n' >>"$WORK/t/user/run.c"
expect "the top (user/*.c *.h) is a room too" 1 \
	"user/\*\.c \*\.h \(the top\) holds [0-9]+ lines, [0-9.]+ % of user/'s"

copy "${COPY[@]}"
head -c "$total" /dev/zero | tr '\0' '\n' >>"$WORK/t/user/rank/README.md"
expect_nothing_new "a room's prose does not count"

# cli/: a unit only views use is off the command-line path; a subcommand's file
# (service/*cmd) puts it on; another service file does not.
copy "${COPY[@]}"
printf 'void rw_plantword(void);\n' >"$WORK/t/user/cli/plantword.h"
plant_c user/cli/plantword.c rw_plantword "" cli/plantword.h
plant_c user/views/plantview.c rw_plantview rw_plantword cli/plantword.h
expect "a cli/ unit only views use is refused" 1 \
	'user/cli/plantword.c: nothing on the command-line path uses it \(used by: user/views/plantview\)'
plant_c user/service/plantpins.c rw_plantpins rw_plantword cli/plantword.h
expect "... and a service/ file that is no subcommand's does not put it on the path" 1 \
	'user/cli/plantword.c: nothing on the command-line path uses it \(used by: user/service/plantpins, user/views/plantview\)'
plant_c user/service/plantcmd.c rw_plantcmd rw_plantword cli/plantword.h
rm "$WORK/t/user/service/plantpins.c"
expect_nothing_new "a cli/ unit a subcommand (service/*cmd) uses is on the path"

# Through another cli/ unit: on the path only if that one is.
copy "${COPY[@]}"
printf 'void rw_plantword(void);\n' >"$WORK/t/user/cli/plantword.h"
printf 'void rw_plantopt(void);\n' >"$WORK/t/user/cli/plantopt.h"
plant_c user/cli/plantword.c rw_plantword "" cli/plantword.h
plant_c user/cli/plantopt.c rw_plantopt rw_plantword cli/plantopt.h cli/plantword.h
plant_c user/views/plantview.c rw_plantview rw_plantopt cli/plantopt.h
expect "a cli/ unit only an off-path cli/ unit uses is refused" 1 \
	'user/cli/plantword.c: nothing on the command-line path uses it \(used by: user/cli/plantopt\)'
plant_c user/service/plantcmd.c rw_plantcmd rw_plantopt cli/plantopt.h
expect_nothing_new "... and is on the path once that unit is"

# Sizes: a tooling folder over the largest product folder fails; data does not count.
copy "${COPY[@]}"
head -c 300000 /dev/zero | tr '\0' '\n' >"$WORK/t/tools/rwgen/planted.c"
expect "a tooling folder bigger than the largest product folder is refused" 1 \
	'tools/rwgen holds [0-9]+ bytes of source, more than [a-z/]+ \([0-9]+\): split it by job'

copy "${COPY[@]}"
head -c 300000 /dev/zero | tr '\0' '\n' >"$WORK/t/bench/results/planted.json"
expect_nothing_new "data beside the benchmark (bench/results/*.json) does not count"

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
