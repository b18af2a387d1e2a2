#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --on-event: a real script run for events, what it read on its stdin kept
# in a file a call, checked against what the generator sent:
#  (a) two sources over their limits (one under the command line's, one
#      under a rule) with --ban 3s: the script gets exactly one `banned` and
#      one `unbanned` for each, with every field (kind, key, rule when a rule
#      governs it, rates and window counts, until, interfaces, instance)
#  (b) a script that hangs (--on-event-timeout 1s) is killed at its timeout
#      with what it started: a `hook` event with timed_out, the report's and
#      /metrics' counts, the processes gone
#  (c) a script that exits 3: said on stderr, a `hook` event with exit 3,
#      counted failed
#  (d) 200 sources banned at once with --on-event-rate 5: the runs stay
#      bounded (burst and rate), the rest counted as not run, every event
#      either run or counted
#  (e) through (b), (c) and (d) the reports stay on time: the largest gap
#      between consecutive JSON reports is under 1.1 intervals
#  (f) a command that cannot be found: said at the start, counted, and
#      enforcement goes on
#  (g) --on-event-user nobody: the command runs as nobody, with nobody's
#      groups and none of root's, and no capability; one that hangs is still
#      killed at its timeout
#  (h) --on-event-user of a user the system does not know: refused at the
#      start (exit 2, one line), nothing attached
set -u
. "$(dirname "$0")/../lib.sh"

PORT=$((20000 + $$ % 10000))
# The runs whose reports are timed: a tick that waited on a command (1 s
# hung) would be late by intervals; 500 ms leaves 50 ms under the bound for a
# loaded 2-CPU machine's scheduling (the flood's run, hook or not, was seen
# 29 ms late at 200 ms).
GAP_INTERVAL=500ms
GAP_INTERVAL_S=0.5
tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }

# copy.sh DIR: what it read into a file of its own in DIR.
cat >"$WORK/copy.sh" <<'SH'
#!/bin/sh
cat >"$1/call.$$"
SH
chmod 755 "$WORK/copy.sh"

# calls DIR: the objects the script read, one a line.
calls() { cat "$1"/call.* 2>/dev/null; }

# summary FILE INTERVAL_S: the last report's on_event counts; gap: the largest gap
# between consecutive reports in intervals; tick_ms: the longest tick (what a
# late report spent in ratewall itself). Shell assignments, one python: it
# takes seconds to start on a loaded machine.
summary() {
	python3 -c '
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
c = reps[-1].get("on_event", {}) if reps else {}
for k in ("started", "ok", "failed", "timed_out", "dropped", "queued"):
    print(f"{k}={c.get(k, -1)}")
ts = [r["ts"] for r in reps]
gaps = [b - a for a, b in zip(ts, ts[1:])]
print(f"gap={max(gaps) / float(sys.argv[2]):.3f}" if gaps else "gap=999")
longest = max([r.get("tick_ms", 0) for r in reps] or [0])
print(f"tick_ms={longest:.1f}")' "$1" "$2" ||
		echo "started=-1 ok=-1 failed=-1 timed_out=-1 dropped=-1 queued=-1 gap=999 tick_ms=-1"
}
started=-1 ok=-1 failed=-1 timed_out=-1 dropped=-1 queued=-1 gap=999 tick_ms=-1

# --- (a) banned and unbanned, their fields against what was sent
mkdir "$WORK/a"
cat >"$WORK/a.rules" <<'RULES'
198.18.1.0/24 limit 50
RULES
start_ratewall "$WORK/a.json" --pps 100 --ban 3s --rules "$WORK/a.rules" --json \
	--interval 200ms --events "$WORK/a.events" --on-event "$WORK/copy.sh $WORK/a" \
	--duration 5s || fail "(a) ratewall starts with --on-event"
gen --src 198.18.0.1 --rate 1000 --duration 1s >"$WORK/a.gen1" &
gen --src 198.18.1.1 --rate 500 --duration 1s >"$WORK/a.gen2" &
wait "$RW_PID"
check "(a) ratewall with --on-event exits 0" test $? -eq 0
wait
calls "$WORK/a" >"$WORK/a.calls"
python3 - "$WORK/a.calls" "$WORK/a.json" "$TB_RX" "$WORK/a.gen1" "$WORK/a.gen2" \
	>"$WORK/a.cmp" 2>&1 <<'PY'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
