#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The options' table (user/cli/options.c, printed by the hidden
# `ratewall completion --table`) against what is written by hand: the man
# page's RUN OPTIONS are the table's run options and --help prints each of
# them; its configuration keys, switches and pinned options are the table's.
# Each check also runs on a copy of the man page with a planted drift, and
# must fail there. No root, no network.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
RW=${RW_BIN:-$BUILD/ratewall}
MAN=$ROOT/dist/ratewall.8
PASSED=0
FAILED=0
WORK=$(mktemp -d /tmp/rwopts.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

ok() { PASSED=$((PASSED + 1)); echo "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }

# Columns of the table: commands, --name, argument, type, key, pinned.
"$RW" completion --table >"$WORK/table" || { echo "0 passed, 1 failed"; exit 1; }
table_names() { awk -F'\t' "$1"' { print $2 }' "$WORK/table" | sort; }

# A section of a man page (its .SH title given) as one line of text, roff fonts gone.
man_section() {
	awk -v want=".SH $2" '$0 == want { on = 1; next } /^\.SH / { on = 0 } on' "$1" |
		sed -e 's/^\.[A-Z]* //' -e 's/\\-/-/g' -e 's/"//g' | tr '\n' ' ' |
		sed -e 's/ \([,.)]\)/\1/g' -e 's/( /(/g' -e 's/  */ /g'
}

# The options the RUN OPTIONS items document: the first --word of each item's head.
man_items() {
	awk '$0 == ".SH RUN OPTIONS" { on = 1; next } /^\.SH / { on = 0 }
	     on && head { print; head = 0 } on && $0 == ".TP" { head = 1 }' "$1" |
		sed 's/\\-/-/g' | grep -o -- '--[a-z0-9-]*' | awk '!seen[$0]++' | sort
}

# The words of a list "(a, b, c)" or "a, b and c" in a text.
words() { tr -d '(),.' <<<"$1" | tr ' ' '\n' | grep -v -e '^and$' -e '^$' | sort; }

# check_man FILE: says what differs from the table; silent when nothing does.
check_man() {
	local text list
	diff <(man_items "$1") <(table_names '$1 ~ /run/') >/dev/null ||
		echo "RUN OPTIONS differ from the table's run options:" \
			"$(diff <(man_items "$1") <(table_names '$1 ~ /run/') | grep '^[<>]' | tr '\n' ' ')"
	text=$(man_section "$1" "CONFIGURATION FILE")
	list=$(grep -o 'is a key but [^.]*\.' <<<"$text" | sed 's/is a key but //')
	diff <(words "$list" | sed 's/^/--/') <(awk -F'\t' '$1 ~ /run|memory/ && $5 != "key" { print $2 }' \
		"$WORK/table" | sort) \
		>/dev/null || echo "the options that are no config key differ: man says '$list'"
	list=$(grep -o 'A switch ([^)]*)' <<<"$text" | sed 's/A switch //')
	diff <(words "$list" | sed 's/^/--/') <(awk -F'\t' '$4 == "switch" && $5 == "key" { print $2 }' \
		"$WORK/table" | sort) >/dev/null || echo "the switch keys differ: man says '$list'"
	text=$(man_section "$1" "RUN OPTIONS")
	list=$(grep -o '^.*are enforced by the data path' <<<"$text" | sed 's/ are enforced.*//' |
		grep -o -- '--[a-z0-9-]*' | sort)
	[ "$list" = "$(awk -F'\t' '$6 == "pinned" { print $2 }' "$WORK/table" | sort)" ] ||
		echo "the pinned options differ: man says '$(tr '\n' ' ' <<<"$list")'"
}

out=$(check_man "$MAN")
if [ -z "$out" ]; then
	ok "ratewall(8): run options, config keys, switches and pinned options are the table's"
else
	fail "ratewall(8) drifted from the table: $out"
fi

# Each command's --help prints its usage and the table's rows of that command,
# and no other (memory: its own, beside run's); the commands the table does not
# serve print a usage of their own.
help_options() { sed -n 's/^[* ] \(-., \)\?\(--[a-z0-9-]*\).*/\2/p' | sort; }
for cmd in run memory status stop rule top; do
	"$RW" "$cmd" --help >"$WORK/help.$cmd" 2>&1
	rc=$?
	if [ "$cmd" = memory ]; then
		want=$(table_names '$1 ~ /(^|,)memory(,|$)/ && $1 !~ /(^|,)run(,|$)/')
	else
		want=$(table_names '$1 ~ /(^|,)'"$cmd"'(,|$)/')
	fi
	got=$(help_options <"$WORK/help.$cmd")
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] && head -1 "$WORK/help.$cmd" | grep -q "^usage: ratewall $cmd "; then
		ok "$cmd --help: its usage and the table's $(wc -w <<<"$want") options of $cmd"
	else
		fail "$cmd --help (exit $rc): lists '$(tr '\n' ' ' <<<"$got")', the table's are '$(tr '\n' ' ' <<<"$want")'"
	fi
done
"$RW" run --help | help_options >"$WORK/help"
for cmd in history completion version help; do
	if "$RW" "$cmd" --help 2>&1 | head -1 | grep -q "^usage: ratewall $cmd"; then
		ok "$cmd --help: its own usage"
	else
		fail "$cmd --help does not start with 'usage: ratewall $cmd'"
	fi
done
missing=$(comm -23 <(man_items "$MAN") "$WORK/help" | tr '\n' ' ')
if [ -z "$missing" ]; then
	ok "every option ratewall(8) documents is one --help prints"
else
	fail "ratewall(8) documents options --help does not print: $missing"
fi

# Controls: each drift planted in a copy must be said.
plant() {
	local name=$1 pattern=$2
	shift 2
	sed "$@" "$MAN" >"$WORK/planted.8"
	if check_man "$WORK/planted.8" | grep -q -- "$pattern"; then
		ok "control: $name is caught"
	else
		fail "control: $name passes unnoticed"
	fi
}
plant "an option missing from RUN OPTIONS" "RUN OPTIONS differ" '/^\.BI \\-\\-hhh\\-share/,+1d'
plant "an option the table lacks" "RUN OPTIONS differ" 's/^\.B \\-\\-dry\\-run$/.B \\-\\-wet\\-run/'
plant "a switch left out of the config keys' list" "switch keys differ" '/^\.BR no\\-color ,$/d'
plant "a key named as no key" "no config key differ" 's/^\.B help$/.B json/'
plant "a pinned option left out" "pinned options differ" '/^\.BR \\-\\-burst ,$/d'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
