# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Shared by the cross-CPU checks (tests/cpus/check_*.sh): the integration
# tests' library (paths, testbed, generator, nft observer, cleanup on exit),
# with every ok/FAIL line saying how many CPUs it ran on, so the 16- and
# 64-CPU runs can be told apart in one log.
# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

NCPU=$(nproc)
ok() { PASSED=$((PASSED + 1)); echo "ok   [$NCPU CPUs] $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL [$NCPU CPUs] $*"; }

# drop_kinds FILE: the last report's drop counters by kind, on one line (what
# part of ratewall dropped, when a check finds fewer admitted than it should).
drop_kinds() {
	python3 -c 'import json, sys
t = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]["totals"]
print("     ratewall totals: dropped %d, paced %d, met %d, capped %d, stalled %d, cross-CPU sums %d,"
      " failed inserts %d" % (t["dropped"], t["paced_drops"], t["met_drops"], t["capped_drops"],
                              t["stalled_drops"], t["cross_cpu_checks"], t["failed_inserts"]))' "$1" 2>/dev/null
}

# gen_spread NAME PPS SECONDS ARGS...: the generator with a thread on every
# CPU, bounded twice (--count is its whole run at its rate); its JSON in
# $WORK/NAME.json, its errors in $WORK/NAME.err.
gen_spread() {
	local name=$1 pps=$2 secs=$3
	shift 3
	gen --cpus "$NCPU" --rate "$pps" --duration "${secs}s" --count $((pps * secs)) "$@" \
		>"$WORK/$name.json" 2>"$WORK/$name.err"
}

# behind_of NAME: the most (ms) any thread of gen_spread NAME fell behind its
# pace (an emulated guest's vCPUs are not always run).
behind_of() {
	python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['behind_ms'])" \
		"$WORK/$1.json" 2>/dev/null || echo "?"
}

# stop_sink: ends start_sink's rwsink a second after the last frames were sent.
stop_sink() {
	sleep 1
	kill -INT "$SINK_PID" 2>/dev/null
	wait "$SINK_PID"
}
