// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BGP driver's thread. Each turn it takes the last wanted set, asks the
 * speaker how it is when that is due, and makes one pass: withdraw what is
 * held and not wanted, then announce, most wanted first, what is wanted and
 * not surely held. "Held" is the journal's copy in memory; a route in it is
 * "sure" once the speaker took it, and every route goes unsure again when
 * the speaker may have lost them (it was down, or a route we hold is gone
 * from its table), so the next pass announces them again.
 */
#define _GNU_SOURCE /* F_DUPFD_CLOEXEC */
#include "bgp/bgp.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proc/capture.h"
#include "bgp/gobgp.h"
#include "bgp/journal.h"
#include "bgp/routes.h"
#include "bgp/session.h"
#include "model/clock.h"
#include "model/errmsg.h"

#define MSG_QUEUE 256
#define NEVER UINT64_MAX
/* From this many routes on, a batch is said in one line, not a line a route. */
#define RW_BGP_SAY_EACH 20
/* Routes sent to the session at a time: a newer wanted set, or the end, is looked at between. */
#define RW_BGP_CHUNK 2048

struct rw_bgp {
	struct rw_bgp_config cfg;
	struct rw_gobgp g;
	struct rw_session sess; /* the thread's */
	int journal_fd;
	uint32_t limit; /* --bgp-max, or the journal's capacity when that is less */
	pthread_t thread;
	bool running;

	pthread_mutex_t mu; /* the fields down to abort_cmd */
	pthread_cond_t cv;
	struct rw_route *want;
	size_t nwant, want_cap;
	bool want_new, want_lost;
	bool told; /* the loader has said what it wants once: its first set is never skipped */
	uint64_t never;
	bool stop, stop_withdraw;
	struct rw_bgp_counts counts;
	char msg[MSG_QUEUE][RW_BGP_MSG_LEN];
	size_t msg_first, msg_n;
	uint64_t msg_lost;
	atomic_bool abort_cmd; /* kills the command in flight: the end is asked */
	atomic_bool news;      /* a newer wanted set waits: a long pass yields to it */

	/* The thread's own. */
	struct rw_route *mine;
	size_t nmine, mine_cap;
	/*
	 * A wanted set was taken: until then no pass runs, or a restart would
	 * withdraw every route of the journal and announce the ones still
	 * banned a tick later, a flap upstream damps.
	 */
	bool known;
	bool adopted; /* the speaker's routes with our owner community were looked for */
	struct rw_held_set held;
	struct rw_route_target target;
	enum rw_bgp_state state;
	bool was_up; /* a session was established once: one coming now is "back" */
	uint32_t peers, established;
	uint64_t next_health, next_retry;
	bool pending; /* work a pass left undone (a failure): tried again at next_retry */
	uint32_t said_over;
	size_t probe; /* the held route the next health check looks up */
	uint64_t announces, withdraws, failures;
	char last_error[RW_BGP_MSG_LEN];
	char said_error[RW_BGP_MSG_LEN];
};

static uint64_t now_ns(void)
{
	return rw_clock_ns(CLOCK_MONOTONIC);
}

__attribute__((format(printf, 2, 3))) static void say(struct rw_bgp *b, const char *fmt, ...)
{
	char line[RW_BGP_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&b->mu);
	if (b->msg_n == MSG_QUEUE) {
		b->msg_lost++;
	} else {
		memcpy(b->msg[(b->msg_first + b->msg_n) % MSG_QUEUE], line, sizeof(line));
		b->msg_n++;
	}
	pthread_mutex_unlock(&b->mu);
}

static void publish(struct rw_bgp *b)
{
	struct rw_bgp_counts c = {
		.state = b->state,
		.peers = b->peers,
		.established = b->established,
		.wanted = (uint32_t)b->target.n,
		.announced = (uint32_t)rw_held_sure(&b->held),
		.over_max = b->target.over_max,
		.announces = b->announces,
		.withdraws = b->withdraws,
		.failures = b->failures,
	};

	memcpy(c.last_error, b->last_error, sizeof(c.last_error));
	pthread_mutex_lock(&b->mu);
	c.never = b->never;
	b->counts = c;
	pthread_mutex_unlock(&b->mu);
}

/* A failure of a command: counted, kept as the last error. */
__attribute__((format(printf, 2, 3))) static void failed(struct rw_bgp *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->last_error, sizeof(b->last_error), fmt, ap);
	va_end(ap);
	b->failures++;
}

/*
 * Runs the client; 0 when it ran and exited 0, else -errno (-ENOENT: not
 * found; -EIO: it failed; -ECANCELED: the end killed it) with why in buf.
 */
static int run_client(const struct rw_gobgp_argv *a, uint64_t timeout_ns, const atomic_bool *abort,
		      struct rw_capture *cap, char *why, size_t len)
{
	int err = rw_capture_run(a->argv, timeout_ns, abort, cap);

