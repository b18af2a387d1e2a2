#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --history FILE (SQLite) and `ratewall history`, read back with Python's
# sqlite3 module and the sqlite3 shell:
#  (a) the rows of every window equal the JSON report of the same run, window
#      by window (totals, each top row), and nothing else is there
#  (b) a source banned for 1 s that falls silent during its ban: every
#      `banned` has exactly one `unbanned` after it, in the events file and
#      in the database
#  (c) `history --sum` over the run equals the sum of its reports for the
#      keys listed in every window; --key and --json; bad arguments exit 2
#  (d) --persist: the loader killed with SIGKILL and started again (after
#      0.3 s, then after 3 s), then a --replace: no window twice; the restarted
#      loader reports at once, over every slot the kernel still holds, so no
#      slot is in no window when it was down less than a window, and no more
#      than the time down beyond a window otherwise (measured, printed)
#  (e) --history-keep and --history-max hold under a run that writes past both
#  (f) a corrupt, another version's, a read-only and a locked database: said
#      (and kept for `status`), while reports and enforcement go on; the
#      locked one is written again once free
#  (g) readers while the loader writes: `ratewall history` (list and --sum)
#      over and over and a reader that holds a read transaction for 1 s; every
#      read answers, and the loader writes every window on time, saying nothing
set -u
. "$(dirname "$0")/../lib.sh"

PIN_DIR=/sys/fs/bpf/rwtest_hist_$$
RO=$WORK/ro
trap 'umount "$RO" 2>/dev/null; cleanup' EXIT

tb_up "$(tb_name)" 1 || { fail "testbed"; finish; exit 1; }

# --- (a) (b) (c) one run: A over its limit, then silent while banned; B and C under it.
H=$WORK/a.db
start_ratewall "$WORK/a.json" --pps 1000 --json --top 5 --interval 500ms --ban 1s \
	--events "$WORK/a.events" --history "$H" --duration 6s || fail "(a) ratewall started"
gen --src 198.18.0.1 --rate 3000 --duration 800ms >/dev/null &
gen --src 198.18.0.2 --sources 2 --rate 1000 --duration 7s >/dev/null &
wait "$RW_PID"
check "(a) ratewall with --history exits 0" test $? -eq 0
wait

python3 - "$WORK/a.json" "$H" >"$WORK/a.cmp" 2>&1 <<'PY'
import json, sqlite3, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
db = sqlite3.connect(sys.argv[2])
bad = []
rows = {e: r for e, *r in db.execute(
    "SELECT epoch, packets, bytes, dropped, sketch_packets, flows FROM windows")}
if len(rows) != len(reports):
    bad.append(f"{len(rows)} windows for {len(reports)} reports")
for rep in reports:
    t = rep["totals"]
    want = [t["window_packets"], t["window_bytes"], t["window_dropped"],
            t["window_sketch_packets"], t["tracked_flows"]]
    got = rows.get(rep["epoch"])
    if got != want:
        bad.append(f"epoch {rep['epoch']}: totals {got} != report {want}")
    top = [[e["key"], e["packets"], e["bytes"], e["dropped"], e["dropped_bytes"],
            int(e["limited"]), int(e["banned"])] for e in rep["top"]]
    dbtop = [list(r) for r in db.execute(
        "SELECT key, packets, bytes, dropped, dropped_bytes, limited, banned FROM top"
        " WHERE epoch = ? AND kind = 'src' ORDER BY rank", (rep["epoch"],))]
    if dbtop != top:
        bad.append(f"epoch {rep['epoch']}: top {dbtop} != report {top}")
print(f"{len(reports)} reports, {len(rows)} windows compared")
print("\n".join(bad) if bad else "same")
PY
cat "$WORK/a.cmp"
check "(a) every window's rows equal its JSON report (totals, top rows), none more" \
	grep -qx same "$WORK/a.cmp"
check "(a) the limited source's rows say limited and banned" \
	test "$(sqlite3 "$H" "SELECT COUNT(*) FROM top WHERE key = '198.18.0.1' AND limited AND banned")" -ge 1

