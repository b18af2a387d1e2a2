/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --events FILE|-: one JSON line per event, in order. The data path emits
 * `limited` (a tracked source's first drop in a window), `banned` and
 * `unbanned` (at the key's next packet after its ban); the loader adds
 * `released` (a limited source whose window holds no drop any more, or that
 * went idle) and `unbanned` for a ban that ran out while the key was silent.
 * Written at most RW_EVENTS_PER_SECOND a second; what is not written is
 * counted, and said. --history keeps the events of each tick too (with or
 * without a file), for the window it writes.
 */
#ifndef RW_EVENTS_H
#define RW_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include "model/rules.h"
#include "model/samples.h"
#include "rank/keyset.h"
#include "ratewall.h"
#include "ratewall_window.h"

#define RW_EVENTS_PER_SECOND 1000

/* One event as --history keeps it (the tick's, until the window is written). */
struct rw_event_rec {
	double ts;       /* wall clock, seconds */
	double until;    /* banned: when it ends; unbanned: when it was to end; 0 otherwise */
	struct rw_key key;
	uint32_t type;   /* enum rw_event_type */
	int32_t cpu;     /* -1: the loader's */
	char sample[RW_SAMPLE_NAMELEN]; /* --samples: the event's file ("": none) */
};

struct rw_events_out {
	FILE *f;                 /* NULL: no file (events for --history only) */
	bool keep;               /* --history: keep the tick's events in tick[] */
	struct rw_event_rec *tick; /* this tick's events (keep), oldest first */
	uint32_t ntick, cap;
	bool own;                /* opened here (a file), closed here */
	struct rw_keyset limited; /* sources limited and not yet released */
	int64_t wall_minus_clock; /* CLOCK_REALTIME - the program's clock, ns */
	uint64_t second;         /* wall second the budget is for */
	uint32_t written;        /* in that second */
	uint64_t not_written;    /* ever, over the budget */
	uint64_t said;           /* not_written already said in the file */
	const struct rw_ruleset *rules; /* the rules in force, to name a key's (NULL: none) */
	/* --on-event, --bgp: every event is handed on here too, the budget's or not (NULL: none). */
	void (*on_event)(void *arg, uint32_t type, const struct rw_key *key, double ts, int cpu,
			 double until, const char *sample);
	void *on_event_arg;
	/*
	 * --samples: limited and banned events name their sample, as act/pcap.c
	 * names it; heavy events too with prefix_samples (--levels: the prefix's
	 * frames, kernel/pcapnets.h).
	 */
	bool samples, prefix_samples;
	int64_t sample_offset; /* the wall clock - the program's clock the names are made with */
};

/* Whether events are wanted at all: a file, --history, a command, or more. */
static inline bool rw_events_on(const struct rw_events_out *o)
{
	return o->f || o->keep || o->on_event;
}

/* "-" is stdout; NULL or "": no file. keep: hold each tick's events (--history). 0 or -errno. */
int rw_events_open(struct rw_events_out *o, const char *path, bool keep);
void rw_events_close(struct rw_events_out *o);
/* Each tick, before the events: how the program's clock maps to the wall clock. */
void rw_events_clock(struct rw_events_out *o, int64_t wall_minus_clock);
/* One event of the data path. */
void rw_events_kernel(struct rw_events_out *o, const struct rw_event *ev);
/* A ban that ran out, ended by the loader (clock: the program's clock). */
void rw_events_unbanned(struct rw_events_out *o, const struct rw_key *key, uint64_t now_clock_ns,
			uint64_t until_clock_ns);
/* --levels: a prefix that became heavy or light (RW_EV_HEAVY, RW_EV_LIGHT), on the program's clock. */
void rw_events_prefix(struct rw_events_out *o, uint32_t type, const struct rw_key *prefix,
		      uint64_t now_clock_ns);
/*
 * --on-event: how a command run for an event (of type `type`, key as text)
 * ended: its exit status (128 + signal when killed), timed out, or error
 * (it could not start: why; status -1). Into the file only.
 */
void rw_events_hook(struct rw_events_out *o, uint32_t type, const char *key, int status,
		    bool timed_out, const char *error, double seconds, uint64_t now_clock_ns);
/* The name of an event type ("limited", ...); "?" for none. */
const char *rw_event_name(uint32_t type);
/* Starts a tick's list of kept events afresh (after the window was written). */
void rw_events_tick_clear(struct rw_events_out *o);
/* Each live tracked flow of a scan: a limited one with drops stays limited. */
void rw_events_flow(struct rw_events_out *o, const struct rw_key *key,
		    const struct rw_window_sum *sum);
/* After a scan: `released` for the others, and a line for events not written. */
void rw_events_tick_end(struct rw_events_out *o, uint64_t now_clock_ns);

#endif
