#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make test: every test layer but the slow suites, in under six minutes on
# two CPUs, ending with one "N passed, N failed" line:
#   0. the layout: no include points up the rooms of user/, no circle of
#      files, units or folders, no room over a fifth of user/, nothing in cli/
#      that no command uses, no tooling folder outgrows the product's
#      (tools/check_rooms.py);
#      the options' table agrees with the man page, --help and completion;
#      every path the prose names exists and the README stays short;
#      docs/performance.md is what bench/bench.py --report renders, and a
#      benchmark run that measured nothing saves nothing; the
#      alert rules pass promtool check and test; the dashboard is
#      tools/dashboard.py's rendering, with Grafana's fields and its wiring;
#      make deps leaves no service enabled; the unit's sandbox scores no worse
#      than docs/ state
#   1. userspace unit tests (plain, then under ASan/UBSan)
#   2. BPF unit tests (bpf_prog_test_run_opts on crafted frames), with the sanitized build
#   3. integration tests on veth pairs between namespaces they create, but
#      the slow ones below; two of them with ratewall built with ASan/UBSan
# Layer 0 and the two integration suites without traffic run beside layers 1
# and 2 (after the fuzzing); each says what it said in the order above.
# make test-slow (tests/run.sh --slow): the slow integration suites alone,
# each of which takes half a minute or more of real time (BGP daemons
# converging, TCP streams, windows of history, whole-table botnets); CI runs
# both (.ci/run).
# Needs root. Usage: tests/run.sh [--slow] [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/tally.sh"
. "$ROOT/tests/harness/python_once.sh"
SLOW=""
if [ "${1:-}" = --slow ]; then
	SLOW=1
	shift
fi
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
export BUILD
python_once "$BUILD/python"

tally_start "tests need root (BPF programs, network namespaces); run: sudo make test" rwrun

# run_layer OUT CMD...: one layer (at most 300 s), what it says in OUT, its
# exit status in OUT.rc and its seconds in OUT.s.
run_layer() {
	local out=$1 t0=$SECONDS
	shift
	timeout --kill-after=10 300 "$@" >"$out" 2>&1
	echo $? >"$out.rc"
	echo $((SECONDS - t0)) >"$out.s"
}

# said NAME OUT: what a layer run by run_layer said, its time, into the tally.
said() {
	echo "== $1"
	cat "$2"
	# Each layer's time, so the whole run can be kept under its 10 minutes.
	echo "   ($(cat "$2.s") s)"
	tally "$1" "$(cat "$2.rc")" "$2"
}

suite() {
	local name=$1
	shift
	run_layer "$LOG" "$@"
	said "$name" "$LOG"
}

