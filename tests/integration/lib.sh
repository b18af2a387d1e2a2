# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Shared by the integration tests: paths, the testbed, checks and the closing
# "N passed, N failed" line. Every test cleans up on exit, failure included.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
RW=${RW_BIN:-$BUILD/ratewall} # RW_BIN: e.g. the sanitizer build
GEN=$BUILD/rwgen
SINK=$BUILD/rwsink
# shellcheck source=../harness/testbed.sh
. "$ROOT/tests/harness/testbed.sh"
# shellcheck source=../harness/python_once.sh
. "$ROOT/tests/harness/python_once.sh"

PASSED=0
FAILED=0
WORK=$(mktemp -d /tmp/rwtest.XXXXXX)
python_once "$WORK/bin"

# KEEP_WORK=1 keeps a copy of the test's files (ratewall's JSON, generator
# output) in /tmp/rwkeep for a look after a failure.
cleanup() {
	[ -n "${KEEP_WORK:-}" ] && cp -r "$WORK" /tmp/rwkeep
	# A test that pins removes its instances before the namespaces go.
	if [ -n "${PIN_DIR:-}" ]; then
		"$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1
		rm -rf "$PIN_DIR"
	fi
	tb_down
	# Namespaces a test made beyond its testbed: whatever runs there goes too.
	for _ns in ${EXTRA_NS:-}; do
		# shellcheck disable=SC2046
		kill -9 $(ip netns pids "$_ns" 2>/dev/null) 2>/dev/null
		ip netns del "$_ns" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else fail "$desc"; fi
}
finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

# within VALUE TARGET FRACTION: |VALUE - TARGET| <= FRACTION * TARGET
within() { awk -v v="$1" -v t="$2" -v f="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= f * t) }'; }
# at_most VALUE LIMIT
at_most() { awk -v v="$1" -v l="$2" 'BEGIN { exit !(v <= l) }'; }

# A unique, short testbed name (interface names stay under 16 bytes).
tb_name() { echo "rwt$(( $$ % 100000 ))"; }

# start_ratewall OUTFILE ARGS...: runs ratewall on the receiver, waits for attach.
start_ratewall() {
	local out=$1
	shift
	ip netns exec "$TB_RCV" "$RW" run "$TB_RX" "$@" >"$out" 2>"$out.err" &
	RW_PID=$!
	wait_attached "$out.err"
}

# wait_attached ERRFILE: until ratewall (RW_PID) says it attached; fails if it exits first.
wait_attached() {
	for _ in $(seq 100); do
		grep -q "attached to" "$1" 2>/dev/null && return 0
		kill -0 "$RW_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "ratewall did not attach:" >&2
	cat "$1" >&2
	return 1
}

# in_rcv CMD...: CMD in the receiver's network namespace only. Unlike `ip netns
# exec` it keeps this mount namespace's /sys, so bpffs pins stay visible.
in_rcv() { nsenter --net="/run/netns/$TB_RCV" "$@"; }

# start_persist OUTFILE ARGS...: `ratewall run --persist` on the receiver with the
# test's own pin directory (PIN_DIR, removed on exit); waits for the attach.
start_persist() {
	local out=$1
	shift
	# nsenter execs ratewall: RW_PID is ratewall itself, for kill -9
	nsenter --net="/run/netns/$TB_RCV" "$RW" run "$@" --persist --pin-dir "$PIN_DIR" \
		>"$out" 2>"$out.err" &
	RW_PID=$!
	wait_attached "$out.err"
}

# stop_ratewall [SIGNAL]: signals it and returns its exit status.
stop_ratewall() {
	kill -"${1:-INT}" "$RW_PID" 2>/dev/null
	wait "$RW_PID"
}

# sent_of FILE: frames the generator says it sent (its JSON in FILE); 0 when
# it wrote none (it failed), so the checks on it fail.
sent_of() {
	python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['sent'])" "$1" 2>/dev/null || echo 0
}

# rules_in_force ARGS...: `ratewall rule list ARGS` without each rule's counts (its comment).
rules_in_force() { "$RW" rule list "$@" | sed 's/ *#.*//'; }

