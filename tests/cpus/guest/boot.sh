#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# boot.sh N CMD...: boots a QEMU guest with N CPUs (TCG: this host has no KVM)
# on Debian's 6.12 kernel and the host's root read-only, runs CMD in the
# current directory there, and exits with CMD's status; 125 when the guest gave
# no status (it did not boot, crashed, or was killed at the time limit).
# The guest has no network device: whatever traffic CMD makes stays in the
# guest's own namespaces.
#
# Its run directory (RUN, printed first) is GUEST_DIR/out/<stamp>-<N>cpu:
#   serial.log  the guest's console: kernel, /init, CMD's output
#   log, rc     CMD's output and exit status, written by the guest
#   cmd         the script the guest runs
# CMD may write more files to $RW_OUT (RUN, the same path inside and out).
#
# Environment: GUEST_DIR (build/guest), GUEST_TIMEOUT seconds from start to
# power-off (1800), GUEST_MEM MiB (2048 + 160 a CPU: the tick check fills 1 Mi keys on every CPU), GUEST_NICE (0),
# GUEST_ACCEL (tcg,thread=single), GUEST_CPU (max).
# Needs tests/cpus/guest/install.sh and mkinitramfs.sh first (tests/cpus/run.sh
# calls both).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
GUEST=${GUEST_DIR:-$ROOT/build/guest}

if [ $# -lt 2 ] || ! [ "$1" -ge 1 ] 2>/dev/null; then
	echo "usage: $0 N CMD..." >&2
	exit 2
fi
ncpu=$1
shift
timeout_s=${GUEST_TIMEOUT:-1800}
mem=${GUEST_MEM:-$((2048 + 160 * ncpu))}

kernel=$(ls "$GUEST"/linux/boot/vmlinuz-* 2>/dev/null | head -n 1)
initrd=$GUEST/initramfs.cpio.gz
if [ -z "$kernel" ] || [ ! -e "$initrd" ]; then
	echo "boot: no kernel or initramfs in $GUEST (tests/cpus/guest/install.sh, mkinitramfs.sh)" >&2
	exit 125
fi

# Old runs go after a week: a few MB each, the console of every boot.
find "$GUEST/out" -mindepth 1 -maxdepth 1 -type d -mtime +7 -exec rm -rf {} + 2>/dev/null
run=$GUEST/out/$(date -u +%Y%m%dT%H%M%S)-$$-${ncpu}cpu
mkdir -p "$run" || exit 125
run=$(cd "$run" && pwd)
echo "boot: $ncpu CPUs, $mem MiB, run directory $run"
# The command, quoted as given, from this directory (seen at the same path).
{
	echo "# written by tests/cpus/guest/boot.sh"
	printf 'export RW_OUT=%q\n' "$run"
	printf 'cd %q || exit 125\n' "$PWD"
	printf '%q ' "$@"
	echo
} >"$run/cmd"

# The guest's /tmp, /run and /var/tmp are its own tmpfs: a clone under one of
# them (a CI's checkout in /tmp) is shared on its own, at the same path.
work_share=()
work_arg=""
case "$ROOT/" in
/tmp/* | /run/* | /var/tmp/*)
	work_share=(-virtfs "local,path=$ROOT,mount_tag=hostwork,security_model=passthrough,readonly=on,multidevs=remap")
	work_arg=" rw.work=$ROOT"
	;;
esac

start=$(date +%s)
# -no-reboot: a kernel panic (panic=-1 reboots) ends QEMU instead of looping.
# One host thread runs every vCPU in turn (thread=single), not one thread
# each: with QEMU 7.2's multi-threaded TCG, the kernel's live patching of
# bpf_dispatcher_xdp_func (text_poke_bp, at every BPF_PROG_RUN of an XDP
# program not otherwise attached) leaves a vCPU executing a stale int3 and
# the guest panics ("Oops: int3" in bpf_dispatcher_xdp_func) as soon as two
# CPUs run XDP at once. The host has two cores: single costs at most half.
# GUEST_ACCEL=tcg,thread=multi tries it again.
# multidevs=remap: the host's root spans several filesystems (/proc, /dev...);
# their inode numbers must not collide in the guest's view.
nice -n "${GUEST_NICE:-0}" timeout --kill-after=10 "$timeout_s" \
	qemu-system-x86_64 \
	-accel "${GUEST_ACCEL:-tcg,thread=single}" -cpu "${GUEST_CPU:-max}" -smp "$ncpu" -m "$mem" \
	-nic none -nographic -monitor none -serial "file:$run/serial.log" -no-reboot \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 loglevel=4 rw.out=$run$work_arg" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap" \
	"${work_share[@]}" \
	-virtfs "local,path=$run,mount_tag=rwout,security_model=passthrough" \
	</dev/null >"$run/qemu.log" 2>&1
qrc=$?
took=$(($(date +%s) - start))

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "boot: FAIL guest with $ncpu CPUs killed after ${timeout_s} s (GUEST_TIMEOUT); last console lines:" >&2
	tail -n 20 "$run/serial.log" >&2
	exit 125
fi
if [ -s "$run/qemu.log" ]; then
	sed 's/^/boot: qemu: /' "$run/qemu.log" >&2
fi
rc=$(cat "$run/rc" 2>/dev/null)
if [ -z "$rc" ]; then
	echo "boot: FAIL guest with $ncpu CPUs gave no exit status (qemu exit $qrc, ${took} s); console:" >&2
	# A panic's cause is at its start, its register dump at the end.
	grep -m 5 -E 'Oops|BUG|panic|rwguest: FAIL' "$run/serial.log" >&2
	echo "boot: last console lines:" >&2
	tail -n 15 "$run/serial.log" >&2
	exit 125
fi
# The guest's own times, from its /init lines on the console.
up=$(sed -n 's/.*rwguest: running .* at \([0-9.]*\) s.*/\1/p' "$run/serial.log" | tail -n 1)
echo "boot: $ncpu CPUs: booted in ${up:-?} s (guest clock), done in ${took} s, exit $rc"
exit "$rc"
