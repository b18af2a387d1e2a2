/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BGP driver's two sets of routes: what the speaker may hold from us
 * (the journal's copy in memory, sorted, each with whether the speaker
 * confirmed it since it last may have lost it), and what a tick wants
 * announced (its first --bgp-max distinct routes, in the order given).
 * Plain memory, no kernel: the driver's pass is a walk over the two.
 */
#ifndef RW_ROUTES_H
#define RW_ROUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/actconf.h"

struct rw_held {
	struct rw_route r;
	bool sure; /* the speaker took it, and has not restarted since as far as we know */
	uint64_t since_ns; /* held since (a monotonic clock): --bgp-hold keeps it at --bgp-max */
};

/* Sorted by rw_route_cmp; no route twice. */
struct rw_held_set {
	struct rw_held *e;
	size_t n, cap;
};

struct rw_route_target {
	struct rw_route *order;  /* to announce, most wanted first */
	struct rw_route *sorted; /* the same, sorted (lookups) */
	size_t n, cap;
	uint32_t over_max;       /* distinct routes wanted beyond max */
};

/* The order of the sets: family, length, address (bytes). */
int rw_route_cmp(const struct rw_route *a, const struct rw_route *b);
/* The one spelling of a route, as a key: host bits and unused bytes zero. False when it is none (family, length). */
bool rw_route_normalize(struct rw_route *r);

/* Its index, or -1. */
long rw_held_find(const struct rw_held_set *s, const struct rw_route *r);
/* Adds r (normalized), held since since_ns, or, when there, sets its sure. 0 or -ENOMEM. */
int rw_held_add(struct rw_held_set *s, const struct rw_route *r, bool sure, uint64_t since_ns);
void rw_held_remove(struct rw_held_set *s, size_t i);
/* Every route is unsure again (the speaker may have lost them all). */
void rw_held_doubt(struct rw_held_set *s);
size_t rw_held_sure(const struct rw_held_set *s);
void rw_held_free(struct rw_held_set *s);

/*
 * The routes to announce: the first max distinct ones of want (normalized;
 * not routes dropped), counting those beyond in over_max. Those of them held
 * since keep_since or later come first (--bgp-hold: at the edge of max, a
 * route announced lately is not swapped for a newcomer of about its weight
 * every tick); held may be NULL. 0 or -ENOMEM (t unchanged).
 */
int rw_route_target_build(struct rw_route_target *t, const struct rw_route *want, size_t n,
			  uint32_t max, const struct rw_held_set *held, uint64_t keep_since);
bool rw_route_target_has(const struct rw_route_target *t, const struct rw_route *r);
void rw_route_target_free(struct rw_route_target *t);

#endif
