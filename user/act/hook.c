// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --on-event's runner (hook.h). The callers' side (offer, results, counts)
 * only copies under one mutex; a worker thread of its own starts the
 * commands (posix_spawnp, no shell), watches each through a pidfd and kills
 * its process group at its deadline, so nothing the commands do can hold up
 * the tick.
 */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include "act/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/spawn.h"
#include "model/clock.h"
#include "model/errmsg.h"


/* The event is written before the command starts: one write, never more than a pipe holds. */
_Static_assert(RW_HOOK_JSON_MAX <= PIPE_BUF, "an event must fit a pipe whole");

/* The results the caller has not read yet, at most: the oldest go first. */
#define RESULTS_KEPT RW_HOOK_QUEUE
/* How often a command without a pidfd (pidfd_open refused) is looked at. */
#define NO_PIDFD_POLL_MS 20
/* Where execvp looks when PATH is unset (glibc's _CS_PATH). */
#define DEFAULT_PATH "/bin:/usr/bin"

struct hook_event {
	uint32_t type;
	uint32_t len; /* of json, its newline included */
	uint64_t pair; /* a start's or an end's pair_hash; 0 for an event of neither */
	bool ended;    /* a start whose end is queued behind it: it keeps its place */
	char key[RW_KEY_STRLEN];
	char json[RW_HOOK_JSON_MAX];
};

/*
 * The starts (banned, heavy) whose end (unbanned, light) a command is owed:
 * each start queued is in this set until its end comes, so that an end is
 * never dropped when its start ran, and never run when its start did not.
 * Keyed by pair_hash alone (64 bits: two keys sharing one are not expected).
 */
#define OPEN_SLOTS 16384 /* a power of two; at most half of them live */
enum open_state { OPEN_FREE, OPEN_QUEUED, OPEN_RAN, OPEN_GONE };
struct open_start {
	uint64_t pair;
	uint8_t state; /* enum open_state */
};

/* A command running: the worker's alone. */
struct hook_child {
	pid_t pid; /* 0: the slot is free; also its process group */
	int pidfd; /* -1: looked at every NO_PIDFD_POLL_MS instead */
	bool killed, timed_out;
	uint64_t start_ns, deadline_ns;
	uint32_t type;
	uint64_t pair; /* its event's: an end of the pair waits for it */
	char key[RW_KEY_STRLEN];
};

struct rw_hook {
	struct rw_hook_config cfg;
	bool quiet; /* the commands' stderr to /dev/null */
	char words[RW_CMD_MAX];
	char *argv[RW_CMD_WORDS];
	pthread_t thread;
	bool joined;
	int wake_fd; /* eventfd: an event queued, or the end asked */

	/* The worker's alone. */
	struct hook_child *children; /* cfg.running slots */
	uint32_t nchildren;
	struct pollfd *pfds;        /* cfg.running + 1 */
	struct hook_event current; /* the one being started */

	pthread_mutex_t lock; /* everything below */
	struct hook_event queue[RW_HOOK_QUEUE];
	uint32_t q_head;
	struct rw_hook_result results[RESULTS_KEPT];
	uint32_t r_head, r_len;
	struct rw_hook_counts counts; /* counts.queued: the queue's length */
	struct open_start *open;      /* OPEN_SLOTS */
	uint32_t nopen;               /* live and gone slots: a full table is rebuilt */
	double tokens;                /* the rate's bucket, at most cfg.rate */
	uint64_t refilled_ns;
	bool stopping;
	uint64_t grace_end_ns;
};

static uint64_t mono_ns(void)
{
	return rw_clock_ns(CLOCK_MONOTONIC);
}

