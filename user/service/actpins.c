// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/actpins.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bgp/bgp.h"
#include "bgp/journal.h"
#include "act/record.h"
#include "model/clock.h"
#include "model/errmsg.h"
#include "service/pins.h"

#define ACT_PIN "act"
#define JOURNAL_PIN "bgp_routes"

/* Whether fd is a journal as bgp/journal.c makes them. */
static bool is_journal(int fd)
{
	uint32_t max;

	return rw_journal_capacity(fd, &max) == 0;
}

static void unpin(const char *dir, const char *what)
{
	char path[PATH_MAX];

	if (rw_pin_path(path, sizeof(path), dir, what) == 0)
		unlink(path);
}

/*
 * The instance's pinned journal: its fd, -ENOENT when it has none, or
 * -errno. One an earlier ratewall pinned before flow rules is upgraded in
 * place (the new map pinned beside it, then renamed over it: its routes are
 * never unpinned).
 */
static int open_journal(const char *dir)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd = rw_pin_open(dir, JOURNAL_PIN), nfd, e;

	if (fd < 0 || is_journal(fd))
		return fd;
	nfd = rw_journal_upgrade(fd);
	close(fd);
	if (nfd < 0)
		return nfd;
	/* bpffs takes no '.' in a name. */
	e = rw_pin_fd(dir, nfd, JOURNAL_PIN "_new");
	if (!e && (rw_pin_path(path, sizeof(path), dir, JOURNAL_PIN) ||
		   rw_pin_path(tmp, sizeof(tmp), dir, JOURNAL_PIN "_new")))
		e = -ENAMETOOLONG;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e) {
		unpin(dir, JOURNAL_PIN "_new");
		close(nfd);
		return e;
	}
	return nfd;
}

int rw_act_pins_read(const char *dir, struct rw_act_record *r)
{
	int fd = rw_pin_open_ro(dir, ACT_PIN), e;

	if (fd < 0)
		return fd;
	e = rw_act_record_read(fd, r);
	close(fd);
	return e;
}

/*
 * Routes the instance in dir still holds in its pinned journal: 0 when none
 * (or no journal), -errno when a journal is pinned that cannot be read (it
 * may hold some).
 */
static long journal_routes(const char *dir)
{
	int fd = open_journal(dir);
	long n;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	n = (long)rw_journal_count(fd);
	close(fd);
	return n;
}

long rw_act_pins_remove(const char *dir)
{
	static const char *const keep[] = { JOURNAL_PIN, ACT_PIN, NULL };
	long n = journal_routes(dir);
	int e = rw_instance_remove_keeping(dir, n ? keep : NULL);

	return e ? e : n;
}

int rw_act_pins_withdraw(const char *dir, size_t *n, char *err, size_t errlen)
{
	struct rw_act_record r;
	int fd = open_journal(dir), e;

	*n = 0;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return rw_fail(err, errlen, fd, "cannot open %s/%s: %s", dir, JOURNAL_PIN,
			       strerror(-fd));
	*n = is_journal(fd) ? rw_journal_count(fd) : 0;
	e = *n ? rw_act_pins_read(dir, &r) : 0;
	if (e)
		e = rw_fail(err, errlen, e, "%zu routes stay announced: the record of the speaker "
			    "cannot be read (%s)", *n, strerror(-e));
	else if (*n)
		e = rw_bgp_withdraw_journal(&r.bgp, fd, err, errlen);
	close(fd);
	return e ? e : *n > 0;
}

/* --bgp not given to this loader: what an earlier one announced is withdrawn. */
static void withdraw_former(struct rw_session *s, char *err, size_t errlen)
{
	size_t n;
	int e = rw_act_pins_withdraw(s->inst.dir, &n, err, errlen);

	if (e < 0)
		fprintf(stderr, "ratewall: --bgp is not given any more, and %s\n", err);
	else if (e > 0)
		fprintf(stderr, "ratewall: --bgp is not given any more: withdrew the %zu routes "
			"an earlier loader announced\n", n);
	if (e >= 0)
		unpin(s->inst.dir, JOURNAL_PIN);
}

/* The journal an earlier loader pinned, else a new one pinned: its fd, or -errno. */
static int journal(struct rw_session *s)
{
	int fd = open_journal(s->inst.dir), e;

	if (fd >= 0)
		return fd;
	fd = rw_bgp_journal_create(RW_BGP_MAX_ROUTES);
	if (fd < 0)
		return fd;
	e = rw_pin_fd(s->inst.dir, fd, JOURNAL_PIN);
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

int rw_persist_act_start(struct rw_session *s, char *err, size_t errlen)
{
	const struct rw_config *cfg = s->cfg;
	int e;

	s->act_fd = s->bgp_journal_fd = -1;
	if (s->inst.meta_fd < 0)
		return 0;
	if (!cfg->bgp.api[0])
		withdraw_former(s, err, errlen);
	else if ((s->bgp_journal_fd = journal(s)) < 0)
		return rw_fail(err, errlen, s->bgp_journal_fd, "cannot pin the BGP journal: %s",
			       strerror(-s->bgp_journal_fd));
	if (!cfg->hook.command[0] && !cfg->bgp.api[0]) {
		/*
		 * A record no loader updates would show a former run's counts as now;
		 * but while a journal the withdrawal above left may hold routes, it is
		 * what names their speaker.
		 */
		if (journal_routes(s->inst.dir) == 0)
			unpin(s->inst.dir, ACT_PIN);
		return 0;
	}
	s->act_fd = rw_act_record_create();
	if (s->act_fd < 0)
		return rw_fail(err, errlen, s->act_fd, "cannot make the act record: %s",
			       strerror(-s->act_fd));
	e = rw_pin_fd(s->inst.dir, s->act_fd, ACT_PIN);
	return e ? rw_fail(err, errlen, e, "cannot pin the act record: %s", strerror(-e)) : 0;
}

void rw_persist_act(struct rw_session *s)
{
	struct rw_act_record r = { .at_ns = rw_clock_ns(CLOCK_REALTIME), .counts = s->act.counts,
				   .bgp = s->cfg->bgp };

	if (s->act_fd < 0)
		return;
	snprintf(r.hook_command, sizeof(r.hook_command), "%s", s->cfg->hook.command);
	rw_act_record_write(s->act_fd, &r);
}
