# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Sourced by tests/run.sh and tests/integration/lib.sh.
#
# python_once DIR: python3 found once for all the calls that follow. Behind a
# version manager's shim (pyenv: a shell script that runs the manager to pick
# the version) each call took 1-2 s on the loaded 2-CPU test machine, against
# 0.05 s for the interpreter itself, and a full run calls it hundreds of
# times. DIR gets a link to the interpreter the shim picks, first on PATH:
# the same python3, looked up once. Nothing changes when python3 is already
# the interpreter itself.
python_once() {
	local exe
	exe=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || return 0
	[ -n "$exe" ] || return 0
	[ "$(readlink -f "$(command -v python3)")" != "$(readlink -f "$exe")" ] || return 0
	mkdir -p "$1" && ln -sfn "$exe" "$1/python3" && export PATH="$1:$PATH"
}
