// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "flowtab.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ratewall_hash.h"
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
	values = realloc(ft->values, (size_t)batch * ft->vsize);
	if (!values)
		return -ENOMEM;
	ft->values = values;
	ft->batch = batch;
	return 0;
}

int rw_flowtab_init(struct rw_flowtab *ft, int flows_fd, int window_fd, uint32_t *marks,
		    uint64_t seed, uint32_t ncpus, uint32_t slots)
{
	uint32_t batch;

	memset(ft, 0, sizeof(*ft));
	ft->flows_fd = flows_fd;
	ft->window_fd = window_fd;
	ft->marks = marks;
	ft->seed = seed;
	ft->ncpus = ncpus;
	ft->slots = slots;
	/* The kernel hands values out rounded up to 8 bytes. */
	ft->vsize = (rw_flow_value_size(slots, ncpus) + 7) & ~7u;
	ft->wslots = calloc(ncpus, sizeof(*ft->wslots));
	ft->cpu_sketch = calloc(ncpus, 2 * sizeof(*ft->cpu_sketch));
	if (!ft->wslots || !ft->cpu_sketch)
		return -ENOMEM;
	batch = RW_BATCH_VALUE_BYTES / ft->vsize;
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
	free(ft->wslots);
	free(ft->cpu_sketch);
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

/* A deleted flow no longer holds its filter entry (the data path counted it up). */
static void unmark(const struct rw_flowtab *ft, const struct rw_key *keys, uint32_t n)
{
	for (uint32_t i = 0; ft->marks && i < n; i++)
		__atomic_fetch_sub(&ft->marks[rw_mark_index(rw_hash(&keys[i], ft->seed))], 1,
				   __ATOMIC_RELAXED);
}

/*
 * Deletes flows, then counts their filter entries down: never before, so no
 * packet skips a record that still exists. A batch delete stops at the first
 * key that is already gone; fall back to one at a time for the rest.
 */
static uint64_t delete_flows(struct rw_flowtab *ft, uint32_t n)
{
	const struct rw_key *keys = ft->idle;
	uint64_t deleted = 0;
	uint32_t done = 0;

	while (done < n) {
		uint32_t count = n - done;
		int err = bpf_map_delete_batch(ft->flows_fd, &keys[done], &count, NULL);

		unmark(ft, &keys[done], count);
		deleted += count;
		done += count;
		if (!err)
			break;
		if (done < n) {
			if (bpf_map_delete_elem(ft->flows_fd, &keys[done]) == 0) {
				unmark(ft, &keys[done], 1);
				deleted++;
			}
			done++;
		}
	}
	return deleted;
}

/* Sums the per-slot totals of every CPU over the live slots. */
static int read_window(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out)
{
	uint64_t *cpu_sketch = ft->cpu_sketch;

	memset(cpu_sketch, 0, ft->ncpus * 2 * sizeof(*cpu_sketch));
	for (uint32_t s = 0; s < ft->slots; s++) {
		int err = bpf_map_lookup_elem(ft->window_fd, &s, ft->wslots);

		if (err)
			return err;
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
			out->sample_lost += w->sample_lost;
			out->event_lost += w->event_lost;
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
	return 0;
}

/* Calls fn for every flow in the table, a batch at a time. 0 or the first -errno. */
static int walk(struct rw_flowtab *ft,
		int (*fn)(struct rw_flowtab *ft, const struct rw_key *key, const char *value,
			  void *arg),
		void *arg)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t token = 0;
	bool first = true, done = false;
	int err;

	while (!done) {
		uint32_t count = ft->batch;

		err = bpf_map_lookup_batch(ft->flows_fd, first ? NULL : &token, &token, ft->keys,
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
			err = fn(ft, (const struct rw_key *)ft->keys + i,
				 (const char *)ft->values + (size_t)i * ft->vsize, arg);
			if (err)
				return err;
		}
	}
	return 0;
}

/* A flow's window from its value (history, then every CPU's hot record). */
static void flow_sum(const struct rw_flowtab *ft, const char *v, uint64_t now_epoch,
		     struct rw_window_sum *sum)
{
	rw_flow_window((const struct rw_flow *)(v + rw_flow_hot_offset(ft->slots)), ft->ncpus,
		       (const uint64_t *)v, ft->slots, now_epoch, sum);
}

struct scan_pass {
	uint64_t now_epoch;
	enum rw_sort sort;
	struct rw_ranker *ranker;
	struct rw_tick *out;
	uint32_t nidle;
};

static int scan_one(struct rw_flowtab *ft, const struct rw_key *key, const char *v, void *arg)
{
	struct scan_pass *p = arg;
	struct rw_rank_entry e = { .key = *key };
	int err;

	flow_sum(ft, v, p->now_epoch, &e.sum);
	if (rw_window_idle(&e.sum, p->now_epoch, ft->slots) &&
	    !(ft->ban_now_ns &&
	      ((const struct rw_flow_shared *)(v + rw_flow_shared_offset(ft->slots)))->ban_until_ns >
		      ft->ban_now_ns)) {
		err = remember_idle(ft, p->nidle, key);
		if (!err)
			p->nidle++;
		return err;
	}
	p->out->flows++;
	if (ft->each)
		ft->each(ft->each_arg, key, &e.sum);
	e.metric = rw_sort_metric(&e.sum, p->sort);
	rw_ranker_offer(p->ranker, &e);
	return ft->visit ? ft->visit(ft->visit_arg, key, &e.sum, (const uint64_t *)v,
				     (const struct rw_flow *)(v + rw_flow_hot_offset(ft->slots)))
			 : 0;
}

int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, enum rw_sort sort,
		    struct rw_ranker *ranker, struct rw_tick *out)
{
	struct scan_pass p = { .now_epoch = now_epoch, .sort = sort, .ranker = ranker, .out = out };
	int err;

