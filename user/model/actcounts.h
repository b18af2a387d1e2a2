/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What --on-event and --bgp report, as the act room counts it and the
 * report, /metrics, the pinned record and `ratewall status` show it.
 */
#ifndef RW_ACTCOUNTS_H
#define RW_ACTCOUNTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RW_BGP_MSG_LEN 256

/* What the commands did, since the start. */
struct rw_hook_counts {
	uint64_t started;   /* commands started */
	uint64_t ok;        /* exited 0 */
	uint64_t failed;    /* exited otherwise, killed by a signal other than the timeout's, or could not start */
	uint64_t timed_out; /* killed at --on-event-timeout */
	uint64_t dropped;   /* events not run: over the rate, the queue full, an end whose start was not, or left at the end */
	int last_status;    /* of the last command that ended: its exit status, 128 + signal, -1: none yet */
	uint32_t running;   /* now */
	uint32_t queued;    /* now */
};

enum rw_bgp_state {
	RW_BGP_STARTING,   /* not asked yet */
	RW_BGP_DOWN,       /* the speaker's API does not answer */
	RW_BGP_NO_SESSION, /* it answers; no BGP session is established */
	RW_BGP_UP,         /* it answers and at least one session is established */
	RW_BGP_DRY_RUN,    /* --bgp-dry-run: nothing is asked of it */
};

struct rw_bgp_counts {
	enum rw_bgp_state state;
	uint32_t peers, established; /* the speaker's neighbours, and those established */
	uint32_t wanted;     /* routes the last tick wanted announced (after --bgp-max) */
	uint32_t announced;  /* routes the speaker holds from us now */
	uint32_t over_max;   /* routes the last tick wanted beyond --bgp-max: not announced */
	uint64_t announces, withdraws; /* done, since the start */
	uint64_t failures;   /* commands to the speaker that failed */
	uint64_t never;      /* routes not announced: --bgp-never, an interface's address, an allow rule */
	char last_error[RW_BGP_MSG_LEN]; /* "" when none */
};

/* Both, as one tick hands them to the views. */
struct rw_act_counts {
	bool hook_on, bgp_on;
	struct rw_hook_counts hook;
	struct rw_bgp_counts bgp;
};

/* "down", "no session", ... */
const char *rw_bgp_state_name(enum rw_bgp_state s);
/*
 * `, "on_event": {...}, "bgp": {...}` for what is on (nothing when neither):
 * one form for the report's JSON and `ratewall status --json` alike.
 */
void rw_act_json(FILE *out, const struct rw_act_counts *c);

#endif
