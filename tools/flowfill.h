/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Fills the tracked-flow map with synthetic flows, for benchmarks of a full table. */
#ifndef RW_FLOWFILL_H
#define RW_FLOWFILL_H

#include <stdint.h>

/*
 * Inserts n tracked flows keyed 2001:db8::/96 + i (never a benchmark's 198.18.x
 * hot source). live_epoch 0: zeroed values; otherwise every CPU's hot record
 * and every earlier history slot hold traffic from the window ending at
 * live_epoch. Negative errno on failure.
 */
int rw_fill_flows(int flows_fd, uint32_t n, uint32_t ncpus, uint32_t slots, uint64_t live_epoch);

#endif
