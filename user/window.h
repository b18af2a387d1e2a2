/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Sliding-window arithmetic over the per-CPU values the kernel keeps. */
#ifndef RW_WINDOW_H
#define RW_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include "ratewall.h"

struct rw_window_sum {
	uint64_t packets;      /* offered, inside the window */
	uint64_t bytes;
	uint64_t drop_packets;
	uint64_t drop_bytes;
	uint64_t newest_epoch; /* newest slot seen on any CPU (0: never) */
	uint32_t cpus;         /* CPUs with traffic inside the window */
};

/* Whether a slot of `epoch` lies in the window that ends at now_epoch. */
static inline bool rw_slot_live(uint64_t slot_epoch, uint64_t now_epoch, uint32_t slots)
{
	/* A CPU may already be a slot ahead of the reader: that slot counts too. */
	return slot_epoch + slots > now_epoch;
}

/*
 * Sums one flow's per-CPU values. `values` holds ncpus values, `stride` bytes
 * apart (what bpf_map_lookup_batch returns for a per-CPU map).
 */
void rw_window_sum(const void *values, uint32_t ncpus, uint32_t stride, uint32_t slots,
		   uint64_t now_epoch, struct rw_window_sum *out);

/* Idle for a whole window: nothing live on any CPU. */
static inline bool rw_window_idle(const struct rw_window_sum *w, uint64_t now_epoch, uint32_t slots)
{
	return w->packets == 0 && !rw_slot_live(w->newest_epoch, now_epoch, slots);
}

/*
 * Time the window covers at now_ns: the full slots plus the part of the
 * current one, never more than the time since counting began.
 */
uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots);

#endif
