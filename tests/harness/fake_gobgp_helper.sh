#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stands in for ratewall-gobgp, --bgp's session helper, in the BGP driver's
# tests (tests/bpf/test_bgp.c): speaks its protocol (user/bgp/ratewall-gobgp
# says it) to the same speaker as tests/harness/fake_gobgp.sh, files in
# $FAKE_GOBGP_DIR:
#   log        every route command, as "global rib COMMAND" (gobgp's words)
#   rib        the prefixes the "speaker" holds, one a line
#   down       when present: every command is answered as by a speaker that does not answer
#   fail-add   when present: every announcement is refused
#   fail-del   the prefixes whose withdrawal is refused (they stay held)
# Usage: fake_gobgp_helper.sh HOST:PORT
set -u
dir=${FAKE_GOBGP_DIR:?FAKE_GOBGP_DIR names the fake speaker}
held() { grep -qxF "$1" "$dir/rib"; }
echo ready
while IFS= read -r line; do
	# shellcheck disable=SC2086 # the words of the command
	set -- $line
	touch "$dir/rib" # a speaker that restarted (the file removed) holds nothing
	case "$1" in add | del | -a) echo "global rib $line" >>"$dir/log" ;; esac
	if [ -e "$dir/down" ]; then
		echo "error context deadline exceeded"
		continue
	fi
	case "$1 ${2:-}" in
	"add -a")
		if [ -e "$dir/fail-add" ]; then
			echo "error error: the fake speaker refuses $4"
			continue
		fi
		held "$4" || echo "$4" >>"$dir/rib"
		echo ok
		;;
	"del -a")
		if [ -e "$dir/fail-del" ] && grep -qxF "$4" "$dir/fail-del"; then
			echo "error error: the fake speaker will not withdraw $4"
			continue
		fi
		grep -vxF "$4" "$dir/rib" >"$dir/rib.new"
		mv "$dir/rib.new" "$dir/rib"
		echo ok
		;;
	"holds del")
		if held "$5"; then echo yes; else echo no; fi
		;;
	"count ipv4")
		echo "count $(grep -vc : "$dir/rib")"
		;;
	"count ipv6")
		echo "count $(grep -c : "$dir/rib")"
		;;
	"count "* | "list "*)
		[ "$1" = count ] && echo "count 0" || echo "end 0"
		;;
	"ping ")
		echo ok
		;;
	*)
		echo "error the fake helper does not know: $line"
		;;
	esac
done
