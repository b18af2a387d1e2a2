/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --on-event CMD: runs the command for events, one process per event, the
 * event as one JSON object on its stdin. A thread of its own starts the
 * commands, waits for them and kills them at their timeout, so the tick and
 * the data path never wait on one. Bounded: at most `running` at once, at
 * most `rate` started a second, a queue of RW_HOOK_QUEUE; an event beyond
 * them is dropped and counted, never queued without bound.
 *
 * A command is its process group: at its timeout the group is killed, and
 * when the command itself ends, what it left running there is killed too,
 * so nothing it started outlives it (a daemon of its own must setsid).
 */
#ifndef RW_HOOK_H
#define RW_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/actconf.h"
#include "model/actcounts.h"
#include "model/key.h"

#define RW_HOOK_QUEUE 256
#define RW_HOOK_JSON_MAX 1024

struct rw_hook;

/* How one command ended, for the events and for what is said. */
struct rw_hook_result {
	uint32_t type;           /* the event's (enum rw_event_type) */
	char key[RW_KEY_STRLEN]; /* the event's key, as text */
	int status;              /* exit status; 128 + signal when killed; -1 when it could not start */
	bool timed_out;
	int start_errno;         /* status -1: why it could not start */
	double seconds;          /* how long it ran */
};

/*
 * Starts the thread for c (c->command "" is an error). NULL with the reason
 * in err when it cannot start (no memory, no thread, a command that does
 * not split into words). A command that cannot be found is not an error
 * here: each event for it is counted as failed (rw_hook_check says so first).
 * The commands' stderr is ratewall's, or /dev/null when quiet (the
 * terminal view owns the terminal).
 */
struct rw_hook *rw_hook_start(const struct rw_hook_config *c, bool quiet, char *err,
			      size_t errlen);
/*
 * Whether c's command can be run: 0, or -errno with the reason in err (not
 * found in PATH, not executable).
 */
int rw_hook_check(const struct rw_hook_config *c, char *err, size_t errlen);
/*
 * Hands one event to the command: json is the object its stdin gets (a
 * newline is added), key its key as text, type its kind. Never blocks. False
 * when dropped (counted): over the rate, the queue full, the end begun, or
 * json longer than RW_HOOK_JSON_MAX - 2 bytes (a cut object would not parse).
 * An end (unbanned, light) pairs with its start (banned, heavy) by key: it
 * is run whatever the rate and the queue hold when its start ran or still
 * waits in the queue (the newest queued start of another key gives up its
 * place if need be; when every place holds an owed end or the start it
 * follows, it is dropped, counted), after its start's command ended; never
 * when its start was not run. A start still queued when its end comes is run all the same
 * (a ban that begins and ends within one tick reaches the command too);
 * only when the queue holds nothing but owed ends is it run neither. A
 * start that follows its key's end runs after that end's command.
 */
bool rw_hook_offer(struct rw_hook *h, uint32_t type, const char *key, const char *json);
/* The results of the commands that ended since the last call, oldest first: at most max. */
size_t rw_hook_results(struct rw_hook *h, struct rw_hook_result *out, size_t max);
void rw_hook_counts(struct rw_hook *h, struct rw_hook_counts *c);
/*
 * Ends the thread: counts what was still queued as dropped, waits up to
 * grace_ns for the commands running, kills what still runs (each process
 * group; counted failed, status 137) and reaps it. h stays readable
 * (rw_hook_counts, rw_hook_results: the final figures); offers are dropped.
 * A second call, or NULL, is a no-op.
 */
void rw_hook_end(struct rw_hook *h, uint64_t grace_ns);
/* rw_hook_end, then frees h. NULL is a no-op. */
void rw_hook_stop(struct rw_hook *h, uint64_t grace_ns);

#endif
