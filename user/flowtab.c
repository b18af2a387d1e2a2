// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowtab.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/* Keep one batch's values within a few MiB, whatever the CPU count. */
#define RW_BATCH_VALUE_BYTES (8u << 20)

struct rw_join_entry {
	struct rw_key key;
	uint32_t used;
	struct rw_window_sum sum;
};

static uint32_t value_bytes(const struct rw_flowtab *ft)
{
	uint32_t hot = ft->ncpus * (uint32_t)sizeof(struct rw_flow);
	uint32_t hist = rw_hist_size(ft->slots);

	return hot > hist ? hot : hist;
}

static int alloc_batch(struct rw_flowtab *ft, uint32_t batch)
{
	void *keys = realloc(ft->keys, (size_t)batch * sizeof(struct rw_key));
	void *values;

	if (!keys)
		return -ENOMEM;
	ft->keys = keys;
	values = realloc(ft->values, (size_t)batch * value_bytes(ft));
	if (!values)
		return -ENOMEM;
	ft->values = values;
	ft->batch = batch;
	return 0;
}

int rw_flowtab_init(struct rw_flowtab *ft, const struct rw_flowtab_fds *fds, uint32_t ncpus,
		    uint32_t slots, uint32_t max_flows)
{
	uint32_t batch;

	memset(ft, 0, sizeof(*ft));
	ft->flows_fd = fds->flows;
	ft->hist_fd = fds->hist;
	ft->window_fd = fds->window;
	ft->thresholds_fd = fds->thresholds;
	ft->ncpus = ncpus;
	ft->slots = slots;
	ft->max_flows = max_flows;
	ft->wslots = calloc(ncpus, sizeof(*ft->wslots));
	if (!ft->wslots)
		return -ENOMEM;
	batch = RW_BATCH_VALUE_BYTES / value_bytes(ft);
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
	free(ft->join);
	free(ft->wslots);
	memset(ft, 0, sizeof(*ft));
}

/* FNV-1a over the key: the join table only needs keys spread, not secrecy. */
static uint32_t key_hash(const struct rw_key *key)
{
	const unsigned char *p = (const unsigned char *)key;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int join_grow(struct rw_flowtab *ft)
{
	uint32_t cap = ft->join_cap ? ft->join_cap * 2 : 4096;
	struct rw_join_entry *old = ft->join, *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (uint32_t i = 0; i < ft->join_cap; i++) {
		uint32_t h;

		if (!old[i].used)
			continue;
		for (h = key_hash(&old[i].key) & (cap - 1); tab[h].used; h = (h + 1) & (cap - 1))
			;
		tab[h] = old[i];
	}
	free(old);
	ft->join = tab;
	ft->join_cap = cap;
	return 0;
}

/* The entry for key; created (zeroed) if `create`, else NULL when absent. */
static struct rw_join_entry *join_find(struct rw_flowtab *ft, const struct rw_key *key, bool create)
{
	uint32_t h;

	if (create && (ft->join_used + 1) * 2 > ft->join_cap && join_grow(ft))
		return NULL;
	if (!ft->join_cap)
		return NULL;
	for (h = key_hash(key) & (ft->join_cap - 1); ft->join[h].used; h = (h + 1) & (ft->join_cap - 1)) {
		if (memcmp(&ft->join[h].key, key, sizeof(*key)) == 0)
			return &ft->join[h];
	}
	if (!create)
		return NULL;
	ft->join[h].used = 1;
	ft->join[h].key = *key;
	memset(&ft->join[h].sum, 0, sizeof(ft->join[h].sum));
	ft->join_used++;
	return &ft->join[h];
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
 * A batch delete stops at the first key that is already gone; fall back to one
 * at a time for the rest.
 */
static uint64_t delete_keys(int map_fd, const struct rw_key *keys, uint32_t n)
{
	uint64_t deleted = 0;
	uint32_t done = 0;

	while (done < n) {
		uint32_t count = n - done;
		int err = bpf_map_delete_batch(map_fd, &keys[done], &count, NULL);

		deleted += count;
		done += count;
		if (!err)
			break;
		if (done < n) {
			if (bpf_map_delete_elem(map_fd, &keys[done]) == 0)
				deleted++;
			done++;
		}
	}
	return deleted;
}

typedef int (*rw_batch_fn)(struct rw_flowtab *ft, const struct rw_key *key, const void *value,
			   uint64_t now_epoch);

/* Walks a whole hash map in batches, calling fn for every key and value. */
static int walk_map(struct rw_flowtab *ft, int map_fd, uint32_t value_size, uint64_t now_epoch,
		    rw_batch_fn fn)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t token = 0;
	bool first = true, done = false;
	int err;

	while (!done) {
		uint32_t count = ft->batch;

		err = bpf_map_lookup_batch(map_fd, first ? NULL : &token, &token, ft->keys, ft->values,
					   &count, &opts);
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
			err = fn(ft, (const struct rw_key *)ft->keys + i,
				 (const char *)ft->values + (size_t)i * value_size, now_epoch);
			if (err)
				return err;
		}
	}
	return 0;
}

