#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stands in for GoBGP's client (gobgp) in the BGP driver's tests
# (tests/bpf/test_bgp.c): answers the commands ratewall gives, the way
# gobgp 3.10 answers them, out of a speaker kept as files in $FAKE_GOBGP_DIR:
#   log        every command line it was given, one a line (what the tests read)
#   rib        the prefixes the "speaker" holds, one a line
#   down       when present: no speaker answers (as gobgp says it, exit 1)
#   nosession  when present: its one neighbour is Idle, not Established
#   fail-add   when present: every announcement is refused (exit 1)
#   fail-del   the prefixes whose withdrawal is refused (exit 1; they stay held)
# Usage: fake_gobgp.sh -u HOST -p PORT COMMAND... (as gobgp)
set -u
dir=${FAKE_GOBGP_DIR:?FAKE_GOBGP_DIR names the fake speaker}
echo "$*" >>"$dir/log"
[ "$1" = -u ] && [ "$3" = -p ] || { echo "usage: -u HOST -p PORT ..." >&2; exit 2; }
shift 4
touch "$dir/rib"
if [ -e "$dir/down" ]; then
	case "$*" in
	*-j*) echo '{"error":"context deadline exceeded"}' ;;
	*) echo "context deadline exceeded" ;;
	esac
	exit 1
fi
held() { grep -qxF "$1" "$dir/rib"; }
case "$1 ${2:-} ${3:-}" in
"neighbor -j ")
	state=6
	[ -e "$dir/nosession" ] && state=1
	echo '[{"conf":{"local_asn":64512,"neighbor_address":"198.19.255.2","peer_asn":64513,"type":1},"state":{"neighbor_address":"198.19.255.2","peer_asn":64513,"session_state":'"$state"'}}]'
	;;
"global rib add")
	# add -a FAMILY PREFIX [nexthop ADDR] [community LIST]
	if [ -e "$dir/fail-add" ]; then
		echo "error: the fake speaker refuses ${6:-}" >&2
		exit 1
	fi
	held "${6:-}" || echo "${6:-}" >>"$dir/rib"
	;;
"global rib del")
	if [ -e "$dir/fail-del" ] && grep -qxF "${6:-}" "$dir/fail-del"; then
		echo "error: the fake speaker will not withdraw ${6:-}" >&2
		exit 1
	fi
	grep -vxF "${6:-}" "$dir/rib" >"$dir/rib.new"
	mv "$dir/rib.new" "$dir/rib"
	;;
"global rib -a")
	# -a FAMILY PREFIX -j
	if held "${5:-}"; then
		echo "{\"$5\":[{\"nlri\":{\"prefix\":\"$5\"},\"best\":true}]}"
	else
		echo "{}"
	fi
	;;
*)
	echo "fake gobgp: does not know: $*" >&2
	exit 2
	;;
esac