	if (err) {
		snprintf(why, len, "cannot run %s: %s", a->argv[0], strerror(-err));
		return err;
	}
	if (cap->aborted) {
		snprintf(why, len, "stopped");
		return -ECANCELED;
	}
	if (cap->status) {
		rw_gobgp_reason(cap, timeout_ns, why, len);
		return -EIO;
	}
	return 0;
}

/* The session, started when it is not. 0, or -errno with why. */
static int session_up(const struct rw_gobgp *g, struct rw_session *sess, const atomic_bool *abort,
		      char *why, size_t len)
{
	return rw_session_open_p(sess) ? 0 :
	       rw_session_open(sess, g->helper[0] ? g->helper : NULL, g->api, abort, why, len);
}

/*
 * Routes r[0..n) announced (add) or withdrawn through the session, which is
 * started first when it is not: done[i] for each. 0 when every answer came
 * (a refusal's reason in why), or -errno with why: the session could not
 * start or ended (the routes past its last answer not done), -ECANCELED the
 * end asked.
 */
static int session_routes(const struct rw_gobgp *g, struct rw_session *sess, bool add,
			  const struct rw_route *r, size_t n, bool *done, const atomic_bool *abort,
			  char *why, size_t len)
{
	char (*lines)[RW_SESSION_LINE];
	int err;

	for (size_t i = 0; i < n; i++)
		done[i] = false;
	if (!n)
		return 0;
	err = session_up(g, sess, abort, why, len);
	if (err)
		return err;
	lines = malloc(n * sizeof(*lines));
	if (!lines) {
		snprintf(why, len, "no memory for %zu route commands", n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		rw_gobgp_line(g, add, &r[i], lines[i], sizeof(lines[i]));
	err = rw_session_batch(sess, (const char (*)[RW_SESSION_LINE])lines, n, done,
			       RW_BGP_TIMEOUT_NS, abort, why, len);
	free(lines);
	return err;
}

static void describe(const struct rw_bgp *b, const struct rw_route *r, char *buf, size_t len)
{
	const char *nh = r->family == AF_INET6 ? b->g.next_hop6 : b->g.next_hop4;
	char prefix[64];

	if (r->kind == RW_ROUTE_FLOW) { /* no next hop, no community: the rule's action */
		rw_route_format(r, buf, len);
		if (!r->rate)
			snprintf(buf + strlen(buf), len - strlen(buf), " discard");
		return;
	}
	rw_route_format(r, prefix, sizeof(prefix));
	snprintf(buf, len, "%s%s%s%s%s", prefix, nh[0] ? " nexthop " : "", nh,
		 b->g.communities[0] ? " community " : "", b->g.communities);
}

static void set_state(struct rw_bgp *b, enum rw_bgp_state to, const char *why)
{
	enum rw_bgp_state from = b->state;
	bool again;

	if (from == to)
		return;
	b->state = to;
	if (to == RW_BGP_DOWN) {
		say(b, "bgp: the speaker at %s does not answer: %s", b->g.api, why);
		return;
	}
	if (from == RW_BGP_DOWN && b->held.n) {
		/* It may have restarted, and lost every route. */
		rw_held_doubt(&b->held);
	}
	again = b->was_up;
	b->was_up |= to == RW_BGP_UP;
	if (to == RW_BGP_NO_SESSION) {
		say(b, "bgp: the speaker%s%s answers%s but no BGP session is established (%s)",
		    from == RW_BGP_DOWN ? " at " : "", from == RW_BGP_DOWN ? b->g.api : "",
		    from == RW_BGP_DOWN ? " again" : "", b->peers ? why : "it has no neighbours");
	} else if (from == RW_BGP_DOWN) {
		say(b, "bgp: the speaker at %s is back; %u of %u BGP sessions established: every "
		       "route is announced again", b->g.api, b->established, b->peers);
	} else if (from == RW_BGP_NO_SESSION) {
		say(b, "bgp: a BGP session is %s: %u of %u established", again ? "back" : "up",
		    b->established, b->peers);
	} else {
		say(b, "bgp: the speaker at %s answers; %u of %u BGP sessions established", b->g.api,
		    b->established, b->peers);
	}
}

/* The speaker's four tables, as the session names them. */
static const struct {
	const char *name;
	int family;
	bool flow;
} tables[] = {
	{ "ipv4", AF_INET, false },
	{ "ipv6", AF_INET6, false },
	{ "ipv4-flowspec", AF_INET, true },
	{ "ipv6-flowspec", AF_INET6, true },
};
#define TABLES (sizeof(tables) / sizeof(tables[0]))

static size_t table_of(const struct rw_route *r)
{
	return (r->family == AF_INET6 ? 1 : 0) + (r->kind == RW_ROUTE_FLOW ? 2 : 0);
}

static int still_holds(const struct rw_gobgp *g, struct rw_session *sess, const struct rw_route *r,
		       const atomic_bool *abort, char *why, size_t len);

/* The speaker lost our routes (it restarted?): every one is announced again. */
static void lost(struct rw_bgp *b, const char *what)
{
	say(b, "bgp: the speaker no longer holds %s (it restarted?): every route is announced again",
	    what);
	rw_held_doubt(&b->held);
}

/*
 * Whether the speaker lost our routes: one of our blackholes it took,
 * looked up alone (another each check); with none, a FlowSpec table that
 * holds fewer paths than our rules in it (its count costs the same with
 * 10 000 rules as with one; a count of a unicast table would miss ours among
 * the routes its peers send, which are rarely flow rules).
 */
static void probe(struct rw_bgp *b)
{
	char why[RW_BGP_MSG_LEN], answer[RW_SESSION_LINE], text[RW_BGP_MSG_LEN];
	size_t ours[TABLES] = { 0 }, n = b->held.n, i;

	for (i = 0; i < n; i++)
		ours[table_of(&b->held.e[i].r)] += b->held.e[i].sure;
	if (ours[0] + ours[1]) {
		const struct rw_route *r;

		for (i = 0; i < n; i++) {
			r = &b->held.e[(b->probe + i) % n].r;
			if (b->held.e[(b->probe + i) % n].sure && r->kind == RW_ROUTE_BLACKHOLE)
				break;
		}
		b->probe = (b->probe + i) % n + 1;
		if (still_holds(&b->g, &b->sess, r, &b->abort_cmd, why, sizeof(why)))
			return; /* there, or no clear answer: the next check asks again */
		rw_route_format(r, text, sizeof(text));
		lost(b, text);
		return;
	}
	for (size_t t = 0; t < TABLES; t++) {
		char question[32];
		unsigned long long paths;

		if (!ours[t])
			continue;
		snprintf(question, sizeof(question), "count %s", tables[t].name);
		if (session_up(&b->g, &b->sess, &b->abort_cmd, why, sizeof(why)) ||
		    rw_session_ask(&b->sess, question, NULL, NULL, answer, sizeof(answer),
				   RW_BGP_TIMEOUT_NS, &b->abort_cmd, why, sizeof(why)) ||
		    sscanf(answer, "count %llu", &paths) != 1)
			return;
		if (paths >= ours[t])
			continue;
		snprintf(text, sizeof(text), "%zu rules in its %s table (it holds %llu paths)", ours[t],
			 tables[t].name, paths);
		lost(b, text);
		return;
	}
}

/* Asks the speaker for its neighbours: the state, said when it changes. */
static void health(struct rw_bgp *b)
{
	struct rw_gobgp_argv a;
	struct rw_capture cap;
	struct rw_gobgp_peers p;
	char why[RW_BGP_MSG_LEN];
	int err;

	rw_gobgp_neighbors(&b->g, &a);
	err = run_client(&a, RW_BGP_TIMEOUT_NS, &b->abort_cmd, &cap, why, sizeof(why));
	if (!err && rw_gobgp_parse_peers(cap.out, &p)) {
		snprintf(why, sizeof(why), "its answer to `neighbor -j` is not a list of neighbours: %.60s",
			 cap.out ? cap.out : "");
		err = -EPROTO;
	}
	rw_capture_free(&cap);
	if (err == -ECANCELED)
		return;
	b->next_health = now_ns() + (err ? RW_BGP_RETRY_NS : RW_BGP_HEALTH_NS);
	if (err) {
		failed(b, "%s", why);
		set_state(b, RW_BGP_DOWN, why);
		rw_session_close(&b->sess); /* started again with the next pass */
		return;
	}
	b->peers = p.peers;
	b->established = p.established;
	set_state(b, p.established ? RW_BGP_UP : RW_BGP_NO_SESSION, p.down);
	/*
	 * The session is started as soon as the speaker answers, not by the
	 * first ban: Python and its gRPC module take a second to load on a busy
	 * host. Its failure is said by the pass that needs it.
	 */
	session_up(&b->g, &b->sess, &b->abort_cmd, why, sizeof(why));
	probe(b);
}

/* A command failed while the speaker seemed fine: said once for each new reason. */
static void command_failed(struct rw_bgp *b, const char *doing, const struct rw_route *r,
			   const char *why)
{
	char prefix[128];

	rw_route_format(r, prefix, sizeof(prefix));
	failed(b, "%s %s: %s", doing, prefix, why);
	if (strcmp(b->said_error, why)) {
		say(b, "bgp: %s %s failed: %s", doing, prefix, why);
		snprintf(b->said_error, sizeof(b->said_error), "%s", why);
	}
}

/*
 * After a failure: is the speaker down? One health check a pass (a failed
 * command of a speaker that answers, e.g. a refused next hop, does not stop
 * the others).
 */
static bool down_after_failure(struct rw_bgp *b, bool *checked)
{
	if (!*checked) {
		*checked = true;
		health(b);
	}
	return b->state == RW_BGP_DOWN;
}

/*
 * A pass's command failed: the work waits for its retry, and the failure is
 * said unless the speaker is down; true then (the pass ends there).
 */
static bool pass_failed(struct rw_bgp *b, bool *checked, const char *doing,
			const struct rw_route *r, const char *why)
{
	b->pending = true;
	if (down_after_failure(b, checked))
		return true;
	command_failed(b, doing, r, why);
	return false;
}

/* The pass stops early for the end, and for a newer wanted set (it starts again on it). */
static bool pass_yields(struct rw_bgp *b)
{
	return atomic_load(&b->abort_cmd) || atomic_load(&b->news);
}

/* What a batch did (add: announced, else withdrew): each route while they are few, else one line. */
static void say_done(struct rw_bgp *b, bool add, const struct rw_route *r, size_t n,
		     const bool *done)
{
	const char *verb = add ? "announced" : "withdrew";
	char text[RW_BGP_MSG_LEN];
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += done[i];
	if (count >= RW_BGP_SAY_EACH) {
		say(b, "bgp: %s %zu routes", verb, count);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!done[i])
			continue;
		if (add)
			describe(b, &r[i], text, sizeof(text));
		else
			rw_route_format(&r[i], text, sizeof(text));
		say(b, "bgp: %s %s", verb, text);
	}
}

/*
 * A batch's failures: the first one checks the speaker (a session that
 * ended, or a refusal); true when the pass ends there (the speaker is down,
 * or the session could not be had: the rest waits for the retry).
 */
static bool batch_failed(struct rw_bgp *b, bool *checked, const char *doing,
			 const struct rw_route *r, size_t n, const bool *done, int err,
			 const char *why)
{
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		if (pass_failed(b, checked, doing, &r[i], why))
			return true;
		if (err)
			return true; /* no answer for the rest: they wait for the retry */
	}
	return false;
}