reports = [json.loads(l) for l in open(sys.argv[2])]
iface = sys.argv[3]
sent = {k: json.load(open(f))["sent"] for k, f in (("198.18.0.1", sys.argv[4]), ("198.18.1.1", sys.argv[5]))}
bad, said = [], []
for key in sent:
    mine = [c for c in calls if c["key"].split()[0] == key]
    events = sorted(c["event"] for c in mine)
    if events != ["banned", "unbanned"]:
        bad.append(f"{key}: {events}, not one banned and one unbanned")
        continue
    b = next(c for c in mine if c["event"] == "banned")
    u = next(c for c in mine if c["event"] == "unbanned")
    for c in (b, u):
        if c["kind"] != "src" or c["interfaces"] != [iface] or c["instance"] != iface:
            bad.append(f"{key} {c['event']}: kind, interfaces or instance: {c}")
        if (key == "198.18.1.1") != ("rule" in c) or c.get("rule", 0) != 0:
            bad.append(f"{key} {c['event']}: rule {c.get('rule')}")
    # The window as the scan of the tick that handed the ban on read it: the
    # same numbers as that tick's report row for the key, within what was sent.
    w = b["window"]
    row = (w["packets"], w["bytes"], w["drop_packets"], w["drop_bytes"])
    after = [r for r in reports if r["ts"] >= b["ts"]][:2]
    rows = [(e["packets"], e["bytes"], e["dropped"], e["dropped_bytes"])
            for r in after for e in r["top"] if e["key"].split()[0] == key]
    if row not in rows:
        bad.append(f"{key}: window {row} is not its report row then {rows}")
    if not (0 < w["drop_packets"] <= w["packets"] <= sent[key]) or w["bytes"] != 64 * w["packets"]:
        bad.append(f"{key}: window {w}, {sent[key]} sent")
    if abs(b["pps"] - w["packets"] / w["seconds"]) > 0.1 or abs(b["bps"] - 8 * w["bytes"] / w["seconds"]) > 0.1:
        bad.append(f"{key}: pps {b['pps']} bps {b['bps']} not the window's {w}")
    said.append(f"{key} window {w['packets']} packets, {w['drop_packets']} dropped of {sent[key]} sent")
    if not (2.9 < b["until"] - b["ts"] < 3.1):
        bad.append(f"{key}: banned until {b['until'] - b['ts']:.3f} s after its ts")
    if "cpu" not in b:
        bad.append(f"{key}: the data path's banned has no cpu")
    # was_until: the same end, each turned to the wall clock at its own tick (to a ms or so).
    if abs(u.get("was_until", 0) - b["until"]) > 0.01 or u["ts"] < b["until"] - 0.01:
        bad.append(f"{key}: unbanned at {u['ts']} was_until {u.get('was_until')}, banned until {b['until']}")
print(f"{len(calls)} calls ({'; '.join(said)}): " + ("; ".join(bad) if bad else "as sent"))
PY
cat "$WORK/a.cmp"
check "(a) one banned and one unbanned a source, each field as the generator sent it" \
	grep -q ': as sent$' "$WORK/a.cmp"
eval "$(summary "$WORK/a.json" 0.2)"
check "(a) the report counts the 4 runs, all ok, none dropped ($ok ok, $dropped dropped)" \
	test "$started/$ok/$dropped" = 4/4/0

# --- (b) (c) a script that hangs (with a child of its own) and one that exits 3
mkdir "$WORK/b"
cat >"$WORK/bc.sh" <<SH
#!/bin/sh
read -r event
case "\$event" in
*'"198.18.0.2"'*)
	sleep 60 &
	echo "\$! \$\$" >"$WORK/b/pids"
	exec sleep 60 ;;
*) exit 3 ;;
esac
SH
chmod 755 "$WORK/bc.sh"
ip -n "$TB_RCV" link set lo up
start_ratewall "$WORK/b.json" --pps 100 --ban 10s --json --interval "$GAP_INTERVAL" \
	--events "$WORK/b.events" --on-event "$WORK/bc.sh" --on-event-kinds banned \
	--on-event-timeout 1s --metrics "$PORT" --duration 4s ||
	fail "(b) ratewall starts with a hanging --on-event"
