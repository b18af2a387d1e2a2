#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `ratewall top` and `run --tui` in a real terminal: tmux (its own server,
# an 80x24 window) runs the view while four sources of known rates send; the
# test types keys with send-keys and reads the screen with capture-pane.
#  (a) the right top source by pps, limits marked, sparklines drawn, colours,
#      the loader's heavy prefixes (--levels) from its pinned record;
#      every map top holds is read-only (its fds' flags, its mappings' permissions)
#  (b) s sorts by bps, then drops: the top source changes each time
#  (c) / filters by prefix (a bad prefix is refused, the filter kept)
#  (d) l shows only limited sources; v the /24 prefixes; j, g scroll
#  (e) p pauses (the screen's clock stops), ? shows help
#  (f) resizes: too small is said, back to 80x24 draws the table again
#  (g) q quits: exit 0, terminal modes as before (stty -g), screen given back
#  (h) a killed loader: top says NO LOADER and still shows the kernel's counts;
#      NO_COLOR: no colour at all; Ctrl-C leaves as q does; TERM=vt100 and a
#      non-UTF-8 locale: no colour, an ASCII sparkline
#  (i) run --tui: the same view on a run, with --levels its heavy prefixes; q detaches
#  (j) no terminal, no instance, --tui with --json: said, nothing attached
set -u
. "$(dirname "$0")/../lib.sh"

PIN_DIR=/sys/fs/bpf/rwtest_tui_$$
S=rwtui$$
tmx() { tmux -L "$S" -f /dev/null "$@"; }
trap 'tmx kill-server 2>/dev/null; cleanup' EXIT

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
echo "198.18.0.9 allow" >"$WORK/rules"
start_persist "$WORK/run.out" "$TB_RX" --pps 10k --rules "$WORK/rules" --levels v4:32,24 --json ||
	{ fail "ratewall run --persist starts"; finish; exit 1; }

# 198.18.0.9: most packets (allowed, never limited); .1: over its limit (most
# drops); .2: big frames (most bytes); 198.18.1.1: the only one of its /24.
gen --src 198.18.0.9 --rate 30000 --duration 50s >/dev/null &
GENS=$!
gen --src 198.18.0.1 --rate 20000 --duration 50s >/dev/null &
GENS="$GENS $!"
gen --src 198.18.0.2 --rate 5000 --size 1400 --duration 50s >/dev/null &
GENS="$GENS $!"
gen --src 198.18.1.1 --rate 3000 --duration 50s >/dev/null &
GENS="$GENS $!"
sleep 1.5

