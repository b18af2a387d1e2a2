#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The alert rules (dist/ratewall.rules.yml) through tests/harness/check_alert_rules.py:
# promtool check rules, promtool test rules on tests/prometheus/ratewall.rules.test.yml,
# every alert tested silent, firing, then resolved, the file the rendering of
# its template (dist/ratewall.rules.yml.in) with every series read under the
# selector, and a runbook for each alert. Then the check must fail on each
# thing it exists to catch, planted in a copy's template and rendered there:
# a broken expression, a threshold, a floor, a matcher that is not the
# selector, the old rules (an alert a key, a tick late by the scrape's
# clock), an annotation that renders otherwise, an alert without tests or a
# runbook, a test that never sees its alert resolve, a file edited by hand.
# No root, no network (promtool only).
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tests/harness/check_alert_rules.py"
RULES="$WORK/t/dist/ratewall.rules.yml"
TEMPLATE="$WORK/t/dist/ratewall.rules.yml.in"
TESTS="$WORK/t/tests/prometheus/ratewall.rules.test.yml"

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE '^ok   each of the [0-9]+ alerts is tested silent, firing, then resolved' <<<"$out" &&
	grep -qE '^ok   dist/ratewall.rules.yml is dist/ratewall.rules.yml.in rendered' <<<"$out"; then
	ok "the rules pass promtool check and test, every alert is tested firing and resolving, and they are the template's rendering"
else
	fail "the rules or their tests fail (exit $rc)"
fi

# The renderer refuses what is no selector, saying why.
for bad in '' 'job=ratewall' 'job="a"}' ; do
	msg=$(python3 "$ROOT/tools/alert_rules.py" --selector "$bad" - 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q "^alert_rules.py: --selector '$bad': " <<<"$msg"; then
		ok "the renderer refuses the selector '$bad': ${msg#*: *: }"
	else
		fail "the renderer took the selector '$bad' (exit $rc): $msg"
	fi
done

# plant DESCRIPTION SED-SCRIPT RC PATTERN: the check on a copy whose template
# is edited so, and rendered with the copy's renderer.
plant() {
	copy dist tests tools docs
	sed -i "$2" "$TEMPLATE"
	if cmp -s "$TEMPLATE" "$ROOT/dist/ratewall.rules.yml.in"; then
		fail "$1 (the edit changed nothing: $2)"
		return
	fi
	python3 "$WORK/t/tools/alert_rules.py" "$RULES"
	expect "$1" "$3" "$4"
}

copy dist tests tools docs
expect "an unchanged copy passes" 0 '^ok   each of the'

plant "a broken expression is refused" \
	's/(ratewall_source_banned{@SELECTOR@} == 1)/(ratewall_source_banned{@SELECTOR@} == 1/' 1 '^FAIL promtool check rules'
plant "a drop share above 60 % (the test drops 50 %) is caught" \
	's/ratio_rate5m > 0.1$/ratio_rate5m > 0.6/' 1 'alertname: RatewallHostDropping'
# shellcheck disable=SC2016 # PromQL, not the shell's
plant "the old late tick, scrape time minus the tick (host b's clock 6 s behind fires it), is caught" \
	's/^\( *\)changes(ratewall_last_tick_timestamp_seconds{@SELECTOR@}\[3m\]) == 0$/\1timestamp(ratewall_last_tick_timestamp_seconds{@SELECTOR@}) - ratewall_last_tick_timestamp_seconds{@SELECTOR@} > 5/' \
	1 'alertname: RatewallTickLate'
plant "a late tick without its offset (a fresh target fires) is caught" \
	'/ratewall_last_tick_timestamp_seconds{@SELECTOR@} offset 3m$/d' 1 'alertname: RatewallTickLate'
plant "a late tick for hosts that tick less than once a minute (6 min: fires) is caught" \
	'/and on (job, instance) ratewall_interval_seconds{@SELECTOR@} <= 60$/d' 1 'alertname: RatewallTickLate'
plant "the old alert a key (a storm in a flood) is caught" \
	's/count by (job, instance) (ratewall_source_limited{@SELECTOR@} == 1)/count by (kind, key, source) (ratewall_source_limited{@SELECTOR@} == 1) > 0/' \
	1 'alertname: RatewallSourcesLimited'
plant "limited keys without their 2 minutes (a one-minute blip fires) are caught" \
	'/alert: RatewallSourcesLimited/,/for: 2m/{/for: 2m/d}' 1 'alertname: RatewallSourcesLimited'
plant "an error bound's host count without hosts that lack the bar (0 absent) is caught" \
	'/or count by (job) (up{@SELECTOR@}) \* 0/d' 1 'job:ratewall_hosts_without_share_bar:count'
plant "a target-down alert for every job is caught" \
	's/up{@SELECTOR@} == 0/up == 0/' 1 'alertname: RatewallTargetDown'
plant "a series read without the selector is caught, though the default rendering passes promtool" \
	's/and on (job, instance) ratewall_window_packets{@SELECTOR@} > 1000/and on (job, instance) ratewall_window_packets > 1000/' \
	1 'does not carry it'
plant "a job matcher written in the template, not the selector, is caught" \
	's/up{@SELECTOR@} == 0/up{job="ratewall"} == 0/' 1 'still names job="ratewall"'
plant "a heavy prefix without its floor (a window of 100 packets fires) is caught" \
	'/and on (job, instance) ratewall_window_packets{@SELECTOR@} > 1000/d' 1 'alertname: RatewallHeavyPrefix'
# shellcheck disable=SC2016 # $value is the template's, not the shell's
plant "an annotation that renders otherwise is caught" \
	's/{{ $value }} key(s) banned on/{{ $value }} keys banned on/' 1 'alertname: RatewallSourcesBanned'
plant "an alert without a runbook is caught" \
	'/runbook_url: "@RUNBOOKS@#ratewalltargetdown"/d' 1 '^FAIL RatewallTargetDown: no runbook_url'
plant "a runbook to a section that is not there is caught" \
	's/#ratewalltargetdown"/#ratewall-target-down"/' 1 'runbook_url docs/alerts.md#ratewall-target-down: no such heading'
plant "an alert renamed in the rules alone is caught" \
	's/alert: RatewallSourcesLimited/alert: RatewallSourceOverLimit/' 1 \
	'RatewallSourcesLimited: tested, but no such alert'

copy dist tests tools docs
printf '      - alert: RatewallPlanted\n        expr: vector(1)\n        annotations:\n          runbook_url: "@RUNBOOKS@#ratewalltargetdown"\n' >>"$TEMPLATE"
python3 "$WORK/t/tools/alert_rules.py" "$RULES"
expect "an alert without tests is refused" 1 '^FAIL RatewallPlanted: no eval where it fires'

copy dist tests tools docs
# The file's last eval (its last alert resolved) cut off.
head -n -4 "$ROOT/tests/prometheus/ratewall.rules.test.yml" >"$TESTS"
expect "an alert never seen resolved is refused" 1 '^FAIL RatewallOnEventFailures: no eval after it fires where it is resolved'

copy dist tests tools docs
sed -i 's/for: 5m$/for: 4m/' "$RULES"
expect "a rules file edited by hand, not rendered, is refused" 1 \
	'^FAIL dist/ratewall.rules.yml is not the rendering of dist/ratewall.rules.yml.in'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
