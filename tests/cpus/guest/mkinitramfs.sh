#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Builds the guest's initramfs from the kernel tests/cpus/guest/install.sh unpacked:
# the host's static busybox, tests/cpus/guest/init as /init, and the modules named
# in tests/cpus/guest/modules with everything they depend on (modules.dep),
# decompressed (busybox insmod reads plain .ko) and listed in load order.
# Rebuilt only when one of its inputs is newer than it.
# Usage: tests/cpus/guest/mkinitramfs.sh [GUEST_DIR]   writes GUEST_DIR/initramfs.cpio.gz
set -u
# depmod lives in /usr/sbin, which a non-login PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
GUEST=${1:-$ROOT/build/guest}
LINUX=$GUEST/linux
OUT=$GUEST/initramfs.cpio.gz

kver=$(ls "$LINUX/lib/modules" 2>/dev/null | head -n 1)
if [ -z "$kver" ] || [ ! -e "$LINUX/boot/vmlinuz-$kver" ]; then
	echo "mkinitramfs: no kernel in $LINUX; run tests/cpus/guest/install.sh" >&2
	exit 1
fi
MODS=$LINUX/lib/modules/$kver
# busybox-static's: the initramfs has no libc for a dynamic one.
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || {
	echo "mkinitramfs: no $BUSYBOX; run tests/cpus/guest/install.sh" >&2
	exit 1
}

if [ -e "$OUT" ] && [ "$OUT" -nt "$HERE/init" ] && [ "$OUT" -nt "$HERE/modules" ] &&
	[ "$OUT" -nt "$HERE/mkinitramfs.sh" ] && [ "$OUT" -nt "$LINUX/boot/vmlinuz-$kver" ]; then
	exit 0
fi

# The package ships no modules.dep: depmod writes it once.
if [ ! -s "$MODS/modules.dep" ]; then
	depmod -b "$LINUX" "$kver" || exit 1
fi

# order PATH: PATH's dependencies (depth first), then PATH, each once.
declare -A seen=()
order=()
add() {
	local path=$1 dep deps
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	deps=$(grep -E "^$path:" "$MODS/modules.dep" | cut -d: -f2)
	for dep in $deps; do add "$dep"; done
	order+=("$path")
}
while read -r name; do
	case "$name" in '' | '#'*) continue ;; esac
	path=$(grep -E "/$name\.ko(\.[a-z]+)?:" "$MODS/modules.dep" | cut -d: -f1)
	if [ -z "$path" ]; then
		# Built in (modules.builtin) needs nothing; unknown is a mistake.
		grep -qE "/$name\.ko$" "$MODS/modules.builtin" && continue
		echo "mkinitramfs: no module $name in $kver" >&2
		exit 1
	fi
	add "$path"
done <"$HERE/modules"

stage=$(mktemp -d "${TMPDIR:-/tmp}/rwinitrd.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$BUSYBOX" "$stage/bin/busybox" || exit 1
cp "$HERE/init" "$stage/init" && chmod 0755 "$stage/init"
: >"$stage/lib/modules/order"
for path in "${order[@]}"; do
	base=$(basename "$path")
	base=${base%.xz}
	base=${base%.zst}
	base=${base%.gz}
	case "$path" in
	*.xz) xz -dc "$MODS/$path" ;;
	*.zst) zstd -dc "$MODS/$path" ;;
	*.gz) gzip -dc "$MODS/$path" ;;
	*) cat "$MODS/$path" ;;
	esac >"$stage/lib/modules/$base" || exit 1
	echo "$base" >>"$stage/lib/modules/order"
done
# The console exists before devtmpfs is mounted, for the kernel's first /init output.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null

(cd "$stage" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$OUT.new" || exit 1
mv "$OUT.new" "$OUT"
echo "mkinitramfs: $OUT ($kver; modules: $(tr '\n' ' ' <"$stage/lib/modules/order"))"
