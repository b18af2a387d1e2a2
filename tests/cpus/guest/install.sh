#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What `make test-cpus` needs beyond `make test-deps`: QEMU and a static busybox
# (installed on the host), and Debian's 6.12 kernel with its modules, unpacked
# into GUEST_DIR (default build/guest) and never installed as the host kernel.
# The kernel is fetched once: a later run finds GUEST_DIR/linux/PACKAGE and
# does nothing. GUEST_KERNEL=6.1 takes Debian bookworm's stock kernel instead
# (the newest linux-image-6.1.0-*-amd64-unsigned apt knows; default 6.12,
# the newest linux-image-6.12.*-amd64-unsigned); GUEST_KERNEL_PKG names any
# other package.
# Usage: tests/cpus/guest/install.sh [GUEST_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
GUEST=${1:-$ROOT/build/guest}

# kmod: depmod writes the unpacked kernel's modules.dep (the package ships
# none), which the initramfs builder resolves modules from. seabios is only a
# dependency of a dependency of qemu-system-x86: named so the firmware is there.
PACKAGES="qemu-system-x86 seabios busybox-static kmod"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
updated=""
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "guest install: missing packages:$missing; run as root or install them" >&2
		exit 1
	fi
	echo "guest install: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || exit 1
	updated=1
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null || exit 1
fi

# The kernel: already unpacked, of the series asked (its marker names the package), means done.
case ${GUEST_KERNEL:-6.12} in
6.12) series='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$' ;;
6.1) series='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
*)
	echo "guest install: GUEST_KERNEL=${GUEST_KERNEL}: 6.12 or 6.1" >&2
	exit 2
	;;
esac
if [ -z "${GUEST_KERNEL_PKG:-}" ] &&
	ls "$GUEST"/linux/.pkg-* 2>/dev/null | sed 's|.*/\.pkg-||' | grep -qE "$series"; then
	exit 0
fi
pick() {
	apt-cache search --names-only "$series" | awk '{ print $1 }' | sort -V | tail -n 1
}
pkg=${GUEST_KERNEL_PKG:-$(pick)}
if [ -z "$pkg" ] && [ -z "$updated" ]; then
	# A fresh machine's apt lists may not be there yet.
	apt-get update -qq || exit 1
	pkg=$(pick)
fi
if [ -z "$pkg" ]; then
	echo "guest install: apt knows no package $series" >&2
	exit 1
fi
[ -e "$GUEST/linux/.pkg-$pkg" ] && exit 0

echo "guest install: fetching $pkg (about 100 MB, once)"
dl=$(mktemp -d "${TMPDIR:-/tmp}/rwguest.XXXXXX")
trap 'rm -rf "$dl"' EXIT
# apt-get download writes as the _apt user where it can: a directory it may write.
chmod 0777 "$dl"
(cd "$dl" && apt-get download -q "$pkg" >/dev/null) || {
	echo "guest install: apt-get download $pkg failed" >&2
	exit 1
}
rm -rf "$GUEST/linux.new"
mkdir -p "$GUEST/linux.new"
dpkg-deb -x "$dl"/*.deb "$GUEST/linux.new" || exit 1
touch "$GUEST/linux.new/.pkg-$pkg"
# Swapped in whole, so a run interrupted above leaves no half-unpacked kernel.
rm -rf "$GUEST/linux"
mv "$GUEST/linux.new" "$GUEST/linux"
echo "guest install: $pkg unpacked in $GUEST/linux"
