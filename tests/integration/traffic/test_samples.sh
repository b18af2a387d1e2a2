#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --samples DIR (issue 47): (a) a flood from one banned source yields one pcap
# that tshark decodes with the flood's addresses and ports and tcpdump reads:
# at most 64 frames, each cut to 256 bytes with its true length, named in the
# events' JSON and the --on-event command's input; (b) 1 000 banned sources in 10 s leave at most --samples-max
# on disk, what did not fit counted, and every tick on time; (c) a flood of
# sources under their limit, or dropped by a deny rule, has nothing copied
# (the data path's count stays 0); (e) a /24 of 200 light sources, heavy under
# --levels v4:24, yields one pcap of 64 frames offered from inside it, named in
# the heavy event, (f) and so by a loader that adopted its pinned instance;
# (d) --samples to a file or an unwritable directory,
# --samples-max 0 or garbage: one clear line, exit 2, nothing attached; (g) a
# --persist instance adopted by a new loader: its report's copied is the
# program's (the frames its first loader saw copied, and on), not 0.
set -u
. "$(dirname "$0")/../lib.sh"

tb_up "$(tb_name)" || { fail "testbed"; finish; exit 1; }

# last JSON EXPR: EXPR of the last report in JSON (r: the report).
last() { python3 -c "import json, sys; r = [json.loads(l) for l in open(sys.argv[1])][-1]; print($2)" "$1"; }

# --- (a) one banned source -------------------------------------------------------
mkdir "$WORK/a"
start_ratewall "$WORK/a.json" --pps 100 --ban 60s --samples "$WORK/a" --json --interval 500ms \
	--events "$WORK/a.ev" --on-event "cp /dev/stdin $WORK/a.hook" --on-event-kinds banned \
	|| { fail "(a) ratewall starts"; finish; exit 1; }
gen --src 198.18.0.7 --dst 198.19.0.9 --sport 4321 --dport 53 --size 400 --count 2000 \
	--rate 4000 --duration 5s >"$WORK/a.gen"
