#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Installs Debian's packages for one or more purposes:
#   build  what building and running ratewall need (make deps);
#   test   the test rig (make test-deps; make test installs it);
#   deb    what make deb needs besides the build.
# Quiet and quick when everything is already there. Whatever it installs is
# never left running or enabled: services the rig's packages bring
# (prometheus, gobgpd, bird2) are kept from starting while apt runs and
# disabled after it, even when apt fails; the tests run their own copies
# inside namespaces.
# Usage: tools/install-deps.sh [build|test|deb]...   (default: build)
# DPKG_QUERY, APT_GET, SYSTEMCTL and POLICY_RC name the tools and the file it uses
# (tests/layout/test_install_deps.sh puts fakes there).
set -eu

# build: the compilers and libbpf's toolchain; libmicrohttpd (--metrics),
# ncurses (top, --tui), SQLite (--history); protobuf-compiler, libprotobuf-dev
# (the google/protobuf/*.proto GoBGP's import; only a Recommends of
# protobuf-compiler, which --no-install-recommends skips) and
# golang-github-osrg-gobgp-dev (GoBGP's .proto files): the build compiles
# GoBGP's API messages for --bgp's session helper, which runs on python3,
# python3-grpcio and python3-protobuf; iproute2 for the demo's testbed;
# libxdp-dev (libxdp's dispatcher: ratewall beside other XDP programs);
# libpcap-dev (--samples writes its pcap files through libpcap).
BUILD_PACKAGES="clang llvm libbpf-dev libxdp-dev libpcap-dev libelf-dev zlib1g-dev bpftool pkg-config make gcc \
libmicrohttpd-dev libncurses-dev libsqlite3-dev iproute2 python3 \
protobuf-compiler libprotobuf-dev golang-github-osrg-gobgp-dev python3-grpcio python3-protobuf"

# test: man-db, groff-base and systemd (the man page rendered, the unit
# verified); libclang-rt-dev (libFuzzer's runtime); nftables, iptables (the
# observers' counters, the benchmark's competitors); prometheus and curl (the
# fleet and metrics tests); tmux (the terminal view's test); sqlite3 (the
# history read as an operator would); iperf3 and ethtool (real TCP, GRO off);
# dnsmasq-base and bind9-dnsutils (a real reflection); hping3 and
# python3-scapy (fragments, IPv6 chains); gobgpd and bird2 (--bgp against a
# real speaker and a real upstream); xdp-tools (xdp-filter and xdp-loader
# beside ratewall in libxdp's dispatcher); tcpdump and tshark (--samples'
# pcap files read back as an operator would).
TEST_PACKAGES="man-db groff-base systemd libclang-rt-dev nftables iptables prometheus curl tmux \
sqlite3 iperf3 ethtool dnsmasq-base bind9-dnsutils hping3 python3-scapy gobgpd bird2 xdp-tools \
tcpdump tshark"

# deb: dpkg-buildpackage (dpkg-checkbuilddeps wants build-essential besides
# the Build-Depends) and lintian, which make deb runs on the package.
DEB_PACKAGES="build-essential dpkg-dev debhelper lintian"

DPKG_QUERY=${DPKG_QUERY:-dpkg-query}
APT_GET=${APT_GET:-apt-get}
SYSTEMCTL=${SYSTEMCTL:-systemctl}
POLICY_RC=${POLICY_RC:-/usr/sbin/policy-rc.d}

[ $# -gt 0 ] || set -- build
wanted=""
for group in "$@"; do
	case "$group" in
	build) wanted="$wanted $BUILD_PACKAGES" ;;
	test) wanted="$wanted $TEST_PACKAGES" ;;
	deb) wanted="$wanted $DEB_PACKAGES" ;;
	*)
		echo "install-deps: unknown group '$group' (build, test or deb)" >&2
		exit 2
		;;
	esac
done

missing=""
for p in $wanted; do
	"$DPKG_QUERY" -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run as root or install them" >&2
	exit 1
fi
echo "install-deps: installing$missing"

enabled_units() {
	"$SYSTEMCTL" list-unit-files --state=enabled --no-legend 2>/dev/null | awk '{print $1}' | sort
}
before=$(mktemp)
enabled_units >"$before"
norc=""
# Whatever happens to apt, nothing it installed stays enabled or running,
# and the policy file made here goes.
finish() {
	rc=$?
	[ -z "$norc" ] || rm -f "$POLICY_RC"
	for unit in $(enabled_units | comm -13 "$before" -); do
		echo "install-deps: disabling $unit, which the install enabled"
		"$SYSTEMCTL" disable --quiet --now "$unit" 2>/dev/null ||
			"$SYSTEMCTL" disable --quiet "$unit" || rc=1
	done
	rm -f "$before"
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM
if [ ! -e "$POLICY_RC" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$POLICY_RC"
	chmod +x "$POLICY_RC"
	norc=1
fi
export DEBIAN_FRONTEND=noninteractive
"$APT_GET" update -qq
# shellcheck disable=SC2086
"$APT_GET" install -y -qq --no-install-recommends $missing >/dev/null
