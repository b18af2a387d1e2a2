// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ratewall: XDP per-source rate limiter and live top-talkers monitor.
 * Every subcommand is one row of the table below and a file of its own
 * (run.c here, the others in service/); `ratewall help` is made from it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/completion.h"
#include "cli/exit.h"
#include "cli/usage.h"
#include "cli/version.h"
#include "run.h"
#include "service/historycmd.h"
#include "service/memcmd.h"
#include "service/svccmd.h"

static int help_command(int argc, char **argv);
static int completion_command(int argc, char **argv);

static int version_command(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("ratewall %s\n", RATEWALL_VERSION);
	return RW_EXIT_OK;
}

struct rw_command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command; returns the exit status */
	const char *synopsis;
	const char *help;
	const char *args; /* what completion offers for its arguments: see cli/completion.h */
	bool bare;        /* takes no options: its --help is its row, said here */
};

static const struct rw_command commands[] = {
	{ "run", rw_run_command, "IFACE... [options]", "attach, enforce and report (ratewall run --help)",
	  "@ifaces", false },
	{ "status", rw_status_command, "[--json]", "pinned (--persist) instances: limits, totals, loader",
	  "", false },
	{ "stop", rw_stop_command, "IFACE...|--name NAME|--all", "detach a pinned instance, remove its pins",
	  "@ifaces", false },
	{ "rule", rw_rule_command, "add RULE|del CIDR|list [--name NAME]", "edit a pinned instance's rules",
	  "add del list", false },
	{ "top", rw_top_command, "[IFACE] [--name NAME]", "watch a pinned instance live, full screen",
	  "@ifaces", false },
	{ "history", rw_history_command, "FILE [--since WHEN] [--sum] [--json]",
	  "what run --history kept: windows, top keys, events", "@files", false },
	{ "memory", rw_memory_command, "[--cpus N] [options]", "kernel memory of every map, planned",
	  "", false },
	{ "completion", completion_command, "bash|zsh", "print a shell completion script", "bash zsh",
	  true },
	{ "version", version_command, "", "print the version", "", true },
	{ "help", help_command, "", "this list", "", true },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "ratewall %s: XDP per-source rate limiter and top-talkers monitor\n\ncommands:\n",
		RATEWALL_VERSION);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", commands[i].name, commands[i].synopsis);
		fprintf(out, "  %-44s %s\n", head, commands[i].help);
	}
}

static int help_command(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return RW_EXIT_OK;
}

/*
 * `completion bash|zsh`; `completion --table` prints the options' table for
 * the tests that hold the man page to it, `completion --man` the man page's
 * options (the build puts them in build/ratewall.8).
 */
static int completion_command(int argc, char **argv)
{
	struct rw_comp_command cmds[NCOMMANDS];

	if (argc == 2 && strcmp(argv[1], "--table") == 0) {
		rw_completion_table(stdout);
		return RW_EXIT_OK;
	}
	if (argc == 2 && strcmp(argv[1], "--man") == 0) {
		rw_cli_man_options(stdout);
		return RW_EXIT_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		cmds[i] = (struct rw_comp_command){ commands[i].name, commands[i].help, commands[i].args };
	if (argc != 2 || rw_completion_print(stdout, argv[1], cmds, NCOMMANDS)) {
		fprintf(stderr, "usage: ratewall completion bash|zsh\n");
		return RW_EXIT_USAGE;
	}
	return RW_EXIT_OK;
}

static bool is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* A bare command's --help: its row. The others print their own (cli/usage.c). */
static int bare_help(const struct rw_command *c)
{
	printf("usage: ratewall %s%s%s\n\n%s\n", c->name, c->synopsis[0] ? " " : "", c->synopsis,
	       c->help);
	return RW_EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name) {
		usage(stderr);
		return RW_EXIT_USAGE;
	}
	if (is_help(name))
		name = "help";
	else if (strcmp(name, "--version") == 0)
		name = "version";
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(name, commands[i].name) != 0)
			continue;
		if (commands[i].bare && argc == 3 && is_help(argv[2]))
			return bare_help(&commands[i]);
		return commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "ratewall: unknown command '%s' (try: ratewall help)\n", argv[1]);
	return RW_EXIT_USAGE;
}
