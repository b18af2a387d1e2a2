# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=sh
# Sourced by tests, the demo and benchmarks: two network namespaces joined by
# a veth pair. Traffic never leaves them: no default route, no address outside
# 198.18.0.0/15 and 2001:db8::/32, nothing in the root namespace.
#
#   tb_up NAME [QUEUES]   creates ${NAME}s (sender) and ${NAME}r (receiver),
#                         veth ${NAME}a in the sender, its peer ${NAME}b in the
#                         receiver, with QUEUES queues each (default 1)
#   tb_up_delayed NAME DELAY SECONDS RWDELAY
#                         the same two ends with a third namespace ${NAME}m
#                         between them: a delay line (RWDELAY, the path of
#                         build/rwdelay) adds
#                         DELAY each way for at most SECONDS, so TCP meets a
#                         round trip of 2 x DELAY, not veth's 50 us. Frames
#                         go through it one by one: offloads are off on the
#                         way (the sender's TSO/GSO and checksum offload, so
#                         every frame is whole and checksummed).
#   tb_down               kills what runs in them and deletes them
#
# After tb_up: TB_SND TB_RCV (namespaces), TB_TX TB_RX (interfaces), TB_RX_MAC.

tb_up() {
	TB_NAME=$1
	_q=${2:-1}
	TB_SND=${TB_NAME}s
	TB_RCV=${TB_NAME}r
	TB_TX=${TB_NAME}a
	TB_RX=${TB_NAME}b
	ip netns add "$TB_SND" || return 1
	ip netns add "$TB_RCV" || return 1
	ip link add "$TB_TX" netns "$TB_SND" numtxqueues "$_q" numrxqueues "$_q" type veth \
		peer "$TB_RX" netns "$TB_RCV" numtxqueues "$_q" numrxqueues "$_q" || return 1
	for _ns in "$TB_SND" "$TB_RCV"; do
		ip -n "$_ns" link set lo up || return 1
	done
	ip -n "$TB_SND" link set "$TB_TX" up || return 1
	ip -n "$TB_RCV" link set "$TB_RX" up || return 1
	TB_RX_MAC=$(ip -n "$TB_RCV" -o link show "$TB_RX" | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
	# Quiet receivers: no router solicitations or DAD from the test hosts.
	for _ns in "$TB_SND" "$TB_RCV"; do
		ip netns exec "$_ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
	done
}

tb_up_delayed() {
	TB_NAME=$1
	TB_SND=${TB_NAME}s
	TB_RCV=${TB_NAME}r
	TB_MID=${TB_NAME}m
	TB_TX=${TB_NAME}a
	TB_RX=${TB_NAME}b
	for _ns in "$TB_SND" "$TB_RCV" "$TB_MID"; do
		ip netns add "$_ns" || return 1
		ip -n "$_ns" link set lo up || return 1
		ip netns exec "$_ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
	done
	ip link add "$TB_TX" netns "$TB_SND" type veth peer "${TB_NAME}c" netns "$TB_MID" || return 1
	ip link add "$TB_RX" netns "$TB_RCV" type veth peer "${TB_NAME}d" netns "$TB_MID" || return 1
	ip -n "$TB_SND" link set "$TB_TX" up || return 1
	ip -n "$TB_RCV" link set "$TB_RX" up || return 1
	for _if in "${TB_NAME}c" "${TB_NAME}d"; do
		ip -n "$TB_MID" link set "$_if" up || return 1
		ip netns exec "$TB_MID" ethtool -K "$_if" gro off tso off gso off >/dev/null 2>&1
	done
	ip netns exec "$TB_SND" ethtool -K "$TB_TX" tso off gso off tx off >/dev/null 2>&1
	ip netns exec "$TB_RCV" ethtool -K "$TB_RX" tso off gso off tx off gro off >/dev/null 2>&1
	TB_RX_MAC=$(ip -n "$TB_RCV" -o link show "$TB_RX" | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
	ip netns exec "$TB_MID" "$4" --a "${TB_NAME}c" \
		--b "${TB_NAME}d" --delay "$2" --duration "${3}s" >/dev/null 2>&1 &
	# A delay line that did not start (a bad argument, no binary) joins nothing.
	_dl=$!
	sleep 0.2
	kill -0 "$_dl" 2>/dev/null
}

tb_down() {
	for _ns in ${TB_SND:-} ${TB_RCV:-} ${TB_MID:-}; do
		# shellcheck disable=SC2046
		kill $(ip netns pids "$_ns" 2>/dev/null) 2>/dev/null || true
	done
	sleep 0.2
	for _ns in ${TB_SND:-} ${TB_RCV:-} ${TB_MID:-}; do
		# shellcheck disable=SC2046
		kill -9 $(ip netns pids "$_ns" 2>/dev/null) 2>/dev/null || true
		ip netns del "$_ns" 2>/dev/null || true
	done
}