# Every banned followed by exactly one unbanned (the next banned, if any, after it).
paired() {
	python3 -c '
import sys
seq = sys.stdin.read().split()
depth, ok = 0, "banned" in seq
for e in seq:
    if e == "banned":
        ok = ok and depth == 0; depth += 1
    elif e == "unbanned":
        ok = ok and depth == 1; depth -= 1
print("paired" if ok and depth == 0 else "unpaired: " + " ".join(seq))'
}
grep '"198.18.0.1"' "$WORK/a.events" | sed 's/.*"event": "\([a-z_]*\)".*/\1/' | paired >"$WORK/b.file"
sqlite3 "$H" "SELECT event FROM events WHERE key = '198.18.0.1' ORDER BY epoch, seq" | paired >"$WORK/b.db"
echo "events file: $(cat "$WORK/b.file"); database: $(cat "$WORK/b.db")"
check "(b) a source silent through its ban: banned, then one unbanned (events file)" \
	grep -qx paired "$WORK/b.file"
check "(b) the same pairs in the database" grep -qx paired "$WORK/b.db"
check "(b) the loader said the unbanned (no packet came to end the ban)" \
	grep -q '"event": "unbanned", "kind": "src", "key": "198.18.0.1", "was_until"' "$WORK/a.events"

# (c) --sum over the whole run against the reports.
first=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["ts"] - 0.01)' "$WORK/a.json")
last=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["ts"] + 0.01)' "$WORK/a.json")
"$RW" history "$H" --sum --json --since "@$first" --until "@$last" >"$WORK/c.sum"
python3 - "$WORK/a.json" "$WORK/c.sum" >"$WORK/c.cmp" <<'PY'
import json, sys
reports = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
every = set.intersection(*[{e["key"] for e in r["top"]} for r in reports])
want = {k: [sum(e[f] for r in reports for e in r["top"] if e["key"] == k)
            for f in ("packets", "bytes", "dropped")] for k in every}
got = {e["key"]: [e["packets"], e["bytes"], e["dropped"]] for e in s["top"]}
bad = [f"{k}: sum {got.get(k)} != reports {v}" for k, v in want.items() if got.get(k) != v]
if s["windows"] != len(reports): bad.append(f"windows {s['windows']} != {len(reports)}")
if not every: bad.append("no key in every window")
if any(e["windows"] == len(reports) and e["missed_max"] != 0 for e in s["top"]):
    bad.append("a key in every list may have missed something")
print(f"{len(every)} keys in every window: " + (", ".join(bad) if bad else "equal"))
PY
cat "$WORK/c.cmp"
check "(c) history --sum equals the reports' sums for keys in every window" \
	grep -q ': equal$' "$WORK/c.cmp"
"$RW" history "$H" --key 198.18.0.2/32 --json >"$WORK/c.key"
check "(c) history --key keeps that key's rows only" \
	python3 -c 'import json,sys; ws=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not ws or any(e["key"] != "198.18.0.2" for w in ws for e in w["top"]) or not any(w["top"] for w in ws))' "$WORK/c.key"
"$RW" history "$H" --sum --top 2 >"$WORK/c.txt"
check "(c) history --sum as a table names the bound" grep -q "sent at most" "$WORK/c.txt"
"$RW" history "$H" --top 0 >/dev/null 2>"$WORK/c.err"
check "(c) history --top 0: exit 2, said" test $? -eq 2 -a -s "$WORK/c.err"
"$RW" history "$WORK/none.db" >/dev/null 2>"$WORK/c2.err"
check "(c) history of a missing file: exit 1, said" test $? -eq 1 -a -s "$WORK/c2.err"
ip netns exec "$TB_RCV" "$RW" run "$TB_RX" --history-keep 1h --duration 1s >/dev/null 2>"$WORK/c3.err"
check "(c) --history-keep without --history: exit 2, nothing attached" \
	bash -c "test $? -eq 2 && ! ip -n $TB_RCV -d link show dev $TB_RX | grep -q prog/xdp"

