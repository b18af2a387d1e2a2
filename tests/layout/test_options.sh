#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The options' table (user/cli/options.c, printed by the hidden
# `ratewall completion --table`) against the man page the build makes
# (build/ratewall.8: dist/ratewall.8's prose, each command's options from
# `ratewall completion --man`, tools/manpage.awk) and each command's --help:
# the page's OPTIONS of each command are the table's, and so are its
# configuration keys, switches and pinned options; groff finds nothing to warn
# about. Each check also runs on a copy of the page with a planted drift, and
# must fail there. No root, no network.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
RW=${RW_BIN:-$BUILD/ratewall}
MAN=${MAN:-$BUILD/ratewall.8}
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

# The options the OPTIONS items of a command ($2, default run) document: the
# first --word of each item's head.
man_items() {
	awk -v want=".SS \"ratewall ${2:-run}\"" '$0 == want { on = 1; next } /^\.S[HS] / { on = 0 }
	     on && head { print; head = 0 } on && $0 == ".TP" { head = 1 }' "$1" |
		sed 's/\\-/-/g' | grep -o -- '--[a-z0-9-]*' | awk '!seen[$0]++' | sort
}
# The text of the OPTIONS subsection of run, as man_section makes it.
man_run() {
	awk '$0 == ".SS \"ratewall run\"" { on = 1; next } /^\.S[HS] / { on = 0 } on' "$1" |
		sed -e 's/^\.[A-Z]* //' -e 's/\\-/-/g' -e 's/"//g' | tr '\n' ' ' |
		sed -e 's/ \([,.)]\)/\1/g' -e 's/( /(/g' -e 's/  */ /g'
}

# The words of a list "(a, b, c)" or "a, b and c" in a text.
words() { tr -d '(),.' <<<"$1" | tr ' ' '\n' | grep -v -e '^and$' -e '^$' | sort; }

# check_man FILE: says what differs from the table; silent when nothing does.
check_man() {
	local text list
	local cmd
	for cmd in run status stop rule top; do
		diff <(man_items "$1" $cmd) <(table_names '$1 ~ /(^|,)'$cmd'(,|$)/') >/dev/null ||
			echo "OPTIONS of $cmd differ from the table's $cmd options:" \
				"$(diff <(man_items "$1" $cmd) <(table_names '$1 ~ /(^|,)'$cmd'(,|$)/') |
					grep '^[<>]' | tr '\n' ' ')"
	done
	text=$(man_section "$1" "CONFIGURATION FILE")
	list=$(grep -o 'is a key but [^.]*\.' <<<"$text" | sed 's/is a key but //')
	diff <(words "$list" | sed 's/^/--/') <(awk -F'\t' '$1 ~ /run|memory/ && $5 != "key" { print $2 }' \
		"$WORK/table" | sort) \
		>/dev/null || echo "the options that are no config key differ: man says '$list'"
	list=$(grep -o 'A switch ([^)]*)' <<<"$text" | sed 's/A switch //')
	diff <(words "$list" | sed 's/^/--/') <(awk -F'\t' '$4 == "switch" && $5 == "key" { print $2 }' \
		"$WORK/table" | sort) >/dev/null || echo "the switch keys differ: man says '$list'"
	text=$(man_run "$1")
	list=$(grep -o '^.*are enforced by the data path' <<<"$text" | sed 's/ are enforced.*//' |
		grep -o -- '--[a-z0-9-]*' | sort)
	[ "$list" = "$(awk -F'\t' '$6 == "pinned" { print $2 }' "$WORK/table" | sort)" ] ||
		echo "the pinned options differ: man says '$(tr '\n' ' ' <<<"$list")'"
}

out=$(check_man "$MAN")
if [ -z "$out" ]; then
	ok "ratewall(8): each command's options, config keys, switches and pinned options are the table's"
else
	fail "ratewall(8) drifted from the table: $out"
fi
# The page is what the binary and dist/ratewall.8 make now (not a stale one),
# and groff has nothing to say about it.
"$RW" completion --man >"$WORK/options" && awk -f "$ROOT/tools/manpage.awk" "$WORK/options" \
	"$ROOT/dist/ratewall.8" >"$WORK/made.8"
if cmp -s "$WORK/made.8" "$MAN"; then
	ok "ratewall(8) is made from this binary's table and dist/ratewall.8"
else
	fail "$MAN differs from what ratewall completion --man and dist/ratewall.8 make (make $MAN)"
fi
warnings=$(groff -man -ww -z "$MAN" 2>&1)
if [ -z "$warnings" ]; then
	ok "groff -man -ww finds nothing to warn about in ratewall(8)"
else
	fail "groff -man -ww: $(head -3 <<<"$warnings" | tr '\n' ' ')"
fi
# Prose in dist/ratewall.8 for an option the binary does not take stops the build.
sed 's/^\.\\" @DETAIL@ dry-run$/.\\" @DETAIL@ wet-run/' "$ROOT/dist/ratewall.8" >"$WORK/planted.in"
if ! grep -q '@DETAIL@ wet-run' "$WORK/planted.in"; then
	fail "control: no @DETAIL@ dry-run in dist/ratewall.8 to plant a drift in"
elif awk -f "$ROOT/tools/manpage.awk" "$WORK/options" "$WORK/planted.in" >/dev/null 2>&1; then
	fail "control: prose for an option the table lacks passes unnoticed"
else
	ok "control: prose for an option the table lacks stops the page"
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
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] &&
		head -1 "$WORK/help.$cmd" | grep -q "^usage: ratewall $cmd "; then
		ok "$cmd --help: its usage and the table's $(wc -w <<<"$want") options of $cmd"
	else
		fail "$cmd --help (exit $rc): lists '$(tr '\n' ' ' <<<"$got")'," \
			"the table's are '$(tr '\n' ' ' <<<"$want")'"
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
plant "an option missing from run's OPTIONS" "OPTIONS of run differ" '/^\.BI \\-\\-hhh\\-share/,+1d'
plant "an option the table lacks" "OPTIONS of run differ" 's/^\.B \\-\\-dry\\-run$/.B \\-\\-wet\\-run/'
plant "an option missing from top's OPTIONS" "OPTIONS of top differ" \
	'/^\.SS "ratewall top"/,/^\.S[HS] /{/^\.B \\-\\-no\\-color$/d}'
plant "a switch left out of the config keys' list" "switch keys differ" '/^\.BR no\\-color ,$/d'
plant "a key named as no key" "no config key differ" 's/^\.B help$/.B json/'
plant "a pinned option left out" "pinned options differ" '/^\.BR \\-\\-burst ,$/d'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
