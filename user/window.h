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
 * Time the window covers at now_ns: the full slots plus the part of the
 * current one, never more than the time since counting began.
 */
uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots);

#endif