static int add_hot(struct rw_flowtab *ft, const struct rw_key *key, const void *value,
		   uint64_t now_epoch)
{
	struct rw_join_entry *e = join_find(ft, key, true);

	if (!e)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < ft->ncpus; cpu++)
		rw_window_add_hot((const struct rw_flow *)value + cpu, ft->slots, now_epoch, &e->sum);
	return 0;
}

/* History joins its hot record; an orphan (hot record gone) is deleted once idle. */
static int add_hist(struct rw_flowtab *ft, const struct rw_key *key, const void *value,
		    uint64_t now_epoch)
{
	struct rw_join_entry *e = join_find(ft, key, false);
	struct rw_window_sum orphan = { 0 };

	rw_window_add_hist(value, ft->slots, now_epoch, e ? &e->sum : &orphan);
	if (!e && rw_window_idle(&orphan, now_epoch, ft->slots)) {
		if (remember_idle(ft, ft->nidle, key))
			return -ENOMEM;
		ft->nidle++;
	}
	return 0;
}

/* Sums the per-slot totals of every CPU over the live slots. */
static int read_window(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out)
{
	uint64_t *cpu_sketch = calloc(ft->ncpus, 2 * sizeof(uint64_t));

	if (!cpu_sketch)
		return -ENOMEM;
	for (uint32_t s = 0; s < ft->slots; s++) {
		int err = bpf_map_lookup_elem(ft->window_fd, &s, ft->wslots);

		if (err) {
			free(cpu_sketch);
			return err;
		}
		for (uint32_t c = 0; c < ft->ncpus; c++) {
			const struct rw_wslot *w = &ft->wslots[c];

			if (!w->packets || !rw_slot_live(w->epoch, now_epoch, ft->slots))
				continue;
			out->total.packets += w->packets;
			out->total.bytes += w->bytes;
			out->total.drop_packets += w->drop_packets;
			out->total.drop_bytes += w->drop_bytes;
			out->sketch_packets += w->sketch_packets;
			out->sketch_bytes += w->sketch_bytes;
			cpu_sketch[2 * c] += w->sketch_packets;
			cpu_sketch[2 * c + 1] += w->sketch_bytes;
		}
	}
	for (uint32_t c = 0; c < ft->ncpus; c++) {
		if (cpu_sketch[2 * c] > out->sketch_peak_cpu)
			out->sketch_peak_cpu = cpu_sketch[2 * c];
		if (cpu_sketch[2 * c + 1] > out->sketch_peak_cpu_bytes)
			out->sketch_peak_cpu_bytes = cpu_sketch[2 * c + 1];
	}
	free(cpu_sketch);
	return 0;
}

int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, enum rw_sort sort,
		    struct rw_ranker *ranker, struct rw_tick *out)
{
	uint32_t nidle, norphans;
	int err;

	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < ft->join_cap; i++)
		ft->join[i].used = 0;
	ft->join_used = 0;

	/* Hot records first: a flush moves counts into the history, never the other way. */
	err = walk_map(ft, ft->flows_fd, ft->ncpus * (uint32_t)sizeof(struct rw_flow), now_epoch,
		       add_hot);
	if (!err)
		err = read_window(ft, now_epoch, out);
	if (err)
		return err;

	/* History: joined to its hot record; idle orphans go first in idle[]. */
	ft->nidle = 0;
	err = walk_map(ft, ft->hist_fd, rw_hist_size(ft->slots), now_epoch, add_hist);
	if (err)
		return err;
	nidle = norphans = ft->nidle;

	for (uint32_t i = 0; i < ft->join_cap; i++) {
		struct rw_join_entry *j = &ft->join[i];
		struct rw_rank_entry e;

		if (!j->used)
			continue;
		if (rw_window_idle(&j->sum, now_epoch, ft->slots)) {
			if (remember_idle(ft, nidle, &j->key))
				return -ENOMEM;
			nidle++;
			continue;
		}
		out->flows++;
		e = (struct rw_rank_entry){ .key = j->key, .sum = j->sum };
		e.metric = rw_sort_metric(&e.sum, sort);
		rw_ranker_offer(ranker, &e);
	}
	/* Hot record before history: a packet in between recreates the history it needs. */
	out->deleted = delete_keys(ft->flows_fd, ft->idle + norphans, nidle - norphans);
	delete_keys(ft->hist_fd, ft->idle, nidle);
	return 0;
}

int rw_thresholds_write(int map_fd, const struct rw_thresholds *t)
{
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd, &zero, t, BPF_ANY) ? -errno : 0;
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
	return err ? -errno : 0;
}
