/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The session to the speaker: ratewall-gobgp (user/bgp/ratewall-gobgp, its
 * protocol in its own comment), started once and kept, holds one gRPC
 * connection to gobgpd. Route commands go to it a line each, many in flight
 * at once, and their answers come back in order: 10 000 routes take seconds,
 * where a run of GoBGP's client each took minutes.
 */
#ifndef RW_SESSION_H
#define RW_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli/actconf.h" /* RW_LIBEXEC_DIR */

#define RW_SESSION_LINE 512
#define RW_SESSION_HELPER "ratewall-gobgp"

struct rw_session {
	pid_t pid;   /* 0: not started */
	int fd;      /* a socket: its stdin and stdout (no SIGPIPE when it goes) */
	char in[4096];
	size_t in_len;
};

/*
 * Starts helper (NULL: RW_SESSION_HELPER beside ratewall's executable, else
 * in RW_LIBEXEC_DIR) for gobgpd's API at api ("HOST:PORT") and waits for
 * its "ready" (or its "fatal REASON"). 0, or -errno with why (-ENOENT: no
 * helper; -ECANCELED: abort was set).
 */
int rw_session_open(struct rw_session *s, const char *helper, const char *api,
		    const atomic_bool *abort, char *why, size_t len);
/* Ends it (its stdin closed, then killed when it lingers) and reaps it. A closed one is a no-op. */
void rw_session_close(struct rw_session *s);
bool rw_session_open_p(const struct rw_session *s);
/*
 * Sends n commands (lines without their newline) and reads each answer:
 * done[i] true when it was "ok"; a refusal's reason is kept in why (the
 * last). 0 when every answer came back; else -errno (-ETIMEDOUT, -EPIPE:
 * the helper went; -ECANCELED: abort was set) with why, the session closed,
 * and the commands past the last answer not done. Each answer has
 * timeout_ns to come.
 */
int rw_session_batch(struct rw_session *s, const char (*lines)[RW_SESSION_LINE], size_t n,
		     bool *done, uint64_t timeout_ns, const atomic_bool *abort, char *why, size_t len);

/*
 * One question (count, holds, list: the helper's comment says them): the
 * answer's last line into answer, and each "route WORDS" line before it
 * given to each (WORDS alone). 0; -EIO when the answer is "error REASON"
 * (the reason in why); or -errno with why, the session closed, as
 * rw_session_batch. Each line has timeout_ns to come.
 */
int rw_session_ask(struct rw_session *s, const char *question,
		   void (*each)(const char *words, void *arg), void *arg, char *answer, size_t alen,
		   uint64_t timeout_ns, const atomic_bool *abort, char *why, size_t len);

/*
 * One question (count, holds, list: the helper's comment says them): the
 * answer's last line into answer, and each "route WORDS" line before it
 * given to each (WORDS alone). 0; -EIO when the answer is "error REASON"
 * (the reason in why); or -errno with why, the session closed, as
 * rw_session_batch. Each line has timeout_ns to come.
 */
int rw_session_ask(struct rw_session *s, const char *question,
		   void (*each)(const char *words, void *arg), void *arg, char *answer, size_t alen,
		   uint64_t timeout_ns, const atomic_bool *abort, char *why, size_t len);

#endif
