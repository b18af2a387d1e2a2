// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/window.h"

#include <math.h>
#include <string.h>

void rw_flow_window(const struct rw_flow_view *fv, uint32_t slots, uint64_t now_epoch,
		    struct rw_window_sum *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t cpu = 0; cpu < fv->ncpus; cpu++)
		rw_window_add_hot(&fv->hot[cpu], fv->state, slots, now_epoch, out);
	for (uint32_t i = 0; fv->hist && i < slots; i++)
		rw_window_add_hist_slot(&fv->hist[i], slots, now_epoch, out);
}

static uint64_t hot_count(const struct rw_hot *f, enum rw_hist_word what)
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

void rw_flow_slot_counts(const struct rw_flow_view *fv, uint32_t slots, enum rw_hist_word what,
			 uint64_t first_epoch, uint32_t n, uint64_t *out)
{
	uint64_t end = first_epoch + n;

	memset(out, 0, n * sizeof(*out));
	for (uint32_t i = 0; fv->hist && i < slots; i++) {
		const struct rw_hist_slot *h = &fv->hist[i];
		uint64_t w = h->epoch, e, v = rw_hist_count(h, what);

		if (!rw_hist_held(w) || h->epoch != w)
			continue;
		e = rw_hist_round(w);
		if (e >= first_epoch && e < end)
			out[e - first_epoch] += v;
	}
	for (uint32_t cpu = 0; cpu < fv->ncpus; cpu++) {
		const struct rw_hot *f = &fv->hot[cpu];
		uint64_t e;

		if (!f->packets || f->gen != rw_st_gen(fv->state))
			continue;
		e = rw_hot_epoch(f, rw_st_epoch(fv->state));
		if (e >= first_epoch && e < end)
			out[e - first_epoch] += hot_count(f, what);
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

void rw_crowd_lc_table(uint32_t lc[RW_CROWD_REGS + 1])
{
	lc[0] = 0;
	for (uint32_t z = 1; z <= RW_CROWD_REGS; z++)
		lc[z] = (uint32_t)lround(RW_CROWD_REGS * log((double)RW_CROWD_REGS / z));
}