static void withdraw_pass(struct rw_bgp *b, bool *checked, struct rw_route *batch, bool *done)
{
	char why[RW_BGP_MSG_LEN];
	size_t from = b->held.n;

	while (from > 0 && !pass_yields(b)) {
		size_t n = 0;
		int err;

		for (; from > 0 && n < RW_BGP_CHUNK; from--) {
			if (!rw_route_target_has(&b->target, &b->held.e[from - 1].r))
				batch[n++] = b->held.e[from - 1].r;
		}
		err = session_routes(&b->g, &b->sess, false, batch, n, done, &b->abort_cmd, why,
				     sizeof(why));
		if (err == -ECANCELED)
			return;
		for (size_t i = 0; i < n; i++) {
			long at = done[i] ? rw_held_find(&b->held, &batch[i]) : -1;

			if (at < 0)
				continue;
			rw_journal_del(b->journal_fd, &batch[i]); /* a stale entry is only withdrawn again */
			rw_held_remove(&b->held, (size_t)at);
			b->withdraws++;
		}
		say_done(b, false, batch, n, done);
		publish(b);
		if (batch_failed(b, checked, "withdrawing", batch, n, done, err, why))
			return;
		if (from > b->held.n)
			from = b->held.n;
	}
}

static void announce_pass(struct rw_bgp *b, bool *checked, struct rw_route *batch, bool *done)
{
	char why[RW_BGP_MSG_LEN];
	size_t k = 0;

	while (k < b->target.n && !pass_yields(b)) {
		size_t n = 0;
		int err;

		for (; k < b->target.n && n < RW_BGP_CHUNK; k++) {
			const struct rw_route *r = &b->target.order[k];
			long i = rw_held_find(&b->held, r);

			if (i >= 0 && b->held.e[i].sure)
				continue;
			if (i < 0) {
				/* Into the journal first: a crash after this leaves a route to withdraw, not one unknown. */
				err = rw_held_add(&b->held, r, false, now_ns());
				if (!err)
					err = rw_journal_put(b->journal_fd, r, rw_clock_ns(CLOCK_REALTIME));
				if (err) {
					i = rw_held_find(&b->held, r);
					if (i >= 0)
						rw_held_remove(&b->held, (size_t)i);
					b->pending = true;
					command_failed(b, "journaling", r, err == -E2BIG ?
						       "the journal is full" : strerror(-err));
					continue;
				}
			}
			batch[n++] = *r;
		}
		err = session_routes(&b->g, &b->sess, true, batch, n, done, &b->abort_cmd, why,
				     sizeof(why));
		if (err == -ECANCELED)
			return;
		for (size_t i = 0; i < n; i++) {
			if (!done[i])
				continue; /* held, unsure: the speaker may have taken it before it failed */
			rw_held_add(&b->held, &batch[i], true, now_ns());
			b->announces++;
		}
		say_done(b, true, batch, n, done);
		publish(b);
		if (batch_failed(b, checked, "announcing", batch, n, done, err, why))
			return;
	}
}

