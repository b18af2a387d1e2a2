// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowtab.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/* Keep one batch's values within a few MiB, whatever the CPU count. */
#define RW_BATCH_VALUE_BYTES (8u << 20)

static int alloc_batch(struct rw_flowtab *ft, uint32_t batch)
{
	void *keys = realloc(ft->keys, (size_t)batch * sizeof(struct rw_key));
	void *values;

	if (!keys)
		return -ENOMEM;
	ft->keys = keys;
	values = realloc(ft->values, (size_t)batch * ft->ncpus * ft->stride);
	if (!values)
		return -ENOMEM;
	ft->values = values;
	ft->batch = batch;
	return 0;
}

int rw_flowtab_init(struct rw_flowtab *ft, int map_fd, uint32_t ncpus, uint32_t slots)
{
	uint32_t batch;

	memset(ft, 0, sizeof(*ft));
	ft->map_fd = map_fd;
	ft->ncpus = ncpus;
	ft->slots = slots;
	/* The kernel hands each CPU's value out rounded up to 8 bytes. */
	ft->stride = rw_flow_stride(slots);
	batch = RW_BATCH_VALUE_BYTES / (ncpus * ft->stride);
	if (batch < 64)
		batch = 64;
	if (batch > 8192)
		batch = 8192;
	return alloc_batch(ft, batch);
}

void rw_flowtab_free(struct rw_flowtab *ft)
{
	free(ft->keys);
	free(ft->values);
	free(ft->idle);
	memset(ft, 0, sizeof(*ft));
}

static int remember_idle(struct rw_flowtab *ft, uint32_t n, const struct rw_key *key)
{
	if (n == ft->idle_cap) {
		uint32_t cap = ft->idle_cap ? ft->idle_cap * 2 : 1024;
		struct rw_key *idle = realloc(ft->idle, (size_t)cap * sizeof(*idle));

		if (!idle)
			return -ENOMEM;
		ft->idle = idle;
		ft->idle_cap = cap;
	}
	ft->idle[n] = *key;
	return 0;
}

/*
 * A batch delete stops at the first key that is already gone (the LRU may have
 * evicted it); fall back to one at a time for the rest.
 */
static uint64_t delete_idle(struct rw_flowtab *ft, uint32_t n)
{
	uint64_t deleted = 0;
	uint32_t done = 0;

	while (done < n) {
		uint32_t count = n - done;
		int err = bpf_map_delete_batch(ft->map_fd, &ft->idle[done], &count, NULL);

		deleted += count;
		done += count;
		if (!err)
			break;
		if (done < n) {
			if (bpf_map_delete_elem(ft->map_fd, &ft->idle[done]) == 0)
				deleted++;
			done++;
		}
	}
	return deleted;
}

int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, enum rw_sort sort,
		    struct rw_ranker *ranker, struct rw_tick *out)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t token = 0, nidle = 0;
	bool first = true, done = false;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (!done) {
		uint32_t count = ft->batch;

		err = bpf_map_lookup_batch(ft->map_fd, first ? NULL : &token, &token, ft->keys,
					   ft->values, &count, &opts);
		if (err == -ENOSPC && count == 0) {
			/* One hash bucket holds more keys than a batch: grow and retry. */
			err = alloc_batch(ft, ft->batch * 2);
			if (err)
				return err;
			continue;
		}
		if (err == -ENOENT)
			done = true; /* last batch, possibly with entries */
		else if (err)
			return err;
		first = false;

		for (uint32_t i = 0; i < count; i++) {
			const struct rw_key *key = (const struct rw_key *)ft->keys + i;
			const char *vals = (const char *)ft->values + (size_t)i * ft->ncpus * ft->stride;
			struct rw_rank_entry e = { .key = *key };
			const struct rw_window_sum *w = &e.sum;

			rw_window_sum(vals, ft->ncpus, ft->stride, ft->slots, now_epoch, &e.sum);
			if (rw_window_idle(w, now_epoch, ft->slots)) {
				err = remember_idle(ft, nidle, key);
				if (err)
					return err;
				nidle++;
				continue;
			}
			out->flows++;
			out->total.packets += w->packets;
			out->total.bytes += w->bytes;
			out->total.drop_packets += w->drop_packets;
			out->total.drop_bytes += w->drop_bytes;
			/* Not idle means traffic in the window: every flow left is ranked. */
			e.metric = rw_sort_metric(w, sort);
			rw_ranker_offer(ranker, &e);
		}
	}
	out->deleted = delete_idle(ft, nidle);
	return 0;
}

int rw_stats_read(int map_fd, uint32_t ncpus, struct rw_stats *sum)
{
	struct rw_stats *per_cpu = calloc(ncpus, sizeof(*per_cpu));
	__u32 zero = 0;
	int err;

	if (!per_cpu)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	err = bpf_map_lookup_elem(map_fd, &zero, per_cpu);
	if (!err) {
		for (uint32_t c = 0; c < ncpus; c++) {
			const __u64 *src = (const __u64 *)&per_cpu[c];
			__u64 *dst = (__u64 *)sum;

			for (size_t i = 0; i < sizeof(*sum) / sizeof(__u64); i++)
				dst[i] += src[i];
		}
	}
	free(per_cpu);
	return err;
}
