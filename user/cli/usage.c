// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Each command's --help: a row per command the options' table serves, its
 * usage and what it does; the options listed are the table's rows with the
 * command's bit, so a command's help shows its own options and no other.
 * The man page's OPTIONS are made from the same rows, command by command.
 */
#include "cli/usage.h"

#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "ratewall.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct usage {
	const char *cmd;
	const char *head;      /* usage lines, and a paragraph on what the command does */
	unsigned int without;  /* rows of these commands are left out (memory: run's) */
	const char *tail;      /* after the options */
} usages[] = {
	{ "run",
	  "usage: ratewall run IFACE... [options]\n"
	  "\n"
	  "Attach to each IFACE (up to " STR(RW_MAX_IFACES) ", sharing one flow table: a key's limit\n"
	  "holds across them combined), cap every source address (or destination,\n"
	  "pair or flow: --key) and show the top talkers.\n",
	  0,
	  "* a pinned instance (--persist) holds to these: another value needs --replace.\n"
	  "Rates: 1000, 10k, 1.5M, 2G (k, M, G: powers of 1000). Counts (N): the same,\n"
	  "or 64Ki, 1Mi (Ki, Mi, Gi: powers of 1024). Sizes: 4096, 64K, 256M, 1G\n"
	  "(powers of 1024). Durations: 250us, 500ms, 2s, 1m, 1h, 7d.\n"
	  "Exit status: 0 done, 1 runtime failure, 2 bad usage.\n" },
	{ "memory",
	  "usage: ratewall memory [--cpus N] [run options]\n"
	  "\n"
	  "Print the kernel memory each map takes for N possible CPUs (default: this\n"
	  "machine) with those options, ending with a line 'total SIZE'.\n",
	  RW_OPT_RUN,
	  "It takes every option of run but IFACE (ratewall run --help).\n" },
	{ "status",
	  "usage: ratewall status [--json] [--pin-dir DIR]\n"
	  "\n"
	  "List the pinned (--persist) instances: interfaces, limits, totals and\n"
	  "whether a loader still runs for each.\n",
	  0, NULL },
	{ "stop",
	  "usage: ratewall stop IFACE... | --name NAME | --all [--pin-dir DIR]\n"
	  "\n"
	  "Detach a pinned instance and remove its pins: the one on IFACE..., the one\n"
	  "named NAME, or every one. Exits 1 when an interface or name has no pinned\n"
	  "instance.\n",
	  0, NULL },
	{ "rule",
	  "usage: ratewall rule add RULE | del CIDR [MATCH] | list [--name NAME] [--pin-dir DIR]\n"
	  "\n"
	  "Edit the rules of a pinned (--persist) instance, --name's or the only one,\n"
	  "in force from its next packet: add a rule (or replace the one of the same\n"
	  "prefix and match), delete one, or list those in force. A run without\n"
	  "--persist has no pins and cannot be edited: send it SIGHUP after editing\n"
	  "its --rules file instead. RULE is a line of a rules file (man ratewall).\n",
	  0, NULL },
	{ "top",
	  "usage: ratewall top [IFACE] [--name NAME] [--pin-dir DIR] [--interval DURATION]\n"
	  "                    [--sort pps|bps|drops] [--levels SPEC] [--no-color]\n"
	  "\n"
	  "Watch a pinned instance (on IFACE, named NAME, or the only one) live, full\n"
	  "screen: keys s sort, p pause, / filter by prefix, l limited only, v prefix\n"
	  "levels, ? help, q quit.\n",
	  0, NULL },
};

int rw_cli_usage(FILE *out, const char *cmd)
{
	unsigned int bit = rw_opt_command(cmd);

	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++) {
		const struct usage *u = &usages[i];

		if (strcmp(u->cmd, cmd) != 0 || !bit)
			continue;
		fprintf(out, "%s\n", u->head);
		rw_opt_print_help(out, bit, u->without);
		if (u->tail)
			fprintf(out, "\n%s", u->tail);
		return 0;
	}
	return -1;
}

/* The pinned run options, as the man page names them: ".BR \-\-pps ," ... "and". */
static void man_pinned(FILE *out)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < rw_options_count; i++)
		n += (rw_options[i].flags & (RW_OPT_RUN | RW_OPT_PINNED)) ==
		     (RW_OPT_RUN | RW_OPT_PINNED);
	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];
		const char *c;

		if ((o->flags & (RW_OPT_RUN | RW_OPT_PINNED)) != (RW_OPT_RUN | RW_OPT_PINNED))
			continue;
		k++;
		fputs(k + 1 < n ? ".BR \\-\\-" : ".B \\-\\-", out);
		for (c = o->name; *c; c++)
			fputs(*c == '-' ? "\\-" : (char[2]){ *c, 0 }, out);
		fputs(k + 1 < n ? " ,\n" : k + 1 == n ? "\nand\n" : "\n", out);
	}
	fputs("are enforced by the data path (marked * in\n.BR \\-\\-help ):\n"
	      "a pinned instance holds to them, and another value needs\n.BR \\-\\-replace .\n",
	      out);
}

void rw_cli_man_options(FILE *out)
{
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++) {
		const struct usage *u = &usages[i];
		unsigned int bit = rw_opt_command(u->cmd);

		fprintf(out, ".SS \"ratewall %s\"\n", u->cmd);
		if (bit == RW_OPT_RUN)
			man_pinned(out);
		if (u->without)
			fputs("Every option of run but its interfaces, and:\n", out);
		rw_opt_print_man(out, bit, u->without);
	}
}
