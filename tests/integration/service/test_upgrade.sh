#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# An upgrade across pinned-layout versions, as the unit runs it (run --persist
# --replace): build/layout-prev/ratewall (the same tree, RW_LAYOUT_VERSION one
# lower) pins an instance holding a source at 10x its limit; this build then
#  (a) status: says the layout differs, and lists the old instance's link
#  (b) without --replace: refuses with exit 2 (the unit's
#      RestartPreventExitStatus), one line saying how; the old program stays
#  (c) with --replace: swaps its program into the same link in one step, says
#      so in one line; the receiver's count across the swap stays within the
#      limit's allowance and one fresh window; the limit holds after it
#  (d) the old pins are gone (one the new version has no name for too)
#  (e) status and stop work; nothing is left attached or pinned
#  (f) stop IFACE of an instance the old build pinned detaches and unpins it
set -u
. "$(dirname "$0")/../lib.sh"

PREV=$BUILD/layout-prev/ratewall
LIMIT=1000
OFFERED=10000
PIN_DIR=/sys/fs/bpf/rwupg$$

[ -x "$PREV" ] || { fail "$PREV is built (make all)"; finish; exit 1; }
tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
nft_observe all "" # every packet a ratewall program passed
NAME=$TB_RX        # the default name: the interface's, as the unit's

status_json() { "$RW" status --json --pin-dir "$PIN_DIR"; }
# field EXPR: a Python expression over the instance `s` in status --json.
field() { status_json | python3 -c "import json, sys; s = json.load(sys.stdin)['instances'][0]; print($1)"; }
# prog_on_link: the program id the instance's XDP link runs (bpftool, not ratewall).
prog_on_link() { bpftool link show id "$1" -j | python3 -c "import json, sys; print(json.load(sys.stdin)['prog_id'])"; }

# The old build pins the instance; the source floods at 10x its limit all along.
RW=$PREV start_persist "$WORK/old.json" "$TB_RX" --pps $LIMIT --json || fail "the old build starts"
gen_start "$WORK/gen.json" --rate $OFFERED --duration 60s
sleep 1.5
stop_ratewall TERM # as systemctl restart does: the kernel goes on enforcing
sleep 0.2

# (a)
"$RW" status --pin-dir "$PIN_DIR" >"$WORK/a.status"
check "(a) status says the instance's layout differs" \
	grep -q "layout       version [0-9]*, pinned by another ratewall" "$WORK/a.status"
OLD_LAYOUT=$(field "s['layout']")
LINK=$(field "s['interfaces'][0]['link_id']")
OLD_PROG=$(prog_on_link "$LINK")
echo "     (a) old instance: layout $OLD_LAYOUT, link $LINK, program $OLD_PROG"
check "(a) ... and lists its link on $TB_RX, attached" \
	test "$(field "s['interfaces'][0]['name'], s['interfaces'][0]['attached']")" = "$TB_RX True"
# A pin the new version has no name for: it must go with the old program.
bpftool map create "$PIN_DIR/$NAME/map_gone" type array key 4 value 4 entries 1 name gone

# (b)
in_rcv "$RW" run "$TB_RX" --persist --pin-dir "$PIN_DIR" --pps $LIMIT --duration 1s \
	>/dev/null 2>"$WORK/b.err"
rc=$?
sed 's/^/     (b) said: /' "$WORK/b.err"
check "(b) without --replace: exit 2, which the unit does not restart on" test $rc -eq 2
check "(b) ... one line, naming the version and --replace" \
	eval '[ "$(wc -l <"$WORK/b.err")" -eq 1 ] && grep -q "layout version $OLD_LAYOUT .*--replace" "$WORK/b.err"'
check "(b) ... and the old program stays on the link" test "$(prog_on_link "$LINK")" = "$OLD_PROG"