# gen ARGS...: the generator in the sender namespace, aimed at the receiver.
gen() { ip netns exec "$TB_SND" "$GEN" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" "$@"; }
# gen_start OUT ARGS...: gen in the background, its report to OUT, GEN_PID the
# generator itself (ip netns exec execs it); gen_stop: SIGTERM ends it sooner
# than its --duration and it writes its report. A flood that must outlast a
# measurement runs long and is stopped after it, whatever the steps took.
gen_start() {
	local out=$1
	shift
	ip netns exec "$TB_SND" "$GEN" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" "$@" >"$out" &
	GEN_PID=$!
}
gen_stop() {
	kill -TERM "$GEN_PID" 2>/dev/null
	wait "$GEN_PID"
}

# An nft netdev ingress table on the receiver: runs after XDP, so it counts
# exactly what ratewall passed. nft_observe NAME MATCH...; nft_count NAME.
# OBS_DEV=IFACE: on that interface of the receiver's rather than TB_RX.
nft_observe() {
	local name=$1
	shift
	ip netns exec "$TB_RCV" nft -f - <<NFT
table netdev rwobs_$name {
	counter seen {}
	chain in {
		type filter hook ingress device "${OBS_DEV:-$TB_RX}" priority 0; policy accept;
		$* counter name seen
	}
}
NFT
}
nft_count() {
	ip netns exec "$TB_RCV" nft list counter netdev "rwobs_$1" seen |
		sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

# start_sink NAME ARGS...: rwsink on the receiver (an AF_PACKET observer of
# what XDP passed, with receive timestamps; its JSON in $WORK/NAME.sink) once
# it listens; SINK_PID is its pid.
start_sink() {
	local name=$1
	shift
	ip netns exec "$TB_RCV" "$SINK" --dev "$TB_RX" "$@" >"$WORK/$name.sink" 2>"$WORK/$name.sink.err" &
	SINK_PID=$!
	for _ in $(seq 200); do
		grep -q listening "$WORK/$name.sink.err" 2>/dev/null && break
		sleep 0.05
	done
}

# sink_drops NAME: frames that observer's socket dropped (its counts are whole at 0).
sink_drops() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["socket_drops"])' \
		"$WORK/$1.sink" 2>/dev/null || echo 999999999
}

# sink_of NAME ADDR FIELD: that observer's FIELD for ADDR (0 when it saw none).
sink_of() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sources"].get(sys.argv[2], {}).get(sys.argv[3], 0))' \
		"$WORK/$1.sink" "$2" "$3" 2>/dev/null || echo 999999999
}

# nft_sample NAME: "TIME COUNT", TIME the midpoint of clock reads taken right
# around the read, so process start-up does not skew a rate under bursty load.
nft_sample() {
	ip netns exec "$TB_RCV" sh -c "date +%s.%N; nft list counter netdev rwobs_$1 seen; date +%s.%N" |
		awk '/^[0-9]+\.[0-9]+$/ { t[n++] = $1 } /packets/ { for (i = 1; i < NF; i++) if ($i == "packets") c = $(i + 1) }
		     END { printf "%.6f %s\n", (t[0] + t[1]) / 2, c }'
}

# nft_rates SECONDS NAME...: each observer's packets/s over SECONDS, one per
# line. One shell in the receiver's namespace reads them all, sleeps and reads
# again, so the span is SECONDS and what the reads take, each count timed by
# the clock reads right around it. A limited key's admissions repeat with the
# window (a burst at its start, a pause at its end), so a span off by a
# fraction of a window is off by up to a burst: two-sample reads whose span
# was the namespace entry's 0.1-0.3 s longer than asked read a /24 budget
# held to 5000 pps exactly 0.3-5.3 % low, and this read it 2 % low once
# while the machine compiled. A rate that must hold within 2 % is read from
# rwsink's receive timestamps over an exact span (start_sink, sink_of).
nft_rates() {
	local secs=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$TB_RCV" sh -c '
		secs=$1; shift
		read_all() { for n; do date +%s.%N; nft list counter netdev "rwobs_$n" seen; date +%s.%N; done; }
		read_all "$@"; sleep "$secs"; read_all "$@"' sh "$secs" "$@" |
		awk -v n=$# '/^[0-9]+\.[0-9]+$/ { t[m++] = $1 }
		     /packets/ { for (i = 1; i < NF; i++) if ($i == "packets") c[k++] = $(i + 1) }
		     END { for (j = 0; j < n; j++)
				printf "%.1f\n", (c[j + n] - c[j]) / ((t[2 * (j + n)] + t[2 * (j + n) + 1] - t[2 * j] - t[2 * j + 1]) / 2) }'
}

