// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/memcmd.h"

#include <stdio.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "kernel/loader.h"
#include "kernel/memplan.h"
#include "model/units.h"
#include "ratewall.h"

int rw_memory_command(int argc, char **argv)
{
	uint32_t cpus = rw_possible_cpus(), max_flows;
	struct rw_memplan plan;
	struct rw_config cfg;
	char err[256], size[32];
	int ret;

	ret = rw_cli_outcome(rw_cli_parse_memory(argc, argv, &cfg, &cpus, err, sizeof(err)),
			     argv[0], err);
	if (ret >= 0)
		return ret;
	max_flows = rw_memplan_max_flows(&cfg, cpus);
	if (!max_flows) {
		fprintf(stderr, "ratewall: --max-memory is too small for the sketch and one tracked "
			"flow on %u CPUs\n", cpus);
		return RW_EXIT_USAGE;
	}
	rw_memplan(cpus, max_flows, cfg.slots, cfg.max_rules, cfg.samples_dir[0] != 0, &plan);
	printf("kernel memory for %u possible CPUs, %u tracked flows, %u slots, sketch %ux%u:\n",
	       cpus, max_flows, cfg.slots, RW_SKETCH_ROWS, RW_SKETCH_COLS);
	for (uint32_t i = 0; i < plan.n; i++) {
		rw_format_bytes((double)plan.map[i].bytes, size, sizeof(size));
		printf("  %-16s %12s  %s\n", plan.map[i].name, size, plan.map[i].what);
	}
	rw_format_bytes((double)plan.total, size, sizeof(size));
	printf("total %s\n", size);
	return 0;
}
