/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --bgp: routes announced through a GoBGP daemon (gobgpd), over one session
 * to its API (--bgp) kept by ratewall's helper (session.h), and watched
 * with its own client (gobgp, --bgp-command). The
 * loader hands over, each tick, the routes that should be announced now; a
 * thread of its own brings the speaker there (announce what is new,
 * withdraw what is gone), retries while the speaker does not answer, and
 * watches the speaker and its sessions, so the tick never waits on it.
 *
 * What was announced is kept in a journal (a BPF hash map the instance pins
 * with --persist), so that a loader that adopts the instance after a crash
 * withdraws what ended meanwhile, and `ratewall stop` withdraws what is left.
 */
#ifndef RW_BGP_H
#define RW_BGP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/actconf.h"
#include "model/actcounts.h"

#define RW_BGP_TIMEOUT_NS 5000000000ULL     /* a command to the speaker, or an answer, waits this long */
#define RW_BGP_LIST_TIMEOUT_NS 35000000000ULL /* a line of a table listed (the helper gives up at 30 s) */
#define RW_BGP_HEALTH_NS 2000000000ULL      /* the speaker and its sessions are asked this often */
#define RW_BGP_RETRY_NS 1000000000ULL       /* and work that failed is tried again this often */

struct rw_bgp;

/*
 * Starts the thread. journal_fd: the instance's pinned journal (routes an
 * earlier loader announced are withdrawn unless wanted again), or -1 for
 * one of its own. NULL with the reason in err when it cannot start.
 */
struct rw_bgp *rw_bgp_start(const struct rw_bgp_config *c, int journal_fd, char *err,
			    size_t errlen);
/* The routes wanted now (copied; replaces the last set). Never blocks on the speaker. */
void rw_bgp_want(struct rw_bgp *b, const struct rw_route *r, size_t n, uint64_t never);
void rw_bgp_counts(struct rw_bgp *b, struct rw_bgp_counts *c);
/* What the thread has to say since the last call, oldest first (state changes, failures): at most max lines. */
size_t rw_bgp_messages(struct rw_bgp *b, char (*out)[RW_BGP_MSG_LEN], size_t max);
/*
 * Ends the thread. withdraw: every route in the journal is withdrawn first
 * (a run that ends its enforcement); else they stay announced (a pinned
 * instance enforces on). The withdrawals take what they take (each answer
 * with its timeout) and end early only when the speaker does not answer:
 * what is left stays in the journal, and is said. b stays,
 * for a last rw_bgp_messages (what the withdrawals did) and rw_bgp_counts.
 */
void rw_bgp_end(struct rw_bgp *b, bool withdraw);
/* rw_bgp_end (when not done yet), then frees b. NULL is a no-op. */
void rw_bgp_stop(struct rw_bgp *b, bool withdraw);
/*
 * `ratewall stop`: withdraws every route of a pinned journal through the
 * speaker c names, however long it takes. 0, or -errno with the reason in
 * err when routes are left (they stay in the journal).
 */
int rw_bgp_withdraw_journal(const struct rw_bgp_config *c, int journal_fd, char *err,
			    size_t errlen);

#endif
