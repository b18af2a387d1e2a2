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

# start_sink ARGS...: rwsink on the receiver (its JSON in $WORK/sink.json),
# once it listens; SINK_PID is its pid.
start_sink() {
	ip netns exec "$TB_RCV" "$SINK" --dev "$TB_RX" "$@" >"$WORK/sink.json" 2>"$WORK/sink.err" &
	SINK_PID=$!
	for _ in $(seq 200); do
		grep -q listening "$WORK/sink.err" 2>/dev/null && break
		sleep 0.05
	done
}
