// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowfill.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ratewall.h"

static void fill_value(char *vals, uint32_t id, uint32_t ncpus, uint32_t stride, uint32_t slots,
		       uint64_t live_epoch)
{
	for (uint32_t c = 0; c < ncpus; c++) {
		struct rw_flow *f = (void *)(vals + (size_t)c * stride);

		for (uint32_t s = 0; s < slots && live_epoch; s++) {
			uint64_t e = live_epoch - s;

			f->slot[e % slots] = (struct rw_slot){
				.epoch = e, .packets = id % 1000 + s, .bytes = 64ULL * (id % 1000 + s),
			};
		}
	}
}

int rw_fill_flows(int map_fd, uint32_t n, uint32_t ncpus, uint32_t slots, uint64_t live_epoch)
{
	uint32_t stride = rw_flow_stride(slots), chunk = 4096;
	struct rw_key *keys = calloc(chunk, sizeof(*keys));
	char *vals = calloc((size_t)chunk * ncpus, stride);
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t base = 0; base < n && !err; base += chunk) {
		uint32_t count = n - base < chunk ? n - base : chunk;

		for (uint32_t i = 0; i < count; i++) {
			uint32_t id = base + i;

			keys[i] = (struct rw_key){ .family = RW_FAMILY_IPV6,
						   .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
			memcpy(&keys[i].addr[12], &id, 4);
			fill_value(vals + (size_t)i * ncpus * stride, id, ncpus, stride, slots, live_epoch);
		}
		err = bpf_map_update_batch(map_fd, keys, vals, &count, NULL);
	}
out:
	free(keys);
	free(vals);
	return err;
}
