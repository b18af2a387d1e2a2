/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --on-event and --bgp in a pinned instance: the loader's record of them
 * ("act", act/record.h) and the BGP journal ("bgp_routes"), so that a loader
 * that adopts the instance after a crash knows what was announced, `status`
 * shows the counts, and `stop` withdraws what is left.
 */
#ifndef RW_ACTPINS_H
#define RW_ACTPINS_H

#include <stddef.h>
#include "act/record.h"
#include "service/session.h"

/*
 * Before the act starts: pins the record and the journal the options need
 * (the journal an earlier loader pinned is kept, in s->bgp_journal_fd),
 * and withdraws the routes of an earlier loader's --bgp when this one has
 * none. Unpinned: nothing (s->bgp_journal_fd -1). 0, or -errno with the
 * reason in err.
 */
int rw_persist_act_start(struct rw_session *s, char *err, size_t errlen);
/* Each tick: the record, with this tick's counts. */
void rw_persist_act(struct rw_session *s);
/*
 * `ratewall stop`: the routes the instance in dir still has announced are
 * withdrawn through the speaker its record names. 1 when there were some
 * (the count in *n), 0 when none, -errno with the reason in err.
 */
int rw_act_pins_withdraw(const char *dir, size_t *n, char *err, size_t errlen);
/*
 * Removes the instance in dir (rw_instance_remove), all but a journal that
 * still holds routes (or cannot be read) and the record that names their
 * speaker: a route nothing remembers would stay announced for good. The
 * routes kept (0: the instance is gone whole), or -errno (a journal that
 * cannot be read is kept too). `ratewall stop` and a later `run --persist`
 * of the name withdraw them, or adopt them.
 */
long rw_act_pins_remove(const char *dir);
/* `ratewall status`: the record of the instance in dir; -ENOENT when it has none. */
int rw_act_pins_read(const char *dir, struct rw_act_record *r);

#endif