start=$(date +%s)
OUT=$(mktemp -d /tmp/rwrun.XXXXXX)
trap 'rm -f "$LOG"; rm -rf "$OUT"' EXIT
# The slow suites: make test-slow's (tests/run.sh --slow), not make test's.
# Each takes half a minute or more of real time, waiting more than working.
slow_suites="test_bgp test_keys test_tcp test_history test_botnet test_fleet test_fragments test_on_event test_rule_match test_samples"
# Run once, with the sanitized ratewall below (what they drive, pins,
# adoption, rules files, reloads, the terminal view, is the loader's own
# code, the same in both builds): test_persist in make test, test_policy and
# test_tui in make test-slow. test_top_talkers runs sanitized in make test,
# plain in make test-slow.
asan_only="test_persist test_policy test_tui test_top_talkers"
listed() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# integration SLOW: every integration suite of that set (empty: make test's)
# with the plain build, but those run only sanitized.
integration() {
	local t name
	for t in "$ROOT"/tests/integration/*/test_*.sh; do
		name=$(basename "$t" .sh)
		listed "$name" "$asan_only" && continue
		if listed "$name" "$slow_suites"; then [ -n "$1" ] || continue; else [ -z "$1" ] || continue; fi
		if [ -e "$OUT/$name.rc" ]; then # run beside the unit tests above
			said "integration: $name" "$OUT/$name"
		else
			suite "integration: $name" "$t"
		fi
	done
}

if [ -n "$SLOW" ]; then
	integration slow
	suite "integration: test_top_talkers" "$ROOT/tests/integration/traffic/test_top_talkers.sh"
	# Rules files, SIGHUP reloads and `rule` edits under the sanitizers.
	suite "integration: test_policy (ratewall under ASan, UBSan)" \
		env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/service/test_policy.sh"
	# The terminal view (ncurses, key handling, read-only map passes) under the sanitizers.
	suite "integration: test_tui (ratewall under ASan, UBSan)" \
		env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/service/test_tui.sh"
	echo "== all slow suites in $(($(date +%s) - start)) s"
	tally_end
	[ "$FAILED" -eq 0 ]
	exit
fi

# Fuzzing takes both CPUs, alone. Then the layout checks (Python on one CPU)
# and two integration suites without traffic (test_install: files only;
# test_errors_cleanup: refusals and exits on its own testbed, no program of
# another's looked at) run one after the other beside the unit and BPF unit
# tests (one CPU, both for moments): none loads or looks at what another
# makes, none times against the machine, and one after the other they took
# 60 s of the run's first 100. Each says what it said in its usual place; a
# layer's time is its own, beside the others.
run_layer "$OUT/fuzz" "$ROOT/tests/fuzz/run.sh" "${FUZZ_TEST_TIME:-2}" "$BUILD"
layouts=(
	"includes run one way between the rooms of user/|test_rooms.sh"
	"the options' table is the man page's and --help's|test_options.sh"
	"shell completion from the same table|test_completion.sh"
	"every path the prose names exists; the README stays short|test_prose.sh"
	"docs/performance.md is bench/results/latest.json rendered|test_performance_page.sh"
	"make bench and bench-ab save nothing when nothing was measured|test_bench_unmeasured.sh"
	"the alert rules pass promtool's check and unit tests|test_alert_rules.sh"
	"the Grafana dashboard is rendered, shaped and wired|test_dashboard.sh"
	"every family /metrics serves is in the docs' metrics table|test_metrics_doc.sh"
	"the package's changelog is CHANGELOG.md's, of version.h's version|test_changelog.sh"
	"make deps and test-deps leave no service enabled, no policy file behind|test_install_deps.sh"
	"the unit's exposure (systemd-analyze security) is no more than docs/ state|test_unit_security.sh"
)
beside_integration="test_install test_errors_cleanup"
(
	for i in "${!layouts[@]}"; do
		run_layer "$OUT/layout$i" "$ROOT/tests/layout/${layouts[$i]#*|}"
	done
	for n in $beside_integration; do
		run_layer "$OUT/$n" "$ROOT"/tests/integration/*/"$n.sh"
	done
) &
beside_pid=$!
run_layer "$OUT/unit" "$BUILD/test_unit"
run_layer "$OUT/unit_asan" "$BUILD/asan/test_unit"
# The BPF unit tests run once, with the sanitized loader code: the program
# under test is the same object in both builds, and the loader code they
# drive (rules maps, flow table, window arithmetic) is the same source.
run_layer "$OUT/bpf" "$BUILD/asan/test_bpf"
wait "$beside_pid"
for i in "${!layouts[@]}"; do
	said "layout: ${layouts[$i]%%|*}" "$OUT/layout$i"
done
said "fuzzing: every parser of outside input, ${FUZZ_TEST_TIME:-2} s each" "$OUT/fuzz"
said "userspace unit tests" "$OUT/unit"
said "userspace unit tests (ASan, UBSan)" "$OUT/unit_asan"
said "BPF unit tests (ASan, UBSan)" "$OUT/bpf"
integration ""
# The loader's tick (map reads, idle deletion, ranking, JSON) under the sanitizers.
suite "integration: test_top_talkers (ratewall under ASan, UBSan)" \
	env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/traffic/test_top_talkers.sh"
# Pinning, adoption, --replace, status and stop under the sanitizers.
suite "integration: test_persist (ratewall under ASan, UBSan)" \
	env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/service/test_persist.sh"
echo "== all layers in $(($(date +%s) - start)) s"
tally_end
[ "$FAILED" -eq 0 ]
