// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "window.h"

#include <string.h>

void rw_window_sum(const void *values, uint32_t ncpus, uint32_t stride, uint32_t slots,
		   uint64_t now_epoch, struct rw_window_sum *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t cpu = 0; cpu < ncpus; cpu++)
		rw_window_add_cpu((const void *)((const char *)values + (size_t)cpu * stride), slots,
				  now_epoch, out);
}

uint64_t rw_window_span_ns(uint64_t now_ns, uint64_t start_ns, uint64_t slot_ns, uint32_t slots)
{
	uint64_t span = (uint64_t)(slots - 1) * slot_ns + now_ns % slot_ns;
	uint64_t since = now_ns > start_ns ? now_ns - start_ns : 0;

	if (since < span)
		span = since;
	return span ? span : 1;
}
