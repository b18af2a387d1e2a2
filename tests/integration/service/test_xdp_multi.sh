#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ratewall beside xdp-filter (Debian's xdp-tools) in libxdp's dispatcher, on
# one veth, seen from outside ratewall: nft counters after XDP, the
# generator's count and time, and xdp-loader status.
#  (a) xdp-filter first, ratewall joins it (its default mode): both listed;
#      a source at 10x is admitted at the limit within 1 % over the flood (below it, also what the generator fell behind);
#      xdp-filter's deny rule still drops; stopping ratewall leaves xdp-filter
#      attached and dropping, and the rest passing
#  (b) ratewall first (--xdp-mode multi --persist), xdp-filter joins it: the
#      same; a loader killed and started again adopts the pinned program
#      while xdp-filter stays attached; ratewall stop leaves xdp-filter
#  (d) two interfaces, xdp-filter on each, ratewall joins both dispatchers:
#      the same on the second; stopping it leaves xdp-filter dropping on both
#  (e) --xdp-priority orders it: at 5 it runs before xdp-filter (10), and
#      counts the frames xdp-filter then denies; at 20, after it, it never
#      sees them; xdp-loader status lists them in that order
#  (f) multi-buffer frames (MTU 9000): libxdp 1.3 loads a frags-aware
#      dispatcher only of programs it loads itself, never with ratewall's (it
#      loads its own, to fill its maps first), and a veth refuses one that is
#      not at that MTU: --xdp-mode multi is refused in one line that names
#      the MTU and the way out, nothing left attached. Single mode's program
#      is frags-aware: it sees each frame of 8000 bytes and limits them
#      (checked before the probe, on any kernel)
#  (c) a program that is not libxdp's is refused, never replaced, with the
#      hint to load it through the dispatcher (xdp-loader)
# A kernel that refuses extension programs (libxdp's dispatcher needs them)
# gets the single-mode jumbo check and one more: --xdp-mode multi says so in
# one line and exits 1.
# Every command that touches libxdp runs with nsenter (in_rcv), never `ip netns
# exec`: libxdp pins the dispatcher's links in /sys/fs/bpf, which `ip netns
# exec` hides behind a fresh /sys.
set -u
. "$(dirname "$0")/../lib.sh"

LIMIT=10000
OFFERED=100000
FLOOD_S=4
DENIED=198.18.0.99
PIN_DIR=/sys/fs/bpf/rwtest$$
RW_ARGS=(--pps 10k --window 500ms --slots 32 --json)

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }
# A second veth between the same namespaces, for (d).
TX2=${TB_NAME}c
RX2=${TB_NAME}d
if ! ip link add "$TX2" netns "$TB_SND" type veth peer "$RX2" netns "$TB_RCV" ||
	! ip -n "$TB_SND" link set "$TX2" up || ! ip -n "$TB_RCV" link set "$RX2" up; then
	fail "the second veth"
	finish
	exit 1