# (c) the upgrade under the flood, counted from 1 s before to 2 s after
c0=$(nft_sample all)
sleep 1
start_persist "$WORK/c.json" "$TB_RX" --pps $LIMIT --json --replace || fail "(c) --replace starts"
sleep 2
c1=$(nft_sample all)
span=$(awk -v a="$c0" -v b="$c1" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.3f %d", y[1] - x[1], y[2] - x[2] }')
# The limit's allowance over the span, one window the new program starts
# afresh (1 s of the limit), its burst, and 10 % for the window's edges.
allow=$(awk -v s="${span% *}" -v l=$LIMIT 'BEGIN { printf "%d", (s * l + l + 0.2 * l) * 1.1 }')
echo "     (c) across the swap: ${span#* } packets passed in ${span% *} s (limit $LIMIT pps," \
	"offered $OFFERED; allowed $allow)"
grep "upgraded instance" "$WORK/c.json.err" | sed 's/^/     (c) said: /'
check "(c) one line says the upgrade, from version to version, and what was dropped" \
	eval '[ "$(grep -c "upgraded instance $NAME from pinned layout version $OLD_LAYOUT to [0-9]*: .*dropped" "$WORK/c.json.err")" -eq 1 ]'
check "(c) the same link ($LINK) runs the new program" \
	eval 'test "$(field "s[\"interfaces\"][0][\"link_id\"]")" = "$LINK" &&
	      test "$(prog_on_link "$LINK")" = "$(field "s[\"prog_id\"]")" &&
	      test "$(prog_on_link "$LINK")" != "$OLD_PROG"'
check "(c) the count across the swap stays within the allowance" at_most "${span#* }" "$allow"
rate=$(steady_rate all 3)
echo "     (c) after the swap: admitted $rate pps"
check "(c) the limit holds after the swap (within 5%)" within "$rate" $LIMIT 0.05
gen_stop >/dev/null

# (d) every pin is the new program's or its own record's
new_maps=$(bpftool prog show id "$(field "s['prog_id']")" -j | python3 -c "import json, sys; print(' '.join(map(str, json.load(sys.stdin)['map_ids'])))")
stray=""
for pin in "$PIN_DIR/$NAME"/map_*; do
	id=$(bpftool map show pinned "$pin" -j | python3 -c "import json, sys; print(json.load(sys.stdin)['id'])")
	case " $new_maps " in *" $id "*) ;; *) stray="$stray $(basename "$pin")" ;; esac
done
check "(d) every pinned map is the new program's (not:$stray)" test -z "$stray"
check "(d) ... the old build's pin the new one has no name for is gone" test ! -e "$PIN_DIR/$NAME/map_gone"
# gone ID: the program leaves the kernel within 2 s (its last reference dropped).
gone() {
	[ -n "$1" ] || return 1
	for _ in $(seq 20); do bpftool prog show id "$1" >/dev/null 2>&1 || return 0; sleep 0.1; done
	return 1
}
check "(d) ... and the old program is gone" gone "$OLD_PROG"

# (e)
check "(e) status: this version's instance (layout $OLD_LAYOUT + 1), its loader running" \
	test "$(field "s['layout'] == $OLD_LAYOUT + 1 and 'error' not in s, s['loader']['alive']")" = "True True"
stop_ratewall TERM
in_rcv "$RW" stop "$TB_RX" --pin-dir "$PIN_DIR" 2>"$WORK/e.err"
check "(e) stop exits 0" test $? -eq 0
check "(e) ... nothing pinned, nothing attached" \
	eval 'test -z "$(ls -A "$PIN_DIR")" && ! xdp_attached "$TB_RCV" "$TB_RX"'

# (f) an instance the old build pinned, stopped by this one by its interface
RW=$PREV start_persist "$WORK/f.json" "$TB_RX" --pps $LIMIT || fail "(f) the old build starts"
stop_ratewall TERM
in_rcv "$RW" stop "$TB_RX" --pin-dir "$PIN_DIR" 2>"$WORK/f.err"
rc=$?
sed 's/^/     (f) said: /' "$WORK/f.err"
check "(f) stop IFACE of the old build's instance: exit 0, nothing pinned, nothing attached" \
	eval 'test $rc -eq 0 && test -z "$(ls -A "$PIN_DIR")" && ! xdp_attached "$TB_RCV" "$TB_RX"'

finish
