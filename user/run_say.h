/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What `ratewall run` says, from any of its phases. */
#ifndef RW_RUN_SAY_H
#define RW_RUN_SAY_H

#include <stdbool.h>
#include "service/session.h"

/* A line for the operator (stderr, or under the terminal view). */
void rw_run_tell(struct rw_session *s, const char *msg);
/* An error, said and kept in a pinned instance's record. */
void rw_run_say_error(struct rw_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* What the act room says (rw_act_say_fn): error, also kept as rw_run_say_error keeps it. */
void rw_run_act_say(void *arg, bool error, const char *msg);

#endif
