// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "window.h"

#include <string.h>

void rw_flow_window(const struct rw_flow *hot, uint32_t ncpus, const uint64_t *hist, uint32_t slots,
		    uint64_t now_epoch, struct rw_window_sum *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t cpu = 0; cpu < ncpus; cpu++)
		rw_window_add_hot(&hot[cpu], slots, now_epoch, out);
	if (hist)
		rw_window_add_hist((const __u64 *)hist, slots, now_epoch, out);
}

static uint64_t hot_count(const struct rw_flow *f, enum rw_hist_word what)
{
	switch (what) {
	case RW_H_PACKETS:
		return f->packets;
	case RW_H_BYTES:
		return f->bytes;
	case RW_H_DROP_PACKETS:
		return f->drop_packets;
	default:
		return f->drop_bytes;
	}
}

void rw_flow_slot_counts(const struct rw_flow *hot, uint32_t ncpus, const uint64_t *hist,
			 uint32_t slots, enum rw_hist_word what, uint64_t first_epoch, uint32_t n,
			 uint64_t *out)
{
	uint64_t end = first_epoch + n; /* words are read as seen from the slot after the last */

	memset(out, 0, n * sizeof(*out));
	for (uint32_t i = 0; hist && i < slots; i++) {
		const uint64_t *w = &hist[i * RW_HIST_WORDS];
		uint64_t e;

		if (!w[what])
			continue;
		e = rw_hist_epoch(w[what], end); /* each word carries its own slot's tag */
		if (e >= first_epoch && e < end)
			out[e - first_epoch] += rw_hist_value(w[what]);
	}
	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		const struct rw_flow *f = &hot[cpu];

		if (f->packets && f->epoch >= first_epoch && f->epoch < end)
			out[f->epoch - first_epoch] += hot_count(f, what);
	}
}

uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots)
{
	uint64_t span = (uint64_t)(slots - 1) * slot_ns + now_ns % slot_ns;
	uint64_t since = now_ns > start_ns ? now_ns - start_ns : 0;

	if (since < span)
		span = since;
	return span ? span : 1;
}
