// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowfill.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "ratewall.h"
#include "ratewall_hash.h"
#include "ratewall_window.h"

/* A free way of bucket b, or -1. */
static int free_way(const struct rw_table *t, uint32_t b)
{
	for (int w = 0; w < RW_WAYS; w++)
		if (!t->dir[b].tag[w])
			return w;
	return -1;
}

static void fill_counts(struct rw_table *t, struct rw_hot *hot, struct rw_hist_slot *hist,
			uint32_t i, uint32_t id, uint64_t live_epoch)
{
	for (uint32_t c = 0; c < t->ncpus; c++)
		hot[(size_t)c * t->entries + i] = (struct rw_hot){
			.epoch = (uint32_t)live_epoch, .packets = id % 1000 + 1,
			.bytes = 64 * (id % 1000 + 1), .gen = 1 };
	for (uint32_t s = 1; s < t->slots && live_epoch > s; s++) {
		uint64_t e = live_epoch - s;
		struct rw_hist_slot *h = &hist[(size_t)i * rw_hist_stride(t->slots) + e % t->slots];

		h->epoch = e + 1;
		h->packets = id % 1000 + s;
		h->bytes = 64ULL * (id % 1000 + s);
	}
}

int64_t rw_fill_flows(const struct rw_table_fds *fds, uint64_t seed, uint32_t n, uint32_t ncpus,
		      uint32_t slots, uint64_t live_epoch)
{
	struct rw_hist_slot *hist = MAP_FAILED;
	struct rw_hot *hot = MAP_FAILED;
	struct rw_table t;
	int64_t placed = 0;
	int err = rw_table_map(&t, fds, ncpus, slots, seed, true);

	if (err)
		return err;
	hot = mmap(NULL, t.len[2], PROT_READ | PROT_WRITE, MAP_SHARED, fds->hot, 0);
	hist = mmap(NULL, t.len[3], PROT_READ | PROT_WRITE, MAP_SHARED, fds->hist, 0);
	if (hot == MAP_FAILED || hist == MAP_FAILED) {
		placed = -errno;
		goto out;
	}
	for (uint32_t id = 0; id < n; id++) {
		struct rw_key k = { .family = RW_FAMILY_IPV6, .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
		struct rw_where w;
		uint32_t b, i;
		int way;
		bool overflow = false;

		memcpy(&k.addr[12], &id, 4);
		w = rw_where_of(rw_hash(&k, seed), t.nbuckets);
		b = w.home;
		way = free_way(&t, b);
		if (way < 0 && w.overflow != w.home) {
			b = w.overflow;
			overflow = true;
			way = free_way(&t, b);
		}
		if (way < 0)
			continue;
		i = b * RW_WAYS + (uint32_t)way;
		t.ent[i] = (struct rw_entry){ .key = k, .home = w.home };
		t.ent[i].state = rw_st_make(live_epoch, 1,
					    RW_ST_LIVE | (overflow ? RW_ST_OVERFLOW : 0));
		if (overflow)
			t.dir[w.home].ctl++;
		t.dir[b].tag[way] = w.tag;
		fill_counts(&t, hot, hist, i, id, live_epoch);
		placed++;
	}
out:
	if (hot != MAP_FAILED)
		munmap(hot, t.len[2]);
	if (hist != MAP_FAILED)
		munmap(hist, t.len[3]);
	rw_table_unmap(&t);
	return placed;
}
