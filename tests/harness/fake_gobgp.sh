#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stands in for GoBGP's client (gobgp) in the BGP driver's tests
# (tests/bpf/test_bgp.c): answers what ratewall asks it (its neighbours), the
# way gobgp 3.10 answers, out of a speaker kept as files in $FAKE_GOBGP_DIR
# (routes go through fake_gobgp_helper.sh, the session's stand-in):
#   log        every command line it was given, one a line
#   down       when present: no speaker answers (as gobgp says it, exit 1)
#   nosession  when present: its one neighbour is Idle, not Established
# Usage: fake_gobgp.sh -u HOST -p PORT COMMAND... (as gobgp)
set -u
dir=${FAKE_GOBGP_DIR:?FAKE_GOBGP_DIR names the fake speaker}
echo "$*" >>"$dir/log"
[ "$1" = -u ] && [ "$3" = -p ] || { echo "usage: -u HOST -p PORT ..." >&2; exit 2; }
shift 4
if [ -e "$dir/down" ]; then
	case "$*" in
	*-j*) echo '{"error":"context deadline exceeded"}' ;;
	*) echo "context deadline exceeded" ;;
	esac
	exit 1
fi
case "$1 ${2:-} ${3:-}" in
"neighbor -j ")
	state=6
	[ -e "$dir/nosession" ] && state=1
	echo '[{"conf":{"local_asn":64512,"neighbor_address":"198.19.255.2","peer_asn":64513,"type":1},"state":{"neighbor_address":"198.19.255.2","peer_asn":64513,"session_state":'"$state"'}}]'
	;;
*)
	echo "fake gobgp: does not know: $*" >&2
	exit 2
	;;
esac