static void pass(struct rw_bgp *b)
{
	struct rw_route *batch = malloc(RW_BGP_CHUNK * sizeof(*batch));
	bool *done = malloc(RW_BGP_CHUNK * sizeof(*done)), checked = false;

	b->pending = false;
	if (!batch || !done) {
		b->pending = true;
		failed(b, "no memory for a pass");
	} else {
		withdraw_pass(b, &checked, batch, done);
		if (b->state != RW_BGP_DOWN)
			announce_pass(b, &checked, batch, done);
	}
	if (b->pending)
		b->next_retry = now_ns() + RW_BGP_RETRY_NS;
	free(batch);
	free(done);
}

/* --bgp-dry-run: the same walk, said and nothing asked. */
static void dry_pass(struct rw_bgp *b)
{
	char text[RW_BGP_MSG_LEN];

	for (size_t i = b->held.n; i-- > 0;) {
		if (rw_route_target_has(&b->target, &b->held.e[i].r))
			continue;
		rw_route_format(&b->held.e[i].r, text, sizeof(text));
		say(b, "bgp: would withdraw %s", text);
		rw_held_remove(&b->held, i);
		b->withdraws++;
	}
	for (size_t k = 0; k < b->target.n; k++) {
		const struct rw_route *r = &b->target.order[k];

		if (rw_held_find(&b->held, r) >= 0)
			continue;
		if (rw_held_add(&b->held, r, true, now_ns()))
			continue;
		describe(b, r, text, sizeof(text));
		say(b, "bgp: would announce %s", text);
		b->announces++;
	}
}

