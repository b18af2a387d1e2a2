#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The layout check (tools/check_rooms.py): the tree passes it, and it fails on
# each thing it exists to catch, planted in a copy of the tree: an include that
# points up the rooms, a circle of headers (in user/, the generator, bench/), a
# generator part that calls into the generator's main file, a tooling folder
# bigger than the largest product folder. No root, no network.
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tools/check_rooms.py"
# What the check reads (without git: it counts every file).
COPY=(user bpf include tools bench tests Makefile)

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE '^[0-9]+ files, [0-9]+ includes between rooms, 0 upward or circular$' <<<"$out"; then
	ok "the tree: no include points up the rooms, no circle, no tooling folder over the bound"
else
	fail "the tree has upward or circular includes or an oversized folder (exit $rc)"
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
expect "an unchanged copy passes" 0 ' 0 upward or circular$'

copy "${COPY[@]}"
sed -i '0,/#include/s//#include "views\/view.h"\n#include/' "$WORK/t/user/kernel/table.c"
expect "kernel including views is refused" 1 'user/kernel/table.c includes views/view.h: kernel may not include views'

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
expect "cli including model is accepted" 0 ' 0 upward or circular$'

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

# Sizes: a tooling folder over the largest product folder fails; data does not count.
copy "${COPY[@]}"
head -c 300000 /dev/zero | tr '\0' '\n' >"$WORK/t/tools/rwgen/planted.c"
expect "a tooling folder bigger than the largest product folder is refused" 1 \
	'tools/rwgen holds [0-9]+ bytes of source, more than [a-z/]+ \([0-9]+\): split it by job'

copy "${COPY[@]}"
head -c 300000 /dev/zero | tr '\0' '\n' >"$WORK/t/bench/results/planted.json"
expect "data beside the benchmark (bench/results/*.json) does not count" 0 ' 0 upward or circular$'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
