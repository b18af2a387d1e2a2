/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A pinned instance in libxdp's dispatcher: libxdp pins the link there, so
 * leaving is asked of the dispatcher (the other programs stay), not done by
 * removing a pin of ratewall's.
 */
#ifndef RW_PERSIST_MULTI_H
#define RW_PERSIST_MULTI_H

#include <stdbool.h>
#include "service/pins.h"

struct rw_session;

/* Whether any interface of the record is in a dispatcher. */
bool rw_multi_pinned(const struct rw_meta *m);
/* A start that does not complete: its program leaves the dispatchers it joined. */
void rw_multi_leave_all(struct rw_session *s);
/* --replace cannot swap a program in a dispatcher in place: says what to do instead. */
int rw_multi_no_swap(const char *name);
/* `ratewall stop`: the pinned program leaves every dispatcher of the record; 0 or -errno. */
int rw_multi_stop(const char *dir, const struct rw_meta *m);

#endif
