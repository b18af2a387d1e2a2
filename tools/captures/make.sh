#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Makes the captures of README.md and docs/ (tools/captures/captures.py says
# what a capture is) as OUT/NAME.txt, on namespace testbeds: the demo's
# (tools/demo.sh) for the report, a testbed of its own for a pinned instance
# (status, rule list) and for --history. Traffic stays in the namespaces,
# every generator is bounded, everything made is removed on exit.
# --quick: short runs at low rates, for the format check (the shapes, not
# the numbers, matter there). Needs root.
# Usage: tools/captures/make.sh OUT [BUILD] [--quick]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
QUICK=${3:-}
RW=$BUILD/ratewall
GEN=$BUILD/rwgen
. "$ROOT/tests/harness/testbed.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "captures need root (namespaces, BPF): sudo make docs" >&2
	exit 1
fi
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/rwcap.XXXXXX)
# A fixed path, so that status says the same in every run (one run at a time,
# under the machine's lock); bpffs refuses a name with a dot.
PIN_DIR=/sys/fs/bpf/rwcap
# The terminal view's tmux, a server of its own.
tmx() { tmux -L "rwcap$$" -f /dev/null "$@"; }
cleanup() {
	# Everything below is tried, whatever fails (set -e would end the trap).
	set +e
	tmx kill-server 2>/dev/null
	if [ -d "$PIN_DIR" ]; then
		"$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1
		rm -rf "$PIN_DIR"
	fi
	rm -rf "$WORK"
	tb_down 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# T LONG QUICK: a run's length, in seconds.
T() { if [ -n "$QUICK" ]; then echo "$2"; else echo "$1"; fi; }

# The demo's report, as the README shows it: its start-up lines and one
# report while every generator still runs (the third from the end: they stop
# two seconds before ratewall does).
DEMO_SECONDS=$(T 12 4) "$ROOT/tools/demo.sh" "$BUILD" >"$WORK/demo" 2>&1
python3 - "$WORK/demo" >"$OUT/readme-demo.txt" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
start = [l for l in lines if l.startswith("ratewall: ") and "detached" not in l][:4]
reports, cur = [], None
for l in lines:
    if re.match(r"^\d\d:\d\d:\d\d  ", l):
        cur = [l]
    elif cur is not None:
        cur.append(l)
        if l.startswith("total "):
            reports.append(cur)
            cur = None
print("\n".join(start + [""] + reports[max(len(reports) - 3, 0)]))
EOF

# One JSON report of the demo with --top 1, wrapped before each top-level
# key whose value is a long object or list, as docs/json.md shows it.
DEMO_SECONDS=$(T 6 3) DEMO_ARGS="--json --top 1" "$ROOT/tools/demo.sh" "$BUILD" >"$WORK/json" 2>&1
python3 - "$WORK/json" >"$OUT/report-json.txt" <<'EOF'
import sys
reports = [l.strip() for l in open(sys.argv[1]) if l.startswith('{"ts"')]
line = reports[max(len(reports) - 3, 0)]
# The line as ratewall wrote it, cut before its top-level keys (depth 1,
# outside strings); a part that holds a long object or list starts a line.
cuts, depth, in_str, esc = [], 0, False, False
for i, c in enumerate(line):
    if in_str:
        if esc:
            esc = False
        elif c == "\\":
            esc = True
        elif c == '"':
            in_str = False
    elif c == '"':
        in_str = True
        if depth == 1 and line[i - 2:i] == ", ":
            cuts.append(i - 2)
    elif c in "{[":
        depth += 1
    elif c in "}]":
        depth -= 1
parts = [line[a:b] for a, b in zip([0] + cuts, cuts + [len(line)])]
out = [parts[0]]
for p in parts[1:]:
    value = p.split(": ", 1)[1]
    if value[:1] in "{[" and len(p) > 60:
        out[-1] += ","
        out.append(" " + p[2:])
    else:
        out[-1] += p
print("\n".join(out))
EOF

# The terminal view, as watching.md shows it: the demo with --tui in an 80x24
# tmux window (a UTF-8 locale for the sparklines), its screen nine seconds
# in, then `v` and the screen a second later; capture-pane gives the text
# without escape sequences.
tmx -u new-session -d -x 80 -y 24 -e LANG=C.UTF-8 -e TERM=xterm-256color \
	"DEMO_SECONDS=$(T 12 8) DEMO_ARGS=--tui '$ROOT/tools/demo.sh' '$BUILD'"
# screen NAME: the window's text, its blank lines left out, as NAME.
screen() {
	tmx capture-pane -p 2>/dev/null | sed -e 's/ *$//' -e '/^$/d' >"$OUT/$1.txt"
	grep -q '^ratewall run: ' "$OUT/$1.txt" || { echo "the demo's --tui view was not on screen for $1" >&2; exit 1; }
}
# The view in its steady state: a source limited (the Zipf generator's
# threads take a while to reach their rate), and the spoofed sources that the
# flood's first packets had tracked (free promotions, before its noise showed)
# wiped as idle, so that the table holds the demo's own sources again.
steady() {
	tmx capture-pane -p 2>/dev/null | awk '/% yes / { limited = 1 }
		match($0, /tracked [0-9]+\//) { n = substr($0, RSTART + 8, RLENGTH - 9) + 0 }
		END { exit !(limited && n > 0 && n < 1000) }'
}
sleep "$(T 9 2.5)"
for _ in $(seq 60); do
	steady && break
	sleep 0.1
done
screen top-sources
tmx send-keys v
sleep 1
screen top-prefixes
# The demo ends at its duration; its own trap removes its testbed.
for _ in $(seq 100); do tmx has-session 2>/dev/null || break; sleep 0.1; done
tmx kill-server 2>/dev/null || true

tb_up rwcap 1
# A pinned instance with two rules; 2000 pps at port 22 and 1500 pings a
# second for a while, then what `status` and `rule list` say of it.
printf '0.0.0.0/0 tcp dport 22 limit 500\n0.0.0.0/0 icmp type echo-request limit 300\n' >"$WORK/rules"
nsenter --net="/run/netns/$TB_RCV" "$RW" run "$TB_RX" --pps 10k --rules "$WORK/rules" \
	--json --top 1 --persist --pin-dir "$PIN_DIR" >"$WORK/persist" 2>"$WORK/persist.err" &
for _ in $(seq 100); do grep -q "attached to" "$WORK/persist.err" && break; sleep 0.05; done
gen() { ip netns exec "$TB_SND" "$GEN" --dev "$TB_TX" --dst-mac "$TB_RX_MAC" "$@" >/dev/null; }
s=$(T 3 1)
gen --proto tcp --src 198.18.1.5 --dport 22 --rate 2000 --duration "${s}s" &
g=$!
gen --proto icmp --src 198.18.1.6 --rate 1500 --duration "${s}s"
wait "$g"
sleep 1.2
{ echo '$ ratewall status'; "$RW" status --pin-dir "$PIN_DIR"; } >"$OUT/status.txt"
{ echo '$ ratewall rule list'; "$RW" rule list --pin-dir "$PIN_DIR"; } >"$OUT/rule-list.txt"
"$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null
wait

# --history: three sources at 1000 pps each under --pps 1000, reports every
# 500 ms, then the sum over the run.
s=$(T 6 2)
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --pps 1000 --interval 500ms --history "$WORK/h.db" \
	--duration "${s}s" >/dev/null 2>&1 &
sleep 0.5
gen --sources 3 --rate 3000 --duration "$((s - 1))s"
wait
(cd "$WORK" && { echo '$ ratewall history h.db --sum'; "$RW" history h.db --sum; }) >"$OUT/history-sum.txt"

# --events: one source over its limit for a second under --ban 1s (limited,
# banned, then unbanned and released once it is silent), one governed by a
# rule, and a /24 of many sources that is heavy a while under --levels; the
# first line of each kind, in the order docs/json.md lists them.
# The ban also runs --on-event's command, which keeps what it read: json.md's
# "What an --on-event command reads".
printf '0.0.0.0/0 tcp dport 22 limit 500\n' >"$WORK/rules1"
printf '#!/bin/sh\ncat >>%s/hooked && echo >>%s/hooked\n' "$WORK" "$WORK" >"$WORK/hook"
chmod +x "$WORK/hook"
s=$(T 6 4)
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --pps 1000 --ban 1s --rules "$WORK/rules1" --levels v4:24 \
	--events "$WORK/events" --on-event "$WORK/hook" --duration "${s}s" >/dev/null 2>"$WORK/events.err" &
rw=$!
# The floods start 300 ms after the program is attached, its first tick 1 s
# after: the 1 s ban is seen at that tick and ends at the next, as a ban
# does in service. A flood already running at the attach was banned at
# once, and the first tick saw the ban and its end together (the hook runs
# both then, one after the other; it once ran neither).
for _ in $(seq 200); do grep -q "attached to" "$WORK/events.err" && break; sleep 0.05; done
sleep 0.3
gen --src 198.18.0.9 --rate 3000 --duration 1s &
g1=$!
gen --proto tcp --src 198.18.1.5 --dport 22 --rate 2000 --duration 1s &
g2=$!
gen --src 198.18.7.1 --sources 200 --rate 5000 --duration 2s
wait "$g1" "$g2" "$rw"
python3 - "$WORK/events" >"$OUT/events.txt" <<'EOF'
import json, sys
lines = [l.strip() for l in open(sys.argv[1]) if l.strip()]
order = ["limited", "banned", "unbanned", "released", "limited rule", "heavy", "light"]
first = {}
for l in lines:
    e = json.loads(l)
    kind = e["event"] + (" rule" if "rule" in e else "")
    first.setdefault(kind, l)
# The light line of the prefix that went heavy, when there is one.
heavy = json.loads(first.get("heavy", "{}")).get("key")
for l in lines:
    e = json.loads(l)
    if e["event"] == "light" and e["key"] == heavy:
        first["light"] = l
        break
print("\n".join(first[k] for k in order if k in first))
EOF
# (198.18.0.9's: a rule's key is banned too, and its object has the rule)
grep -m1 '"event": "banned", "kind": "src", "key": "198.18.0.9"' "$WORK/hooked" >"$OUT/event-hook.txt"
# recipes.md's JSON: a report of the pinned instance above, its rules and its
# top key (a limited one), and the first limited event that names a rule.
python3 "$ROOT/tools/captures/captures.py" rules-json "$WORK/persist" "$WORK/events" >"$OUT/rules-json.txt"

# not_written: 1500 sources each over --pps 10 for a second, 1500 limited
# events where the budget is 1000 a second; the first such line.
s=$(T 4 3)
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --pps 10 --events "$WORK/flood-events" \
	--duration "${s}s" >/dev/null 2>&1 &
rw=$!
sleep 0.5
gen --src 198.18.4.0 --sources 1500 --rate 30000 --duration 1s
wait "$rw"
grep -m1 '"event": "not_written"' "$WORK/flood-events" >"$OUT/event-not-written.txt"

# The --key tables of docs/usage.md: `run --key KIND --pps 10k` while the
# generators its prose names send; a report's header and first rows.
# keytable NAME ROWS KEY GEN-ARGS...: GEN-ARGS is one generator's arguments
# a word, generators separated by a lone "+".
keytable() {
	local name=$1 rows=$2 key=$3 s args=() pids=()
	shift 3
	s=$(T 4 2)
	ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --pps 10k --key "$key" --top "$rows" \
		--duration "${s}s" >"$WORK/$name" 2>/dev/null &
	rw=$!
	sleep 0.5
	for a in "$@" +; do
		if [ "$a" = + ]; then
			gen "${args[@]}" --duration "$((s - 1))s" &
			pids+=($!)
			args=()
		else
			args+=("$a")
		fi
	done
	wait "${pids[@]}" "$rw"
	python3 "$ROOT/tools/captures/captures.py" table "$WORK/$name" "$rows" >"$OUT/$name.txt"
}
keytable key-src 2 src --ipv6 --src 2001:db8:1:2::1 --sources 1000 --rate 30k \
	+ --ipv6 --src 2001:db8:1:3::1 --rate 3500
keytable key-dst 3 dst --src 198.18.1.0 --sources 200 --dst 198.19.0.1 --rate 30k \
	+ --src 198.18.2.0 --sources 50 --dst 198.19.0.2 --rate 6k \
	+ --src 198.18.3.0 --sources 50 --dst 198.19.0.3 --rate 3k
keytable key-pair 3 pair --src 198.18.0.1 --dst 198.19.0.1 --rate 25k \
	+ --src 198.18.0.1 --dst 198.19.0.2 --rate 5k + --src 198.18.0.7 --dst 198.19.0.1 --rate 1700
keytable key-flow 3 flow --sport 40000 --dst 198.19.0.1 --dport 443 --rate 24k \
	+ --sport 40001 --dst 198.19.0.1 --dport 443 --rate 4800 \
	+ --ipv6 --src 2001:db8:1::7 --sport 5353 --dport 53 --rate 3k

# design.md's memory table: `ratewall memory --cpus N` at the defaults for a
# few N, the maps summed by what they are (nothing is loaded: milliseconds).
for n in 2 16 64 192; do
	echo "== $n"
	"$RW" memory --cpus "$n"
done >"$WORK/memory"
python3 "$ROOT/tools/captures/captures.py" memory "$WORK/memory" >"$OUT/memory-cpus.txt"

# The captures only a slow suite makes (captures.py's SLOW: BIRD's flow table
# from test_bgp's daemons, the fleet's PromQL from test_fleet's Prometheus,
# the test lines of recipes.md and usage.md), each suite run once with
# CAPTURE_DIR, where it writes them whatever its checks say. Not in --quick:
# each suite takes half a minute or more.
if [ -z "$QUICK" ]; then
	for t in $(python3 "$ROOT/tools/captures/captures.py" slow); do
		if ! RW_BIN="$RW" BUILD="$BUILD" CAPTURE_DIR="$(cd "$OUT" && pwd)" "$ROOT/$t" >"$WORK/slow.log" 2>&1; then
			echo "$t failed (its end below); what it wrote is kept" >&2
			tail -n 5 "$WORK/slow.log" >&2
		fi
	done
fi
echo "captures made in $OUT: $(cd "$OUT" && ls | sed 's/\.txt$//' | tr '\n' ' ')"
