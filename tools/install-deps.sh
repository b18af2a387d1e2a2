#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Installs the Debian packages ratewall needs to build, test and benchmark
# (man-db, groff-base and systemd: the tests render the man page and verify the unit;
# libclang-rt-dev: clang's libFuzzer runtime for the fuzz targets; prometheus:
# the fleet test runs its server and promtool in a namespace; libsqlite3-dev: --history;
# sqlite3: the history tests read the database with the shell an operator would use;
# iperf3: the TCP tests and benchmark run a real client and server in the namespaces;
# ethtool: they turn GRO off on the receiving veth, so the observer sees every frame;
# dnsmasq-base and bind9-dnsutils: the reflection test's DNS server and dig;
# hping3 and python3-scapy: the fragment test's SYNs, fragmented (hping3 -f) and
# behind IPv6 extension headers (scapy);
# gobgpd and bird2: the --bgp test drives a real GoBGP daemon and checks what a
# BIRD 2 peering with it holds, both in namespaces; protobuf-compiler and
# golang-github-osrg-gobgp-dev (GoBGP's .proto files) and libprotobuf-dev
# (the google/protobuf/*.proto they import; only a Recommends of
# protobuf-compiler, which --no-install-recommends skips): the build compiles
# GoBGP's API messages for --bgp's session helper, which runs on
# python3-grpcio and python3-protobuf; build-essential,
# dpkg-dev and debhelper: make deb's dpkg-buildpackage (dpkg-checkbuilddeps
# wants build-essential besides the Build-Depends); lintian: make deb checks
# the package with it).
# Quiet and quick when everything is already there.
set -eu

PACKAGES="clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool pkg-config make gcc \
iproute2 nftables iptables python3 man-db groff-base systemd libclang-rt-dev libmicrohttpd-dev libncurses-dev curl prometheus tmux \
libsqlite3-dev sqlite3 iperf3 ethtool dnsmasq-base bind9-dnsutils gobgpd bird2 \
protobuf-compiler libprotobuf-dev golang-github-osrg-gobgp-dev python3-grpcio python3-protobuf hping3 python3-scapy \
build-essential dpkg-dev debhelper lintian"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run as root or install them" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Packages with services (prometheus, gobgpd, bird2) are installed, never started: the tests
# run their own copies inside namespaces.
norc=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod +x /usr/sbin/policy-rc.d
	norc=1
fi
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
rc=$?
[ -n "$norc" ] && rm -f /usr/sbin/policy-rc.d
exit $rc