gen --src 198.18.0.2 --rate 1000 --duration 500ms >/dev/null &
gen --src 198.18.0.3 --rate 1000 --duration 500ms >/dev/null &
sleep 2.5
ip netns exec "$TB_RCV" curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$WORK/b.metrics"
grandchild=0 hung=0
read -r grandchild hung <"$WORK/b/pids"
wait "$RW_PID"
check "(b) ratewall exits 0" test $? -eq 0
wait
grep '"event": "hook"' "$WORK/b.events"
check "(b) a hook event for the hanging one: killed (137) at its timeout, 1 s" \
	grep -Eq '"event": "hook", "for": "banned", "key": "198.18.0.2", "seconds": 1\.[0-9]+, "timed_out": true, "exit": 137}' \
	"$WORK/b.events"
check "(b) /metrics counts it timed out" \
	grep -qx 'ratewall_on_event_commands_total{result="timed_out"} 1' "$WORK/b.metrics"
eval "$(summary "$WORK/b.json" "$GAP_INTERVAL_S")"
gap_b=$gap
check "(b) the report counts 2 run, 1 timed out, 1 failed ($started, $timed_out, $failed)" \
	test "$started/$timed_out/$failed" = 2/1/1
# gone PID...: no such process, or a zombie (dead; its new parent reaps it, or not).
gone() {
	for p; do
		kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && return 1
	done
	return 0
}
check "(b) the hanging script and the child it started are gone (pids $hung, $grandchild)" \
	gone "$hung" "$grandchild"
check "(c) the one that exits 3 is said on stderr" \
	grep -q -- '--on-event: exited 3 for banned 198.18.0.3' "$WORK/b.json.err"
check "(c) a hook event with exit 3" \
	grep -q '"event": "hook", "for": "banned", "key": "198.18.0.3", "seconds": [0-9.]*, "exit": 3}' \
	"$WORK/b.events"
echo "largest gap between reports with a hanging script: $gap_b intervals (longest tick $tick_ms ms)"

# --- (d) a flood of bans beyond the command's rate
mkdir "$WORK/d"
start_ratewall "$WORK/d.json" --pps 20 --ban 10s --json --interval "$GAP_INTERVAL" \
	--events "$WORK/d.events" --on-event "$WORK/copy.sh $WORK/d" --on-event-kinds banned \
	--on-event-rate 5 --duration 4s || fail "(d) ratewall starts"
