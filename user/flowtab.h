/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One tick over the kernel's flow map: batch-read every flow, sum its live
 * slots across CPUs, delete flows idle for a whole window, and feed the rest
 * to the ranker.
 */
#ifndef RW_FLOWTAB_H
#define RW_FLOWTAB_H

#include <stdint.h>
#include "config.h"
#include "rank.h"

struct rw_flowtab {
	int map_fd;
	uint32_t ncpus;
	uint32_t slots;
	uint32_t stride;  /* bytes between two CPUs' values of one key */
	uint32_t batch;   /* keys per lookup_batch call */
	void *keys;
	void *values;
	struct rw_key *idle;
	uint32_t idle_cap;
};

struct rw_tick {
	uint64_t flows;              /* live flows left in the map */
	uint64_t deleted;            /* idle flows removed this tick */
	struct rw_window_sum total;  /* counters summed over all flows (cpus, epoch unused) */
};

int rw_flowtab_init(struct rw_flowtab *ft, int map_fd, uint32_t ncpus, uint32_t slots);
void rw_flowtab_free(struct rw_flowtab *ft);
/* Returns 0 or a negative errno from the map operations. */
int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, enum rw_sort sort,
		    struct rw_ranker *ranker, struct rw_tick *out);

/* Sums the per-CPU global counters. */
int rw_stats_read(int map_fd, uint32_t ncpus, struct rw_stats *sum);

#endif
