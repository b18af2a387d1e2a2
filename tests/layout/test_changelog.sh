#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The package's changelog comes from CHANGELOG.md (tools/changelog.py, run
# by make deb): the tree's renders as a Debian changelog of version.h's
# version, and the tool refuses, planted in a copy, a newest entry of
# another version, a heading without its date and an entry with no items.
# No root, no network.
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tools/changelog.py"
want=$(sed -n 's/^#define RATEWALL_VERSION "\(.*\)"/\1/p' "$ROOT/user/cli/version.h")

python3 "$CHECK" "$ROOT" >"$WORK/changelog"
rc=$?
got=$(dpkg-parsechangelog -l "$WORK/changelog" -S Version 2>&1)
n=$(grep -c '^ratewall (' "$WORK/changelog")
echo "     newest $got of $n entries (version.h: $want)"
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] && [ "$n" -eq "$(grep -c '^## ' "$ROOT/CHANGELOG.md")" ]; then
	ok "CHANGELOG.md renders as a Debian changelog of $want, every entry in it"
else
	fail "CHANGELOG.md does not render as a changelog of $want (exit $rc, newest '$got', $n entries)"
fi
long=$(awk 'length > 80 && !/^ -- /' "$WORK/changelog")
if [ -z "$long" ]; then ok "no line over 80 columns"; else fail "lines over 80 columns: $long"; fi

copy CHANGELOG.md user debian
expect "an unchanged copy passes" 0 '^ratewall \('

copy CHANGELOG.md user debian
sed -i 's/^#define RATEWALL_VERSION ".*"/#define RATEWALL_VERSION "9.9.9"/' "$WORK/t/user/cli/version.h"
expect "a version.h the newest entry does not name is refused" 1 "newest entry is $want, user/cli/version.h says 9.9.9"

copy CHANGELOG.md user debian
sed -i "0,/^## $want .*/s//## $want/" "$WORK/t/CHANGELOG.md"
expect "a heading without its date is refused" 1 "CHANGELOG.md:[0-9]+: '## $want' is not"

copy CHANGELOG.md user debian
sed -i "0,/^## $want /s//## 99.0.0 — 2026-12-01\n\n## $want /" "$WORK/t/CHANGELOG.md"
expect "an entry that lists nothing is refused" 1 "99.0.0 lists nothing"

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
