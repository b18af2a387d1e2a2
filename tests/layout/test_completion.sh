#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `ratewall completion bash|zsh`: the bash script, sourced here, completes
# subcommands, each one's options, choice values (every choice option of the
# table, from the table), interface names (lo: always there; no interface is
# made) and instance names under a temporary --pin-dir. The zsh script is
# checked by `zsh -n` where zsh is installed. No root, no network.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
RW=${RW_BIN:-$BUILD/ratewall}
PASSED=0
FAILED=0
WORK=$(mktemp -d /tmp/rwcomp.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

ok() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }

"$RW" completion bash >"$WORK/ratewall.bash" && "$RW" completion zsh >"$WORK/_ratewall"
if [ $? -eq 0 ] && bash -n "$WORK/ratewall.bash"; then
	ok "completion bash and zsh print scripts; bash -n accepts the bash one"
else
	fail "completion bash|zsh: no script, or bash -n refuses it"
fi
# shellcheck source=/dev/null
. "$WORK/ratewall.bash"

# complete "ratewall run --k": the words offered for the line's last word
# (an empty last word when the line ends with a blank), sorted, on one line.
complete_line() {
	local line=$1
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ratewall
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect NAME LINE WANT: the offers for LINE are exactly WANT (sorted words).
expect() {
	local got
	got=$(complete_line "$2")
	if [ "$got" = "$3" ]; then
		ok "$1: '$2' -> '$got'"
	else
		fail "$1: '$2' -> '$got', wanted '$3'"
	fi
}

expect "a subcommand's prefix" "ratewall me" "memory"
expect "subcommands sharing a prefix" "ratewall ru" "rule run"
expect "subcommands sharing a prefix" "ratewall h" "help history"
expect "a run option's prefix" "ratewall run eth0 --max-f" "--max-flows"
expect "run options that share a prefix" "ratewall run --hi" "--history --history-keep --history-max"
expect "memory's own option" "ratewall memory --cp" "--cpus"
expect "run has no --cpus" "ratewall run --cp" ""
expect "--key's kinds" "ratewall run eth0 --key " "dst flow pair src"
expect "--sort of run" "ratewall run --sort " "bps drops pps"
expect "--sort of top" "ratewall top --sort d" "drops"
expect "history --kind" "ratewall history --kind p" "pair"
expect "a value to type: nothing offered" "ratewall run --pps " ""
expect "completion's shells" "ratewall completion " "bash zsh"
expect "rule's operations" "ratewall rule " "add del list"
expect "an interface for run" "ratewall run --pps 10k l" "$(compgen -W "$(ls /sys/class/net)" -- l | sort | tr '\n' ' ' | sed 's/ $//')"
got=$(complete_line "ratewall run l")
if grep -qw lo <<<"$got"; then ok "run offers lo among interfaces ($got)"; else fail "run lacks lo: '$got'"; fi

# Instances: the directories under --pin-dir, never its files.
mkdir -p "$WORK/pins/edge-1" "$WORK/pins/eth0+eth1" "$WORK/pins/other"
touch "$WORK/pins/not-an-instance"
expect "--name: the instances under --pin-dir" "ratewall stop --pin-dir $WORK/pins --name " \
	"edge-1 eth0+eth1 other"
expect "--name with a prefix" "ratewall top --pin-dir $WORK/pins --name e" "edge-1 eth0+eth1"
expect "run --name under --pin-dir" "ratewall run --pin-dir $WORK/pins --name o" "other"

# Every choice option of the table offers exactly its choices, for run and memory.
n=0
bad=""
while IFS=$'\t' read -r cmds name arg type _; do
	[ "$type" = choice ] || continue
	want=$(tr '|' '\n' <<<"$arg" | sort | tr '\n' ' ' | sed 's/ $//')
	for c in ${cmds//,/ }; do
		got=$(complete_line "ratewall $c $name ")
		n=$((n + 1))
		[ "$got" = "$want" ] || bad="$bad $c $name: '$got' (want '$want');"
	done
done < <("$RW" completion --table)
if [ "$n" -ge 10 ] && [ -z "$bad" ]; then
	ok "each of $n choice options (every command of the table) offers its values"
else
	fail "choice options ($n checked):$bad"
fi

# Control: a script whose --key values drifted is caught by the same check.
sed "s/--key) COMPREPLY=(\$(compgen -W 'src dst pair flow'/--key) COMPREPLY=(\$(compgen -W 'src dst'/" \
	"$WORK/ratewall.bash" >"$WORK/drifted.bash"
got=$(. "$WORK/drifted.bash"; complete_line "ratewall run --key ")
if [ "$got" = "dst src" ]; then
	ok "control: a drifted script offers other --key values ('$got'), which the check above would see"
else
	fail "control: the drifted script still offers '$got'"
fi

if command -v zsh >/dev/null; then
	if zsh -n "$WORK/_ratewall"; then ok "zsh -n accepts _ratewall"; else fail "zsh -n refuses _ratewall"; fi
else
	echo "skip zsh -n: zsh is not installed"
fi
if head -n 1 "$WORK/_ratewall" | grep -qx '#compdef ratewall' &&
	grep -q "'--max-flows:most keys tracked exactly at once'" "$WORK/_ratewall"; then
	ok "_ratewall starts with #compdef and describes the run options"
else
	fail "_ratewall lacks #compdef or the options' descriptions"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
