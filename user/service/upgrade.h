/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `run --persist` over an instance another layout version pinned: its state
 * is never read, never left orphaned. --replace upgrades it (or downgrades):
 * this loader's program is swapped into its links.
 */
#ifndef RW_UPGRADE_H
#define RW_UPGRADE_H

#include "kernel/memplan.h"

struct rw_session;

/*
 * Once rw_meta_read has refused the pinned record as another layout version's
 * (its fd in s->inst.meta_fd, closed here). With --replace this loader's
 * program takes its links over; without, the refusal says how, with an exit
 * status a unit does not restart on (2). As rw_persist_start: -1 when the
 * session is ready, else the exit status (the reason said on stderr).
 */
int rw_foreign_start(struct rw_session *s, const struct rw_memplan *plan);

#endif