static void take_target(struct rw_bgp *b)
{
	uint64_t now = now_ns();

	if (rw_route_target_build(&b->target, b->mine, b->nmine, b->limit, &b->held,
				  now > b->cfg.hold_ns ? now - b->cfg.hold_ns : 0)) {
		say(b, "bgp: no memory for the %zu routes wanted; the last set stays", b->nmine);
		return;
	}
	if (b->target.over_max && !b->said_over)
		say(b, "bgp: %u routes wanted beyond --bgp-max %u are not announced (the most "
		       "wanted are, those announced within --bgp-hold first)", b->target.over_max,
		    b->limit);
	else if (!b->target.over_max && b->said_over)
		say(b, "bgp: every wanted route fits --bgp-max %u again", b->limit);
	b->said_over = b->target.over_max;
}

/* What adopt_owned gathers from one table's list. */
struct owned {
	int journal_fd;
	struct rw_held_set *held;
	int family;
	bool flow;
	size_t adopted;
	int err;
};

static void adopt_one(const char *words, void *arg)
{
	struct owned *o = arg;
	struct rw_route r;

	if (o->err || !rw_gobgp_route_of_words(words, o->family, o->flow, &r) ||
	    !rw_route_normalize(&r) || rw_held_find(o->held, &r) >= 0)
		return;
	o->err = rw_held_add(o->held, &r, false, now_ns());
	if (!o->err)
		o->err = rw_journal_put(o->journal_fd, &r, rw_clock_ns(CLOCK_REALTIME));
	if (!o->err)
		o->adopted++;
}

/*
 * The speaker's routes that carry the owner community and that held does
 * not know, into held (unsure) and the journal: a run killed before it could
 * journal them, or whose journal was lost, left them announced. What is not
 * wanted is then withdrawn like any held route. abort: the end asked (NULL:
 * none). *adopted: how many; 0, or -errno with why.
 */
static int adopt_owned(const struct rw_gobgp *g, struct rw_session *sess, int journal_fd,
		       struct rw_held_set *held, const atomic_bool *abort, size_t *adopted, char *why,
		       size_t len)
{
	char answer[RW_SESSION_LINE];
	int err = session_up(g, sess, abort, why, len);

	*adopted = 0;
	for (size_t t = 0; !err && t < TABLES; t++) {
		struct owned o = { .journal_fd = journal_fd, .held = held,
				   .family = tables[t].family, .flow = tables[t].flow };
		char question[64];

		snprintf(question, sizeof(question), "list %s %s", tables[t].name, g->owner);
		err = rw_session_ask(sess, question, adopt_one, &o, answer, sizeof(answer),
				     RW_BGP_LIST_TIMEOUT_NS, abort, why, len);
		*adopted += o.adopted;
		if (!err && o.err) {
			err = o.err;
			snprintf(why, len, "%s", err == -E2BIG ? "the journal is full" : strerror(-err));
		}
	}
	return err;
}

/*
 * Once the first wanted set is known and the speaker answers: its routes
 * of ours that no journal held join the held set (adopt_owned), so that
 * the pass withdraws those not wanted. Looked for again at the next health
 * check when it fails.
 */
