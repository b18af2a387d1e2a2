#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The unit's sandbox: `systemd-analyze security --offline=yes` on
# the unit in dist/ (rendered as make install does) gives an exposure
# no higher than the figure docs/ state ("exposure score N.N"), and that
# figure is MEDIUM or better (under 7.5). The check must fail on a planted
# weaker unit (no capability bounding set, no system call filter) and on
# docs that state no figure. No root, no network.
set -u
. "$(dirname "$0")/planted.sh"

if ! systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then
	fail "systemd-analyze security --offline is there (systemd 252 or later)"
	echo "$PASSED passed, $FAILED failed"
	exit 1
fi

# score UNIT_IN: the exposure systemd-analyze gives the unit rendered from UNIT_IN.
score() {
	mkdir -p "$WORK/u"
	sed 's|@SBINDIR@|/usr/sbin|g' "$1" >"$WORK/u/ratewall@eth0.service"
	(cd "$WORK/u" && systemd-analyze security --offline=yes --no-pager ratewall@eth0.service 2>&1) |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p'
}

# stated DOCS_DIR: the figure the docs give, the first "exposure score N.N".
stated() { grep -rhoE 'exposure score [0-9]+\.[0-9]' "$1" | head -n 1 | awk '{ print $3 }'; }

# check ROOT: silent when the unit's score is no higher than its docs' figure
# and that is MEDIUM or better; else says why.
check_tree() {
	local got want
	got=$(score "$1/dist/ratewall@.service.in")
	want=$(stated "$1/docs")
	if [ -z "$got" ]; then
		echo "systemd-analyze gave no exposure for the unit"
	elif [ -z "$want" ]; then
		echo "docs/ state no 'exposure score N.N' for the unit"
	elif ! awk -v g="$got" -v w="$want" 'BEGIN { exit !(g <= w) }'; then
		echo "the unit's exposure is $got, above the $want docs/ state"
	elif ! awk -v w="$want" 'BEGIN { exit !(w < 7.5) }'; then
		echo "the stated exposure $want is not MEDIUM or better (under 7.5)"
	fi
}

out=$(check_tree "$ROOT")
if [ -z "$out" ]; then
	ok "the unit's exposure is $(score "$ROOT/dist/ratewall@.service.in"), no more than the $(stated "$ROOT/docs") docs/ state (MEDIUM or better)"
else
	fail "$out"
fi

# plant DESCRIPTION SED-SCRIPT FILE PATTERN: the check fails on a copy edited so, saying PATTERN.
plant() {
	copy dist docs
	sed -i "$2" "$WORK/t/$3"
	if cmp -s "$WORK/t/$3" "$ROOT/$3"; then
		fail "$1 (the edit changed nothing: $2)"
		return
	fi
	out=$(check_tree "$WORK/t")
	if grep -qE "$4" <<<"$out"; then
		ok "$1: $out"
	else
		fail "$1 (wanted /$4/): ${out:-passed}"
	fi
}

plant "control: a unit with every capability of root is caught" \
	'/^CapabilityBoundingSet=/d' "dist/ratewall@.service.in" "exposure is .*, above the"
plant "control: a unit without its system call filter is caught" \
	'/^SystemCallFilter=/d' "dist/ratewall@.service.in" "exposure is .*, above the"
plant "control: docs that state no figure are caught" \
	's/exposure score [0-9]/exposure/g' "docs/operations/service.md" "state no 'exposure score"

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
