/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The end of `ratewall run`. */
#ifndef RW_RUN_END_H
#define RW_RUN_END_H

#include "service/session.h"

/* Frees what the run holds and detaches what it attached (a pinned link stays). */
void rw_run_end(struct rw_session *s, int exit_status);

#endif
