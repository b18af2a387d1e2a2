#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs every test layer and ends with one "N passed, N failed" line:
#   0. the layout: no include points up the rooms of user/ nor runs in a
#      circle, no tooling folder outgrows the product's (tools/check_rooms.py);
#      the options' table agrees with the man page, --help and completion;
#      every path the prose names exists and the README stays short;
#      docs/performance.md is what bench/bench.py --report renders
#   1. userspace unit tests (plain, then under ASan/UBSan)
#   2. BPF unit tests (bpf_prog_test_run_opts on crafted frames), with the sanitized build
#   3. integration tests on veth pairs between namespaces they create; four of
#      them with ratewall built with ASan/UBSan (two of those only that way)
# Needs root. Usage: tests/run.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/tally.sh"
. "$ROOT/tests/harness/python_once.sh"
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
export BUILD
python_once "$BUILD/python"

tally_start "tests need root (BPF programs, network namespaces); run: sudo make test" rwrun

suite() {
	local name=$1 rc line p f t0=$SECONDS
	shift
	echo "== $name"
	timeout --kill-after=10 300 "$@" >"$LOG" 2>&1
	rc=$?
	cat "$LOG"
	# Each layer's time, so the whole run can be kept under its 10 minutes.
	echo "   ($((SECONDS - t0)) s)"
	tally "$name" "$rc" "$LOG"
}

start=$(date +%s)
suite "layout: includes run one way between the rooms of user/" "$ROOT/tests/layout/test_rooms.sh"
suite "layout: the options' table is the man page's and --help's" "$ROOT/tests/layout/test_options.sh"
suite "layout: shell completion from the same table" "$ROOT/tests/layout/test_completion.sh"
suite "layout: every path the prose names exists; the README stays short" "$ROOT/tests/layout/test_prose.sh"
suite "layout: docs/performance.md is bench/results/latest.json rendered" "$ROOT/tests/layout/test_performance_page.sh"
suite "fuzzing: every parser of outside input, ${FUZZ_TEST_TIME:-2} s each" \
	"$ROOT/tests/fuzz/run.sh" "${FUZZ_TEST_TIME:-2}" "$BUILD"
suite "userspace unit tests" "$BUILD/test_unit"
suite "userspace unit tests (ASan, UBSan)" "$BUILD/asan/test_unit"
# The BPF unit tests run once, with the sanitized loader code: the program
# under test is the same object in both builds, and the loader code they
# drive (rules maps, flow table, window arithmetic) is the same source.
suite "BPF unit tests (ASan, UBSan)" "$BUILD/asan/test_bpf"
# test_persist, test_policy and test_tui run once, with the sanitized ratewall
# below: a minute each for the first two, 20 s for the third, and what they
# drive (pins, adoption, rules files, reloads, the terminal view) is the
# loader's own code, the same in both builds. Every other suite runs the plain one.
for t in "$ROOT"/tests/integration/*/test_*.sh; do
	case "$(basename "$t")" in
	test_persist.sh | test_policy.sh | test_tui.sh) continue ;;
	esac
	suite "integration: $(basename "$t" .sh)" "$t"
done
# The loader's tick (map reads, idle deletion, ranking, JSON) under the sanitizers.
suite "integration: test_top_talkers (ratewall under ASan, UBSan)" \
	env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/traffic/test_top_talkers.sh"
# Pinning, adoption, --replace, status and stop under the sanitizers.
suite "integration: test_persist (ratewall under ASan, UBSan)" \
	env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/service/test_persist.sh"
# Rules files, SIGHUP reloads and `rule` edits under the sanitizers.
suite "integration: test_policy (ratewall under ASan, UBSan)" \
	env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/service/test_policy.sh"
# The terminal view (ncurses, key handling, read-only map passes) under the sanitizers.
suite "integration: test_tui (ratewall under ASan, UBSan)" \
	env RW_BIN="$BUILD/asan/ratewall" "$ROOT/tests/integration/service/test_tui.sh"
echo "== all layers in $(($(date +%s) - start)) s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
