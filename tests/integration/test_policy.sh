#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Policy options on a real veth, seen by an nft counter after XDP.
#  (a) --dry-run: a source at 10x its limit loses nothing, and the report
#      says what would have been dropped (offered minus the limit)
set -u
. "$(dirname "$0")/lib.sh"

LIMIT=10000
OFFERED=100000

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
nft_observe v4 ip saddr 198.18.0.1

# (a) dry run
start_ratewall "$WORK/a.json" --pps 10k --dry-run --json || fail "(a) ratewall starts"
gen --rate $OFFERED --duration 8s >"$WORK/a.gen" &
GEN_PID=$!
sleep 2.5
rate=$(steady_rate v4 5)
wait $GEN_PID
stop_ratewall INT
check "(a) ratewall --dry-run exits 0 on SIGINT" test $? -eq 0
# The reports of the steady part: what the source offered and would have lost per second.
read -r offered would dry <<<"$(python3 - "$WORK/a.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][2:-2]
tops = [e for r in rows for e in r["top"] if e["key"] == "198.18.0.1"]
print("%.0f %.0f %s" % (sum(e["pps"] for e in tops) / len(tops),
                        sum(e["drop_pps"] for e in tops) / len(tops),
                        all(r["dry_run"] for r in rows)))
PY
)"
echo "     (a) dry run: offered $offered pps, admitted $rate pps (nft), reported as would-drop $would pps"
sent=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['sent'])" "$WORK/a.gen")
seen=$(nft_count v4)
echo "     (a) frames sent $sent, seen after XDP by nft $seen"
check "(a) nothing is dropped: nft saw every frame sent" test "$seen" -eq "$sent"
check "(a) ... at the offered rate (within 5%)" within "$rate" $OFFERED 0.05
check "(a) the report says what would be dropped: offered - limit (within 5%)" \
	within "$would" $((OFFERED - LIMIT)) 0.05
check "(a) every report is marked dry_run" test "$dry" = True
grep -q "DRY RUN" "$WORK/a.json.err"
check "(a) the start-up line says DRY RUN" test $? -eq 0

finish
