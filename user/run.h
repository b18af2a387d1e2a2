/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef RW_RUN_H
#define RW_RUN_H

#include <stdbool.h>
#include "config.h"
#include "memplan.h"

#define RW_EXIT_OK 0
#define RW_EXIT_RUNTIME 1
#define RW_EXIT_USAGE 2

struct rw_session;

/* `ratewall run`: returns the process exit status (0, 1 or 2). */
int rw_run(const struct rw_config *cfg);

/*
 * Loads the program with s->lp and takes its maps, program and hash seed into
 * the session. -1 when loaded, else the exit status (the reason said).
 */
int rw_session_load(struct rw_session *s, const struct rw_memplan *plan);
/* Writes the thresholds a fresh flow state starts with; negative errno (said) on failure. */
int rw_first_thresholds(const struct rw_session *s);
/*
 * Puts --rules' rules in the kernel (none given: leaves what is there, but
 * recomputes their per-window limits when recompute says the window changed).
 * Negative errno (said) on failure.
 */
int rw_session_rules(struct rw_session *s, bool recompute);

#endif
