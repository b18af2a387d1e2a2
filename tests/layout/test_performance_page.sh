#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# docs/performance.md is what `bench/bench.py --report` renders from
# bench/results/latest.json, so the page and the figures cannot drift apart;
# and the check itself fails on a page that differs. No root, no network.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PASSED=0
FAILED=0
WORK=$(mktemp -d /tmp/rwpage.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

ok() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }

# same PAGE: PAGE is byte for byte what --report renders from latest.json now.
same() {
	python3 "$ROOT/bench/bench.py" --report "$ROOT/bench/results/latest.json" "$WORK/rendered.md" &&
		cmp -s "$1" "$WORK/rendered.md"
}

if same "$ROOT/docs/performance.md"; then
	ok "docs/performance.md is what bench.py --report renders from latest.json"
else
	fail "docs/performance.md differs from a fresh render; run: python3 bench/bench.py --report"
	diff "$ROOT/docs/performance.md" "$WORK/rendered.md" | head -n 10
fi
if grep -q "^The latest run of \`make bench\`: \*\*[0-9]\{8\}T[0-9]\{6\}Z\*\*" "$ROOT/docs/performance.md"; then
	ok "the page names its run"
else
	fail "the page does not name its run"
fi

# A page edited by hand (one figure changed) is caught.
sed '0,/ MISSED |$/s// met |/' "$ROOT/docs/performance.md" >"$WORK/edited.md"
if ! cmp -s "$ROOT/docs/performance.md" "$WORK/edited.md" && ! same "$WORK/edited.md"; then
	ok "a page edited by hand differs from the render"
else
	fail "an edited page was not told apart from the render"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
