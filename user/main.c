// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ratewall: XDP per-source rate limiter and live top-talkers monitor. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "memcmd.h"
#include "run.h"
#include "svccmd.h"
#include "version.h"


static void usage(FILE *out)
{
	fprintf(out, "ratewall %s: XDP per-source rate limiter and top-talkers monitor\n\n"
		     "commands:\n"
		     "  run IFACE... [options]  attach, enforce and report (ratewall run --help)\n"
		     "  status [--json]       pinned (--persist) instances: limits, totals, loader\n"
		     "  stop IFACE...|--name NAME|--all  detach a pinned instance, remove its pins\n"
		     "  rule add RULE|del CIDR|list [--name NAME]  edit a pinned instance's rules\n"
		     "  top [IFACE] [--name NAME]  watch a pinned instance live, full screen\n"
		     "  memory [--cpus N] [options]  kernel memory of every map, planned\n"
		     "  version               print the version\n",
		RATEWALL_VERSION);
}

int main(int argc, char **argv)
{
	struct rw_config cfg;
	char err[256];
	int ret;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("ratewall %s\n", RATEWALL_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "memory") == 0)
		return rw_memory_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "status") == 0)
		return rw_status_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "stop") == 0)
		return rw_stop_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "rule") == 0)
		return rw_rule_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "top") == 0)
		return rw_top_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "ratewall: unknown command '%s' (try: ratewall help)\n", argv[1]);
		return 2;
	}
	ret = rw_cli_outcome(rw_cli_parse_run(argc - 1, argv + 1, &cfg, err, sizeof(err)), err);
	return ret >= 0 ? ret : rw_run(&cfg);
}
