#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The alert rules (dist/ratewall.rules.yml) through tests/harness/check_alert_rules.py:
# promtool check rules, promtool test rules on tests/prometheus/ratewall.rules.test.yml,
# and every alert tested silent, firing, then resolved. Then the check must
# fail on each thing it exists to catch, planted in a copy: a broken
# expression, a threshold, a floor or a job matcher that is not the one
# tested, an annotation that renders otherwise, an alert without tests, a
# test that never sees its alert resolve. No root, no network (promtool only).
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tests/harness/check_alert_rules.py"
RULES="$WORK/t/dist/ratewall.rules.yml"
TESTS="$WORK/t/tests/prometheus/ratewall.rules.test.yml"

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE '^ok   each of the [0-9]+ alerts is tested silent, firing, then resolved' <<<"$out"; then
	ok "the rules pass promtool check and test, and every alert is tested firing and resolving"
else
	fail "the rules or their tests fail (exit $rc)"
fi

# plant DESCRIPTION FILE SED-SCRIPT RC PATTERN: the check on a copy edited so.
plant() {
	copy dist tests
	sed -i "$3" "$2"
	if cmp -s "$2" "$ROOT/${2#"$WORK"/t/}"; then
		fail "$1 (the edit changed nothing: $3)"
		return
	fi
	expect "$1" "$4" "$5"
}

copy dist tests
expect "an unchanged copy passes" 0 '^ok   each of the'

plant "a broken expression is refused" "$RULES" \
	's/(ratewall_source_banned == 1) > 0/(ratewall_source_banned == 1 > 0/' 1 '^FAIL promtool check rules'
plant "a drop share above 60 % (the test drops 50 %) is caught" "$RULES" \
	's/ratio_rate5m > 0.1$/ratio_rate5m > 0.6/' 1 'alertname: RatewallHostDropping'
plant "a late tick without its 5 s floor (a 10 ms loader fires) is caught" "$RULES" \
	's/clamp_min(3 \* ratewall_interval_seconds, 5)/3 * ratewall_interval_seconds/' 1 'alertname: RatewallTickLate'
plant "a target-down alert for every job is caught" "$RULES" \
	's/up{job="ratewall"} == 0/up == 0/' 1 'alertname: RatewallTargetDown'
plant "a heavy prefix without its floor (a window of 100 packets fires) is caught" "$RULES" \
	'/and on (job, instance) ratewall_window_packets > 1000/d' 1 'alertname: RatewallHeavyPrefix'
# shellcheck disable=SC2016 # $value is the template's, not the shell's
plant "an annotation that renders otherwise is caught" "$RULES" \
	's/is banned on {{ $value }} host(s)/is banned on {{ $value }} hosts/' 1 'alertname: RatewallSourceBanned'

copy dist tests
printf '      - alert: RatewallPlanted\n        expr: vector(1)\n' >>"$RULES"
expect "an alert without tests is refused" 1 '^FAIL RatewallPlanted: no eval where it fires'

copy dist tests
# The file's last eval (its last alert resolved) cut off.
head -n -3 "$ROOT/tests/prometheus/ratewall.rules.test.yml" >"$TESTS"
expect "an alert never seen resolved is refused" 1 '^FAIL RatewallOnEventFailures: no eval after it fires where it is resolved'

plant "an alert renamed in the rules alone is caught" "$RULES" \
	's/alert: RatewallSourceLimited/alert: RatewallSourceOverLimit/' 1 \
	'RatewallSourceLimited: tested, but no such alert'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
