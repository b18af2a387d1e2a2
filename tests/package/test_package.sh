#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Debian package on this machine, from build to purge (make test-package;
# root): `make deb` builds it and lintian finds no error (and does find one
# in a copy without its copyright file); each file is in its Debian place
# and nothing else is there; apt-get installs it; systemd-analyze verifies the
# installed unit; the installed /usr/sbin/ratewall runs the unit's own
# ExecStart on a namespace testbed (its configuration in /etc/ratewall from
# the shipped example, its history in /var/lib/ratewall, pinned) and reports
# the generator's sources; the shell completion is the binary's; a
# reinstall (an upgrade's scripts) leaves the pinned instance enforcing (the
# testbed's interface has a '-' in its name: the instance's is escaped, %I
# its name). ExecStart again with only the unit's capabilities: the program
# loads and attaches, a hook runs as --on-event-user nobody and is killed at
# its timeout. postinst try-restarts running instances on an upgrade, not on
# a first install. Purge
# leaves nothing: no path the package listed (but directories other
# packages own), no /etc/ratewall nor /var/lib/ratewall, no enabled
# instance's link, no pinned instance, no XDP program on the interface.
#
# It refuses to start, and says why, when a ratewall package is installed,
# or /usr/sbin/ratewall, /etc/ratewall, /var/lib/ratewall or an instance
# pinned in /sys/fs/bpf/ratewall is there: none of those is its own, and the
# purge it runs would take them. On exit, failure included, it purges what
# it installed and removes its namespaces.
# Usage: tests/package/test_package.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "the package test needs root (apt-get, BPF, namespaces); run: sudo make test-package" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
export BUILD
# Every ratewall command below is the installed one.
export RW_BIN=/usr/sbin/ratewall
# shellcheck source=../integration/lib.sh
. "$ROOT/tests/integration/lib.sh"

PIN_ROOT=/sys/fs/bpf/ratewall
UNIT=/lib/systemd/system/ratewall@.service
VERSION=$(sed -n 's/^#define RATEWALL_VERSION "\(.*\)"/\1/p' "$ROOT/user/cli/version.h")
DEB=$BUILD/ratewall_${VERSION}_$(dpkg --print-architecture).deb
export DEBIAN_FRONTEND=noninteractive

refuse() {
	echo "test_package: $*; not starting" >&2
	echo "0 passed, 1 failed"
	exit 1
}
status=$(dpkg-query -W -f='${db:Status-Status}' ratewall 2>/dev/null)
case "$status" in
"" | not-installed) ;;
*) refuse "a ratewall package this test did not install is here (status $status): apt-get purge ratewall first" ;;
esac
for p in /usr/sbin/ratewall /etc/ratewall /var/lib/ratewall; do
	[ ! -e "$p" ] || refuse "$p is there and is not this test's (the purge would remove it)"
done
if [ -n "$(ls -A "$PIN_ROOT" 2>/dev/null)" ]; then
	refuse "instances are pinned in $PIN_ROOT ($(ls -A "$PIN_ROOT" | tr '\n' ' ')): the package's removal would stop them"
fi

