/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --events FILE|-: one JSON line per event, in order. The data path emits
 * `limited` (a tracked source's first drop in a window), `banned` and
 * `unbanned`; the loader adds `released` (a limited source whose window holds
 * no drop any more, or that went idle). Written at most RW_EVENTS_PER_SECOND a
 * second; what is not written is counted, and said.
 */
#ifndef RW_EVENTS_H
#define RW_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include "rank/keyset.h"
#include "ratewall.h"
#include "ratewall_window.h"

#define RW_EVENTS_PER_SECOND 1000

struct rw_events_out {
	FILE *f;
	bool own;                /* opened here (a file), closed here */
	struct rw_keyset limited; /* sources limited and not yet released */
	int64_t wall_minus_clock; /* CLOCK_REALTIME - the program's clock, ns */
	uint64_t second;         /* wall second the budget is for */
	uint32_t written;        /* in that second */
	uint64_t not_written;    /* ever, over the budget */
	uint64_t said;           /* not_written already said in the file */
};

/* "-" is stdout. 0 or -errno. */
int rw_events_open(struct rw_events_out *o, const char *path);
void rw_events_close(struct rw_events_out *o);
/* Each tick, before the events: how the program's clock maps to the wall clock. */
void rw_events_clock(struct rw_events_out *o, int64_t wall_minus_clock);
/* One event of the data path. */
void rw_events_kernel(struct rw_events_out *o, const struct rw_event *ev);
/* Each live tracked flow of a scan: a limited one with drops stays limited. */
void rw_events_flow(struct rw_events_out *o, const struct rw_key *key,
		    const struct rw_window_sum *sum);
/* After a scan: `released` for the others, and a line for events not written. */
void rw_events_tick_end(struct rw_events_out *o, uint64_t now_clock_ns);

#endif
