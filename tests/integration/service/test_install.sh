#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make install: what lands where (the completion scripts, dashboard and rules
# too), the man page (renders without a warning, documents every command and option) and the systemd unit (systemd-analyze
# verify says nothing). No network, no BPF: files only, under a temporary root.
set -u
. "$(dirname "$0")/../lib.sh"

DEST=$WORK/dest
make -s -C "$ROOT" BUILD="$BUILD" install DESTDIR="$DEST" PREFIX=/usr >"$WORK/install.log" 2>&1
check "make install DESTDIR PREFIX=/usr exits 0" test $? -eq 0
for f in usr/sbin/ratewall usr/share/man/man8/ratewall.8 usr/lib/systemd/system/ratewall@.service \
	usr/share/doc/ratewall/ratewall.conf.example usr/share/bash-completion/completions/ratewall \
	usr/share/zsh/vendor-completions/_ratewall usr/share/ratewall/grafana/ratewall-dashboard.json \
	usr/share/ratewall/prometheus/ratewall.rules.yml; do
	check "installed $f" test -s "$DEST/$f"
done
check "the binary is executable and runs" "$DEST/usr/sbin/ratewall" version
"$DEST/usr/sbin/ratewall" completion bash | cmp -s - "$DEST/usr/share/bash-completion/completions/ratewall"
check "the bash completion installed is what the binary prints" test $? -eq 0
out=$(bash -c '. "$1" && complete -p ratewall' _ "$DEST/usr/share/bash-completion/completions/ratewall" 2>&1)
check "sourcing it registers _ratewall for ratewall${out:+: $out}" test "$out" = "complete -F _ratewall ratewall"
check "the zsh completion is a #compdef file" grep -qx '#compdef ratewall' \
	"$DEST/usr/share/zsh/vendor-completions/_ratewall"
grep -q "^ExecStart=/usr/sbin/ratewall run %I --persist --replace --config /etc/ratewall/%I.conf" \
	"$DEST/usr/lib/systemd/system/ratewall@.service"
check "the unit runs the installed binary on %I (the interface's name, unescaped) with /etc/ratewall/%I.conf" \
	test $? -eq 0

# The man page: no warning from man or groff, and every option and command in it.
MAN=$DEST/usr/share/man/man8/ratewall.8
warnings=$(MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null; groff -man -ww -z "$MAN" 2>&1)
check "man renders ratewall(8) without warnings${warnings:+: $warnings}" test -z "$warnings"
MANWIDTH=300 man -l "$MAN" 2>/dev/null >"$WORK/man.txt"
missing=""
options=$("$BUILD/ratewall" run --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
for o in $options --json --all --name --pin-dir --cpus; do
	grep -q -- "$o" "$WORK/man.txt" || missing="$missing $o"
done
for c in run status stop rule history memory completion version help; do
	grep -q "ratewall $c" "$WORK/man.txt" || missing="$missing $c"
done
check "the man page documents every option and command (missing:${missing:- none})" test -z "$missing"
version=$("$BUILD/ratewall" version | awk '{ print $2 }')
check "the man page is of this version ($version)" grep -q "\"ratewall $version\"" "$MAN"

# The unit, verified where its ExecStart exists and man finds its Documentation.
PREFIXED=$WORK/prefixed/usr
make -s -C "$ROOT" BUILD="$BUILD" install PREFIX="$PREFIXED" >>"$WORK/install.log" 2>&1
UNIT=$PREFIXED/lib/systemd/system/ratewall@.service
out=$(MANPATH=$PREFIXED/share/man systemd-analyze verify "$UNIT" 2>&1)
rc=$?
check "systemd-analyze verify ratewall@.service: exit 0, nothing said${out:+: $out}" \
	test $rc -eq 0 -a -z "$out"
mkdir -p "$WORK/inst"
cp "$UNIT" "$WORK/inst/ratewall@eth0.service"
out=$(MANPATH=$PREFIXED/share/man systemd-analyze verify "$WORK/inst/ratewall@eth0.service" 2>&1)
check "... and its instance ratewall@eth0.service${out:+: $out}" test $? -eq 0 -a -z "$out"
# Control: the same check on a broken copy must speak (verify exits 0 on warnings).
sed 's/^Restart=on-failure/Restart=sometimes/' "$UNIT" >"$WORK/inst/ratewall@.service"
out=$(MANPATH=$PREFIXED/share/man systemd-analyze verify "$WORK/inst/ratewall@.service" 2>&1)
check "control: verify reports a broken copy of the unit" test -n "$out"

make -s -C "$ROOT" BUILD="$BUILD" uninstall DESTDIR="$DEST" PREFIX=/usr >>"$WORK/install.log" 2>&1
left=$(find "$DEST" -type f | wc -l)
check "make uninstall removes every installed file ($left left)" test "$left" -eq 0

finish
