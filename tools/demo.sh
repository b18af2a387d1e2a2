#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A self-contained ratewall demo: two network namespaces joined by a veth,
# skewed (Zipf) traffic from 500 IPv4 sources and a few IPv6 ones, ratewall
# capping each source at 20 kpps and showing the top talkers every second.
# Bounded: DEMO_SECONDS (default 12). Removes everything it made on exit.
# Extra ratewall options: DEMO_ARGS="--sort drops --top 5" make demo;
# DEMO_ARGS=--tui make demo shows the live full-screen view instead (q ends it).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
SECONDS_TO_RUN=${DEMO_SECONDS:-12}
# Its sources send for all but the last two seconds, the flood from the second after them.
case "$SECONDS_TO_RUN" in
'' | *[!0-9]* | [0-2] | 0*)
	echo "DEMO_SECONDS must be a whole number of seconds, 3 or more (got '$SECONDS_TO_RUN')" >&2
	exit 2
	;;
esac
. "$ROOT/tests/harness/testbed.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "the demo needs root (it creates namespaces and loads BPF): sudo make demo" >&2
	exit 1
fi
trap tb_down EXIT
trap 'exit 130' INT TERM
CPUS=$(nproc)
tb_up rwdemo "$CPUS"

echo "demo: namespaces $TB_SND -> $TB_RCV over veth $TB_TX -> $TB_RX ($CPUS queues)"
echo "demo: ratewall run $TB_RX --pps 20k ${DEMO_ARGS:-} (for ${SECONDS_TO_RUN}s)"
# Started in the background, ratewall keeps the terminal as its stdin (--tui reads keys).
# shellcheck disable=SC2086
ip netns exec "$TB_RCV" "$BUILD/ratewall" run "$TB_RX" --pps 20k --top 12 \
	--duration "${SECONDS_TO_RUN}s" ${DEMO_ARGS:-} <&0 &
RW_PID=$!
sleep 1
gen_for=$((SECONDS_TO_RUN - 2))
ip netns exec "$TB_SND" "$BUILD/rwgen" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" --sources 500 \
	--dist zipf:1.2 --rate 400k --cpus "$CPUS" --duration "${gen_for}s" >/tmp/rwdemo.gen.json &
ip netns exec "$TB_SND" "$BUILD/rwgen" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" --ipv6 --ipv6-net \
	--sources 4 --rate 60k --duration "${gen_for}s" >/tmp/rwdemo.gen6.json &
# A second later, a spoofed flood beside them: a new random source every
# packet, counted in the sketch. The sources before it are few, so each is
# tracked from its first packet (free promotions), the Zipf tail too, whatever
# the machine's load; once the flood fills the sketch, newcomers need their
# own estimate (docs/design.md).
sleep 1
ip netns exec "$TB_SND" "$BUILD/rwgen" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" --ipv6 --ipv6-net \
	--src 2001:db8::5 --dist random --sources 4294967295 --rate 100k \
	--duration "$((gen_for > 1 ? gen_for - 1 : 1))s" >/tmp/rwdemo.spoof.json &
wait $RW_PID
wait
echo
echo "demo: the generators sent:"
cat /tmp/rwdemo.gen.json /tmp/rwdemo.gen6.json /tmp/rwdemo.spoof.json | cut -c1-160
rm -f /tmp/rwdemo.gen.json /tmp/rwdemo.gen6.json /tmp/rwdemo.spoof.json
echo "demo: done; namespaces removed, nothing left attached."
