#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# (f) bad input and refused attaches: one clear line on stderr, exit 2 for
#     usage and 1 for runtime, the interface left as it was.
# (g) however ratewall ends (duration, SIGINT, SIGTERM, SIGKILL, a failure),
#     no XDP program is left on the interface.
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }

# expect_fail CODE STDERR_PATTERN ARGS...: ratewall in the receiver namespace.
expect_fail() {
	local code=$1 pattern=$2 rc lines
	shift 2
	ip netns exec "$TB_RCV" "$RW" "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	lines=$(wc -l <"$WORK/err")
	if [ "$rc" -eq "$code" ] && [ "$lines" -eq 1 ] && grep -q -- "$pattern" "$WORK/err" &&
		! xdp_attached "$TB_RCV" "$TB_RX"; then
		ok "(f) ratewall $* -> exit $code: $(cat "$WORK/err")"
	else
		fail "(f) ratewall $*: exit $rc (want $code), $lines lines: $(cat "$WORK/err")"
	fi
}

expect_fail 2 "no interface named 'nosuch0'" run nosuch0
expect_fail 2 "'fast' is not a rate" run "$TB_RX" --pps fast
expect_fail 2 "--bps" run "$TB_RX" --bps 10Q
expect_fail 2 "is not a duration" run "$TB_RX" --window soon
expect_fail 2 "from 2 to 32" run "$TB_RX" --slots 1
expect_fail 2 "from 2 to 32" run "$TB_RX" --slots 64
expect_fail 2 "1 ms to 60 s" run "$TB_RX" --window 1h --slots 10
expect_fail 2 "unknown option" run "$TB_RX" --frobnicate
expect_fail 2 "missing IFACE" run
# A config file: a bad line is named by file and line, and nothing is attached.
printf 'pps 10k\n# a comment\nwindow soon\n' >"$WORK/bad.conf"
expect_fail 2 "$WORK/bad.conf:3: --window: 'soon' is not a duration" run "$TB_RX" --config "$WORK/bad.conf"
printf 'pps 10k\nfrobnicate yes\n' >"$WORK/bad.conf"
expect_fail 2 "$WORK/bad.conf:2: unknown key 'frobnicate'" run "$TB_RX" --config "$WORK/bad.conf"
expect_fail 2 "cannot read '$WORK/none.conf'" run "$TB_RX" --config "$WORK/none.conf"
expect_fail 2 "unknown command" explode
# `ratewall help` is made from the table of subcommands: one row each, exit 0;
# no command at all is a usage error with the same list on stderr.
help_lists_all() {
	local c
	"$RW" help >"$WORK/help" 2>&1 || return 1
	for c in run status stop rule top memory version help; do
		grep -qE "^  $c( |$)" "$WORK/help" || { echo "no row for $c"; return 1; }
	done
	"$RW" >/dev/null 2>"$WORK/none"
	[ $? -eq 2 ] && cmp -s <(tail -n +2 "$WORK/help") <(tail -n +2 "$WORK/none")
}
check "(f) ratewall help lists every subcommand; no command -> exit 2, same list" help_lists_all
expect_fail 2 "give one" run "$TB_RX" --max-flows 10 --max-memory 1M
# A flow table beyond the machine's memory is refused before it is allocated
# (hash maps are preallocated: the kernel would otherwise OOM the host).
expect_fail 1 "more than 50% of the" run "$TB_RX" --max-flows 67108864
expect_fail 2 "too small for the sketch and one tracked flow" run "$TB_RX" --max-memory 100
# Loopback has no native XDP: a refused attach, nothing left behind.
expect_fail 1 "cannot attach native XDP to lo" run lo --xdp-mode native
check "(f) lo is left without XDP after the refused attach" eval "! xdp_attached $TB_RCV lo"
# Two interfaces, the second refused: the first one's attach is undone too.
expect_fail 1 "cannot attach native XDP to lo" run "$TB_RX" lo --xdp-mode native

# Not root: a clear runtime error, before anything is loaded.
chmod o+rx "$WORK"
rc=0
ip netns exec "$TB_RCV" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$RW" run "$TB_RX" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "(f) not root -> exit 1: $(cat "$WORK/err")" \
	eval "[ $rc -eq 1 ] && grep -q 'must run as root' '$WORK/err'"

