/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `run --persist`: the program, its maps and its links live in bpffs (see
 * pins.h), so enforcement outlives the loader. Starting again adopts them;
 * other options than the pinned ones are refused unless --replace, which loads
 * a new program and swaps it into the same links (BPF_LINK_UPDATE): the
 * interface is never without a program.
 */
#ifndef RW_PERSIST_H
#define RW_PERSIST_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/memplan.h"
#include "rank/hhh.h"

struct rw_session;

/*
 * Creates, adopts or (--replace) swaps the pinned instance and fills the
 * session: maps, program, attachments, hash seed, start. Returns -1 when the
 * session is ready, else the exit status (the reason said on stderr).
 */
int rw_persist_start(struct rw_session *s, const struct rw_memplan *plan);

/* Each tick: the heartbeat `status` judges the loader by. No-op unless pinned. */
void rw_persist_heartbeat(struct rw_session *s);
/*
 * --levels: pins a record of each tick's heavy prefixes as "heavy" (a fresh
 * one a start); without, removes any a former loader left. No-op unless
 * pinned. 0 or -errno.
 */
int rw_persist_heavy_start(struct rw_session *s, bool levels);
/* Each tick: the heavy prefixes found, for `ratewall top`. */
void rw_persist_heavy(struct rw_session *s, const struct rw_hhh_item *item, uint32_t n,
		      uint64_t total_packets);
/* Keeps msg among the instance's last errors. No-op unless pinned. */
void rw_persist_error(struct rw_session *s, const char *msg);
/* The loader leaves (the pins stay): records it and lets go of the lock. */
void rw_persist_leave(struct rw_session *s, int exit_status);
/* Closes the map and program fds opened from pins (an adopted program has no skeleton). */
void rw_persist_close_maps(struct rw_session *s);

#endif
