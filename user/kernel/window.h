/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Userspace side of the window arithmetic (the shared part is in ratewall_window.h). */
#ifndef RW_WINDOW_H
#define RW_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/table.h"
#include "ratewall.h"
#include "ratewall_window.h"

/* Sums one tracked flow: every CPU's record of its generation, and its history. */
void rw_flow_window(const struct rw_flow_view *fv, uint32_t slots, uint64_t now_epoch,
		    struct rw_window_sum *out);

/*
 * One count of a tracked flow (what: RW_H_PACKETS, _BYTES, _DROP_PACKETS or
 * _DROP_BYTES) per slot, for the n slots from first_epoch on: out[i] is slot
 * first_epoch + i, from its history slot and every CPU's record of that slot.
 * A slot whose history was already reused for a later round reads 0.
 */
void rw_flow_slot_counts(const struct rw_flow_view *fv, uint32_t slots, enum rw_hist_word what,
			 uint64_t first_epoch, uint32_t n, uint64_t *out);

/*
 * The crowd's small-count table, cfg_crowd_lc: lc[z] = m ln(m / z), the
 * linear-counting estimate of the distinct keys when z of its m registers
 * are still 0 (lc[0] is not read).
 */
void rw_crowd_lc_table(uint32_t lc[RW_CROWD_REGS + 1]);

/*
 * Time the window covers at now_ns: the full slots plus the part of the
 * current one, never more than the time since counting began.
 */
uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots);

#endif
