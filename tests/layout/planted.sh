# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What the layout checks' tests share: a check that passes on the tree must
# fail on each thing it exists to catch, planted in a copy of the tree.
# Source it with CHECK set to the checker (a Python script taking a root);
# it sets ROOT, WORK (removed on exit), PASSED and FAILED.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PASSED=0
FAILED=0
WORK=$(mktemp -d /tmp/rwlayout.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

ok() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }

# copy [ENTRY...]: a fresh copy of the tree in $WORK/t, without build/ and
# .git, or of the top-level entries named (what the check reads).
copy() {
	rm -rf "$WORK/t"
	mkdir -p "$WORK/t"
	if [ $# -gt 0 ]; then
		(cd "$ROOT" && cp -r "$@" "$WORK/t/")
	else
		(cd "$ROOT" && tar --exclude=./build --exclude=./.git -cf - .) | tar -C "$WORK/t" -xf -
	fi
}

# expect NAME RC PATTERN: the check on the copy exits RC and says PATTERN.
expect() {
	local out rc
	out=$(python3 "$CHECK" "$WORK/t" 2>&1)
	rc=$?
	if [ "$rc" -eq "$2" ] && grep -qE "$3" <<<"$out"; then
		ok "$1"
	else
		fail "$1 (exit $rc, wanted $2 and /$3/): $(tail -n 3 <<<"$out")"
	fi
}
