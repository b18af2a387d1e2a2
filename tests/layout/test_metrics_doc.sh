#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The metrics table (tests/layout/check_metrics_doc.py): the tree passes it,
# and it fails on a family the page serves that the table does not name, and
# on one the table names that the page no longer serves, planted in a copy.
# No root, no network.
set -u
. "$(dirname "$0")/planted.sh"
CHECK="$ROOT/tests/layout/check_metrics_doc.py"
DOC=docs/operations/watching.md

out=$(python3 "$CHECK" "$ROOT" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ] && grep -qE ', 0 differences$' <<<"$out"; then
	ok "every family /metrics serves is in the docs' table, and no other"
else
	fail "the docs' metrics table and the page differ (exit $rc)"
fi

copy user docs
expect "an unchanged copy passes" 0 ', 0 differences$'

copy user docs
sed -i 's/`ratewall_bgp_speaker_up` (1: it answers and a session is established), //' "$WORK/t/$DOC"
expect "a family left out of the table is named" 1 "lacks ratewall_bgp_speaker_up, which"

copy user docs
sed -i 's/ratewall_on_event_running/ratewall_on_event_queued/g' \
	"$WORK/t/user/views/metrics_page.c"
expect "a new family the table lacks is named" 1 "lacks ratewall_on_event_queued, which"
expect "... and the one it replaced, still in the table" 1 "names ratewall_on_event_running, which"

copy user docs
sed -i 's/^## Metrics for Prometheus$/## Metrics/' "$WORK/t/$DOC"
expect "a table that moved is said, not passed" 1 "no section"

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