# steady_rate NAME SECONDS: packets/s the observer saw over that span.
steady_rate() { nft_rates "$2" "$1"; }

# steady_span NAME SECONDS: "PACKETS SHORTEST LONGEST": what the observer saw
# between two reads SECONDS apart, and the shortest and longest the span
# between them can have been (a read falls anywhere inside its nft run, which
# takes tens of milliseconds on a loaded machine): a bound checked against
# both is never missed for the time an nft run took.
steady_span() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$TB_RCV" sh -c '
		read_one() { date +%s.%N; nft list counter netdev "rwobs_$1" seen; date +%s.%N; }
		read_one "$2"; sleep "$1"; read_one "$2"' sh "$2" "$1" |
		awk '/^[0-9]+\.[0-9]+$/ { t[m++] = $1 }
		     /packets/ { for (i = 1; i < NF; i++) if ($i == "packets") c[k++] = $(i + 1) }
		     END { printf "%d %.6f %.6f\n", c[1] - c[0], t[2] - t[1], t[3] - t[0] }'
}

# planned_memory ARGS...: the total `ratewall memory ARGS` plans, in bytes.
planned_memory() {
	"$RW" memory "$@" | awk '$1 == "total" {
		m = 1; if ($3 == "KiB") m = 1024; if ($3 == "MiB") m = 1048576; if ($3 == "GiB") m = 1073741824
		printf "%.0f\n", $2 * m }'
}

# loaded_memory: what the kernel says the newest ratewall program's maps take
# (the sum of their memlock: the kernel's own map_mem_usage), in bytes.
loaded_memory() {
	bpftool prog show name ratewall_xdp -j | python3 -c '
import json, subprocess, sys
progs = json.load(sys.stdin)
progs = progs if isinstance(progs, list) else [progs]
total = 0
for m in max(progs, key=lambda p: p["id"])["map_ids"]:
    total += json.loads(subprocess.check_output(["bpftool", "map", "show", "id", str(m), "-j"]))["bytes_memlock"]
print(total)'
}

# xdp_attached NS IFACE: succeeds when IFACE has any XDP program.
xdp_attached() { ip -n "$1" -d link show dev "$2" | grep -q 'prog/xdp'; }

# captured NAME PLANT: the capture NAME this suite made ($WORK/captures/NAME.txt,
# a block of README.md or docs/ marked NAME) has the shape of that block
# (tools/captures/captures.py check), and the check fails on it once the sed
# expression PLANT changes it (a renamed column, say), so it can fail. With
# CAPTURE_DIR (tools/captures/make.sh, for make docs) the capture is kept
# there, whatever the check said: make docs writes it into its block.
captured() {
	local name=$1 cap="$ROOT/tools/captures/captures.py" out rc
	[ -z "${CAPTURE_DIR:-}" ] || cp "$WORK/captures/$name.txt" "$CAPTURE_DIR/" ||
		fail "the capture $name kept in CAPTURE_DIR"
	out=$(python3 "$cap" check "$ROOT" "$WORK/captures" "$name" 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] || sed 's/^/     /' <<<"$out"
	check "the capture $name has the format of its block in the docs" test "$rc" -eq 0
	mkdir -p "$WORK/planted"
	sed "$2" "$WORK/captures/$name.txt" >"$WORK/planted/$name.txt"
	python3 "$cap" check "$ROOT" "$WORK/planted" "$name" >/dev/null 2>&1
	rc=$?
	check "... and that check fails on it planted with $2" \
		eval "[ $rc -eq 1 ] && ! cmp -s '$WORK/captures/$name.txt' '$WORK/planted/$name.txt'"
}
