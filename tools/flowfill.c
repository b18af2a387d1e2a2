// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowfill.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ratewall.h"
#include "ratewall_window.h"

static void fill_value(char *v, uint32_t id, uint32_t ncpus, uint32_t slots, uint64_t live_epoch)
{
	struct rw_flow *hot = (struct rw_flow *)(v + rw_flow_hot_offset(slots));
	uint64_t *w = (uint64_t *)v;

	if (!live_epoch)
		return;
	for (uint32_t c = 0; c < ncpus; c++)
		hot[c] = (struct rw_flow){ .epoch = live_epoch, .packets = id % 1000 + 1,
					   .bytes = 64ULL * (id % 1000 + 1) };
	for (uint32_t s = 1; s < slots && live_epoch > s; s++) {
		uint64_t e = live_epoch - s, *slot = &w[(e % slots) * RW_HIST_WORDS];

		slot[RW_H_PACKETS] = rw_hist_pack(e, id % 1000 + s);
		slot[RW_H_BYTES] = rw_hist_pack(e, 64ULL * (id % 1000 + s));
	}
}

int rw_fill_flows(int flows_fd, uint32_t n, uint32_t ncpus, uint32_t slots, uint64_t live_epoch)
{
	uint32_t chunk = 1024, vsize = (rw_flow_value_size(slots, ncpus) + 7) & ~7u;
	struct rw_key *keys = calloc(chunk, sizeof(*keys));
	char *vals = calloc(chunk, vsize);
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t base = 0; base < n && !err; base += chunk) {
		uint32_t count = n - base < chunk ? n - base : chunk;

		memset(vals, 0, (size_t)chunk * vsize);
		for (uint32_t i = 0; i < count; i++) {
			uint32_t id = base + i;

			keys[i] = (struct rw_key){ .family = RW_FAMILY_IPV6,
						   .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
			memcpy(&keys[i].addr[12], &id, 4);
			fill_value(vals + (size_t)i * vsize, id, ncpus, slots, live_epoch);
		}
		err = bpf_map_update_batch(flows_fd, keys, vals, &count, NULL);
	}
out:
	free(keys);
	free(vals);
	return err;
}