static void adopt(struct rw_bgp *b)
{
	char why[RW_BGP_MSG_LEN];
	size_t n;
	int err;

	if (b->adopted || !b->known || !b->g.owner_value ||
	    (b->state != RW_BGP_UP && b->state != RW_BGP_NO_SESSION))
		return;
	err = adopt_owned(&b->g, &b->sess, b->journal_fd, &b->held, &b->abort_cmd, &n, why,
			  sizeof(why));
	if (err == -ECANCELED)
		return;
	if (err) {
		failed(b, "looking for routes of ours at the speaker: %s", why);
		return;
	}
	b->adopted = true;
	if (n)
		say(b, "bgp: %zu routes with this instance's community %s were at the speaker and in no "
		       "journal: withdrawn unless wanted", n, b->g.owner);
}

/*
 * Whether the speaker still holds r: 1 it does, 0 it does not, -errno when
 * it does not answer (why says so). Asked after a withdrawal failed (not
 * held: the withdrawal is done, a speaker that restarted lost it), and by
 * the health probe. abort: the end asked (NULL: none).
 */
static int still_holds(const struct rw_gobgp *g, struct rw_session *sess, const struct rw_route *r,
		       const atomic_bool *abort, char *why, size_t len)
{
	char question[RW_SESSION_LINE + 8], line[RW_SESSION_LINE], answer[RW_SESSION_LINE];
	int err = session_up(g, sess, abort, why, len);

	if (err)
		return err;
	rw_gobgp_line(g, false, r, line, sizeof(line));
	snprintf(question, sizeof(question), "holds %s", line);
	err = rw_session_ask(sess, question, NULL, NULL, answer, sizeof(answer),
			     RW_BGP_LIST_TIMEOUT_NS, abort, why, len);
	if (err)
		return err;
	if (strcmp(answer, "yes") && strcmp(answer, "no")) {
		snprintf(why, len, "its answer to a lookup is not yes or no: %.60s", answer);
		return -EPROTO;
	}
	return !strcmp(answer, "yes");
}

/*
 * Withdraws every held route: the end of a run, and `ratewall stop`. No
 * budget of time (a route given up on would stay announced with nothing to
 * remember it); each answer has its timeout. A withdrawal the speaker
 * refuses while it still holds the route is left in the journal and the
 * others go on; one the speaker no longer holds is done; a session that
 * ends, or a speaker that does not answer, ends it. The routes withdrawn,
 * or -errno with why when some are left.
 */
static long withdraw_all(const struct rw_gobgp *g, struct rw_session *sess, int journal_fd,
			 struct rw_held_set *held, char *why, size_t len)
{
	struct rw_route *batch = malloc(RW_BGP_CHUNK * sizeof(*batch));
	bool *done = malloc(RW_BGP_CHUNK * sizeof(*done));
	char last[RW_BGP_MSG_LEN] = "";
	size_t from = held->n;
	long withdrawn = 0;
	int err = 0;

	if (!batch || !done) {
		snprintf(why, len, "no memory");
		err = -ENOMEM;
	}
	while (!err && from > 0) {
		size_t n = 0;

		for (; from > 0 && n < RW_BGP_CHUNK; from--)
			batch[n++] = held->e[from - 1].r;
		err = session_routes(g, sess, false, batch, n, done, NULL, last, sizeof(last));
		if (err) {
			snprintf(why, len, "%s", last);
			break;
		}
		/* A refusal is asked about (does the speaker still hold it?) until one is not answered. */
		for (size_t i = 0; i < n && !err; i++) {
			char ask[RW_BGP_MSG_LEN];
			int holds;

			if (done[i])
				continue;
			holds = still_holds(g, sess, &batch[i], NULL, ask, sizeof(ask));
			if (holds < 0) {
				snprintf(why, len, "%s", ask);
				err = holds;
			}
			done[i] = !holds; /* held: left in the journal, said below */
		}
		for (size_t i = 0; i < n; i++) {
			long at = done[i] ? rw_held_find(held, &batch[i]) : -1;

			if (at < 0)
				continue;
			rw_journal_del(journal_fd, &batch[i]);
			rw_held_remove(held, (size_t)at);
			withdrawn++;
		}
		if (from > held->n)
			from = held->n;
	}
	free(batch);
	free(done);
	if (err)
		return err;
	if (!held->n)
		return withdrawn;
	snprintf(why, len, "the speaker refused to withdraw them: %s", last);
	return -EIO;
}

static void finish(struct rw_bgp *b)
{
	char why[RW_BGP_MSG_LEN], text[RW_BGP_MSG_LEN];
	size_t had = b->held.n;
	long done;

	if (b->cfg.dry_run) {
		for (size_t i = 0; i < b->held.n; i++) {
			rw_route_format(&b->held.e[i].r, text, sizeof(text));
			say(b, "bgp: would withdraw %s", text);
		}
		b->withdraws += b->held.n;
		b->held.n = 0;
		return;
	}
	if (!had)
		return;
	done = withdraw_all(&b->g, &b->sess, b->journal_fd, &b->held, why, sizeof(why));
	if (done >= 0) {
		b->withdraws += (uint64_t)done;
		say(b, "bgp: withdrew every route at the end (%zu)", had);
		return;
	}
	b->withdraws += had - b->held.n;
	failed(b, "withdrawing at the end: %s", why);
	say(b, "bgp: %zu of %zu routes are left announced (in the journal): the speaker at %s: %s",
	    b->held.n, had, b->g.api, why);
}