sleep 1.2 # a tick drains the ring and closes the file
stop_ratewall INT
files=("$WORK"/a/*.pcap)
check "(a) one pcap for one banned source (${#files[@]}: $(basename -a "${files[@]}" | tr '\n' ' '))" \
	test "${#files[@]}" -eq 1 -a -s "${files[0]}"
f=${files[0]}
tshark -r "$f" -T fields -e ip.src -e ip.dst -e udp.srcport -e udp.dstport -e frame.len \
	-e frame.cap_len >"$WORK/a.fields" 2>"$WORK/a.tshark.err"
n=$(wc -l <"$WORK/a.fields")
echo "     tshark: $n frames, $(sort "$WORK/a.fields" | uniq -c | head -n 3 | tr '\t\n' ' ')"
check "(a) tshark -r decodes 1 to 64 frames, every one 198.18.0.7:4321 -> 198.19.0.9:53" \
	eval '[ "$n" -ge 1 ] && [ "$n" -le 64 ] && ! grep -qv "^198.18.0.7	198.19.0.9	4321	53	" "$WORK/a.fields"'
check "(a) each frame 256 bytes captured of its 400" \
	eval '! awk -F"\t" "\$5 != 400 || \$6 != 256" "$WORK/a.fields" | grep -q .'
check "(a) tcpdump -r reads it, nanosecond times, snapshot length 256" \
	eval 'tcpdump -nn --time-stamp-precision=nano -r "$f" 2>"$WORK/a.td.err" | grep -qE "^[0-9:]+\.[0-9]{9} IP 198.18.0.7.4321 > 198.19.0.9.53" && grep -q "snapshot length 256" "$WORK/a.td.err"'
check "(a) the limited and banned events name the file (\"sample\")" \
	test "$(grep -cF "\"sample\": \"$(basename "$f")\"" "$WORK/a.ev")" -eq 2
check "(a) the --on-event command's input names it too" \
	grep -qF "\"sample\": \"$(basename "$f")\"" "$WORK/a.hook"
check "(a) the report counts the frames written, none lost" \
	test "$(last "$WORK/a.json" "r['samples']['frames'] == $n, r['samples']['lost'], r['samples']['files']")" = "True 0 1"

# --- (b) 1 000 banned sources in 10 s, under a 1 MiB bound -----------------------
mkdir "$WORK/b"
start_ratewall "$WORK/b.json" --pps 5 --burst window --ban 60s --samples "$WORK/b" \
	--samples-max 1M --json --interval 500ms || { fail "(b) ratewall starts"; finish; exit 1; }
gen --src 198.18.1.0 --sources 1000 --size 300 --count 100000 --rate 10000 --duration 15s \
	>"$WORK/b.gen"
sleep 1.2
stop_ratewall INT
bytes=$(du -cb "$WORK"/b/*.pcap | tail -n 1 | cut -f 1)
nfiles=$(ls "$WORK"/b/*.pcap | wc -l)
python3 - "$WORK/b.json" >"$WORK/b.ticks" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
s = rs[-1]["samples"]
print(len(rs), max(r["tick_ms"] for r in rs), s["files"], s["removed"], s["frames"], s["not_written"], s["lost"], s["bytes"])
PY
read -r reports tick_max made removed frames unwritten lost rbytes <"$WORK/b.ticks"
echo "     $(sent_of "$WORK/b.gen") sent; $made files made, $removed removed, $nfiles left ($bytes bytes); $frames frames written, $unwritten not written, $lost lost; $reports reports, slowest tick $tick_max ms"
check "(b) DIR holds at most --samples-max (1 MiB): $bytes bytes" at_most "$bytes" 1048576
check "(b) the bound removed the oldest (made $made > left $nfiles, removed $removed)" \
	test "$removed" -gt 0 -a "$made" -eq $((nfiles + removed))
check "(b) the report's bytes are DIR's ($rbytes)" test "$rbytes" -eq "$bytes"
# A file removed for the bound is not made again by its key's later frames.
check "(b) one file at most a banned source: $made made for 1000" test "$made" -le 1000
check "(b) every tick on time: the slowest took $tick_max ms of 500" at_most "$tick_max" 250
check "(b) a report every 500 ms through the flood ($reports)" test "$reports" -ge 20

# --- (c) under the limit: nothing copied -----------------------------------------
mkdir "$WORK/c"
start_ratewall "$WORK/c.json" --pps 100000 --ban 60s --samples "$WORK/c" --json --interval 500ms \
	|| { fail "(c) ratewall starts"; finish; exit 1; }
gen --src 198.18.2.0 --sources 10 --count 20000 --rate 10000 --duration 5s >"$WORK/c.gen"
sleep 1.2
stop_ratewall INT
check "(c) $(sent_of "$WORK/c.gen") frames of 10 sources under their limit: none copied, no file" \
	test "$(last "$WORK/c.json" "r['samples']['copied'], r['samples']['frames'], r['totals']['dropped'] if 'dropped' in r['totals'] else 0")/$(ls "$WORK/c" | wc -l)" = "0 0 0/0"

# ... nor for dropped keys that never turned limited: a deny rule's.
echo "198.18.3.0/24 deny" >"$WORK/deny.rules"
start_ratewall "$WORK/c2.json" --pps 100000 --rules "$WORK/deny.rules" --samples "$WORK/c" \
	--json --interval 500ms || { fail "(c) ratewall starts with a deny rule"; finish; exit 1; }
gen --src 198.18.3.1 --sources 10 --count 20000 --rate 10000 --duration 5s >"$WORK/c2.gen"
sleep 1.2
stop_ratewall INT
check "(c) $(sent_of "$WORK/c2.gen") frames a deny rule dropped: none copied, no file" \
	test "$(last "$WORK/c2.json" "r['samples']['copied'], r['samples']['frames'], r['totals']['dropped'] > 10000")/$(ls "$WORK/c" | wc -l)" = "0 0 True/0"

# --- (e) a heavy prefix of light sources ----------------------------------------
# 200 sources of one /24, each far under its limit (nothing dropped): the /24
# turns heavy under --levels v4:24, and its next 64 frames offered are copied.
mkdir "$WORK/e"
start_ratewall "$WORK/e.json" --pps 1000 --levels v4:24 --samples "$WORK/e" --json \
	--interval 500ms --events "$WORK/e.ev" --on-event "cp /dev/stdin $WORK/e.hook" \
	--on-event-kinds heavy || { fail "(e) ratewall starts"; finish; exit 1; }
gen --src 198.18.4.1 --sources 200 --size 300 --count 6000 --rate 2000 --duration 4s >"$WORK/e.gen"
sleep 1.2
stop_ratewall INT
files=("$WORK"/e/*.pcap)
heavy=$(grep '"event": "heavy"' "$WORK/e.ev" | grep -F '"key": "198.18.4.0/24"' | head -n 1)
named=$(printf '%s' "$heavy" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("sample", ""))' 2>/dev/null)
echo "     $(sent_of "$WORK/e.gen") sent; heavy: ${heavy:-none}; files: $(ls "$WORK/e" | tr '\n' ' ')"
check "(e) one pcap for the heavy /24 (${#files[@]})" test "${#files[@]}" -eq 1 -a -s "${files[0]}"
check "(e) the heavy event names it (\"sample\": ${named:-none})" \
	test -n "$named" -a "$named" = "$(basename "${files[0]}")"
check "(e) ... a name of the prefix, its '/' made safe" eval '[[ "$named" == *-198.18.4.0_24.pcap ]]'
check "(e) the --on-event command's input names it too" grep -qF "\"sample\": \"$named\"" "$WORK/e.hook"
tshark -r "${files[0]}" -T fields -e ip.src >"$WORK/e.fields" 2>"$WORK/e.tshark.err"
n=$(wc -l <"$WORK/e.fields")
srcs=$(sort -u "$WORK/e.fields" | wc -l)
echo "     tshark: $n frames from $srcs sources, e.g. $(head -n 3 "$WORK/e.fields" | tr '\n' ' ')"
check "(e) tshark -r decodes 64 frames, every source inside 198.18.4.0/24 ($n, $srcs sources)" \
	eval '[ "$n" -eq 64 ] && ! grep -qv "^198\.18\.4\.[0-9]*$" "$WORK/e.fields" && [ "$srcs" -gt 1 ]'
check "(e) offered frames, none dropped; counted in the report's samples" \
	test "$(last "$WORK/e.json" "r['samples']['frames'], r['samples']['files'], r['samples']['lost'], r['totals'].get('dropped', 0)")" = "64 1 0 0"

# --- (f) ... by a loader that adopted its pinned instance ------------------------
# The count of armed prefixes is the program's: a restarted loader reaches the
# adopted program's own (its .bss) to arm the /24.
PIN_DIR=/sys/fs/bpf/rwsamples$$
mkdir "$WORK/f"
start_persist "$WORK/f1.json" "$TB_RX" --pps 1000 --levels v4:24 --samples "$WORK/f" \
	--json --interval 500ms --events "$WORK/f.ev" || { fail "(f) a pinned ratewall starts"; finish; exit 1; }
kill -9 "$RW_PID"
wait "$RW_PID" 2>/dev/null
start_persist "$WORK/f.json" "$TB_RX" --pps 1000 --levels v4:24 --samples "$WORK/f" \
	--json --interval 500ms --events "$WORK/f.ev" || { fail "(f) ratewall adopts"; finish; exit 1; }
gen --src 198.18.5.1 --sources 200 --size 300 --count 6000 --rate 2000 --duration 4s >"$WORK/f.gen"
sleep 1.2
stop_ratewall TERM
files=("$WORK"/f/*.pcap)
named=$(grep '"event": "heavy"' "$WORK/f.ev" | grep -F '"key": "198.18.5.0/24"' | head -n 1 |
	python3 -c 'import json, sys; print(json.load(sys.stdin).get("sample", ""))' 2>/dev/null)
n=$(tshark -r "${files[0]}" -T fields -e ip.src 2>/dev/null | grep -c '^198\.18\.5\.')
check "(f) adopted: one pcap for the heavy /24, named in its event, 64 frames from inside it ($(basename -a "${files[@]}"), $n)" \
	eval '[ "${#files[@]}" -eq 1 ] && [ "$named" = "$(basename "${files[0]}")" ] && [ "$n" -eq 64 ]'
check "(f) adopted: the loader said nothing of the count (no error)" \
	eval '! grep -q "sampled prefixes" "$WORK/f.json.err"'
"$RW" stop --all --pin-dir "$PIN_DIR" >/dev/null 2>&1

# --- (d) bad input ---------------------------------------------------------------
touch "$WORK/file"
# refused ARGS... : exit 2, one line naming the option, nothing attached.
refused() {
	local what=$1
	shift
	in_rcv "$RW" run "$TB_RX" --pps 100 "$@" >"$WORK/d.out" 2>"$WORK/d.err"
	local rc=$?
	check "(d) $what: exit 2 ($rc), one line: $(head -c 120 "$WORK/d.err")" \
		eval '[ "$rc" -eq 2 ] && [ "$(wc -l <"$WORK/d.err")" -eq 1 ] && grep -q -- "--samples" "$WORK/d.err" && ! xdp_attached "$TB_RCV" "$TB_RX"'
}
refused "--samples to a file" --samples "$WORK/file"
refused "--samples to a directory not there" --samples "$WORK/none"
refused "--samples to an unwritable directory (/proc)" --samples /proc
refused "--samples-max 0" --samples "$WORK/c" --samples-max 0
refused "--samples-max garbage" --samples "$WORK/c" --samples-max lots

# --- (g) adopted: the program's counts, not the loader's ------------------------
mkdir "$WORK/g"
start_persist "$WORK/g1.json" "$TB_RX" --pps 100 --ban 60s --samples "$WORK/g" --json --interval 500ms ||
	fail "(g) ratewall --persist starts"
gen --src 198.18.0.8 --count 2000 --rate 4000 --duration 5s >"$WORK/g.gen"
sleep 1.2
stop_ratewall INT
copied1=$(last "$WORK/g1.json" "r['samples']['copied']")
start_persist "$WORK/g2.json" "$TB_RX" --pps 100 --ban 60s --samples "$WORK/g" --json --interval 500ms ||
	fail "(g) a second loader adopts it"
sleep 1.2
stop_ratewall INT
copied2=$(last "$WORK/g2.json" "r['samples']['copied']")
check "(g) the first loader copied frames ($copied1); the adopting loader reads the program's count ($copied2)" \
	eval '[ "${copied1:-0}" -ge 1 ] && [ "${copied2:-0}" -ge "$copied1" ]'
finish