# --- (d) SIGKILL and restart with --persist (down 0.3 s, then 3 s), then --replace.
H=$WORK/d.db
OPTS=(--pps 1000 --json --interval 500ms --window 2s --slots 10 --history "$H")
gen --src 198.18.0.2 --sources 2 --rate 1000 --duration 12s >/dev/null &
GEN_PID=$!
start_persist "$WORK/d1.json" "$TB_RX" "${OPTS[@]}" || fail "(d) first loader"
downs=""
run=1
for down in 0.3 3; do
	run=$((run + 1))
	sleep 2
	kill -9 "$RW_PID"
	wait "$RW_PID" 2>/dev/null
	t_kill=$(date +%s.%N)
	sleep "$down"
	start_persist "$WORK/d$run.json" "$TB_RX" "${OPTS[@]}" || fail "(d) restarted"
	t_up=$(date +%s.%N)
	# Down from the killed loader's last report: what it had not reported
	# when it died (up to an interval) is as lost as the time it was down.
	t_last=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["ts"])' \
		"$WORK/d$((run - 1)).json" 2>/dev/null || echo "$t_kill")
	downs="$downs $(awk -v a="$t_last" -v b="$t_up" 'BEGIN { printf "%.2f", b - a }')"
	first_ts=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["ts"])' \
		"$WORK/d$run.json" 2>/dev/null || echo 0)
	check "(d) the loader restarted after ${down} s reported at once (before an interval passed)" \
		awk -v f="$first_ts" -v u="$t_up" 'BEGIN { exit !(f > 0 && f - u < 0.45) }'
done
sleep 1.5
stop_ratewall INT
start_persist "$WORK/d4.json" "$TB_RX" "${OPTS[@]/1000/2000}" --replace || fail "(d) --replace"
sleep 1.5
stop_ratewall INT
wait "$GEN_PID"
in_rcv "$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1
echo "loader down (last report to attached again):$downs s"
python3 - "$H" "$downs" "$WORK"/d[1-4].json >"$WORK/d.cmp" <<'PY'
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
downs = [float(d) for d in sys.argv[2].split()]
ep = [e for (e,) in db.execute("SELECT epoch FROM windows ORDER BY epoch")]
runs = [[json.loads(l)["epoch"] for l in open(f)] for f in sys.argv[3:]]
reports = sorted(e for r in runs for e in r)
bad = []
if len(ep) != len(set(ep)): bad.append("a window twice")
if reports != ep: bad.append(f"windows {ep} != reports {reports}")
# A window ending at slot E holds slots E-9..E (slots of 0.2 s): slots in no
# window between one loader's last report and the next one's first.
for i, down in enumerate(downs):
    missed = max(0, runs[i + 1][0] - runs[i][-1] - 10)
    # What the kernel could not hold: the time down beyond one window, in slots.
    bound = max(0, math.ceil((down - 2.0) / 0.2)) + 1
    print(f"down {down:.2f} s: {missed} slots in no window (the kernel held the last 10; bound {bound})")
    if missed > bound: bad.append(f"restart {i + 1}: {missed} slots missed > {bound}")
    if down < 1.5 and missed: bad.append(f"restart {i + 1}: down less than a window, yet a gap")
missed = max(0, runs[3][0] - runs[2][-1] - 10)
print(f"--replace: {missed} slots in no window")
if missed: bad.append("--replace left a gap")
print("\n".join(bad) if bad else "exact")
PY
cat "$WORK/d.cmp"
check "(d) SIGKILL twice and --replace: no window twice, every report kept, no gap past what the kernel lost" \
	grep -qx exact "$WORK/d.cmp"

# --- (e) retention, then the size cap, each in a run that writes past it.
H=$WORK/e1.db
start_ratewall "$WORK/e1.json" --pps 1M --json --top 20 --interval 250ms --duration 3s \
	--history "$H" --history-keep 1s || fail "(e) keep: started"