static void *thread_main(void *arg)
{
	struct rw_bgp *b = arg;
	uint64_t wake = 0;

	for (;;) {
		bool fresh = false;

		pthread_mutex_lock(&b->mu);
		while (!b->stop && !b->want_new && now_ns() < wake) {
			struct timespec ts = { .tv_sec = (time_t)(wake / 1000000000ULL),
					       .tv_nsec = (long)(wake % 1000000000ULL) };

			pthread_cond_timedwait(&b->cv, &b->mu, &ts);
		}
		if (b->stop) {
			pthread_mutex_unlock(&b->mu);
			break;
		}
		if (b->want_new) {
			struct rw_route *t = b->mine;
			size_t cap = b->mine_cap;

			b->mine = b->want;
			b->nmine = b->nwant;
			b->mine_cap = b->want_cap;
			b->want = t;
			b->want_cap = cap;
			b->nwant = 0;
			b->want_new = false;
			atomic_store(&b->news, false);
			fresh = true;
		}
		if (b->want_lost) {
			b->want_lost = false;
			pthread_mutex_unlock(&b->mu);
			say(b, "bgp: no memory for the routes wanted; the last set stays");
			pthread_mutex_lock(&b->mu);
		}
		pthread_mutex_unlock(&b->mu);

		if (fresh) {
			take_target(b);
			b->known = true;
		}
		if (b->cfg.dry_run) {
			dry_pass(b);
			publish(b);
			wake = NEVER;
			continue;
		}
		if (now_ns() >= b->next_health) {
			enum rw_bgp_state before = b->state;

			health(b);
			/* Back from down: announce again what it may have lost. */
			fresh |= before == RW_BGP_DOWN && b->state != RW_BGP_DOWN;
			fresh |= before == RW_BGP_STARTING;
		}
		if (!b->adopted && b->known) {
			adopt(b);
			fresh |= b->adopted;
		}
		/* Work left undone by a failure waits for its retry; unsure routes left by a doubt mid-pass do not. */
		if (b->known && b->state != RW_BGP_DOWN &&
		    (fresh || (b->pending ? now_ns() >= b->next_retry :
					    rw_held_sure(&b->held) < b->held.n)))
			pass(b);
		publish(b);
		wake = b->next_health;
		if (b->state != RW_BGP_DOWN && b->pending && b->next_retry < wake)
			wake = b->next_retry;
		else if (b->known && b->state != RW_BGP_DOWN && !b->pending &&
			 rw_held_sure(&b->held) < b->held.n)
			wake = 0;
	}
	atomic_store(&b->abort_cmd, false);
	pthread_mutex_lock(&b->mu);
	bool withdraw = b->stop_withdraw;
	pthread_mutex_unlock(&b->mu);
	if (withdraw)
		finish(b);
	rw_session_close(&b->sess);
	publish(b);
	return NULL;
}

