/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The start of `ratewall run`, step by step in the order rw_run takes them. */
#ifndef RW_RUN_START_H
#define RW_RUN_START_H

#include "kernel/memplan.h"
#include "service/session.h"

/*
 * What is said before anything is loaded: the interfaces, the terminal,
 * root, the memory plan (into *plan), the rules file. The exit status when
 * one fails (nothing to undo), else -1.
 */
int rw_run_check(struct rw_session *s, struct rw_memplan *plan);
/* The events file and the metrics port, before anything is attached: 0, or -1 once said. */
int rw_run_open_outputs(struct rw_session *s);
/* The load parameters from the options, and the clock the session reads (the program's). */
void rw_run_load_params(struct rw_session *s);
/* Loads and attaches the program for a run that ends with the process: the exit status, or -1. */
int rw_run_start_unpinned(struct rw_session *s, const struct rw_memplan *plan);
/* The flow table's reader, the rankings, and what the options add: 0, or -1 once said. */
int rw_run_start_parts(struct rw_session *s);
/* --history: the database (said when it cannot be used; enforcement never waits for it). */
void rw_run_start_history(struct rw_session *s);
/* What the run attached and enforces, on stderr. */
void rw_run_describe(const struct rw_session *s, const struct rw_memplan *plan);
/* --tui: the view over this run's own maps. 0, or -1 once said. */
int rw_run_start_watch(struct rw_session *s);

#endif