gen --src 198.18.2.0 --sources 200 --rate 20000 --duration 1s >"$WORK/d.gen" &
wait "$RW_PID"
check "(d) ratewall exits 0" test $? -eq 0
wait
banned=$(grep -c '"event": "banned"' "$WORK/d.events")
runs=$(calls "$WORK/d" | wc -l)
eval "$(summary "$WORK/d.json" "$GAP_INTERVAL_S")"
gap_d=$gap
# The burst of 5, then 5 a second from the first offer to the last: a ban is
# offered at the first tick after it, so they span the bans' span and an interval.
span=$(awk -F'[:,]' '/"event": "banned"/ { if (!n++ || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
	END { printf "%.3f\n", n ? hi - lo : 0 }' "$WORK/d.events")
bound=$(awk -v s="$span" -v i="$GAP_INTERVAL_S" 'BEGIN { x = 5 * (s + i); printf "%d", 5 + int(x) + (x > int(x)) }')
echo "(d) $banned banned over $span s, $runs runs (at most $bound), report: $started started," \
	"$dropped not run, $queued queued"
check "(d) all 200 sources banned" test "$banned" -eq 200
check "(d) the runs stay bounded by the rate ($runs, 5 to $bound)" test "$runs" -ge 5 -a "$runs" -le "$bound"
check "(d) every run counted as started" test "$runs" -eq "$started"
check "(d) every banned either run, waiting, or counted not run" \
	test $((started + dropped + queued)) -eq "$banned"
check "(d) the flood said as not run" grep -q -- '--on-event: [0-9]* events not run' "$WORK/d.json.err"
echo "largest gap between reports under the flood: $gap_d intervals (longest tick $tick_ms ms)"

check "(e) reports on time with a hanging script (largest gap $gap_b < 1.1 intervals)" at_most "$gap_b" 1.1
check "(e) reports on time under the flood of bans (largest gap $gap_d < 1.1 intervals)" at_most "$gap_d" 1.1

# --- (f) a command that cannot be found: said at the start, counted, enforcement goes on
start_ratewall "$WORK/f.json" --pps 100 --ban 2s --json --events "$WORK/f.events" \
	--on-event "$WORK/no-such-script" --duration 3s || fail "(f) ratewall starts"
gen --src 198.18.3.1 --rate 1000 --duration 1s >/dev/null
wait "$RW_PID"
check "(f) ratewall exits 0" test $? -eq 0
check "(f) the missing command said at the start, and that enforcement goes on" \
	grep -q -- "--on-event: .*no-such-script: not found; enforcement goes on" "$WORK/f.json.err"
check "(f) the source was banned and dropped all the same" \
	python3 -c 'import json, sys; r = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(not (r and r[-1]["totals"]["dropped"] >= 800 and r[-1]["on_event"]["failed"] >= 1))' "$WORK/f.json"
check "(f) a hook event says it could not start" \
	grep -q '"event": "hook", "for": "banned", "key": "198.18.3.1".*"error": "No such file or directory"' \
	"$WORK/f.events"

# --- (g) the commands as an unprivileged user: what `id` and the kernel say
# of the process that ran. The script and the directory it writes to must be
# nobody's to reach (WORK is root's, 0700).
mkdir -m 0755 "$WORK/g" && chmod 0755 "$WORK"
mkdir -m 0777 "$WORK/g/out"
cat >"$WORK/g/ids.sh" <<'SH'
#!/bin/sh
read -r event
case "$event" in
*'"198.18.4.2"'*) exec sleep 60 ;;
esac
{ id -u; id -g; id -G; grep '^CapEff:' /proc/self/status | cut -f2; } >"$1/ids.$$"
SH
chmod 0755 "$WORK/g/ids.sh"
start_ratewall "$WORK/g.json" --pps 100 --ban 10s --json --events "$WORK/g.events" \
	--on-event "$WORK/g/ids.sh $WORK/g/out" --on-event-kinds banned --on-event-timeout 1s \
	--on-event-user nobody --duration 3s || fail "(g) ratewall starts with --on-event-user nobody"
gen --src 198.18.4.1 --rate 1000 --duration 500ms >/dev/null &
gen --src 198.18.4.2 --rate 1000 --duration 500ms >/dev/null &
wait "$RW_PID"
check "(g) ratewall exits 0" test $? -eq 0
wait
ids=$(cat "$WORK"/g/out/ids.* 2>/dev/null | paste -sd ' ')
want="$(id -u nobody) $(id -g nobody) $(id -G nobody) 0000000000000000"
check "(g) the command ran as nobody, nobody's groups alone, no capability (uid gid groups CapEff: $ids)" \
	test "$ids" = "$want"
check "(g) the one that hangs, run as nobody, is killed at its timeout all the same" \
	grep -Eq '"event": "hook", "for": "banned", "key": "198.18.4.2", "seconds": 1\.[0-9]+, "timed_out": true, "exit": 137}' \
	"$WORK/g.events"

# --- (h) a user the system does not know
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --on-event "$WORK/g/ids.sh $WORK/g/out" \
	--on-event-user rw-no-such-user --duration 2s >"$WORK/h.out" 2>"$WORK/h.err"
rc=$?
cat "$WORK/h.err"
check "(h) --on-event-user rw-no-such-user: exit 2 (bad usage), not restarted by the unit ($rc)" test "$rc" -eq 2
check "(h) ... said in one line naming the user" \
	test "$(cat "$WORK/h.err")" = "ratewall: --on-event-user: no user 'rw-no-such-user' on this system"
check "(h) ... before anything was attached" sh -c "! grep -q 'attached to' '$WORK/h.err'"

finish
