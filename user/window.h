/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Userspace side of the window arithmetic (the shared part is in ratewall_window.h). */
#ifndef RW_WINDOW_H
#define RW_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include "ratewall.h"
#include "ratewall_window.h"

/*
 * Sums one tracked flow: its ncpus hot records (what a per-CPU map lookup
 * returns) and its shared history (NULL if it has none yet).
 */
void rw_flow_window(const struct rw_flow *hot, uint32_t ncpus, const uint64_t *hist, uint32_t slots,
		    uint64_t now_epoch, struct rw_window_sum *out);

/*
 * One count of a tracked flow (what: RW_H_PACKETS, _BYTES, _DROP_PACKETS or
 * _DROP_BYTES) per slot, for the n slots from first_epoch on: out[i] is slot
 * first_epoch + i, from its history word and every CPU's hot record of that
 * slot. A slot whose history word was already reused reads 0.
 */
void rw_flow_slot_counts(const struct rw_flow *hot, uint32_t ncpus, const uint64_t *hist,
			 uint32_t slots, enum rw_hist_word what, uint64_t first_epoch, uint32_t n,
			 uint64_t *out);

/* count over span_ns as a rate per second (0 for an empty span). */
static inline double rw_rate(uint64_t count, uint64_t span_ns)
{
	return span_ns ? (double)count * 1e9 / (double)span_ns : 0.0;
}

/*
 * Time the window covers at now_ns: the full slots plus the part of the
 * current one, never more than the time since counting began.
 */
uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots);

#endif