gen --sources 50 --rate 20000 --duration 3200ms >/dev/null &
wait "$RW_PID"
wait
read -r n oldest newest <<<"$(sqlite3 -separator ' ' "$H" "SELECT COUNT(*), MIN(ts), MAX(ts) FROM windows")"
echo "keep 1s: $(wc -l <"$WORK/e1.json") reports; kept $n windows over $(awk -v a="$oldest" -v b="$newest" 'BEGIN { printf "%.2f", b - a }') s"
check "(e) --history-keep 1s: windows deleted, none older than 1 s before the newest" \
	awk -v a="$oldest" -v b="$newest" -v n="$n" -v r="$(wc -l <"$WORK/e1.json")" \
	'BEGIN { exit !(b - a <= 1.0 && n < r && n >= 4) }'

H=$WORK/e2.db
start_ratewall "$WORK/e2.json" --pps 1M --json --top 1000 --interval 250ms --duration 4s \
	--history "$H" --history-max 1M --max-flows 4096 || fail "(e) cap: started"
gen --sources 2000 --rate 200000 --duration 4200ms >/dev/null &
wait "$RW_PID"
wait
read -r n rows <<<"$(sqlite3 -separator ' ' "$H" "SELECT COUNT(*), (SELECT COUNT(*) FROM top) FROM windows")"
size=$(( $(stat -c %s "$H") + $(stat -c %s "$H-wal" 2>/dev/null || echo 0) ))
reports=$(wc -l <"$WORK/e2.json")
echo "max 1M: $reports reports of 1000 keys; kept $n windows ($rows rows); file and log $size bytes"
check "(e) --history-max 1M: older windows deleted, the file and its log under 1 MiB" \
	bash -c "test $reports -gt $n && test $size -le 1048576 && test $rows -ge 1000"

# --- (f) databases that cannot be used: said, while reports and enforcement go on.
# bad_db CASE FILE NEEDLE [--persist]: a 2 s run over-limit; reports keep coming, drops happen.
bad_db() {
	local name=$1 file=$2 needle=$3 persist=${4:-}
	if [ -n "$persist" ]; then
		start_persist "$WORK/f$name.json" "$TB_RX" --pps 1000 --json --interval 250ms --history "$file" ||
			fail "(f) $name: started"
	else
		start_ratewall "$WORK/f$name.json" --pps 1000 --json --interval 250ms --duration 2s \
			--history "$file" || fail "(f) $name: started"
	fi
	gen --rate 3000 --duration 2s >/dev/null
	if [ -n "$persist" ]; then
		in_rcv "$RW" status --pin-dir "$PIN_DIR" >"$WORK/f$name.status"
		check "(f) $name: status shows the error" grep -q "$needle" "$WORK/f$name.status"
		stop_ratewall INT
		in_rcv "$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1
	else
		wait "$RW_PID"
	fi
	check "(f) $name: said on stderr" grep -q "$needle" "$WORK/f$name.json.err"
	check "(f) $name: reports went on, and drops" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(not (len(r) >= 6 and r[-2]["totals"]["window_dropped"] > 0))' "$WORK/f$name.json"
}
head -c 8192 /dev/urandom >"$WORK/junk.db"
bad_db corrupt "$WORK/junk.db" "not a usable database" persist
sqlite3 "$WORK/v9.db" "CREATE TABLE windows (x); PRAGMA application_id = 1381451852; PRAGMA user_version = 9"
bad_db version "$WORK/v9.db" "schema version 9"
mkdir -p "$RO" && mount -t tmpfs -o size=4m rwhist "$RO" && : >"$RO/h.db" &&
	mount -o remount,ro "$RO"
bad_db readonly "$RO/h.db" "readonly"
umount "$RO"

# Locked: another process holds the write lock for 1.5 s in the middle of a run.
# The run lasts 7 s: on a loaded machine the lock holder's Python took 2.5 s
# to start, and a 4 s run ended before the lock did (nothing to say "again").
H=$WORK/f.db
start_ratewall "$WORK/flock.json" --pps 1000 --json --interval 250ms --duration 7s --history "$H" ||
	fail "(f) locked: started"
