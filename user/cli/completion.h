/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `ratewall completion bash|zsh`: a shell's completion script, made from the
 * commands' table (main.c) and the options' tables (options.c for every
 * command but history, historycli.c for history), so that it offers what the
 * parsers take.
 */
#ifndef RW_COMPLETION_H
#define RW_COMPLETION_H

#include <stddef.h>
#include <stdio.h>

struct rw_comp_command {
	const char *name;
	const char *help;
	/*
	 * What its arguments are: "@ifaces" (interface names, any number),
	 * "@files", or words its first argument is one of ("add del list"); "" none.
	 */
	const char *args;
};

/* Prints the script for shell ("bash" or "zsh"). 0, or -1 for another shell. */
int rw_completion_print(FILE *out, const char *shell, const struct rw_comp_command *cmds,
			size_t ncmds);
/*
 * The run and memory options as lines "COMMANDS --NAME ARG TYPE KEY PINNED"
 * (tab-separated; "-" for none), for the tests that hold the man page and
 * --help to the table.
 */
void rw_completion_table(FILE *out);

#endif
