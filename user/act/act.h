/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a run does about what it sees, beyond its own drop, fed once a tick:
 * --on-event runs a command for each event of the kinds asked for (hook.c),
 * --bgp keeps a blackhole route announced for each banned key, and for each
 * heavy prefix with --bgp-prefixes (bgp.c). Both work on threads of their
 * own: a tick hands them what it saw and never waits on them.
 *
 * A tick: events arrive (rw_act_event, from the events output), the scan
 * shows every live flow (rw_act_flow), then rw_act_tick pairs each event
 * with its key's window counts, offers it to the command, turns the heavy
 * prefixes that came and went into `heavy` and `light` events, and hands
 * the banned keys (and heavy prefixes) to the BGP thread as routes.
 */
#ifndef RW_ACT_H
#define RW_ACT_H

#include <stdbool.h>
#include <stdint.h>
#include "bgp/bgp.h"
#include "act/hook.h"
#include "cli/config.h"
#include "model/actcounts.h"
#include "model/samples.h"
#include "rank/hhh.h"
#include "rank/keyset.h"
#include "ratewall_window.h"
#include "views/events.h"

/* Events a tick holds for the command; more in one tick are dropped (counted). */
#define RW_ACT_PENDING 1024

/* An event waiting for its key's window counts. */
struct rw_act_pending {
	uint32_t type;           /* enum rw_event_type */
	int32_t cpu;             /* -1: the loader's */
	double ts, until;        /* wall clock; until 0: none */
	struct rw_key key;
	struct rw_window_sum sum; /* the key's window, if the scan saw it */
	bool seen;
	uint64_t prefix_packets; /* heavy, light: the prefix's packets in the window */
	double share;            /* heavy: its share (%), net of its heavy more-specific prefixes */
	char sample[RW_SAMPLE_NAMELEN]; /* --samples: the event's pcap file in DIR, "" none */
};

/* A route a tick wants announced, and its weight (act.c: want_route). */
struct rw_act_route {
	uint64_t weight;
	struct rw_route route;
};

/*
 * --bgp-prefixes, --bgp-victim-floor: a heavy prefix or a victim wanted
 * (over its floor) since `since` (the run's clock, ns).
 */
struct rw_act_prefix {
	struct rw_key prefix; /* as --levels gives it */
	uint64_t since_ns;
	bool heavy; /* heavy and over the floor this tick */
};

struct rw_act {
	const struct rw_config *cfg;
	struct rw_hook *hook;    /* --on-event; NULL without */
	struct rw_bgp *bgp;      /* --bgp; NULL without */
	struct rw_act_pending *pending;
	uint32_t npending;
	uint64_t pending_lost;   /* events over RW_ACT_PENDING in a tick, ever */
	struct rw_keyset pending_keys; /* the pending events' keys: a scan's quick "not one" */
	bool levels;             /* --levels: heavy and light events */
	struct rw_hhh_item *heavy; /* the last tick's heavy prefixes */
	uint32_t nheavy;
	struct rw_act_route *candidate; /* --bgp: this tick's routes and their weights */
	struct rw_route *want;   /* the same, heaviest first, as the BGP thread takes them */
	uint32_t nwant, capwant;
	uint64_t never;          /* routes kept out of want this tick (never announced) */
	struct rw_act_prefix *prefixes; /* --bgp-prefixes: the heavy prefixes wanted, and since when */
	uint32_t nprefixes, capprefixes;
	struct rw_route own[2 * RW_MAX_IFACES * 8]; /* the interfaces' own addresses */
	uint32_t nown;
	const struct rw_ruleset *rules; /* in force (allow rules are never announced); NULL: none */
	double window_s;         /* the window, seconds: rates from window counts */
	uint64_t dropped_said, failed_said, timed_out_said; /* the counts said so far */
	struct rw_act_counts counts; /* as of the last tick */
	/*
	 * --samples with --levels: told of each heavy and light edge before its
	 * event (now: the program's clock), to arm and disarm the prefix's
	 * frames; NULL without. Set after rw_act_start.
	 */
	void (*on_prefix)(void *arg, uint32_t type, const struct rw_key *prefix, uint64_t now);
	void *on_prefix_arg;
};

/* What act says: a line for the operator; error: kept in a pinned instance's record too. */
typedef void (*rw_act_say_fn)(void *arg, bool error, const char *msg);

/*
 * Starts the command runner and the BGP thread the options ask for (none:
 * the run still gets heavy and light events from it).
 * journal_fd: --persist's pinned BGP journal, or -1. 0, or -errno with the
 * reason in err. A command that cannot be found is said through say, and
 * the run goes on (each event for it is counted as failed).
 */
int rw_act_start(struct rw_act *a, const struct rw_config *cfg, int journal_fd,
		 rw_act_say_fn say, void *say_arg, char *err, size_t errlen);
/* Whether the run acts at all (then the events output feeds it). */
static inline bool rw_act_on(const struct rw_act *a)
{
	return a->hook || a->bgp;
}
/* An event as the events output writes it (its on_event callback). */
void rw_act_event(void *arg, uint32_t type, const struct rw_key *key, double ts, int cpu,
		  double until, const char *sample);
/*
 * A destination key of the scan (the main kind's, --rank dst's, or a rule's
 * `per dst` budget) and its window: blackholed when inside --bgp-own and
 * limited under --ban (the data path never bans a victim: the ban moves
 * upstream), or over --bgp-victim-floor (not a rule's budget); held
 * --bgp-hold after. now: the run's clock, ns.
 */
void rw_act_victim(struct rw_act *a, const struct rw_key *key, const struct rw_window_sum *sum,
		   uint64_t now);
/* Each live tracked flow of a scan (banned: under a ban now). */
void rw_act_flow(struct rw_act *a, const struct rw_key *key, const struct rw_window_sum *sum,
		 bool banned);
/*
 * After a scan: heavy and light events into ev (from the heavy prefixes
 * hhh, total the window's packets), then every pending event to the
 * command, the commands that ended into ev, the routes to the BGP thread,
 * and what there is to say through say. now_clock_ns: the program's clock.
 */
void rw_act_tick(struct rw_act *a, struct rw_events_out *ev, const struct rw_hhh_item *hhh,
		 uint32_t nhhh, uint64_t total, uint64_t now_clock_ns, rw_act_say_fn say,
		 void *say_arg);
/*
 * Ends both (what the BGP thread did last is said through say). withdraw:
 * the BGP routes are withdrawn (the run's enforcement ends with it); else
 * they stay with the pinned instance.
 */
void rw_act_stop(struct rw_act *a, bool withdraw, rw_act_say_fn say, void *say_arg);

#endif