# An interface that already has XDP: refused, and the program there stays.
start_ratewall "$WORK/first.json" --json || fail "first ratewall starts"
first_id=$(ip -n "$TB_RCV" -d link show dev "$TB_RX" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
expect_busy() {
	ip netns exec "$TB_RCV" "$RW" run "$TB_RX" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	local id
	id=$(ip -n "$TB_RCV" -d link show dev "$TB_RX" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
	[ "$rc" -eq 1 ] && grep -q "already has an XDP program (id $first_id)" "$WORK/err" &&
		[ "$(wc -l <"$WORK/err")" -eq 1 ] && [ "$id" = "$first_id" ]
}
check "(f) an interface with XDP already -> exit 1, its program untouched" expect_busy
stop_ratewall INT

# Auto mode on an interface without native XDP falls back to generic and says so.
rc=0
ip netns exec "$TB_RCV" "$RW" run lo --duration 1s --json >"$WORK/out" 2>"$WORK/err" || rc=$?
check "(f) --xdp-mode auto falls back to generic on lo, says so, exits 0" \
	eval "[ $rc -eq 0 ] && grep -q 'using generic XDP' '$WORK/err' && grep -q '(generic XDP)' '$WORK/err'"
check "(g) lo has no XDP after the generic run" eval "! xdp_attached $TB_RCV lo"

# (g) every way out leaves the interface clean and the program freed.
ends_clean() {
	local how=$1 id rc=0
	start_ratewall "$WORK/g.json" --pps 1k --json || return 1
	id=$(ip -n "$TB_RCV" -d link show dev "$TB_RX" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
	[ -n "$id" ] || return 1
	case $how in
	INT | TERM | KILL)
		kill -"$how" "$RW_PID"
		wait "$RW_PID" || rc=$?
		if [ "$how" = KILL ]; then [ "$rc" -eq 137 ] || return 1; else [ "$rc" -eq 0 ] || return 1; fi
		;;
	esac
	xdp_attached "$TB_RCV" "$TB_RX" && return 1
	# The kernel frees the program once its last reference goes.
	for _ in $(seq 50); do
		bpftool prog show id "$id" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	return 1
}
for sig in INT TERM KILL; do
	check "(g) after SIG$sig no XDP program is attached or loaded" ends_clean "$sig"
done
# A good config file drives a run; a flag overrides one of its values.
printf 'pps = 7k\nbps 5M\njson\nduration 1200ms\n' >"$WORK/good.conf"
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --config "$WORK/good.conf" --bps 6M >"$WORK/conf.json" 2>"$WORK/conf.err"
rc=$?
check "(f) a config file sets the limits and the JSON output; a flag wins over it" \
	python3 -c 'import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert int(sys.argv[2]) == 0 and lines and lines[-1]["limit"] == {"pps": 7000, "bps": 6000000}, lines[-1:]' \
	"$WORK/conf.json" "$rc"
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --duration 1500ms --json >"$WORK/dur.json" 2>"$WORK/dur.err"
rc=$?
check "(g) --duration ends with exit 0 and a report per interval" \
	eval "[ $rc -eq 0 ] && [ \$(wc -l <'$WORK/dur.json') -ge 1 ]"
check "(g) after --duration no XDP program is attached" eval "! xdp_attached $TB_RCV $TB_RX"

# The interface goes away under ratewall: it notices at the next tick and exits 1.
ip -n "$TB_RCV" link add rwgone type veth peer rwgone2
ip -n "$TB_RCV" link set rwgone up
ip netns exec "$TB_RCV" "$RW" run rwgone --interval 200ms --json >"$WORK/gone.json" 2>"$WORK/gone.err" &
gone_pid=$!
# Gone once attached, not after a fixed second: a load that took longer beside
# the other layers met the interface gone mid-attach (EINVAL, not this check).
RW_PID=$gone_pid wait_attached "$WORK/gone.err"
ip -n "$TB_RCV" link del rwgone
rc=0
for _ in $(seq 50); do kill -0 "$gone_pid" 2>/dev/null || break; sleep 0.1; done
wait "$gone_pid" || rc=$?
check "(g) an interface that disappears ends the run with exit 1: $(tail -n 1 "$WORK/gone.err")" \
	eval "[ $rc -eq 1 ] && grep -q 'rwgone went away' '$WORK/gone.err'"

# A closed stdout (ratewall | head) ends the run cleanly too.
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --interval 100ms --json 2>/dev/null | head -n 2 >/dev/null
check "(g) a closed pipe ends the run and detaches" eval "! xdp_attached $TB_RCV $TB_RX"

finish
