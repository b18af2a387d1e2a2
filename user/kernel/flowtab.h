/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One tick over the kernel's state: walk the tracked-flow table in place, sum
 * each flow's live slots, delete flows idle for a whole window (each at once,
 * and only if no packet revived it since it was read), hand the rest to the
 * caller (who ranks them, counts their prefixes, draws them), and take the
 * window's totals from the per-slot totals: sources never promoted cost the
 * tick nothing.
 */
#ifndef RW_FLOWTAB_H
#define RW_FLOWTAB_H

#include <stdint.h>
#include "kernel/table.h"

/* A live flow as a pass sees it: window sums and the flow behind them. 0, or -errno to stop. */
typedef int (*rw_flow_visit)(void *arg, const struct rw_key *key, const struct rw_window_sum *sum,
			     const struct rw_flow_view *fv);

struct rw_flowtab {
	struct rw_table table;
	int window_fd;
	uint32_t ncpus;
	uint32_t slots;
	struct rw_hot *recs;     /* one flow's records: ncpus */
	struct rw_wslot *wslots; /* one lookup's worth: ncpus values */
	uint64_t *cpu_sketch;    /* per CPU: sketch packets, bytes in the window */
	/* --ban: the program's clock now (set before each scan); a banned flow is never idle. */
	uint64_t ban_now_ns;
	/*
	 * --ban with events: the loader's scan ends every ban that ran out (the
	 * data path ends one only at the key's next packet, which a silent key
	 * never sends) and tells this. Whoever swaps the ban word to 0 first says
	 * `unbanned`: the data path or the loader, once.
	 */
	void (*on_unban)(void *arg, const struct rw_key *key, uint64_t until_ns);
	void *on_unban_arg;
	/* Test hook: called after a flow is read and before it may be deleted. */
	void (*before_delete)(void *arg, uint32_t entry);
	void *before_delete_arg;
};

struct rw_tick {
	uint64_t flows;              /* tracked flows live after this tick */
	uint64_t deleted;            /* idle flows removed this tick */
	struct rw_window_sum total;  /* every keyed packet in the window (cpus, epoch unused) */
	uint64_t sketch_packets;     /* of which went into the sketch */
	uint64_t sketch_bytes;
	uint64_t sketch_peak_cpu;    /* most sketch packets one CPU has in the window */
	uint64_t sketch_noise;       /* rw_sketch_noise of that CPU: what a bucket holds of others */
	uint64_t sketch_peak_cpu_bytes;
	uint64_t sample_lost;        /* samples the window lost (ring buffer full) */
	uint64_t event_lost;         /* events the window lost (ring buffer full) */
	struct rw_thresholds next;   /* thresholds set for the next interval */
};

/*
 * Maps the table (writable: the loader's, which deletes idle flows; else a
 * read-only watcher's). 0 or a negative errno.
 */
int rw_flowtab_init(struct rw_flowtab *ft, const struct rw_table_fds *fds, int window_fd,
		    uint64_t seed, uint32_t ncpus, uint32_t slots, bool writable);
void rw_flowtab_free(struct rw_flowtab *ft);
/*
 * The loader's pass: the window's totals in out, idle flows deleted, fn for
 * every live flow. 0 or the first negative errno.
 */
int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out,
		    rw_flow_visit fn, void *arg);

/*
 * A read-only pass (a watcher beside the loader): the window's totals in out,
 * fn for every live flow; deletes nothing, sets nothing. 0 or the first -errno.
 */
int rw_flowtab_read(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out,
		    rw_flow_visit fn, void *arg);
/* One flow, valid until the next call. 0 or -ENOENT (not tracked). */
int rw_flowtab_lookup(struct rw_flowtab *ft, const struct rw_key *key, struct rw_flow_view *fv);

/* The promotion thresholds of one key kind (the map holds one entry per kind). */
int rw_thresholds_write(int map_fd, uint32_t kind, const struct rw_thresholds *t);

/*
 * Sums the per-CPU global counters of every interface into sum, and gives the
 * first nifaces interfaces' own sums in per_iface (may be NULL).
 */
int rw_stats_read(int map_fd, uint32_t ncpus, struct rw_stats *sum, struct rw_stats *per_iface,
		  uint32_t nifaces);

/* What the counters passed: every counted packet is dropped or passed, and only drops are kept. */
static inline uint64_t rw_stats_passed(const struct rw_stats *s)
{
	return s->rx_packets - s->dropped;
}

#endif
