// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowfill.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ratewall.h"
#include "ratewall_window.h"

static void fill_hot(struct rw_flow *hot, uint32_t id, uint32_t ncpus, uint64_t live_epoch)
{
	for (uint32_t c = 0; c < ncpus && live_epoch; c++)
		hot[c] = (struct rw_flow){ .epoch = live_epoch, .packets = id % 1000 + 1,
					   .bytes = 64ULL * (id % 1000 + 1) };
}

static void fill_hist(uint64_t *w, uint32_t id, uint32_t slots, uint64_t live_epoch)
{
	for (uint32_t s = 1; s < slots && live_epoch > s; s++) {
		uint64_t e = live_epoch - s, *slot = &w[(e % slots) * RW_HIST_WORDS];

		slot[RW_H_PACKETS] = rw_hist_pack(e, id % 1000 + s);
		slot[RW_H_BYTES] = rw_hist_pack(e, 64ULL * (id % 1000 + s));
	}
}

int rw_fill_flows(int flows_fd, int hist_fd, uint32_t n, uint32_t ncpus, uint32_t slots,
		  uint64_t live_epoch)
{
	uint32_t chunk = 4096, hsize = rw_hist_size(slots);
	struct rw_key *keys = calloc(chunk, sizeof(*keys));
	struct rw_flow *hot = calloc((size_t)chunk * ncpus, sizeof(*hot));
	uint64_t *hist = calloc(chunk, hsize);
	int err = 0;

	if (!keys || !hot || !hist) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t base = 0; base < n && !err; base += chunk) {
		uint32_t count = n - base < chunk ? n - base : chunk, c2;

		memset(hot, 0, (size_t)chunk * ncpus * sizeof(*hot));
		memset(hist, 0, (size_t)chunk * hsize);
		for (uint32_t i = 0; i < count; i++) {
			uint32_t id = base + i;

			keys[i] = (struct rw_key){ .family = RW_FAMILY_IPV6,
						   .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
			memcpy(&keys[i].addr[12], &id, 4);
			fill_hot(hot + (size_t)i * ncpus, id, ncpus, live_epoch);
			fill_hist((uint64_t *)((char *)hist + (size_t)i * hsize), id, slots, live_epoch);
		}
		c2 = count;
		err = bpf_map_update_batch(flows_fd, keys, hot, &count, NULL);
		if (!err)
			err = bpf_map_update_batch(hist_fd, keys, hist, &c2, NULL);
	}
out:
	free(keys);
	free(hot);
	free(hist);
	return err;
}
