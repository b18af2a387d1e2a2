#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The captures in README.md and docs/ (tools/captures/captures.py) still have
# the format of what ratewall prints today: tools/captures/make.sh --quick
# makes each one again in short runs at low rates, and each marked block's
# shape (numbers, addresses, times masked; headers, column names, field
# order, line kinds and JSON keys kept) must be one today's output has. And
# the check fails on what it exists to catch, planted in a copy of the docs:
# a renamed column (the report's, top's, a --key table's, the memory
# table's), a JSON key the binary no longer prints, one it prints left out (a
# report's, an --on-event object's), a renamed status field, a marker nothing
# makes, a slow suite's capture whose marker is gone. The slow suites'
# captures are made and checked by those suites (captures.py slow).
set -u
. "$(dirname "$0")/../lib.sh"
CAP="$ROOT/tools/captures/captures.py"

t0=$SECONDS
"$ROOT/tools/captures/make.sh" "$WORK/today" "$BUILD" --quick >"$WORK/make.log" 2>&1
rc=$?
check "make.sh --quick makes the captures (exit $rc, $((SECONDS - t0)) s)" test "$rc" -eq 0
# (check's own status is fail's: what make.sh said is shown here)
[ "$rc" -eq 0 ] || tail -n 5 "$WORK/make.log" | sed 's/^/     /'

out=$(python3 "$CAP" check "$ROOT" "$WORK/today" 2>&1)
rc=$?
echo "$out" | sed 's/^/     /'
if [ "$rc" -eq 0 ] && grep -qE '^[1-9][0-9]* captures checked, 0 failed$' <<<"$out"; then
	ok "every capture in README.md and docs/ has today's format"
else
	fail "a capture's format is not what ratewall prints today (exit $rc)"
fi

# planted NAME FILE SED PATTERN: the check on a copy of the docs with SED
# applied to FILE fails and says PATTERN.
planted() {
	rm -rf "$WORK/t"
	mkdir -p "$WORK/t"
	cp -r "$ROOT/README.md" "$ROOT/docs" "$WORK/t/"
	sed -i "$3" "$WORK/t/$2"
	if [ ! -e "$WORK/t/$2" ] || cmp -s "$ROOT/$2" "$WORK/t/$2"; then
		fail "$1: the plant changed nothing in $2 (or there is no $2)"
		return
	fi
	out=$(python3 "$CAP" check "$WORK/t" "$WORK/today" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qE "$4" <<<"$out"; then
		ok "$1"
	else
		fail "$1 (exit $rc, wanted 1 and /$4/): $(tail -n 3 <<<"$out")"
	fi
}
planted "a renamed column of the report is refused" README.md 's/DROP PPS  TRAFFIC/DROPS-S  TRAFFIC/' \
	'^README.md:[0-9]+: capture readme-demo: line 7 of the block'
planted "a JSON key today's report lacks is refused" docs/json.md 's/"tick_ms": /"tick_us": /' \
	'^docs/json.md:[0-9]+: capture report-json: .*keys not printed today: .tick_us'
planted "a JSON key today's report has, left out, is refused" docs/json.md 's/, "tick_ms": [0-9.]*//' \
	'capture report-json: .*keys missing from the doc: .tick_ms'
planted "a renamed status field is refused" docs/operations/service.md 's/^  enforces     /  enforcing    /' \
	'capture status: line [0-9]+ of the block'
planted "a renamed column of top's screen is refused" docs/operations/watching.md '0,/DROP\/S  SHARE/s//DROPS   SHARE/' \
	'capture top-sources: line 5 of the block'
planted "a renamed column of a --key table is refused" docs/usage.md 's/^RANK  DESTINATION  /RANK  DEST         /' \
	'capture key-dst: line 1 of the block'
planted "an --on-event object without a field today's has is refused" docs/json.md 's/, "interfaces": \[[^]]*\]//' \
	'capture event-hook: .*keys missing from the doc: .interfaces'
planted "a marker nothing makes is refused" docs/usage.md '0,/^```$/s//<!-- capture: nosuch -->\n```/' \
	'capture nosuch: nothing makes it'
planted "a renamed column of design.md's memory table is refused" docs/design.md \
	's/^possible CPUs  tracked-flow table/possible CPUs  flow table/' 'capture memory-cpus: line 1 of the block'
# A slow suite checks its captures by name (lib.sh's captured): a name whose
# marker is gone must fail there, not pass as nothing checked.
rm -rf "$WORK/t" && mkdir -p "$WORK/t" && cp -r "$ROOT/README.md" "$ROOT/docs" "$WORK/t/"
sed -i '/^<!-- capture: fleet-top -->$/d' "$WORK/t/docs/operations/fleet.md"
out=$(python3 "$CAP" check "$WORK/t" "$WORK/today" fleet-top 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^capture fleet-top: no block of README.md or docs/ is marked with it$' <<<"$out"; then
	ok "a slow suite's capture whose marker is gone is refused"
else
	fail "a slow suite's capture whose marker is gone is refused (exit $rc): $(tail -n 2 <<<"$out")"
fi
finish
