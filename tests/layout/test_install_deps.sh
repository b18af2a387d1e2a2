#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tools/install-deps.sh with fake apt-get, dpkg-query and systemctl (no
# package is installed): a unit the install enables is disabled after it, one
# enabled before stays; the policy file that keeps services from starting is
# there while apt runs and gone after, also when apt fails; one that was there
# before stays; an unknown group is refused. Then a copy of the script
# without its exit trap must fail the same checks.
set -u
. "$(dirname "$0")/planted.sh"
FAKES=$WORK/fakes
mkdir -p "$FAKES"

# Not one package installed; apt "installs" by enabling a unit (and fails
# after that when FAKE_APT_FAIL is set); systemctl keeps its state in a file.
cat >"$FAKES/dpkg-query" <<'F'
#!/bin/sh
exit 1
F
cat >"$FAKES/apt-get" <<'F'
#!/bin/sh
[ "$1" = install ] || exit 0
if [ -x "$POLICY_RC" ]; then "$POLICY_RC" x start; echo "policy $?" >>"$STATE/apt.log"; fi
echo rig.service >>"$STATE/enabled"
[ -z "${FAKE_APT_FAIL:-}" ] || exit 100
F
cat >"$FAKES/systemctl" <<'F'
#!/bin/sh
case "$1" in
list-unit-files) sed 's/$/ enabled enabled/' "$STATE/enabled" ;;
disable) unit=$(for a; do :; done; echo "$a"); grep -vx "$unit" "$STATE/enabled" >"$STATE/e"; mv "$STATE/e" "$STATE/enabled" ;;
*) exit 1 ;;
esac
F
chmod +x "$FAKES"/*

# run SCRIPT [ENV...]: the script with the fakes, a fresh state holding one
# unit enabled before; its exit status in RC.
run() {
	local script=$1
	shift
	export STATE=$WORK/state
	rm -rf "$STATE" && mkdir -p "$STATE"
	echo ssh.service >"$STATE/enabled"
	env DPKG_QUERY="$FAKES/dpkg-query" APT_GET="$FAKES/apt-get" SYSTEMCTL="$FAKES/systemctl" \
		POLICY_RC="$STATE/policy-rc.d" STATE="$STATE" "$@" sh "$script" test >"$STATE/out" 2>&1
	RC=$?
}

# checks SCRIPT WHAT: the whole contract on SCRIPT; returns how many broke.
checks() {
	local script=$1 what=$2 broke=0
	run "$script"
	if [ "$RC" -eq 0 ] && grep -qx "policy 101" "$STATE/apt.log" 2>/dev/null &&
		[ ! -e "$STATE/policy-rc.d" ] && [ "$(cat "$STATE/enabled")" = ssh.service ]; then
		ok "$what: apt ran under a policy that starts nothing; the unit it enabled is disabled, the other stays, the policy is gone"
	else
		fail "$what: exit $RC, apt saw '$(cat "$STATE/apt.log" 2>/dev/null)', enabled now: $(tr '\n' ' ' <"$STATE/enabled"), policy left: $([ -e "$STATE/policy-rc.d" ] && echo yes || echo no)"
		broke=$((broke + 1))
	fi
	run "$script" FAKE_APT_FAIL=1
	if [ "$RC" -ne 0 ] && [ ! -e "$STATE/policy-rc.d" ] && [ "$(cat "$STATE/enabled")" = ssh.service ]; then
		ok "$what: apt fails: the script fails too, and leaves no policy and no unit enabled"
	else
		fail "$what: apt failed: exit $RC, enabled now: $(tr '\n' ' ' <"$STATE/enabled"), policy left: $([ -e "$STATE/policy-rc.d" ] && echo yes || echo no)"
		broke=$((broke + 1))
	fi
	return "$broke"
}

checks "$ROOT/tools/install-deps.sh" "install-deps"

# A policy file that was there before (a container's) is the machine's: kept.
export STATE=$WORK/state
run "$ROOT/tools/install-deps.sh" sh -c "printf '#!/bin/sh\nexit 101\n' >\$POLICY_RC; chmod +x \$POLICY_RC; exec \"\$@\"" sh
if [ "$RC" -eq 0 ] && [ -e "$STATE/policy-rc.d" ]; then
	ok "a policy file that was there before stays"
else
	fail "a policy file that was there before: exit $RC, still there: $([ -e "$STATE/policy-rc.d" ] && echo yes || echo no)"
fi

out=$(sh "$ROOT/tools/install-deps.sh" bogus 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "unknown group 'bogus'" <<<"$out"; then
	ok "an unknown group is refused (exit 2): $out"
else
	fail "an unknown group: exit $rc, said: $out"
fi

# Planted: the script without its exit trap (the disable and the policy's
# removal) must fail both runs.
copy tools
sed -i '/^trap finish EXIT$/d' "$WORK/t/tools/install-deps.sh"
p=$PASSED f=$FAILED
checks "$WORK/t/tools/install-deps.sh" "planted: no exit trap" >/dev/null
broke=$?
PASSED=$p FAILED=$f
if [ "$broke" -eq 2 ]; then
	ok "planted: without the exit trap both runs fail the checks"
else
	fail "planted: without the exit trap only $broke of 2 runs failed the checks"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