gen --rate 3000 --duration 7s >/dev/null &
sleep 1
python3 -c 'import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE"); time.sleep(1.5); db.execute("COMMIT")' "$H"
wait "$RW_PID"
wait
reports=$(wc -l <"$WORK/flock.json")
windows=$(sqlite3 "$H" "SELECT COUNT(*) FROM windows")
echo "locked: $reports reports, $windows windows written"
check "(f) locked: said, and said that it writes again" \
	bash -c "grep -q 'another process holds it' '$WORK/flock.json.err' && grep -q 'writing again' '$WORK/flock.json.err'"
check "(f) locked: reports every tick; windows before and after the lock" \
	bash -c "test $reports -ge 26 && test $windows -ge 6 && test $windows -lt $reports"

# --- (g) readers beside the writer: WAL readers never stop a window being written.
H=$WORK/g.db
start_ratewall "$WORK/g.json" --pps 1000 --json --top 200 --interval 250ms --duration 4s \
	--history "$H" || fail "(g) started"
gen --sources 100 --rate 20000 --duration 4s >/dev/null &
sleep 0.6
python3 -c 'import sqlite3, sys, time
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, isolation_level=None)
db.execute("BEGIN"); db.execute("SELECT COUNT(*) FROM top").fetchone(); time.sleep(1.0)
db.execute("COMMIT")' "$H" &
reader=$!
reads=0 answered=0
end=$((SECONDS + 3))
while [ $SECONDS -lt $end ] && kill -0 "$RW_PID" 2>/dev/null; do
	reads=$((reads + 1))
	if [ $((reads % 2)) -eq 0 ]; then args=(--sum --json); else args=(--json); fi
	if "$RW" history "$H" "${args[@]}" >"$WORK/g.read" 2>"$WORK/g.read.err" && [ -s "$WORK/g.read" ]; then
		answered=$((answered + 1))
	else # what a read that did not answer said, for the report below
		{ echo "read $reads (${args[*]}) at ${SECONDS}s:"; cat "$WORK/g.read.err"; } >>"$WORK/g.unanswered"
	fi
done
wait "$reader"
long=$?
wait "$RW_PID"
wait
python3 - "$WORK/g.json" "$H" >"$WORK/g.cmp" <<'PY'
import json, sqlite3, sys
r = [json.loads(l) for l in open(sys.argv[1])]
db = sqlite3.connect(sys.argv[2])
epochs = sorted(e for (e,) in db.execute("SELECT epoch FROM windows"))
gap = max(b["ts"] - a["ts"] for a, b in zip(r, r[1:]))
tick = max(x["tick_ms"] for x in r)
print(len(r), len(epochs), f"{gap:.3f}", f"{tick:.1f}",
      "same" if epochs == sorted(x["epoch"] for x in r) else "differ")
PY
read -r reports windows gap tick same <"$WORK/g.cmp"
echo "     (g) $answered of $reads reads answered, the 1 s reader exit $long; $reports reports, $windows windows written ($same), largest report gap ${gap} s, slowest tick ${tick} ms"
# On a failure, what the unanswered reads and the loader said (once seen: 243 of 244 answered and a
# 1 s gap between reports while no tick took 1 ms, in one fresh-clone run of three; not seen alone).
[ -s "$WORK/g.unanswered" ] && sed 's/^/     (g) /' "$WORK/g.unanswered"
grep history "$WORK/g.json.err" | sed 's/^/     (g) loader: /'
check "(g) every read while the loader writes answers" \
	bash -c "test $reads -ge 5 && test $answered -eq $reads && test $long -eq 0"
check "(g) ... and the loader writes every window, on time, saying nothing" \
	bash -c "test '$same' = same && test $reports -ge 14 && ! grep -q history '$WORK/g.json.err' &&
		awk -v g=$gap -v t=$tick 'BEGIN { exit !(g <= 0.4 && t <= 100) }'"

finish
