// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/flowtab.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/window.h"

int rw_flowtab_init(struct rw_flowtab *ft, const struct rw_table_fds *fds, int window_fd,
		    uint64_t seed, uint32_t ncpus, uint32_t slots, bool writable)
{
	int err;

	memset(ft, 0, sizeof(*ft));
	ft->window_fd = window_fd;
	ft->ncpus = ncpus;
	ft->slots = slots;
	ft->recs = calloc(ncpus, sizeof(*ft->recs));
	ft->wslots = calloc(ncpus, sizeof(*ft->wslots));
	ft->cpu_sketch = calloc(ncpus, 2 * sizeof(*ft->cpu_sketch));
	if (!ft->recs || !ft->wslots || !ft->cpu_sketch)
		return -ENOMEM;
	err = rw_table_map(&ft->table, fds, ncpus, slots, seed, writable);
	return err;
}

void rw_flowtab_free(struct rw_flowtab *ft)
{
	rw_table_unmap(&ft->table);
	free(ft->recs);
	free(ft->wslots);
	free(ft->cpu_sketch);
	memset(ft, 0, sizeof(*ft));
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
			cpu_sketch[2 * c] += rw_wslot_load(w);
			cpu_sketch[2 * c + 1] += rw_wslot_load_bytes(w);
		}
	}
	for (uint32_t c = 0; c < ft->ncpus; c++) {
		if (cpu_sketch[2 * c] > out->sketch_peak_cpu)
			out->sketch_peak_cpu = cpu_sketch[2 * c];
		if (cpu_sketch[2 * c + 1] > out->sketch_peak_cpu_bytes)
			out->sketch_peak_cpu_bytes = cpu_sketch[2 * c + 1];
	}
	out->sketch_noise = rw_sketch_noise(out->sketch_peak_cpu);
	return 0;
}

/* Calls fn for every live flow of the table, with its window sums. 0 or the first -errno. */
static int walk(struct rw_flowtab *ft, uint64_t now_epoch,
		int (*fn)(struct rw_flowtab *ft, uint32_t i, const struct rw_key *key,
			  const struct rw_window_sum *sum, const struct rw_flow_view *fv, void *arg),
		void *arg)
{
	struct rw_table *t = &ft->table;

	for (uint32_t i = 0; i < t->entries; i++) {
		struct rw_window_sum sum;
		struct rw_flow_view fv;
		struct rw_key key;
		uint64_t state;
		int err;

		if (!rw_table_entry(t, i, &key, &state))
			continue;
		rw_table_flow(t, i, state, ft->recs, &fv);
		rw_flow_window(&fv, ft->slots, now_epoch, &sum);
		err = fn(ft, i, &key, &sum, &fv, arg);
		if (err)
			return err;
	}
	return 0;
}

/* One pass: the loader's (delete_idle) or a watcher's. */
struct pass {
	uint64_t now_epoch;
	struct rw_tick *out;
	rw_flow_visit fn;
	void *arg;
	bool delete_idle;
};

static int pass_one(struct rw_flowtab *ft, uint32_t i, const struct rw_key *key,
		    const struct rw_window_sum *sum, const struct rw_flow_view *fv, void *arg)
{
	struct pass *p = arg;
	uint64_t until = fv->ban_until_ns;

	if (p->delete_idle && ft->on_unban && until && until <= ft->ban_now_ns &&
	    __atomic_compare_exchange_n(&ft->table.ent[i].ban_until_ns, &until, 0, false,
					__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		ft->on_unban(ft->on_unban_arg, key, until);
	if (!rw_window_idle(sum, p->now_epoch, ft->slots))
		goto live;
	if (!p->delete_idle)
		return 0; /* the loader's to delete, nobody else's */
	if (__atomic_load_n(&ft->table.ent[i].ban_until_ns, __ATOMIC_RELAXED) > ft->ban_now_ns)
		goto live; /* a banned flow is never idle */
	if (ft->before_delete)
		ft->before_delete(ft->before_delete_arg, i);
	/*
	 * Only if the state is still the one read: a packet that revived it
	 * since changed it first. Not removed (revived, or idle by less than
	 * the state's margin slot): the next tick sees it again.
	 */
	if (rw_table_delete(&ft->table, i, fv->state, p->now_epoch, ft->ban_now_ns))
		p->out->deleted++;
	return 0;
live:
	p->out->flows++;
	return p->fn ? p->fn(p->arg, key, sum, fv) : 0;
}

static int pass(struct rw_flowtab *ft, struct pass *p)
{
	int err;

	memset(p->out, 0, sizeof(*p->out));
	/*
	 * The flows first, then the window: every count a flow is read with is
	 * then in the window's totals, so shares of the window (a prefix's, a
	 * flow's) never add up past it. The other way round, the packets that
	 * came in during the walk (tens of milliseconds on a large table under a
	 * flood) were in the flows and not in the total: 2 % too many, summed.
	 */
	err = walk(ft, p->now_epoch, pass_one, p);
	return err ? err : read_window(ft, p->now_epoch, p->out);
}

int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out,
		    rw_flow_visit fn, void *arg)
{
	struct pass p = { .now_epoch = now_epoch, .out = out, .fn = fn, .arg = arg,
			  .delete_idle = true };

	return pass(ft, &p);
}

int rw_flowtab_read(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out,
		    rw_flow_visit fn, void *arg)
{
	struct pass p = { .now_epoch = now_epoch, .out = out, .fn = fn, .arg = arg };

	return pass(ft, &p);
}

int rw_flowtab_lookup(struct rw_flowtab *ft, const struct rw_key *key, struct rw_flow_view *fv)
{
	uint64_t state;
	int64_t i = rw_table_find(&ft->table, key, &state);

	if (i < 0)
		return -ENOENT;
	rw_table_flow(&ft->table, (uint32_t)i, state, ft->recs, fv);
	return 0;
}

int rw_thresholds_write(int map_fd, uint32_t kind, const struct rw_thresholds *t)
{
	return bpf_map_update_elem(map_fd, &kind, t, BPF_ANY); /* libbpf: 0 or -errno */
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
