/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* schedule.c: which source each packet carries. */
#ifndef RWGEN_SCHEDULE_H
#define RWGEN_SCHEDULE_H

#include "opts.h"

/* Per-source counts wanted (NULL: round-robin) and their shuffled schedule. */
uint64_t *rwgen_source_weights(const struct gen_opts *o, uint64_t *total);
uint32_t *rwgen_build_schedule(const uint64_t *counts, uint32_t sources, uint64_t total,
				uint64_t seed);
/* Adds packets per source for positions [pos, pos + n) of the source sequence. */
void rwgen_count_range(uint64_t *out, uint32_t sources, const uint32_t *sched, uint64_t len,
		       const uint64_t *per_cycle, uint64_t pos, uint64_t n);

#endif
