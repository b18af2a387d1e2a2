/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel memory of every map ratewall loads, for a given number of possible
 * CPUs: the same arithmetic as the kernel's map_mem_usage (what bpftool shows
 * as memlock), so `ratewall memory` can plan a server it does not run on.
 */
#ifndef RW_MEMPLAN_H
#define RW_MEMPLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "cli/config.h"

#define RW_MEMPLAN_MAPS 24

struct rw_map_plan {
	const char *name;  /* the map's name in the BPF object */
	const char *what;  /* one line for the operator */
	uint64_t bytes;
};

struct rw_memplan {
	uint32_t n;
	struct rw_map_plan map[RW_MEMPLAN_MAPS];
	uint64_t total;
};

/* samples: --samples on (its ring buffer and key map at full size). */
void rw_memplan(uint32_t ncpus, uint32_t max_flows, uint32_t slots, uint32_t max_rules,
		bool samples, struct rw_memplan *out);

/* Bytes one more tracked flow adds (for --max-memory). */
uint64_t rw_memplan_per_flow(uint32_t ncpus, uint32_t slots);

/*
 * Tracked flows for a run: --max-flows, or what --max-memory buys once the
 * sketch and the small maps are paid for, or the default. 0 when the budget
 * does not buy even one.
 */
uint32_t rw_memplan_max_flows(const struct rw_config *cfg, uint32_t ncpus);

#endif