fi
RX2_MAC=$(ip -n "$TB_RCV" -o link show "$RX2" | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
# xdp-filter's own pins (/sys/fs/bpf/xdp-filter) go with it; the namespaces
# go after, with the dispatcher.
trap 'in_rcv xdp-filter unload "$TB_RX" >/dev/null 2>&1; in_rcv xdp-filter unload "$RX2" >/dev/null 2>&1; cleanup' EXIT
nft_observe src ip saddr { 198.18.0.1, 198.18.0.2 }
nft_observe deny ip saddr $DENIED
nft_observe jumbo ip saddr 198.18.0.4 meta length gt 7000
OBS_DEV=$RX2 nft_observe src2 ip saddr { 198.18.0.1, 198.18.0.3 }
OBS_DEV=$RX2 nft_observe deny2 ip saddr $DENIED
# Where flood and check_filter_alone send and count: the first veth, or with
# ON=2 the second.
ON=""
send() { if [ -n "$ON" ]; then ip netns exec "$TB_SND" "$GEN" --dev "$TX2" --dst-mac "$RX2_MAC" "$@"; else gen "$@"; fi; }
on_if() { if [ -n "$ON" ]; then echo "$RX2"; else echo "$TB_RX"; fi; }

# run_rw OUT ARGS...: ratewall run on the receiver (nsenter: the host's bpffs),
# RW_PID ratewall itself (nsenter execs it); waits until it attached.
run_rw() {
	local out=$1
	shift
	nsenter --net="/run/netns/$TB_RCV" "$RW" run "$TB_RX" "$@" >"$out" 2>"$out.err" &
	RW_PID=$!
	wait_attached "$out.err"
}
# listed NAME [IFACE]: xdp-loader status lists a program whose name starts
# with NAME on IFACE (on_if's).
listed() { in_rcv xdp-loader status "${2:-$(on_if)}" 2>/dev/null | grep -q " $1"; }
# order: the dispatcher's programs on TB_RX in the order they run.
order() { in_rcv xdp-loader status "$TB_RX" 2>/dev/null | awk '$1 == "=>" { printf "%s ", $3 }'; }
filter_up() {
	in_rcv xdp-filter load -m native "${1:-$TB_RX}" >"$WORK/filter.out" 2>&1 &&
		in_rcv xdp-filter ip -m src $DENIED >>"$WORK/filter.out" 2>&1
}
# seen FILE: the frames ratewall saw (its last --json report's totals).
seen() {
	python3 -c "import json, sys; print([json.loads(l) for l in open(sys.argv[1]) if '\"totals\"' in l][-1]['totals']['rx_packets'])" \
		"$1" 2>/dev/null || echo -1
}
# flood NAME [SRC]: a source (198.18.0.1) at 10x for FLOOD_S and the denied one beside it; sets
# ADMITTED (what passed XDP of the source), GEN_RUN (the generator's time),
# GEN_BEHIND_MS, GEN_LAST_LATE_MS, DENIED_SENT and DENIED_PASSED.
flood() {
	local s0 d0
	s0=$(nft_count src$ON)
	d0=$(nft_count deny$ON)
	send --src $DENIED --rate 1000 --count 1000 >"$WORK/$1.deny.gen" &
	local deny_pid=$!
	send --src "${2:-198.18.0.1}" --rate $OFFERED --count $((OFFERED * FLOOD_S)) >"$WORK/$1.gen"
	wait $deny_pid
	sleep 0.2
	ADMITTED=$(($(nft_count src$ON) - s0))
	DENIED_PASSED=$(($(nft_count deny$ON) - d0))
	DENIED_SENT=$(sent_of "$WORK/$1.deny.gen")
	GEN_RUN=$(python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print(f\"{j['seconds']} s, at most {j['behind_ms']} ms late\")" \
		"$WORK/$1.gen" 2>/dev/null || echo "no report")
	# Without a report: the floor and the ceiling as strict as they can be.
	read -r GEN_BEHIND_MS GEN_LAST_LATE_MS < <(python3 -c "import json, sys; j = json.load(open(sys.argv[1]))
print(int(j['behind_ms']), int(j['last_late_ms']))" "$WORK/$1.gen" 2>/dev/null || echo $((FLOOD_S * 1000)) 0)
}
# The generator paces its frames on a schedule (it catches up when late), so
# the flood lasts FLOOD_S from its first frame to its last, and longer by as
# much as its last frames went out late (last_late_ms): a source ratewall
# has not seen is admitted at the limit over that span (one seen before may
# have saved up some of its rate: each flood has a new source). The
# generator's own time (printed) adds its start.
check_flood() {
	local expect=$((LIMIT * FLOOD_S)) low high
	# Never over the limit by more than 1 % over the time the flood lasted:
	# its schedule, and the time its last frames went out late. A generator
	# held still near its end sends them in a burst that long after, when
	# the window has freed what it admitted as long before, and the key has
	# saved what it did not send meanwhile: it may be admitted up to twice
	# its rate over that time (the schedule's peak, bpf/limit.h). Before,
	# the ceiling was the limit over FLOOD_S alone, and a 16-CPU guest of CI
	# (2026-12-07) admitted 40441 for 40400; held still for 250 ms 3.85 s
	# into the flood, a 2-CPU guest's generator sent its last 134.7 ms late
	# and 40257 were admitted. Under it by 1 % at most, beyond what the
	# generator could not offer: the time it fell behind its schedule (on
	# this host a few ms; in an emulated 64-CPU guest, whose vCPUs stall, up
	# to a few hundred), whose frames come late in a burst the budget partly
	# drops.
	low=$(awk -v l=$LIMIT -v s=$FLOOD_S -v b="$GEN_BEHIND_MS" 'BEGIN { printf "%d", l * (s - b / 1000) * 0.99 }')
	high=$(awk -v l=$LIMIT -v s=$FLOOD_S -v t="$GEN_LAST_LATE_MS" 'BEGIN { printf "%d", l * (s + 2 * t / 1000) * 1.01 }')
	echo "     ($1) admitted $ADMITTED of the source over the ${FLOOD_S} s flood (limit: $expect;" \
		"the generator's run: $GEN_RUN, its last frames $GEN_LAST_LATE_MS ms late);" \
		"the denied source: $DENIED_PASSED of $DENIED_SENT passed"
	check "($1) ratewall's limit holds within 1 % over the time the flood lasted ($low to $high admitted)" \
		sh -c "[ '$ADMITTED' -le '$high' ] && [ '$ADMITTED' -ge '$low' ]"
	check "($1) xdp-filter's deny rule still drops" test "$DENIED_PASSED" -eq 0 -a "$DENIED_SENT" -gt 0
}
# After ratewall left: the denied source still dropped, the other one passes whole.
check_filter_alone() {
	local s0 d0
	s0=$(nft_count src$ON)
	d0=$(nft_count deny$ON)
	send --count 500 --rate 5000 >/dev/null
	send --src $DENIED --count 500 --rate 5000 >/dev/null
	sleep 0.2
	check "($1) xdp-filter is still listed on $(on_if), ratewall no longer" eval 'listed xdpfilt && ! listed ratewall_xdp'
	check "($1) xdp-filter still drops the denied source on $(on_if)" test "$(($(nft_count deny$ON) - d0))" -eq 0
	check "($1) the other source passes whole on $(on_if) (500)" test "$(($(nft_count src$ON) - s0))" -eq 500
}

# jumbo LABEL ARGS...: ratewall (--pps 50, ARGS) on TB_RX at MTU 9000, and
# 500 frames of 8000 bytes (several buffers each in XDP) from a new source at
# 2000 a second: ratewall sees each, and passes at most its limit over the
# time they took, what a key saves up (2 x its burst of 100 ms) and a few for
# the coarse clock's tick. MTU 1500 after.
jumbo() {
	local label=$1 out=$WORK/jumbo.$1 j0 secs admitted n max
	shift
	if ! ip -n "$TB_SND" link set dev "$TB_TX" mtu 9000 || ! ip -n "$TB_RCV" link set dev "$TB_RX" mtu 9000; then
		fail "($label) MTU 9000 on the veth"
		return
	fi
	j0=$(nft_count jumbo)
	if ! run_rw "$out.json" --pps 50 --window 1s --json --interval 100ms "$@" 2>/dev/null; then
		fail "($label) ratewall attaches at MTU 9000: $(head -n 1 "$out.json.err")"
	else
		ok "($label) ratewall attaches at MTU 9000 ($(grep -o '(.*XDP)' "$out.json.err" | head -n 1))"
		ip netns exec "$TB_SND" python3 "$ROOT/tests/harness/jumbo_send.py" "$TB_TX" "$TB_RX_MAC" \
			198.18.0.4 500 8000 2000 >"$out.send"
		sleep 0.3
		stop_ratewall INT
		admitted=$(($(nft_count jumbo) - j0))
		secs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seconds"])' "$out.send" 2>/dev/null || echo 0)
		n=$(seen "$out.json")
		max=$(awk -v s="$secs" 'BEGIN { printf "%d", 50 * (s + 0.2) * 1.01 + 3 }')
		echo "     ($label) 500 frames of 8000 bytes sent in $secs s: ratewall saw $n, $admitted passed"
		check "($label) ratewall saw each of the 500 multi-buffer frames" test "$n" -eq 500
		check "($label) ... and held them to its limit (1 to $max passed)" test "$admitted" -ge 1 -a "$admitted" -le "$max"
	fi
	ip -n "$TB_RCV" link set dev "$TB_RX" mtu 1500
	ip -n "$TB_SND" link set dev "$TB_TX" mtu 1500
}

# Single mode's program is frags-aware (SEC("xdp.frags")), on any kernel;
# in the dispatcher (f) it cannot be. Native: in generic XDP (which auto
# falls back to) a program that is not frags-aware gets each frame whole.
jumbo "jumbo, single" --xdp-mode native

# A kernel without extension programs: one clear line, and nothing attached.
in_rcv "$RW" run "$TB_RX" --xdp-mode multi --duration 1s --pps 10k >/dev/null 2>"$WORK/probe.err"
if grep -q "refuses the extension (freplace) program" "$WORK/probe.err"; then
	echo "     $(uname -r) refuses extension programs: $(cat "$WORK/probe.err")"
	check "(0) --xdp-mode multi is refused in one line" test "$(wc -l <"$WORK/probe.err")" -eq 1
	check "(0) nothing is left attached" eval '! xdp_attached "$TB_RCV" "$TB_RX"'
	finish
	exit
fi

# (a) xdp-filter first
filter_up || { fail "(a) xdp-filter loads"; cat "$WORK/filter.out"; finish; exit 1; }
run_rw "$WORK/a.json" "${RW_ARGS[@]}" || fail "(a) ratewall starts beside xdp-filter"
check "(a) ratewall joins the dispatcher by itself" grep -q "(multi native XDP)" "$WORK/a.json.err"
check "(a) xdp-loader status lists both" eval 'listed xdpfilt && listed ratewall_xdp'
flood a
check_flood a
stop_ratewall INT
check "(a) ratewall exits 0" test $? -eq 0
check_filter_alone a
in_rcv xdp-filter unload "$TB_RX" >/dev/null 2>&1

# (b) ratewall first, pinned; xdp-filter joins it
run_rw "$WORK/b.json" "${RW_ARGS[@]}" --xdp-mode multi --persist --pin-dir "$PIN_DIR" ||
	fail "(b) ratewall starts in the dispatcher"
filter_up || fail "(b) xdp-filter joins ratewall's dispatcher"
check "(b) xdp-loader status lists both" eval 'listed xdpfilt && listed ratewall_xdp'
flood b
check_flood b
PROG=$("$RW" status --json --pin-dir "$PIN_DIR" | python3 -c "import json, sys; print(json.load(sys.stdin)['instances'][0]['prog_id'])")
kill -9 "$RW_PID"
wait "$RW_PID" 2>/dev/null
check "(b) without a loader both stay listed" eval 'listed xdpfilt && listed ratewall_xdp'
run_rw "$WORK/b2.json" "${RW_ARGS[@]}" --xdp-mode multi --persist --pin-dir "$PIN_DIR" ||
	fail "(b) ratewall starts again"
check "(b) the restart adopts the pinned program" grep -q "adopted instance .* (program id $PROG)" "$WORK/b2.json.err"
check "(b) status: attached" eval '"$RW" status --json --pin-dir "$PIN_DIR" | grep -q "\"attached\": true"'
check "(b) xdp-filter stayed attached" listed xdpfilt
flood b2 198.18.0.2
check_flood b2
stop_ratewall INT
in_rcv "$RW" stop "$TB_RX" --pin-dir "$PIN_DIR" 2>"$WORK/stop.err"
check "(b) ratewall stop exits 0" test $? -eq 0
check_filter_alone b
in_rcv xdp-filter unload "$TB_RX" >/dev/null 2>&1

# (d) two interfaces, xdp-filter on both; ratewall joins both dispatchers
if ! filter_up || ! filter_up "$RX2"; then
	fail "(d) xdp-filter loads on $TB_RX and $RX2"
	cat "$WORK/filter.out"
fi
run_rw "$WORK/d.json" "$RX2" "${RW_ARGS[@]}" || fail "(d) ratewall starts on two interfaces beside xdp-filter"
check "(d) xdp-loader status lists both on $TB_RX and on $RX2" \
	eval 'listed xdpfilt "$TB_RX" && listed ratewall_xdp "$TB_RX" && listed xdpfilt "$RX2" && listed ratewall_xdp "$RX2"'
ON=2
flood d 198.18.0.3
check_flood d
ON=""
stop_ratewall INT
check "(d) ratewall exits 0" test $? -eq 0
check_filter_alone d
ON=2
check_filter_alone d
ON=""
in_rcv xdp-filter unload "$RX2" >/dev/null 2>&1

# (e) the priority: before xdp-filter (10) at 5, after it at 20
for prio in 5 20; do
	run_rw "$WORK/e$prio.json" "${RW_ARGS[@]}" --interval 100ms --xdp-priority $prio || fail "(e) ratewall starts at priority $prio"
	ran=$(order)
	d0=$(nft_count deny)
	gen --src $DENIED --count 500 --rate 5000 >/dev/null
	sleep 0.3
	stop_ratewall INT
	n=$(seen "$WORK/e$prio.json")
	echo "     (e) --xdp-priority $prio: the dispatcher runs: $ran; ratewall saw $n of the 500 frames xdp-filter denies"
	if [ $prio = 5 ]; then
		check "(e) at 5 ratewall runs before xdp-filter" eval '[[ "$ran" == ratewall_xdp*xdpfilt* ]]'
		check "(e) at 5 ratewall counts the frames xdp-filter then denies (500)" test "$n" -eq 500
	else
		check "(e) at 20 ratewall runs after xdp-filter" eval '[[ "$ran" == xdpfilt*ratewall_xdp* ]]'
		check "(e) at 20 ratewall never sees them (0)" test "$n" -eq 0
	fi
	check "(e) at $prio xdp-filter still drops them" test "$(($(nft_count deny) - d0))" -eq 0
done
in_rcv xdp-filter unload "$TB_RX" >/dev/null 2>&1

# (f) at MTU 9000 the dispatcher, not frags-aware with ratewall in it, is refused
ip -n "$TB_SND" link set dev "$TB_TX" mtu 9000
ip -n "$TB_RCV" link set dev "$TB_RX" mtu 9000
in_rcv "$RW" run "$TB_RX" --xdp-mode multi --duration 1s --pps 10k >/dev/null 2>"$WORK/f.err"
check "(f) --xdp-mode multi at MTU 9000: refused (exit 1)" test $? -eq 1
echo "     (f) $(cat "$WORK/f.err")"
check "(f) ... in one line, which names the MTU and --xdp-mode native" \
	eval '[ "$(wc -l <"$WORK/f.err")" -eq 1 ] && grep -q "MTU, 9000.*--xdp-mode native" "$WORK/f.err"'
check "(f) ... and nothing is left attached" eval '! xdp_attached "$TB_RCV" "$TB_RX"'
ip -n "$TB_RCV" link set dev "$TB_RX" mtu 1500
ip -n "$TB_SND" link set dev "$TB_TX" mtu 1500

# (c) a program of its own (not libxdp's) on the interface
if ! ip -n "$TB_RCV" link set dev "$TB_RX" xdpdrv obj "$BUILD/xdp_pass_all.bpf.o" sec xdp; then
	fail "(c) a program of its own attaches (the interface was not left bare)"
	finish
	exit 1
fi
OTHER=$(ip -n "$TB_RCV" -d link show dev "$TB_RX" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
for mode in multi auto; do
	in_rcv "$RW" run "$TB_RX" --xdp-mode $mode --duration 1s --pps 10k >/dev/null 2>"$WORK/c.$mode.err"
	check "(c) --xdp-mode $mode: refused (exit 1)" test $? -eq 1
	check "(c) --xdp-mode $mode: the error says to load it with xdp-loader" grep -q "xdp-loader load $TB_RX" "$WORK/c.$mode.err"
	check "(c) --xdp-mode $mode: the program is not replaced" test \
		"$(ip -n "$TB_RCV" -d link show dev "$TB_RX" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')" = "$OTHER"
done
ip -n "$TB_RCV" link set dev "$TB_RX" xdpdrv off
finish
