/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Userspace side of the window arithmetic (the shared part is in ratewall_window.h). */
#ifndef RW_WINDOW_H
#define RW_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include "ratewall.h"
#include "ratewall_window.h"

/*
 * Sums one flow's per-CPU values. `values` holds ncpus values, `stride` bytes
 * apart (what a per-CPU map lookup returns).
 */
void rw_window_sum(const void *values, uint32_t ncpus, uint32_t stride, uint32_t slots,
		   uint64_t now_epoch, struct rw_window_sum *out);

/*
 * Time the window covers at now_ns: the full slots plus the part of the
 * current one, never more than the time since counting began.
 */
uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots);

#endif