screen() { tmx capture-pane -p -t "$S"; }
keys() { tmx send-keys -t "$S" "$@"; }
# wait_for REGEX [SECONDS]: until the screen shows it.
wait_for() {
	for _ in $(seq $((${2:-5} * 10))); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# row N: the key shown in row N of the table ("" when there is none).
row() { screen | awk -v n="$1" '$1 == n && $2 ~ /^[0-9a-f.:]+(\/[0-9]+)?$/ { print $2; exit }'; }
rows() { screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9a-f.:]+(\/[0-9]+)?$/' | wc -l; }
# key_then KEY REGEX: press KEY, wait for the screen to show REGEX.
key_then() { keys "$1"; wait_for "$2" 3; }
# colours [DIGITS]: whether the screen, with its attributes, holds a foreground colour.
colours() { tmx capture-pane -p -e -t "$S" | grep -qP "\x1b\[[0-9;]*3[${1:-0-7}]m"; }
no_colours() { ! colours; }
limited_marks() {
	grep -qE '^ +[0-9]+ 198\.18\.0\.1 .* yes ' "$1" && ! grep -qE '^ +[0-9]+ 198\.18\.0\.9 .* yes ' "$1"
}
only() { [ "$(row 1)" = "$1" ] && [ "$(rows)" -eq 1 ]; }
filter_refused() { wait_for 'filter not changed' 3 && screen | grep -q 'filter 198.18.1.0/24'; }
screen_given_back() { ! screen | grep -q 'ratewall top:'; }
not_attached() { ! xdp_attached "$TB_RCV" "$TB_RX"; }
# map_fds PID: "MAPS WRITABLE": the BPF maps a process holds, and how many of them for writing.
map_fds() {
	local n=0 w=0 fd flags
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:bpf-map" ] || continue
		flags=$(awk '/^flags:/ { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		n=$((n + 1))
		[ $((8#$flags & 3)) -ne 0 ] && w=$((w + 1))
	done
	echo "$n $w"
}
# said RC WANT OUTPUT TEXT: exit status as wanted and the output says TEXT.
said() { [ "$1" -eq "$2" ] && grep -q -- "$4" <<<"$3"; }

tmx new-session -d -s "$S" -x 80 -y 24 "bash --norc --noprofile"
keys "export LC_ALL=C.UTF-8 PS1='$ '; clear" Enter
keys "s1=\$(stty -g); nsenter --net=/run/netns/$TB_RCV $RW top $TB_RX --pin-dir $PIN_DIR; rc=\$?; [ \"\$(stty -g)\" = \"\$s1\" ] && echo \"SANE rc=\$rc\" || echo \"INSANE rc=\$rc\"" Enter

# (a)
wait_for '^ +4 198\.18\.' 8
screen >"$WORK/top_pps.txt"
sed '/^ *$/d; s/^/     | /' "$WORK/top_pps.txt"
check "(a) the header names the instance and its limit" \
	grep -qE "^ratewall top: $TB_RX .*limit 10.0k pps" "$WORK/top_pps.txt"
check "(a) top source by pps: 198.18.0.9 ($(row 1))" test "$(row 1)" = 198.18.0.9
check "(a) the loader's heavy prefixes (--levels), read from its pinned record" \
	grep -qE '^heavy prefixes \(>= 5% net\): 198\.18\.0\.9/32 [0-9.]+%' "$WORK/top_pps.txt"
check "(a) the source over its limit is marked limited, the allowed one is not" \
	limited_marks "$WORK/top_pps.txt"
check "(a) the allowed source's row names its rule (read from the pinned rules)" \
	grep -qE '^ +[0-9]+ 198\.18\.0\.9 \[rule [0-9]+\] ' "$WORK/top_pps.txt"
spark=$(awk '$2 == "198.18.0.9" { print $NF }' "$WORK/top_pps.txt")
check "(a) a sparkline of the window's slots ($spark)" grep -q '[▁▂▃▄▅▆▇█]' <<<"$spark"
wide=$(python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 80 for l in open(sys.argv[1], encoding="utf-8")))' "$WORK/top_pps.txt")
check "(a) every line fits 80 columns" test "$wide" -eq 0
check "(a) colours in a colour terminal" colours 1-6
top_pid=$(pgrep -f -- "top $TB_RX --pin-dir $PIN_DIR" | head -1)
read -r nmaps writable < <(map_fds "${top_pid:-0}")
echo "     (a) top (pid ${top_pid:-?}) holds $nmaps BPF maps, $writable of them writable"
check "(a) top holds the instance's maps read-only (fdinfo: $nmaps maps, $writable writable)" \
	test "${nmaps:-0}" -ge 3 -a "${writable:-1}" -eq 0
# The flow table is mapped, not held by fd: every mapping of a BPF map read-only.
read -r nmapped wmapped < <(awk '/anon_inode:bpf-map/ { n++; if (substr($2, 2, 1) == "w") w++ }
				 END { print n + 0, w + 0 }' "/proc/${top_pid:-0}/maps")
check "(a) top maps the flow table read-only (maps: $nmapped mappings, $wmapped writable)" \
	test "${nmapped:-0}" -ge 4 -a "${wmapped:-1}" -eq 0
read -r lmaps lwritable < <(map_fds "$RW_PID")
check "control: the same count sees the loader's maps as writable ($lwritable of $lmaps)" \
	test "${lwritable:-0}" -gt 0

# (b)
key_then s 'sort bps' && sleep 0.3
b1=$(row 1)
key_then s 'sort drops' && sleep 0.3
d1=$(row 1)
echo "     (b) top by bps: $b1, by drops: $d1"
check "(b) s: sorted by bps, 198.18.0.2 (big frames) on top" test "$b1" = 198.18.0.2
check "(b) s again: by drops, 198.18.0.1 (over its limit) on top" test "$d1" = 198.18.0.1
key_then s 'sort pps'

# (c)
keys / C-u
keys "198.18.1.0/24" Enter
wait_for 'filter 198\.18\.1\.0/24' 3
sleep 0.3
echo "     (c) filtered: rows $(rows), first $(row 1)"
check "(c) / 198.18.1.0/24: only 198.18.1.1" only 198.18.1.1
keys / C-u "198.18.1.300" Enter
check "(c) a bad prefix is refused, said, the filter kept" filter_refused
keys / C-u Enter
wait_for 'filter none' 3 && sleep 0.3
check "(c) an empty filter shows every source again ($(rows) rows)" test "$(rows)" -eq 4

# (d)
key_then l 'limited only' && sleep 0.3
echo "     (d) limited only: rows $(rows), first $(row 1)"
check "(d) l: only the limited source" only 198.18.0.1
key_then l 'filter none \| [0-9]+ of'
key_then v 'view IPv4 /24' && sleep 0.3
p1=$(row 1) p2=$(row 2)
echo "     (d) /24 view: $p1, $p2"
check "(d) v: the /24s, 198.18.0.0/24 (three sources) over 198.18.1.0/24" \
	test "$p1 $p2" = "198.18.0.0/24 198.18.1.0/24"
for _ in 1 2 3 4; do keys v; done # /16, IPv6 /64, /48, back to sources
wait_for 'view sources' 3
# first_rank: the rank of the table's first row (the line under its header).
first_rank() { screen | awk 'f { print $1; exit } /^ +# (SOURCE|PREFIX) /{ f = 1 }'; }
key_then j 'from 2 of 4'
r_down=$(first_rank)
key_then g '\| 4 of 4 \|'
r_top=$(first_rank)
check "(d) j scrolls a row (first row shown: #$r_down), g back to the top (#$r_top)" \
	test "$r_down $r_top" = "2 1"

# (e)
key_then p 'PAUSED'
t1=$(screen | sed -n 2,9p)
sleep 2.2
t2=$(screen | sed -n 2,9p)
check "(e) p: paused, the screen's data stays (counts and clock unchanged)" test "$t1" = "$t2"
key_then p 'resumed'
sleep 1.3
t3=$(screen | sed -n 2,9p)
check "(e) p again: live again (counts and clock move)" test "$t3" != "$t2"
key_then '?' '^Keys'
check "(e) ? shows the help" wait_for '^  /          filter' 1
key_then x 'view sources'

# (f)
tmx resize-window -t "$S" -x 40 -y 12
check "(f) a 40x12 terminal is said to be too small" wait_for 'terminal too small' 3
tmx resize-window -t "$S" -x 80 -y 24
check "(f) back to 80x24: the table again" wait_for '^ +1 198\.18\.0\.9 ' 3

# (g)
keys q
check "(g) q quits with status 0 and the terminal's modes as they were" wait_for '^SANE rc=0' 5
check "(g) the screen is given back (no view left on it)" screen_given_back

# (h)
kill -9 "$RW_PID"
wait "$RW_PID" 2>/dev/null
keys clear Enter
keys "NO_COLOR=1 nsenter --net=/run/netns/$TB_RCV $RW top --pin-dir $PIN_DIR; echo \"rc=\$?\"" Enter
wait_for '^ +4 198\.18\.' 8
screen >"$WORK/top_noloader.txt"
check "(h) no loader: said in the header" grep -q 'NO LOADER' "$WORK/top_noloader.txt"
stale=$(grep '^heavy prefixes' "$WORK/top_noloader.txt")
check "(h) ... and the heavy prefixes are dated: the last a loader found ($stale)" \
	grep -qE '^heavy prefixes \(>= 5% net, as of [0-9:]+\): .*198\.18\.0\.9/32' <<<"$stale"
check "(h) ... the kernel's counts still shown ($(rows) sources)" test "$(rows)" -eq 4
check "(h) NO_COLOR: not one colour" no_colours
keys C-c
check "(h) Ctrl-C leaves like q: status 0, the screen given back" wait_for '^rc=0' 5
# A terminal without colours (vt100) and a locale without UTF-8: attributes and an ASCII ramp.
keys clear Enter
keys "TERM=vt100 LC_ALL=C nsenter --net=/run/netns/$TB_RCV $RW top --pin-dir $PIN_DIR; echo \"rc=\$?\"" Enter
wait_for '^ +4 198\.18\.' 8
spark=$(screen | awk '$2 == "198.18.0.9" { print $NF }')
check "(h) TERM=vt100, LC_ALL=C: the table, no colour, an ASCII sparkline ($spark)" \
	eval 'no_colours && grep -qE "^[ .:=+*#@-]*[.:=+*#@-][ .:=+*#@-]*$" <<<"$spark"'
keys q
check "(h) ... and q leaves it with status 0" wait_for '^rc=0' 5
check "(h) the heavy-prefix record is pinned" test -e "$PIN_DIR/$TB_RX/heavy"
in_rcv "$RW" run "$TB_RX" --pps 10k --rules "$WORK/rules" --persist --replace --pin-dir "$PIN_DIR" \
	--duration 1s >/dev/null 2>"$WORK/replace.err"
check "(h) a loader without --levels takes a stale record away (--replace)" \
	test ! -e "$PIN_DIR/$TB_RX/heavy"
"$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1

# (i)
keys clear Enter
keys "nsenter --net=/run/netns/$TB_RCV $RW run $TB_RX --pps 10k --tui --levels v4:32,24 --duration 30s 2>$WORK/tui.err; echo \"RUN rc=\$?\"" Enter
wait_for '^ +1 198\.18\.0\.9 .* yes ' 8
# The heavy prefixes come with the report after the one that first shows the
# source limited when the loader is slow (the sanitizer build): a few seconds.
wait_for '^heavy prefixes \(>= 5% net\): 198\.18\.0\.9/32 ' 5
screen >"$WORK/run_tui.txt"
check "(i) run --tui: the view of the run" grep -qE "^ratewall run: $TB_RX " "$WORK/run_tui.txt"
check "(i) ... 198.18.0.9 on top and limited (no allow rule here)" \
	grep -qE '^ +1 198\.18\.0\.9 .* yes ' "$WORK/run_tui.txt"
heavy=$(grep '^heavy prefixes' "$WORK/run_tui.txt")
check "(i) --levels: the window's heavy prefixes in the header ($heavy)" \
	grep -qE '^heavy prefixes \(>= 5% net\): 198\.18\.0\.9/32 [0-9.]+%' <<<"$heavy"
keys q
check "(i) q ends the run with status 0" wait_for '^RUN rc=0' 5
check "(i) ... and detaches" not_attached

# (j)
out=$(in_rcv "$RW" top --pin-dir "$PIN_DIR" </dev/null 2>&1)
rc=$?
check "(j) top with no instance: exit 1, said ($out)" said $rc 1 "$out" 'no pinned instance'
out=$(in_rcv "$RW" run "$TB_RX" --pps 10k --tui </dev/null 2>&1 >/dev/null)
rc=$?
check "(j) run --tui without a terminal: exit 2, said ($out)" said $rc 2 "$out" 'needs a terminal'
check "(j) ... nothing attached" not_attached
out=$("$RW" run "$TB_RX" --tui --json 2>&1)
rc=$?
check "(j) --tui with --json: exit 2, said ($out)" said $rc 2 "$out" 'give one'

# shellcheck disable=SC2086
kill $GENS 2>/dev/null
wait 2>/dev/null
finish