INSTALLED=""
package_cleanup() {
	if [ -n "$INSTALLED" ] && dpkg-query -W -f='${db:Status-Status}' ratewall 2>/dev/null | grep -qv not-installed; then
		echo "test_package: purging the package it installed"
		apt-get purge -y ratewall >"$WORK/cleanup-purge.log" 2>&1 || cat "$WORK/cleanup-purge.log"
	fi
	cleanup
	# What a failed purge may have left; nothing here was there before.
	if [ -n "$INSTALLED" ]; then
		rm -rf "${PIN_ROOT:?}/${TB_RX:-none}" /etc/ratewall /var/lib/ratewall
		rm -f /etc/systemd/system/*.wants/ratewall@*.service
		rmdir "$PIN_ROOT" 2>/dev/null
	fi
}
trap package_cleanup EXIT

# 1. The build and lintian. `make deb` fails on a lintian error; its report
# stays in build/deb/lintian.txt.
t0=$SECONDS
make --no-print-directory -C "$ROOT" BUILD="$BUILD" deb >"$WORK/deb.log" 2>&1
rc=$?
grep '^lintian: ' "$WORK/deb.log"
[ "$rc" -eq 0 ] || tail -n 30 "$WORK/deb.log"
check "make deb builds $(basename "$DEB") ($((SECONDS - t0)) s)" test "$rc" -eq 0 -a -s "$DEB"
[ -s "$DEB" ] || { finish; exit 1; }
errors=$(grep -c '^E:' "$BUILD/deb/lintian.txt")
check "lintian: no error ($errors; $(grep -c '^W:' "$BUILD/deb/lintian.txt") warnings)" test "$errors" -eq 0
# Control: the same lintian run fails on a copy without its copyright file.
dpkg-deb -R "$DEB" "$WORK/broken" && rm "$WORK/broken/usr/share/doc/ratewall/copyright" &&
	sed -i '/doc\/ratewall\/copyright/d' "$WORK/broken/DEBIAN/md5sums" &&
	dpkg-deb -b "$WORK/broken" "$WORK/broken.deb" >/dev/null 2>&1
lintian --fail-on error "$WORK/broken.deb" >"$WORK/broken.lintian" 2>&1
rc=$?
check "control: lintian fails a copy without copyright ($(grep -c '^E:' "$WORK/broken.lintian") errors, exit $rc)" \
	test "$rc" -ne 0 -a -s "$WORK/broken.lintian"

# 2. The contents: each file in its place, nothing else.
dpkg-deb -c "$DEB" >"$WORK/contents"
awk '$1 !~ /^d/ { print substr($6, 2) }' "$WORK/contents" | sort >"$WORK/files"
cat >"$WORK/want" <<EOF
/lib/systemd/system/ratewall@.service
/usr/lib/ratewall/ratewall-gobgp
/usr/lib/ratewall/rwgobgp/attribute_pb2.py
/usr/lib/ratewall/rwgobgp/capability_pb2.py
/usr/lib/ratewall/rwgobgp/gobgp_pb2.py
/usr/sbin/ratewall
/usr/share/bash-completion/completions/ratewall
/usr/share/doc/ratewall/README.md.gz
/usr/share/doc/ratewall/changelog.gz
/usr/share/doc/ratewall/copyright
/usr/share/doc/ratewall/examples/ratewall.conf.example
/usr/share/man/man8/ratewall.8.gz
/usr/share/ratewall/grafana/ratewall-dashboard.json
/usr/share/ratewall/prometheus/ratewall.rules.yml
/usr/share/zsh/vendor-completions/_ratewall
EOF
sort -o "$WORK/want" "$WORK/want"
while read -r f; do
	check "the package holds $f" grep -qxF "$f" "$WORK/files"
done <"$WORK/want"
extra=$(comm -23 "$WORK/files" "$WORK/want" | tr '\n' ' ')
check "and nothing else (no /etc, no /var: made at run time)${extra:+: $extra}" test -z "$extra"
check "the binary is executable" grep -q '^-rwxr-xr-x .* ./usr/sbin/ratewall$' "$WORK/contents"
check "so is --bgp's session helper" grep -q '^-rwxr-xr-x .* ./usr/lib/ratewall/ratewall-gobgp$' "$WORK/contents"
check "its version is user/cli/version.h's ($VERSION)" test "$(dpkg-deb -f "$DEB" Version)" = "$VERSION"
depends=$(dpkg-deb -f "$DEB" Depends)
missing=""
for d in libbpf1 libmicrohttpd12 libncursesw6 libsqlite3-0 procps; do
	grep -qE "(^|, )$d( |,|$)" <<<"$depends" || missing="$missing $d"
done
check "it depends on libbpf, libmicrohttpd, ncurses, SQLite and procps${missing:+ (missing:$missing)}: $depends" \
	test -z "$missing"

# 3. Installed as operators would.
INSTALLED=1
apt-get install -y "$DEB" >"$WORK/install.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$WORK/install.log"
check "apt-get install ./$(basename "$DEB") exits 0" test "$rc" -eq 0
check "dpkg says it is installed" sh -c "dpkg -s ratewall | grep -qx 'Status: install ok installed'"
check "the installed ratewall is $VERSION" test "$("$RW" version)" = "ratewall $VERSION"
enabled=$(ls /etc/systemd/system/*.wants/ratewall@* 2>/dev/null)
check "installing enables no instance${enabled:+: $enabled}" test -z "$enabled"
check "man finds ratewall(8)" test "$(man -w ratewall 2>/dev/null)" = /usr/share/man/man8/ratewall.8.gz

out=$(systemd-analyze verify "$UNIT" 2>&1)
check "systemd-analyze verify $UNIT: exit 0, nothing said${out:+: $out}" test $? -eq 0 -a -z "$out"
# A '-' in the interface's name: the unit must use %I for the name, %i for the device unit.
tb_up "rw-$(($$ % 100000))" 1 || { fail "testbed"; finish; exit 1; }
INSTANCE="ratewall@$(systemd-escape "$TB_RX").service"
# --bgp's helper finds GoBGP's messages where the package put them: it starts,
# and asked about a speaker that is not there, answers with an error (the
# port is one nothing listens on in a namespace of its own).
helper=$(ip netns exec "$TB_RCV" sh -c 'echo ping | /usr/lib/ratewall/ratewall-gobgp 127.0.0.1:9' 2>&1 | paste -sd '|')
check "the installed session helper starts and answers (${helper})" \
	eval "case '$helper' in 'ready|error '*) true ;; *) false ;; esac"
cp "$UNIT" "$WORK/$INSTANCE"
out=$(systemd-analyze verify "$WORK/$INSTANCE" 2>&1)
check "... and its instance $INSTANCE${out:+: $out}" test $? -eq 0 -a -z "$out"

"$RW" completion bash | cmp -s - /usr/share/bash-completion/completions/ratewall
check "the bash completion installed is what the binary prints" test $? -eq 0
"$RW" completion zsh | cmp -s - /usr/share/zsh/vendor-completions/_ratewall
check "the zsh completion installed is what the binary prints" test $? -eq 0
out=$(bash -c '. /usr/share/bash-completion/completions/ratewall && complete -p ratewall' 2>&1)
check "sourcing it registers _ratewall for ratewall${out:+: $out}" test "$out" = "complete -F _ratewall ratewall"

# 4. The unit's ExecStart for the instance of the testbed's interface, run
# where that interface is: the shipped example as its configuration, with a
# history in the state directory the unit's StateDirectory= makes.
exec_start=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed "s/%I/$TB_RX/g")
check "the unit runs the installed binary: $exec_start" test "${exec_start%% *}" = /usr/sbin/ratewall
mkdir -p /etc/ratewall /var/lib/ratewall
{
	cat /usr/share/doc/ratewall/examples/ratewall.conf.example
	echo "history = /var/lib/ratewall/$TB_RX.db"
	echo "json"
} >"/etc/ratewall/$TB_RX.conf"
systemctl enable "$INSTANCE" >"$WORK/enable.log" 2>&1
check "systemctl enable $INSTANCE links the instance" \
	test -L "/etc/systemd/system/multi-user.target.wants/$INSTANCE"
# shellcheck disable=SC2086 # the unit's command line, split as systemd splits it
nsenter --net="/run/netns/$TB_RCV" $exec_start >"$WORK/run.json" 2>"$WORK/run.err" &
RW_PID=$!
wait_attached "$WORK/run.err" || fail "ratewall starts with the unit's command line"
gen --sources 3 --count 3000 --rate 3k --per-source >"$WORK/gen.json" 2>"$WORK/gen.err" ||
	fail "the generator runs: $(cat "$WORK/gen.err")"
sleep 1.5
stop_ratewall TERM
check "ratewall exits 0 on SIGTERM, as systemctl stop ends it" test $? -eq 0
python3 - "$WORK/gen.json" "$WORK/run.json" <<'PY'
import json, sys
gen = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
seen = {e["key"]: e["packets"] for l in lines for e in l["top"]}
want = gen["per_source"]
ok = bool(lines) and all(seen.get(k, 0) > 0 for k in want) and lines[-1]["totals"]["rx_packets"] == gen["sent"]
print(f"JSON lines {len(lines)}, sources {sorted(seen)} (sent to {sorted(want)}),"
      f" rx_packets {lines[-1]['totals']['rx_packets'] if lines else None} (sent {gen['sent']})")
sys.exit(0 if ok else 1)
PY
check "its JSON shows each source the generator sent from, and every packet it sent" test $? -eq 0
check "its history is in /var/lib/ratewall/$TB_RX.db" test -s "/var/lib/ratewall/$TB_RX.db"
check "the instance stays pinned in $PIN_ROOT/$TB_RX and enforcing" \
	sh -c "test -d '$PIN_ROOT/$TB_RX' && ip -n '$TB_RCV' -d link show dev '$TB_RX' | grep -q prog/xdp"
# An upgrade (here the same version again) leaves enforcement alone: only
# removal stops it.
apt-get install --reinstall -y "$DEB" >"$WORK/reinstall.log" 2>&1
rc=$?
check "apt-get install --reinstall exits 0 and the instance is still pinned and enforcing" \
	sh -c "test $rc -eq 0 && test -d '$PIN_ROOT/$TB_RX' && ip -n '$TB_RCV' -d link show dev '$TB_RX' | grep -q prog/xdp"

# 4b. The unit's capabilities: systemd is not PID 1 on every test host (here
# it is not), so the unit's ExecStart runs again under what of the unit a
# process can take on itself, the installed unit's CapabilityBoundingSet and
# NoNewPrivileges (setpriv), from nothing pinned: the program is loaded,
# pinned and attached with those capabilities alone, and a hook runs as
# --on-event-user nobody and, hung, is killed at its timeout (CAP_KILL).
in_rcv "$RW" stop "$TB_RX" >"$WORK/stop.log" 2>&1
check "ratewall stop $TB_RX: nothing pinned, so the next run loads the program afresh" \
	test ! -e "$PIN_ROOT/$TB_RX"
bset=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr ' ' '\n' | sed -n 's/^CAP_\(.*\)/+\L\1/p' | paste -sd,)
check "the unit sets CapabilityBoundingSet ($bset) and NoNewPrivileges" \
	sh -c "test -n '$bset' && grep -qx NoNewPrivileges=yes '$UNIT'"
# A hook that says who it runs as (its stderr is ratewall's) and then hangs.
cat >"/etc/ratewall/$TB_RX.conf" <<EOF
pps = 100
ban = 10s
history = /var/lib/ratewall/$TB_RX.db
on-event = sh -c 'id >&2; exec sleep 30'
on-event-kinds = banned
on-event-timeout = 1s
on-event-user = nobody
EOF
# shellcheck disable=SC2086 # the unit's command line, split as systemd splits it
nsenter --net="/run/netns/$TB_RCV" setpriv --bounding-set "-all,$bset" --no-new-privs -- \
	$exec_start >/dev/null 2>"$WORK/bset.err" &
RW_PID=$!
wait_attached "$WORK/bset.err" || fail "ratewall starts with only the unit's capabilities"
check "... it runs with only those ($(grep CapEff "/proc/$RW_PID/status" | cut -f2))" \
	test "$(grep CapBnd "/proc/$RW_PID/status" | cut -f2)" = \
	"$(setpriv --bounding-set "-all,$bset" -- grep CapBnd /proc/self/status | cut -f2)"
check "... loaded, pinned and attached the program" \
	sh -c "test -d '$PIN_ROOT/$TB_RX' && ip -n '$TB_RCV' -d link show dev '$TB_RX' | grep -q prog/xdp"
gen --src 198.18.0.7 --rate 1000 --count 500 >/dev/null 2>&1
# said TEXT: ratewall's stderr says TEXT within 5 s.
said() {
	for _ in $(seq 50); do
		grep -qF -- "$1" "$WORK/bset.err" && return 0
		sleep 0.1
	done
	return 1
}
check "a banned source's hook ran as nobody" said "uid=$(id -u nobody)(nobody) gid=$(id -g nobody)"
check "... and, hung, it was killed at its 1 s timeout" said "--on-event: killed after 1."
stop_ratewall TERM
check "ratewall exits 0 on SIGTERM" test $? -eq 0
[ "$FAILED" -eq 0 ] || cat "$WORK/bset.err"

# 4c. On an upgrade postinst try-restarts the running instances, and not on
# a first install: the installed postinst, run where it sees a systemd (its
# own /run in a mount namespace of its own), with systemctl and
# deb-systemd-invoke that only write down what they are asked.
mkdir -p "$WORK/stubs"
for tool in systemctl deb-systemd-invoke; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/asked"\n' "$tool" "$WORK" >"$WORK/stubs/$tool"
	chmod 755 "$WORK/stubs/$tool"
done
postinst() {
	: >"$WORK/asked"
	unshare --mount --propagation private sh -c 'mount -t tmpfs rwpkg /run && mkdir -p /run/systemd/system &&
		PATH="$0:$PATH" sh /var/lib/dpkg/info/ratewall.postinst "$@"' "$WORK/stubs" "$@" >/dev/null 2>&1
	paste -sd';' "$WORK/asked"
}
asked=$(postinst configure "$VERSION")
check "postinst configure $VERSION (an upgrade): try-restart of every running instance ($asked)" \
	grep -qxF "deb-systemd-invoke try-restart ratewall@*.service" "$WORK/asked"
asked=$(postinst configure)
check "postinst configure (a first install): nothing restarted ($asked)" \
	test "$asked" = "systemctl --system daemon-reload"

# 4d. The README's deploy path, each command as written there (the block
# under "Deploy, step by step"), on the testbed's interface for eth1. The
# commands systemd would run are run as it would: enable links the instance,
# and its start runs the installed unit's ExecStart where the interface is
# (systemd is not PID 1 on every test host); ratewall commands run in the
# receiver's network namespace. A command this does not know fails the check,
# so the README cannot grow a step nobody ran.
in_rcv "$RW" stop "$TB_RX" >"$WORK/stop.log" 2>&1
rm -rf /etc/ratewall
python3 - "$ROOT/README.md" >"$WORK/deploy.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"^## Deploy, step by step\n.*?^```sh\n(.*?)^```", text, re.S | re.M)
for line in (block.group(1) if block else "").splitlines():
    print(re.sub(r"\s+# .*$", "", line))
PY
check "the README has a deploy block ($(wc -l <"$WORK/deploy.sh") commands)" test -s "$WORK/deploy.sh"
unit_start() {
	exec_start=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed "s/%[iI]/$TB_RX/g")
	# shellcheck disable=SC2086 # the unit's command line, split as systemd splits it
	nsenter --net="/run/netns/$TB_RCV" $exec_start >/dev/null 2>>"$WORK/deploy.err" &
	RW_PID=$!
	wait_attached "$WORK/deploy.err"
}
unit_stop() { stop_ratewall TERM; }
# step CMD: one command of the block, eth1 being the testbed's interface.
step() {
	local cmd=${1//eth1/$TB_RX} unit="ratewall@$TB_RX"
	case "$cmd" in
	"ratewall run $TB_RX "*--dry-run*)
		# shellcheck disable=SC2086
		in_rcv timeout -s INT 4 ${cmd} >"$WORK/dryrun.out" 2>"$WORK/dryrun.err" &
		local pid=$!
		sleep 1
		gen --src 198.18.0.9 --rate 100k --count 150000 >/dev/null 2>&1
		wait "$pid" ;;
	"systemctl enable --now $unit") systemctl enable "$unit" >/dev/null 2>&1 && unit_start ;;
	"ratewall status") in_rcv "$RW" status >"$WORK/status.txt" ;;
	*"&& systemctl restart $unit") eval "${cmd%% && systemctl restart*}" && unit_stop && unit_start ;;
	"systemctl disable --now $unit && ratewall stop $TB_RX")
		systemctl disable "$unit" >/dev/null 2>&1 && unit_stop && in_rcv "$RW" stop "$TB_RX" >/dev/null ;;
	"mkdir "* | "cp "*) eval "$cmd" ;;
	*) echo "deploy: no way to run '$cmd'" >&2; return 1 ;;
	esac
}
# flood_dropped: what the instance dropped of a source at twice the
# example's 50k pps a second, by its pinned totals.
flood_dropped() {
	local before after
	before=$(in_rcv "$RW" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["instances"][0]["totals"]["dropped"])')
	gen --src 198.18.0.9 --rate 100k --count 150000 >/dev/null 2>&1
	after=$(in_rcv "$RW" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["instances"][0]["totals"]["dropped"])')
	echo $((after - before))
}
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	step "$cmd"
	check "deploy step $n: $cmd" test $? -eq 0
	case "$cmd" in
	*--dry-run*)
		check "... its report ranked the flood's source as a dry run ($(grep -m1 -c 198.18.0.9 "$WORK/dryrun.out") lines), and it left nothing attached" \
			sh -c "grep -q 'DRY RUN' '$WORK/dryrun.out' && grep -q 198.18.0.9 '$WORK/dryrun.out' &&
				! ip -n '$TB_RCV' -d link show dev '$TB_RX' | grep -q prog/xdp" ;;
	systemctl\ enable*)
		d=$(flood_dropped)
		check "... the instance runs from the example, in dry-run: dropped $d of a flood at twice its limit" \
			sh -c "test '$d' -eq 0 && '$RW' status --json | grep -q '\"dry_run\": true'" ;;
	ratewall\ status) check "... it names the instance ($(head -n 1 "$WORK/status.txt"))" grep -q "instance $TB_RX" "$WORK/status.txt" ;;
	*restart*)
		d=$(flood_dropped)
		check "... now it enforces: dropped $d of a flood at twice its limit" \
			sh -c "test '$d' -gt 0 && '$RW' status --json | grep -q '\"dry_run\": false'" ;;
	*disable*)
		check "... rolled back: nothing attached, nothing pinned, no instance enabled" \
			sh -c "! ip -n '$TB_RCV' -d link show dev '$TB_RX' | grep -q prog/xdp && test ! -e '$PIN_ROOT/$TB_RX' &&
				test ! -e '/etc/systemd/system/multi-user.target.wants/ratewall@$TB_RX.service'" ;;
	esac
done <"$WORK/deploy.sh"
[ "$FAILED" -eq 0 ] || cat "$WORK/deploy.err" "$WORK/dryrun.err" 2>/dev/null

# 5. Purge: nothing the package listed, nothing it made.
dpkg -L ratewall >"$WORK/listed"
apt-get purge -y ratewall >"$WORK/purge.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$WORK/purge.log"
check "apt-get purge -y ratewall exits 0" test "$rc" -eq 0
out=$(dpkg -s ratewall 2>&1 | head -n 1)
check "dpkg -s ratewall: $out" grep -q 'is not installed' <<<"$out"
left=""
while read -r p; do
	[ "$p" != /. ] || continue
	[ -e "$p" ] || [ -L "$p" ] || continue
	# A directory stays when another package has it (/usr/sbin, /usr/share/man/man8,
	# /lib: usrmerge's link).
	[ -d "$p" ] && dpkg -S "$p" >/dev/null 2>&1 && continue
	left="$left $p"
done <"$WORK/listed"
check "every path it listed ($(wc -l <"$WORK/listed")) is gone${left:+:$left}" test -z "$left"
for p in /etc/ratewall /var/lib/ratewall "/etc/systemd/system/multi-user.target.wants/$INSTANCE" \
	"$PIN_ROOT"; do
	check "$p is gone" sh -c "[ ! -e '$p' ] && [ ! -L '$p' ]"
done
check "no XDP program is left on $TB_RX" sh -c "! ip -n '$TB_RCV' -d link show dev '$TB_RX' | grep -q prog/xdp"

finish
