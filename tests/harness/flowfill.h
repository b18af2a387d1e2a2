/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Fills the tracked-flow table with synthetic flows, for benchmarks of a full table. */
#ifndef RW_FLOWFILL_H
#define RW_FLOWFILL_H

#include <stdint.h>
#include "kernel/table.h"

/*
 * Places n tracked flows keyed 2001:db8::/96 + i (never a benchmark's
 * 198.18.x hot source) where the program would: home bucket, else overflow.
 * Only while no packet runs through the program. live_epoch 0: no counts;
 * otherwise every CPU's record and every earlier history slot hold traffic
 * from the window ending at live_epoch. Returns the flows placed (a full set
 * refuses a few near the table's size) or a negative errno.
 */
int64_t rw_fill_flows(const struct rw_table_fds *fds, uint64_t seed, uint32_t n, uint32_t ncpus,
		      uint32_t slots, uint64_t live_epoch);

#endif
