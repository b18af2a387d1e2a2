/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A tick of `ratewall run`: read, wipe, rank, set thresholds, act, report. */
#ifndef RW_RUN_TICK_H
#define RW_RUN_TICK_H

#include <stdbool.h>
#include "ratewall.h"
#include "service/session.h"

/*
 * Whether a key's own address is on the main key's side (sources;
 * destinations under --key dst): --levels counts it, --bgp may announce it.
 * A rule's `per dst` budget under --key src holds a destination: it is
 * ranked, never counted as a source prefix nor announced.
 */
static inline bool rw_run_main_side(const struct rw_session *s, const struct rw_key *key)
{
	return (rw_kind_of(key) == RW_KIND_DST) == (s->cfg->key_kind == RW_KIND_DST);
}

/* One interval: 0, or negative errno (-EPIPE: the report's reader went away). */
int rw_run_tick(struct rw_session *s);

#endif
