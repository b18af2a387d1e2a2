/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The journal of what the speaker may hold from us: a BPF hash map (key
 * struct rw_route, value the time it was written, CLOCK_REALTIME ns), so
 * that the instance can pin it (--persist) and a later loader, or `ratewall
 * stop`, knows what to withdraw. A route goes in before it is announced and
 * out after it is withdrawn: a crash between leaves at worst a route
 * withdrawn that was not there, never one announced that nobody knows of.
 */
#ifndef RW_JOURNAL_H
#define RW_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include "bgp/routes.h"

/* A new journal (not pinned), for at most max routes. Its fd, or -errno. */
int rw_bgp_journal_create(uint32_t max);
/* Routes it can hold. 0, or -errno (-EINVAL: not a journal: another key or value size). */
int rw_journal_capacity(int fd, uint32_t *max);
/* Routes in it now. */
size_t rw_journal_count(int fd);
/* 0, or -errno (-E2BIG: full). */
int rw_journal_put(int fd, const struct rw_route *r, uint64_t when_ns);
/* 0 (also when it was not there), or -errno. */
int rw_journal_del(int fd, const struct rw_route *r);
/* Every route in it into s, unsure (the speaker may have restarted since). 0, or -errno. */
int rw_journal_load(int fd, struct rw_held_set *s);
/*
 * A journal pinned by an earlier ratewall (before flow rules: its key a
 * prefix alone, every route a blackhole; before a flow rule's rate: the key
 * to its destination; before their protocol and ports: the key to the rate) as a journal of today's layout: a new map with the
 * same routes and times, of the same capacity. Its fd, or -errno (-EINVAL:
 * fd is no journal of those layouts either).
 */
int rw_journal_upgrade(int fd);

#endif