static void wake(struct rw_hook *h)
{
	uint64_t one = 1;

	/* EAGAIN only at a counter near 2^64: the worker is woken either way. */
	if (write(h->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

/* --- Starts and their ends --------------------------------------------------- */

/* The start an end closes (banned for unbanned, heavy for light); 0 when type is no end. */
static uint32_t start_of(uint32_t type)
{
	return type == RW_EV_UNBANNED ? RW_EV_BANNED : type == RW_EV_LIGHT ? RW_EV_HEAVY : 0;
}

static bool is_start(uint32_t type)
{
	return type == RW_EV_BANNED || type == RW_EV_HEAVY;
}

/* The pair a start or an end belongs to: FNV-1a of the start's type and the key; never 0. */
static uint64_t pair_hash(uint32_t start, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ start;

	for (; *key; key++)
		h = (h ^ (uint8_t)*key) * 0x100000001b3ULL;
	return h | 1;
}

/* The pair's slot, or where it would go (the first free or gone one on its way). */
static struct open_start *open_slot(struct rw_hook *h, uint64_t pair, bool *found)
{
	struct open_start *reuse = NULL;

	for (uint32_t i = 0, s = (uint32_t)pair & (OPEN_SLOTS - 1); i < OPEN_SLOTS;
	     i++, s = (s + 1) & (OPEN_SLOTS - 1)) {
		struct open_start *o = &h->open[s];

		if (o->state == OPEN_FREE) {
			*found = false;
			return reuse ? reuse : o;
		}
		if (o->state == OPEN_GONE) {
			if (!reuse)
				reuse = o;
		} else if (o->pair == pair) {
			*found = true;
			return o;
		}
	}
	*found = false;
	return reuse;
}

/* The set again without its gone slots (they are reused, but never free again otherwise). */
static void open_rebuild(struct rw_hook *h)
{
	struct open_start *old = malloc(OPEN_SLOTS * sizeof(*old));
	uint32_t n = 0;

	if (!old)
		return;
	memcpy(old, h->open, OPEN_SLOTS * sizeof(*old));
	memset(h->open, 0, OPEN_SLOTS * sizeof(*h->open));
	for (uint32_t i = 0; i < OPEN_SLOTS; i++) {
		bool found;
		struct open_start *o;

		if (old[i].state != OPEN_QUEUED && old[i].state != OPEN_RAN)
			continue;
		o = open_slot(h, old[i].pair, &found);
		*o = old[i];
		n++;
	}
	h->nopen = n;
	free(old);
}

/* A start queued: its pair opens (false: the set is full, the start is not run). */
static bool open_pair(struct rw_hook *h, uint64_t pair)
{
	bool found;
	struct open_start *o;

	if (h->nopen >= OPEN_SLOTS / 2)
		open_rebuild(h);
	o = open_slot(h, pair, &found);
	if (found)
		return true;
	if (!o || h->nopen >= OPEN_SLOTS / 2)
		return false;
	h->nopen += o->state == OPEN_FREE;
	*o = (struct open_start){ .pair = pair, .state = OPEN_QUEUED };
	return true;
}

/* The queued event at offset k from the head leaves the queue; the ones behind it move up. */
static void queue_remove(struct rw_hook *h, uint32_t k)
{
	for (; k + 1 < h->counts.queued; k++)
		h->queue[(h->q_head + k) % RW_HOOK_QUEUE] = h->queue[(h->q_head + k + 1) % RW_HOOK_QUEUE];
	h->counts.queued--;
}

/* Every queued start of pair whose end is not queued leaves the queue, each counted not run. */
static void cancel_starts(struct rw_hook *h, uint64_t pair)
{
	for (uint32_t k = h->counts.queued; k-- > 0;) {
		const struct hook_event *e = &h->queue[(h->q_head + k) % RW_HOOK_QUEUE];

		if (e->pair == pair && is_start(e->type) && !e->ended) {
			queue_remove(h, k);
			h->counts.dropped++;
		}
	}
}

/* The oldest queued start of pair whose end is not queued, at its offset from the head; false: none. */
static bool oldest_start(struct rw_hook *h, uint64_t pair, uint32_t *k)
{
	for (*k = 0; *k < h->counts.queued; (*k)++) {
		const struct hook_event *e = &h->queue[(h->q_head + *k) % RW_HOOK_QUEUE];

		if (e->pair == pair && is_start(e->type) && !e->ended)
			return true;
	}
	return false;
}

/*
 * An end that is owed finds room: the newest queued start whose end is not
 * owed leaves the queue (not run, its pair closed unless an older copy of
 * it still waits). False when the queue holds only owed ends and the
 * starts they follow.
 */
static bool room_for_end(struct rw_hook *h)
{
	if (h->counts.queued < RW_HOOK_QUEUE)
		return true;
	for (uint32_t k = h->counts.queued; k-- > 0;) {
		const struct hook_event *e = &h->queue[(h->q_head + k) % RW_HOOK_QUEUE];
		uint64_t pair = e->pair;
		struct open_start *o;
		uint32_t other;
		bool found;

		if (!is_start(e->type) || e->ended)
			continue;
		queue_remove(h, k);
		h->counts.dropped++;
		/* An older copy of the start still waits: the pair stays open for it. */
		o = open_slot(h, pair, &found);
		if (found && o->state == OPEN_QUEUED && !oldest_start(h, pair, &other))
			o->state = OPEN_GONE;
		return true;
	}
	return false;
}

/*
 * An end (unbanned, light) is run when its start was: when a command ran
 * for it, or when it still waits in the queue (then both run, the start
 * first: a ban that began and ended within one tick reaches the command
 * too). Its start's other queued copies leave the queue (not run). When
 * there is no room for the end even so, a start still queued is run
 * neither; one with no start queued or run is not run. A start that waits
 * is marked ended: room_for_end leaves it its place.
 */
static bool offer_end(struct rw_hook *h, uint64_t pair, struct hook_event *e)
{
	bool found, waits = false;
	struct open_start *o = open_slot(h, pair, &found);
	bool ran = found && o->state == OPEN_RAN;
	uint32_t k = 0;

	if (found && o->state == OPEN_QUEUED && oldest_start(h, pair, &k)) {
		/* The copies behind it are all later than k: k's slot keeps its event. */
		h->queue[(h->q_head + k) % RW_HOOK_QUEUE].ended = true; /* out of cancel_starts' reach */
		waits = true;
	}
	cancel_starts(h, pair);
	if (found)
		o->state = OPEN_GONE;
	if (!ran && !waits)
		return false;
	if (!room_for_end(h)) {
		if (waits) { /* room_for_end moved nothing: k is still the start's */
			queue_remove(h, k);
			h->counts.dropped++;
		}
		return false;
	}
	h->queue[(h->q_head + h->counts.queued) % RW_HOOK_QUEUE] = *e;
	h->counts.queued++;
	return true;
}

/* --- The callers' side ---------------------------------------------------- */

static void refill(struct rw_hook *h, uint64_t now)
{
	double burst = h->cfg.rate;

	h->tokens += (double)(now - h->refilled_ns) * h->cfg.rate / 1e9;
	if (h->tokens > burst)
		h->tokens = burst;
	h->refilled_ns = now;
}

bool rw_hook_offer(struct rw_hook *h, uint32_t type, const char *key, const char *json)
{
	size_t len = strlen(json);
	uint64_t now = mono_ns();
	uint32_t start = start_of(type);
	bool queued = false;

	pthread_mutex_lock(&h->lock);
	refill(h, now);
	/* A JSON object longer than a slot is dropped whole: a cut one would not parse. */
	if (!h->stopping && len + 1 <= RW_HOOK_JSON_MAX && start) {
		struct hook_event e = { .type = type, .len = (uint32_t)len + 1,
					.pair = pair_hash(start, key) };

		snprintf(e.key, sizeof(e.key), "%s", key);
		memcpy(e.json, json, len);
		e.json[len] = '\n';
		queued = offer_end(h, e.pair, &e);
	} else if (!h->stopping && len + 1 <= RW_HOOK_JSON_MAX && h->counts.queued < RW_HOOK_QUEUE &&
		   h->tokens >= 1.0) {
		struct hook_event *e = &h->queue[(h->q_head + h->counts.queued) % RW_HOOK_QUEUE];

		e->type = type;
		e->pair = is_start(type) ? pair_hash(type, key) : 0;
		e->ended = false;
		if (!e->pair || open_pair(h, e->pair)) {
			h->tokens -= 1.0;
			snprintf(e->key, sizeof(e->key), "%s", key);
			memcpy(e->json, json, len);
			e->json[len] = '\n';
			e->len = (uint32_t)len + 1;
			h->counts.queued++;
			queued = true;
		}
	}
	if (!queued)
		h->counts.dropped++;
	pthread_mutex_unlock(&h->lock);
	if (queued)
		wake(h);
	return queued;
}

size_t rw_hook_results(struct rw_hook *h, struct rw_hook_result *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&h->lock);
	for (; n < max && h->r_len; n++, h->r_len--) {
		out[n] = h->results[h->r_head];
		h->r_head = (h->r_head + 1) % RESULTS_KEPT;
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}

void rw_hook_counts(struct rw_hook *h, struct rw_hook_counts *c)
{
	pthread_mutex_lock(&h->lock);
	*c = h->counts;
	pthread_mutex_unlock(&h->lock);
}

/* --- The worker ----------------------------------------------------------- */

/*
 * How a command ended, into the counts and the results. The one place that
 * ends a command's time in counts.running, so started == ok + failed +
 * timed_out + running holds in every snapshot.
 */
static void record(struct rw_hook *h, uint32_t type, const char *key, int status, bool timed_out,
		   int start_errno, uint64_t start_ns)
{
	struct rw_hook_result *r;

	pthread_mutex_lock(&h->lock);
	if (timed_out)
		h->counts.timed_out++;
	else if (status == 0)
		h->counts.ok++;
	else
		h->counts.failed++;
	h->counts.last_status = status;
	h->counts.running--;
	if (h->r_len == RESULTS_KEPT) { /* the caller is behind: its oldest go */
		h->r_head = (h->r_head + 1) % RESULTS_KEPT;
		h->r_len--;
	}
	r = &h->results[(h->r_head + h->r_len++) % RESULTS_KEPT];
	memset(r, 0, sizeof(*r));
	r->type = type;
	snprintf(r->key, sizeof(r->key), "%s", key);
	r->status = status;
	r->timed_out = timed_out;
	r->start_errno = start_errno;
	r->seconds = (double)(mono_ns() - start_ns) / 1e9;
	pthread_mutex_unlock(&h->lock);
}

/* Whether a command of pair runs now: any, or (ends) only an end's. */
static bool pair_running(const struct rw_hook *h, uint64_t pair, bool ends)
{
	for (uint32_t i = 0; pair && i < h->cfg.running; i++)
		if (h->children[i].pid && h->children[i].pair == pair &&
		    (!ends || start_of(h->children[i].type)))
			return true;
	return false;
}

/* Whether an event of pair (any, or with ends only an end) waits before offset k. */
static bool pair_queued_before(const struct rw_hook *h, uint64_t pair, uint32_t k, bool ends)
{
	for (uint32_t j = 0; pair && j < k; j++) {
		const struct hook_event *e = &h->queue[(h->q_head + j) % RW_HOOK_QUEUE];

		if (e->pair == pair && (!ends || start_of(e->type)))
			return true;
	}
	return false;
}

/*
 * Whether the event at offset k must wait: an end (unbanned, light) waits
 * while a command of its key runs or an event of its key waits before it,
 * so that what a ban did is undone after it, never before (a ban and its end
 * queued together would otherwise start at once); a start waits while an
 * end of its key runs or waits before it, so that an end does not undo the
 * ban that followed it. A key's starts alone run side by side.
 */
static bool must_wait(const struct hook_event *e, const struct rw_hook *h, uint32_t k)
{
	bool end = start_of(e->type) != 0;

	return pair_running(h, e->pair, !end) || pair_queued_before(h, e->pair, k, !end);
}

/*
 * The oldest queued event that may start (must_wait), counted as started
 * (and running) as it leaves; false: none, or the end.
 */
static bool take_event(struct rw_hook *h, struct hook_event *ev)
{
	bool took = false;

	pthread_mutex_lock(&h->lock);
	for (uint32_t k = 0; !h->stopping && k < h->counts.queued; k++) {
		const struct hook_event *e = &h->queue[(h->q_head + k) % RW_HOOK_QUEUE];

		if (must_wait(e, h, k))
			continue;
		*ev = *e;
		if (k == 0) {
			h->q_head = (h->q_head + 1) % RW_HOOK_QUEUE;
			h->counts.queued--;
		} else {
			queue_remove(h, k);
		}
		/*
		 * Its end is owed from now on; a start whose end is queued
		 * already has its pair closed, and the pair's slot, if any,
		 * is a later start's, not this one's.
		 */
		if (is_start(ev->type) && !ev->ended) {
			bool found;
			struct open_start *o = open_slot(h, ev->pair, &found);

			if (found)
				o->state = OPEN_RAN;
		}
		h->counts.started++;
		h->counts.running++;
		took = true;
		break;
	}
	pthread_mutex_unlock(&h->lock);
	return took;
}

static bool stopping(struct rw_hook *h, uint64_t *grace_end_ns)
{
	bool s;

	pthread_mutex_lock(&h->lock);
	s = h->stopping;
	*grace_end_ns = h->grace_end_ns;
	pthread_mutex_unlock(&h->lock);
	return s;
}

/*
 * The command with ev on its stdin: a pipe that already holds the event and
 * is closed behind it, so the command reads it and then EOF, and the worker
 * never waits on a command that does not read. stdout to /dev/null, stderr
 * ours; a process group of its own (its pid) to kill it whole; no fd of
 * ours beyond those three, the signals at their defaults and none blocked
 * (the worker blocks them all; ratewall ignores SIGPIPE).
 */
static int spawn(struct rw_hook *h, const struct hook_event *ev, pid_t *pid)
{
	int in[2], err;
	ssize_t n;

	if (pipe2(in, O_CLOEXEC))
		return errno;
	if (fcntl(in[1], F_SETFL, O_NONBLOCK))
		err = errno;
	else if ((n = write(in[1], ev->json, ev->len)) != (ssize_t)ev->len)
		err = n < 0 ? errno : EIO;
	else
		err = 0;
	close(in[1]);
	if (err) {
		close(in[0]);
		return err;
	}
	err = rw_spawn_group(h->argv, in[0], RW_SPAWN_NULL,
			     h->quiet ? RW_SPAWN_NULL : RW_SPAWN_OURS, pid);
	close(in[0]);
	return err;
}

static void start(struct rw_hook *h, const struct hook_event *ev)
{
	struct hook_child *c = h->children;
	uint64_t now = mono_ns();
	pid_t pid;
	int err;

	while (c->pid)
		c++;
	err = spawn(h, ev, &pid);
	if (err) {
		record(h, ev->type, ev->key, -1, false, err, now);
		return;
	}
	c->pid = pid;
	c->pidfd = rw_pidfd_open(pid);
	c->killed = c->timed_out = false;
	c->start_ns = now;
	c->deadline_ns = now + h->cfg.timeout_ns;
	c->type = ev->type;
	c->pair = ev->pair;
	memcpy(c->key, ev->key, sizeof(c->key));
	h->nchildren++;
}

/* The command and what it started (its process group); the leader is not reaped yet, so the group is still its own. */
static void kill_group(struct hook_child *c)
{
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL); /* one that left its group */
}

/*
 * Reaps c if it ended: what it left running in its process group is killed
 * first (before the reap, while the group's id cannot be another's), so no
 * command outlives its end or escapes --on-event-running.
 */
static void reap_if_ended(struct rw_hook *h, struct hook_child *c)
{
	siginfo_t si = { 0 };
	int status, why = 0;

	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
		if (si.si_pid == 0)
			return; /* still running */
		kill_group(c);
		waitpid(c->pid, NULL, 0); /* ours, and ended: returns at once */
		status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
	} else {
		status = -1; /* ECHILD: reaped behind our back (SIGCHLD ignored) */
		why = errno;
	}
	if (c->pidfd >= 0)
		close(c->pidfd);
	record(h, c->type, c->key, status, c->timed_out, why, c->start_ns);
	c->pid = 0;
	h->nchildren--;
}

/* Milliseconds until deadline, rounded up so the wake-up is never early; -1: none. */
static int ms_until(uint64_t deadline, uint64_t now)
{
	uint64_t ms;

	if (deadline == UINT64_MAX)
		return -1;
	if (deadline <= now)
		return 0;
	ms = (deadline - now + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/*
 * One wait: until a command ends, new work or the end is asked, or the
 * nearest deadline (a command's timeout, the end's grace). Then reaps what
 * ended and kills what is past its deadline.
 */
static void wait_once(struct rw_hook *h, bool ending, uint64_t grace_end_ns)
{
	uint64_t nearest = UINT64_MAX, now = mono_ns();
	bool blind = false;
	nfds_t n = 1;
	int timeout;

	h->pfds[0] = (struct pollfd){ .fd = h->wake_fd, .events = POLLIN };
	for (uint32_t i = 0; i < h->cfg.running; i++) {
		struct hook_child *c = &h->children[i];

		if (!c->pid)
			continue;
		/* One killed already is only waited for: its pidfd says when it is gone. */
		if (!c->killed && c->deadline_ns < nearest)
			nearest = c->deadline_ns;
		if (!c->killed && ending && grace_end_ns < nearest)
			nearest = grace_end_ns;
		if (c->pidfd >= 0)
			h->pfds[n++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
		else
			blind = true;
	}
	timeout = ms_until(nearest, now);
	if (blind && (timeout < 0 || timeout > NO_PIDFD_POLL_MS))
		timeout = NO_PIDFD_POLL_MS;
	if (poll(h->pfds, n, timeout) > 0 && (h->pfds[0].revents & POLLIN)) {
		uint64_t v;

		if (read(h->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return;
	}
	/* Every command is looked at: a pidfd's POLLIN is only a hint of which. */
	now = mono_ns();
	for (uint32_t i = 0; i < h->cfg.running; i++) {
		struct hook_child *c = &h->children[i];

		if (!c->pid)
			continue;
		reap_if_ended(h, c);
		if (!c->pid || c->killed)
			continue;
		if (now >= c->deadline_ns) {
			c->timed_out = true;
		} else if (!ending || now < grace_end_ns) {
			continue;
		}
		kill_group(c);
		c->killed = true;
	}
}

static void *worker(void *arg)
{
	struct rw_hook *h = arg;
	uint64_t grace_end_ns;

	for (;;) {
		bool ending;

		while (h->nchildren < h->cfg.running && take_event(h, &h->current))
			start(h, &h->current);
		ending = stopping(h, &grace_end_ns);
		if (ending && !h->nchildren)
			break;
		wait_once(h, ending, grace_end_ns);
	}
	return NULL;
}

/* --- Start, end, check ---------------------------------------------------- */

static void hook_free(struct rw_hook *h)
{
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	free(h->children);
	free(h->pfds);
	free(h->open);
	free(h);
}

struct rw_hook *rw_hook_start(const struct rw_hook_config *c, bool quiet, char *err,
			      size_t errlen)
{
	sigset_t all, old;
	struct rw_hook *h;
	char why[96];
	int ret;

	if (!c->command[0]) {
		rw_fail(err, errlen, -EINVAL, "--on-event: no command");
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		rw_fail(err, errlen, -ENOMEM, "--on-event: no memory");
		return NULL;
	}
	h->cfg = *c;
	h->quiet = quiet;
	h->cfg.running = c->running ? c->running : 1;
	h->cfg.rate = c->rate ? c->rate : 1;
	h->wake_fd = -1;
	if (rw_split_words(c->command, h->words, h->argv, RW_CMD_WORDS, why, sizeof(why)) < 0) {
		rw_fail(err, errlen, -EINVAL, "--on-event: '%s': %s", c->command, why);
		hook_free(h);
		return NULL;
	}
	h->children = calloc(h->cfg.running, sizeof(*h->children));
	h->pfds = calloc(h->cfg.running + 1, sizeof(*h->pfds));
	h->open = calloc(OPEN_SLOTS, sizeof(*h->open));
	if (!h->children || !h->pfds || !h->open) {
		rw_fail(err, errlen, -ENOMEM, "--on-event: no memory");
		hook_free(h);
		return NULL;
	}
	h->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->wake_fd < 0) {
		rw_fail(err, errlen, -errno, "--on-event: eventfd: %s", strerror(errno));
		hook_free(h);
		return NULL;
	}
	h->counts.last_status = -1;
	h->tokens = h->cfg.rate;
	h->refilled_ns = mono_ns();
	pthread_mutex_init(&h->lock, NULL);
	/* The worker takes no signal: SIGINT, SIGTERM and SIGHUP stay the tick's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&h->thread, NULL, worker, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		rw_fail(err, errlen, -ret, "--on-event: no thread: %s", strerror(ret));
		pthread_mutex_destroy(&h->lock);
		hook_free(h);
		return NULL;
	}
	return h;
}

void rw_hook_end(struct rw_hook *h, uint64_t grace_ns)
{
	if (!h || h->joined)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	h->grace_end_ns = mono_ns() + grace_ns;
	h->counts.dropped += h->counts.queued;
	h->counts.queued = 0;
	pthread_mutex_unlock(&h->lock);
	wake(h);
	pthread_join(h->thread, NULL);
	h->joined = true;
}

void rw_hook_stop(struct rw_hook *h, uint64_t grace_ns)
{
	if (!h)
		return;
	rw_hook_end(h, grace_ns);
	pthread_mutex_destroy(&h->lock);
	hook_free(h);
}

/* As execve would see path: 0, -ENOENT, -EACCES (no x bit for us, or not a file). */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == EACCES ? -EACCES : -ENOENT;
	if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS))
		return -EACCES;
	return 0;
}

int rw_hook_check(const struct rw_hook_config *c, char *err, size_t errlen)
{
	char words[RW_CMD_MAX], *argv[RW_CMD_WORDS], why[96], path[PATH_MAX];
	const char *name, *dirs;
	bool denied = false;
	int ret;

	if (rw_split_words(c->command, words, argv, RW_CMD_WORDS, why, sizeof(why)) < 0)
		return rw_fail(err, errlen, -EINVAL, "'%s': %s", c->command, why);
	name = argv[0];
	if (strchr(name, '/')) {
		ret = runnable(name);
		if (ret)
			return rw_fail(err, errlen, ret, "%s: %s", name,
				       ret == -ENOENT ? "not found" : "not executable");
		return 0;
	}
	/* execvp's search: each PATH entry in turn, "" the current directory. */
	dirs = getenv("PATH");
	if (!dirs)
		dirs = DEFAULT_PATH;
	for (const char *d = dirs;; d++) {
		const char *end = strchrnul(d, ':');
		int len = (int)(end - d);

		if (snprintf(path, sizeof(path), "%.*s%s%s", len, d, len ? "/" : "", name) <
		    (int)sizeof(path)) {
			ret = runnable(path);
			if (!ret)
				return 0;
			denied |= ret == -EACCES;
		}
		d = end;
		if (!*d)
			break;
	}
	if (denied)
		return rw_fail(err, errlen, -EACCES, "%s: not executable where PATH finds it", name);
	return rw_fail(err, errlen, -ENOENT, "%s: not found in PATH", name);
}
