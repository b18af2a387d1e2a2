/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The parts of `ratewall run` between its files: run.c runs the ticks and
 * says what happens; run_start.c starts a run (and ends it) around them.
 */
#ifndef RW_RUN_PARTS_H
#define RW_RUN_PARTS_H

#include <stdbool.h>
#include "ratewall.h"
#include "kernel/memplan.h"
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

/* run.c: a line for the operator (stderr, or under the terminal view). */
void rw_run_tell(struct rw_session *s, const char *msg);
/* run.c: an error, said and kept in a pinned instance's record. */
void rw_run_say_error(struct rw_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* run.c: what the act room says (rw_act_say_fn): error, also kept as rw_run_say_error keeps it. */
void rw_run_act_say(void *arg, bool error, const char *msg);

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
/* Frees what the run holds and detaches what it attached (a pinned link stays). */
void rw_run_end(struct rw_session *s, int exit_status);

#endif