	memset(out, 0, sizeof(*out));
	err = read_window(ft, now_epoch, out);
	if (!err)
		err = walk(ft, scan_one, &p);
	if (err)
		return err;
	out->deleted = delete_flows(ft, p.nidle);
	return 0;
}

struct read_pass {
	uint64_t now_epoch;
	struct rw_tick *out;
	rw_flow_visit fn;
	void *arg;
};

static int read_one(struct rw_flowtab *ft, const struct rw_key *key, const char *v, void *arg)
{
	struct read_pass *p = arg;
	struct rw_window_sum sum;

	flow_sum(ft, v, p->now_epoch, &sum);
	if (rw_window_idle(&sum, p->now_epoch, ft->slots))
		return 0; /* the loader's to delete, nobody else's */
	p->out->flows++;
	return p->fn(p->arg, key, &sum, (const uint64_t *)v,
		     (const struct rw_flow *)(v + rw_flow_hot_offset(ft->slots)));
}

int rw_flowtab_read(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out,
		    rw_flow_visit fn, void *arg)
{
	struct read_pass p = { .now_epoch = now_epoch, .out = out, .fn = fn, .arg = arg };
	int err;

	memset(out, 0, sizeof(*out));
	err = read_window(ft, now_epoch, out);
	return err ? err : walk(ft, read_one, &p);
}

int rw_flowtab_lookup(struct rw_flowtab *ft, const struct rw_key *key, const uint64_t **hist,
		      const struct rw_flow **hot)
{
	char *v = ft->values; /* the first batch slot: free between walks */

	if (bpf_map_lookup_elem(ft->flows_fd, key, v))
		return -errno;
	*hist = (const uint64_t *)v;
	*hot = (const struct rw_flow *)(v + rw_flow_hot_offset(ft->slots));
	return 0;
}

int rw_thresholds_write(int map_fd, const struct rw_thresholds *t)
{
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd, &zero, t, BPF_ANY); /* libbpf: 0 or -errno */
}

/* Adds the counters of b to a, field by field. */
static void stats_add(struct rw_stats *a, const struct rw_stats *b)
{
	__u64 *dst = (__u64 *)a;
	const __u64 *src = (const __u64 *)b;

	for (size_t i = 0; i < sizeof(*a) / sizeof(__u64); i++)
		dst[i] += src[i];
}

int rw_stats_read(int map_fd, uint32_t ncpus, struct rw_stats *sum, struct rw_stats *per_iface,
		  uint32_t nifaces)
{
	struct rw_stats *per_cpu = calloc(ncpus, sizeof(*per_cpu));
	int err = 0;

	if (!per_cpu)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (per_iface)
		memset(per_iface, 0, nifaces * sizeof(*per_iface));
	for (__u32 k = 0; k < RW_STATS_ENTRIES && !err; k++) {
		struct rw_stats entry = { 0 };

		err = bpf_map_lookup_elem(map_fd, &k, per_cpu) ? -errno : 0;
		for (uint32_t c = 0; c < ncpus && !err; c++)
			stats_add(&entry, &per_cpu[c]);
		stats_add(sum, &entry);
		if (per_iface && k < nifaces)
			per_iface[k] = entry;
	}
	free(per_cpu);
	return err;
}
