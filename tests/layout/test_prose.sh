#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The prose check (tests/layout/check_prose.py): the tree passes it, and it
# fails on each thing it exists to catch, planted in a copy of the tree: a
# README over its size, a Markdown link to a missing file or heading, a path
# outside the repository, a comment naming a file that is not there. And it
# leaves alone what is not a path of ours. No root, no network.
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tests/layout/check_prose.py"

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE '^[0-9]+ files, [0-9]+ paths named, 0 broken; README.md [0-9]+ bytes' <<<"$out"; then
	ok "the tree: every path the prose names exists, the README is short"
else
	fail "the tree has broken references or a long README (exit $rc)"
fi

copy
expect "an unchanged copy passes" 0 ', 0 broken; '

copy
head -c 15001 /dev/zero | tr '\0' 'x' >>"$WORK/t/README.md"
expect "a README over 15 000 bytes is refused" 1 '^README.md: [0-9]+ bytes, over 15000'

copy
printf '\nSee [the plan](plan.md) and [limits](limits.md#keys-and-rules).\n' >>"$WORK/t/docs/design.md"
n=$(wc -l <"$WORK/t/docs/design.md")
expect "a Markdown link to a missing file is refused, by file and line" 1 "^docs/design.md:$n: plan.md$"

copy
printf '\nSee [limits](limits.md#no-such-section).\n' >>"$WORK/t/docs/design.md"
expect "a link to a missing heading is refused" 1 'docs/design.md:[0-9]+: limits.md#no-such-section \(no such heading\)'

copy
printf '\nThe [design note](../shared/DESIGN.md).\n' >>"$WORK/t/README.md"
expect "a link out of the repository is refused" 1 'README.md:[0-9]+: \.\./shared/DESIGN.md \(outside the repository\)'

copy
sed -i '0,/^#include/s//\/* see user\/cli\/nothing.c *\/\n#include/' "$WORK/t/user/model/units.c"
expect "a C comment naming a missing file is refused" 1 '^user/model/units.c:[0-9]+: user/cli/nothing.c$'

copy
sed -i '2a # The contract in DESIGN.md, and tools/gone.py' "$WORK/t/tests/integration/traffic/test_keys.sh"
expect "a shell comment naming a missing document is refused" 1 '^tests/integration/traffic/test_keys.sh:3: DESIGN.md$'
expect "... and the path beside it" 1 '^tests/integration/traffic/test_keys.sh:3: tools/gone.py$'

copy
printf '\nstatic const char *planted = "user/cli/nothing.c"; /* build/ratewall, tests/cpus/check_*.sh, tests/fuzz/corpus/NAME */\n' \
	>>"$WORK/t/user/model/units.c"
printf '\nRun `build/ratewall`, read `/etc/ratewall/eth1.conf`, see <https://example.org/a/b>.\n' >>"$WORK/t/docs/usage.md"
expect "strings, build/, absolute paths, URLs and patterns are not checked" 0 ', 0 broken; '

copy
printf '\nThe tables are in [performance](performance.md).\n' >>"$WORK/t/docs/design.md"
rm -f "$WORK/t/docs/performance.md"
expect "a link to a generated file holds before it is generated" 0 ', 0 broken; '

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
