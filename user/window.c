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

uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots)
{
	uint64_t span = (uint64_t)(slots - 1) * slot_ns + now_ns % slot_ns;
	uint64_t since = now_ns > start_ns ? now_ns - start_ns : 0;

	if (since < span)
		span = since;
	return span ? span : 1;
}
