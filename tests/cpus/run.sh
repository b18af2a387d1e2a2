#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make test-cpus`: the cross-CPU checks (tests/cpus/suite.sh) inside QEMU
# guests of 16 and 64 CPUs (tests/cpus/guest/boot.sh), since the per-CPU paths need
# more CPUs than this host has; then a guest of 2 CPUs on Debian bookworm's
# stock kernel, 6.1, where the program is refused (tests/cpus/stock_kernel.sh).
# Prints each guest's checks, every line with
# its CPU count, and one closing "N passed, N failed"; a guest that does not
# boot, runs past its time, or whose kernel dies twice is one failure.
# Environment: CPUS ("16 64"), GUEST_TIMEOUT per guest (2400 s), CHECKS
# (suite.sh's: only these checks), STOCK_KERNEL (1; 0: not its guest), and
# RW_WAIT_WHILE=FILE: before a guest of more than 4 CPUs, wait while FILE
# exists (someone on a shared machine asked for quiet), 30 s at a time, up to
# 25 minutes in all.
# Usage: tests/cpus/run.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/tally.sh"
BUILD=$(cd "${1:-$ROOT/build}" && pwd)

tally_start "test-cpus needs root (packages, QEMU's 9p share of /)" rwcpusrun
"$ROOT/tests/cpus/guest/install.sh" "$BUILD/guest" || { echo "0 passed, 1 failed"; exit 1; }
"$ROOT/tests/cpus/guest/mkinitramfs.sh" "$BUILD/guest" || { echo "0 passed, 1 failed"; exit 1; }

# 25 minutes of waiting for the whole run, not for each guest.
QUIET_LEFT=1500
wait_quiet() {
	local f=${RW_WAIT_WHILE:-}
	[ -n "$f" ] || return 0
	[ -e "$f" ] && [ "$QUIET_LEFT" -gt 0 ] && echo "   waiting while $f exists (up to $((QUIET_LEFT / 60)) min)"
	while [ -e "$f" ] && [ "$QUIET_LEFT" -gt 0 ]; do
		sleep 30
		QUIET_LEFT=$((QUIET_LEFT - 30))
	done
	[ -e "$f" ] && echo "   $f still there after 25 min of waiting: going ahead"
}

# guest N [DIR CMD...]: boots a guest of N CPUs on DIR's kernel ($BUILD/guest)
# running CMD (the suite); its boot.sh lines in $LOG, the run directory in
# $run, CMD's status in $rc.
guest() {
	local n=$1 dir=${2:-$BUILD/guest}
	shift
	[ $# -gt 0 ] && shift
	[ $# -gt 0 ] || set -- env CHECKS="${CHECKS:-}" "$ROOT/tests/cpus/suite.sh" "$BUILD"
	GUEST_DIR=$dir GUEST_TIMEOUT=${GUEST_TIMEOUT:-2400} \
		"$ROOT/tests/cpus/guest/boot.sh" "$n" "$@" >"$LOG" 2>&1
	rc=$?
	run=$(sed -n 's/^boot: .*run directory \(.*\)$/\1/p' "$LOG" | head -n 1)
}

# said_guest N LABEL: what the guest said (its log), boot.sh's lines, its time, the tally.
said_guest() {
	# The guest's own output is in its run directory's log; boot.sh said where.
	# Its closing line indented: only this runner's own may start a line so.
	[ -n "$run" ] && [ -e "$run/log" ] &&
		sed -E "s/^([0-9]+ passed, [0-9]+ failed)/   [$1 CPUs] \1/" "$run/log"
	grep '^boot: ' "$LOG"
	grep -v '^boot: ' "$LOG" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' | sed 's/^/   /'
	echo "   (guest $2: $(($(date +%s) - t0)) s)"
	tally "guest $2" "$rc" "${run:-/dev/null}/log"
}

start=$(date +%s)
for n in ${CPUS:-16 64}; do
	echo "== guest with $n CPUs"
	[ "$n" -gt 4 ] && wait_quiet
	t0=$(date +%s)
	guest "$n"
	# The emulated guest's own kernel died (no status; its console says why):
	# once here in some twenty 64-CPU boots, a double fault in kmalloc under
	# TCG. Said, and booted once more; a second death fails.
	if [ -n "$run" ] && [ ! -e "$run/rc" ] &&
		grep -q -E 'Kernel panic|Oops|double fault|BUG:' "$run/serial.log" 2>/dev/null; then
		echo "   the guest's kernel died (console in $run/serial.log):"
		grep -m 3 -E 'Kernel panic|Oops|double fault|BUG:' "$run/serial.log" | sed 's/^/     /'
		echo "   booting it once more"
		guest "$n"
	fi
	said_guest "$n" "with $n CPUs"
done
if [ "${STOCK_KERNEL:-1}" = 1 ]; then
	echo "== guest with 2 CPUs on Debian bookworm's stock kernel (6.1)"
	t0=$(date +%s)
	if GUEST_KERNEL=6.1 "$ROOT/tests/cpus/guest/install.sh" "$BUILD/guest61" &&
		"$ROOT/tests/cpus/guest/mkinitramfs.sh" "$BUILD/guest61"; then
		guest 2 "$BUILD/guest61" "$ROOT/tests/cpus/stock_kernel.sh"
		said_guest 2 "on 6.1"
	else
		echo "FAIL the 6.1 guest's kernel could not be installed"
		FAILED=$((FAILED + 1))
	fi
fi
echo "== every guest in $(($(date +%s) - start)) s"
tally_end
[ "$FAILED" -eq 0 ]