struct rw_bgp *rw_bgp_start(const struct rw_bgp_config *c, int journal_fd, char *err,
			    size_t errlen)
{
	struct rw_bgp *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;
	sigset_t all, old;
	uint32_t capacity = 0;
	int e;

	if (!b) {
		rw_fail(err, errlen, -ENOMEM, "bgp: no memory");
		return NULL;
	}
	b->cfg = *c;
	b->journal_fd = -1;
	pthread_mutex_init(&b->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cv, &ca);
	pthread_condattr_destroy(&ca);
	b->state = c->dry_run ? RW_BGP_DRY_RUN : RW_BGP_STARTING;
	if (rw_gobgp_init(&b->g, c, err, errlen))
		goto fail;
	b->limit = c->max ? c->max : 1;
	if (!c->dry_run) {
		b->journal_fd = journal_fd >= 0 ? fcntl(journal_fd, F_DUPFD_CLOEXEC, 0) :
						  rw_bgp_journal_create(b->limit);
		if (b->journal_fd < 0) {
			e = journal_fd >= 0 ? -errno : b->journal_fd;
			rw_fail(err, errlen, e, "bgp: the journal of announced routes: %s", strerror(-e));
			b->journal_fd = -1;
			goto fail;
		}
		if ((e = rw_journal_capacity(b->journal_fd, &capacity)) ||
		    (e = rw_journal_load(b->journal_fd, &b->held))) {
			rw_fail(err, errlen, e, "bgp: the journal of announced routes cannot be read: %s",
				e == -EINVAL ? "not a journal (another layout)" : strerror(-e));
			goto fail;
		}
		if (capacity < b->limit) {
			say(b, "bgp: the pinned journal holds at most %u routes: --bgp-max %u is cut to %u",
			    capacity, b->limit, capacity);
			b->limit = capacity;
		}
		if (b->held.n)
			say(b, "bgp: %zu routes of an earlier run are in the journal: withdrawn unless "
			       "wanted, announced again if wanted", b->held.n);
	}
	publish(b);
	/* The thread takes no signal: they are the main loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&b->thread, NULL, thread_main, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		rw_fail(err, errlen, -e, "bgp: cannot start its thread: %s", strerror(e));
		goto fail;
	}
	b->running = true;
	return b;
fail:
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	if (b->journal_fd >= 0)
		close(b->journal_fd);
	rw_held_free(&b->held);
	free(b);
	return NULL;
}

void rw_bgp_want(struct rw_bgp *b, const struct rw_route *r, size_t n, uint64_t never)
{
	pthread_mutex_lock(&b->mu);
	b->never = never;
	/* The same set as the last one taken, and none newer waiting: nothing to do. */
	if (b->told && !b->want_new && n == b->nmine && (!n || !memcmp(r, b->mine, n * sizeof(*r)))) {
		pthread_mutex_unlock(&b->mu);
		return;
	}
	b->told = true;
	if (n > b->want_cap) {
		struct rw_route *w = realloc(b->want, n * sizeof(*w));

		if (!w) {
			b->want_lost = true;
			pthread_mutex_unlock(&b->mu);
			return;
		}
		b->want = w;
		b->want_cap = n;
	}
	if (n)
		memcpy(b->want, r, n * sizeof(*r));
	b->nwant = n;
	b->want_new = true;
	atomic_store(&b->news, true);
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

void rw_bgp_counts(struct rw_bgp *b, struct rw_bgp_counts *c)
{
	pthread_mutex_lock(&b->mu);
	*c = b->counts;
	pthread_mutex_unlock(&b->mu);
}

size_t rw_bgp_messages(struct rw_bgp *b, char (*out)[RW_BGP_MSG_LEN], size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&b->mu);
	while (n < max && (b->msg_n || b->msg_lost)) {
		if (b->msg_n) {
			memcpy(out[n++], b->msg[b->msg_first], RW_BGP_MSG_LEN);
			b->msg_first = (b->msg_first + 1) % MSG_QUEUE;
			b->msg_n--;
		} else {
			snprintf(out[n++], RW_BGP_MSG_LEN, "bgp: %llu more lines not said (too many at once)",
				 (unsigned long long)b->msg_lost);
			b->msg_lost = 0;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return n;
}

void rw_bgp_end(struct rw_bgp *b, bool withdraw)
{
	if (!b || !b->running)
		return;
	pthread_mutex_lock(&b->mu);
	b->stop = true;
	b->stop_withdraw = withdraw;
	atomic_store(&b->abort_cmd, true);
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	b->running = false;
}

void rw_bgp_stop(struct rw_bgp *b, bool withdraw)
{
	if (!b)
		return;
	rw_bgp_end(b, withdraw);
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	if (b->journal_fd >= 0)
		close(b->journal_fd);
	rw_held_free(&b->held);
	rw_route_target_free(&b->target);
	free(b->want);
	free(b->mine);
	free(b);
}

int rw_bgp_withdraw_journal(const struct rw_bgp_config *c, int journal_fd, char *err,
			    size_t errlen)
{
	struct rw_held_set held = { 0 };
	struct rw_session sess = { 0 };
	struct rw_gobgp g;
	char why[RW_BGP_MSG_LEN];
	size_t had, left;
	long done;
	int e;

	if ((e = rw_gobgp_init(&g, c, err, errlen)))
		return e;
	if ((e = rw_journal_load(journal_fd, &held))) {
		rw_held_free(&held);
		return rw_fail(err, errlen, e, "bgp: the journal of announced routes cannot be read: %s",
			       strerror(-e));
	}
	if (g.owner_value) { /* what a run left with no journal of it goes too */
		size_t adopted;

		e = adopt_owned(&g, &sess, journal_fd, &held, NULL, &adopted, why, sizeof(why));
		if (e) {
			rw_session_close(&sess);
			had = held.n;
			rw_held_free(&held);
			return rw_fail(err, errlen, e, "bgp: %zu routes are left announced (in the journal): "
				       "the speaker at %s: %s", had, g.api, why);
		}
	}
	had = held.n;
	done = withdraw_all(&g, &sess, journal_fd, &held, why, sizeof(why));
	rw_session_close(&sess);
	left = held.n;
	rw_held_free(&held);
	if (done >= 0)
		return 0;
	return rw_fail(err, errlen, (int)done,
		       "bgp: %zu of %zu routes are left announced (in the journal): the speaker at "
		       "%s: %s", left, had, g.api, why);
}
