/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One tick over the kernel's state: batch-read the tracked flows (each value
 * holds a flow's history and every CPU's hot record), sum each one's live
 * slots, delete flows idle for a whole window, feed the rest to the ranker,
 * and take the window's totals from the per-slot totals: sources never
 * promoted cost the tick nothing.
 */
#ifndef RW_FLOWTAB_H
#define RW_FLOWTAB_H

#include <stdint.h>
#include "config.h"
#include "rank.h"
#include "thresholds.h"

/* A live flow as a read-only pass sees it: window sums and the value behind them. */
typedef int (*rw_flow_visit)(void *arg, const struct rw_key *key, const struct rw_window_sum *sum,
			     const uint64_t *hist, const struct rw_flow *hot);

struct rw_flowtab {
	int flows_fd, window_fd;
	uint32_t *marks;  /* the tracked-source filter, mmapped; NULL: none to keep */
	uint64_t seed;    /* the program's hash seed, to find a key's filter entry */
	uint32_t ncpus;
	uint32_t slots;
	uint32_t vsize;   /* bytes per flow value */
	uint32_t batch;   /* keys per lookup_batch call */
	void *keys;
	void *values;
	struct rw_key *idle;
	uint32_t idle_cap;
	struct rw_wslot *wslots; /* one lookup's worth: ncpus values */
	uint64_t *cpu_sketch;    /* per CPU: sketch packets, bytes in the window */
	/* Called for every live tracked flow of a scan (NULL: nobody asks). */
	void (*each)(void *arg, const struct rw_key *key, const struct rw_window_sum *sum);
	void *each_arg;
	/* Also called for every live tracked flow of a scan, with its value (NULL: nobody asks). */
	rw_flow_visit visit;
	void *visit_arg;
	/* --ban: the program's clock now (set before each scan); a banned flow is never idle. */
	uint64_t ban_now_ns;
};

struct rw_tick {
	uint64_t flows;              /* tracked flows live after this tick */
	uint64_t deleted;            /* idle flows removed this tick */
	struct rw_window_sum total;  /* every keyed packet in the window (cpus, epoch unused) */
	uint64_t sketch_packets;     /* of which went into the sketch */
	uint64_t sketch_bytes;
	uint64_t sketch_peak_cpu;    /* most sketch packets one CPU has in the window */
	uint64_t sketch_peak_cpu_bytes;
	uint64_t sample_lost;        /* samples the window lost (ring buffer full) */
	uint64_t event_lost;         /* events the window lost (ring buffer full) */
	struct rw_thresholds next;   /* thresholds set for the next interval */
};

int rw_flowtab_init(struct rw_flowtab *ft, int flows_fd, int window_fd, uint32_t *marks,
		    uint64_t seed, uint32_t ncpus, uint32_t slots);
void rw_flowtab_free(struct rw_flowtab *ft);
/* Returns 0 or a negative errno from the map operations. */
int rw_flowtab_scan(struct rw_flowtab *ft, uint64_t now_epoch, enum rw_sort sort,
		    struct rw_ranker *ranker, struct rw_tick *out);

/*
 * A read-only pass (a watcher beside the loader): the window's totals in out,
 * fn for every live flow; deletes nothing, sets nothing. 0 or the first -errno.
 */
int rw_flowtab_read(struct rw_flowtab *ft, uint64_t now_epoch, struct rw_tick *out,
		    rw_flow_visit fn, void *arg);
/* One flow's value, valid until the next walk or lookup. 0 or -errno (-ENOENT: gone). */
int rw_flowtab_lookup(struct rw_flowtab *ft, const struct rw_key *key, const uint64_t **hist,
		      const struct rw_flow **hot);

int rw_thresholds_write(int map_fd, const struct rw_thresholds *t);

/*
 * Sums the per-CPU global counters of every interface into sum, and gives the
 * first nifaces interfaces' own sums in per_iface (may be NULL).
 */
int rw_stats_read(int map_fd, uint32_t ncpus, struct rw_stats *sum, struct rw_stats *per_iface,
		  uint32_t nifaces);

#endif
