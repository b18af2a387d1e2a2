// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include "bgp/session.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/clock.h"
#include "proc/spawn.h"

/* Commands in flight at once: the answers (a few bytes each) never fill the socket meanwhile. */
#define WINDOW 256
#define POLL_MS 50 /* abort is looked at this often while waiting */
#define START_TIMEOUT_NS 10000000000ULL /* Python and its gRPC module load slowly on a busy host */
#define CLOSE_GRACE_NS 2000000000ULL

/* The helper beside ratewall's own executable, else in RW_LIBEXEC_DIR. */
static void helper_path(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/%s", exe, RW_SESSION_HELPER);
			if (access(buf, X_OK) == 0)
				return;
		}
	}
	snprintf(buf, len, "%s/%s", RW_LIBEXEC_DIR, RW_SESSION_HELPER);
}

bool rw_session_open_p(const struct rw_session *s)
{
	return s->pid > 0;
}

/*
 * One line of the helper's into buf (without its newline), waiting up to
 * deadline (CLOCK_MONOTONIC ns). 0, or -errno: -ETIMEDOUT, -EPIPE (it
 * closed), -ECANCELED (abort), -EPROTO (a line too long).
 */
static int read_line(struct rw_session *s, char *buf, size_t len, uint64_t deadline,
		     const atomic_bool *abort)
{
	for (;;) {
		char *nl = memchr(s->in, '\n', s->in_len);
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		uint64_t now;
		ssize_t n;

		if (nl) {
			size_t l = (size_t)(nl - s->in);

			snprintf(buf, len, "%.*s", (int)l, s->in);
			memmove(s->in, nl + 1, s->in_len - l - 1);
			s->in_len -= l + 1;
			return 0;
		}
		if (s->in_len == sizeof(s->in))
			return -EPROTO;
		if (abort && atomic_load(abort))
			return -ECANCELED;
		now = rw_clock_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(&p, 1, POLL_MS) < 0 && errno != EINTR)
			return -errno;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recv(s->fd, s->in + s->in_len, sizeof(s->in) - s->in_len, 0);
		/* Gone with commands unread, it leaves a reset, not an end. */
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return -EPIPE;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n > 0)
			s->in_len += (size_t)n;
	}
}

static int send_all(struct rw_session *s, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(s->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EPIPE;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Its stdin ends: it answers what is in flight and exits, within grace_ns,
 * or it is killed with what it started; reaped either way.
 */
static void end_helper(struct rw_session *s, uint64_t grace_ns)
{
	uint64_t until;

	if (s->pid <= 0)
		return;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	until = rw_clock_ns(CLOCK_MONOTONIC) + grace_ns;
	while (waitpid(s->pid, NULL, WNOHANG) == 0) {
		if (rw_clock_ns(CLOCK_MONOTONIC) >= until) {
			kill(-s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			break;
		}
		usleep(10000);
	}
	s->pid = 0;
	s->in_len = 0;
}

int rw_session_open(struct rw_session *s, const char *helper, const char *api,
		    const atomic_bool *abort, char *why, size_t len)
{
	char path[PATH_MAX + 32], apiw[80], line[RW_SESSION_LINE];
	char *argv[] = { path, apiw, NULL };
	int sv[2], err;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (helper)
		snprintf(path, sizeof(path), "%s", helper);
	else
		helper_path(path, sizeof(path));
	snprintf(apiw, sizeof(apiw), "%s", api);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		err = -errno;
		snprintf(why, len, "cannot make a socket for %s: %s", path, strerror(-err));
		return err;
	}
	err = rw_spawn_group(argv, sv[1], sv[1], RW_SPAWN_NULL, &s->pid);
	close(sv[1]);
	if (err) {
		close(sv[0]);
		s->pid = 0;
		snprintf(why, len, "cannot run %s: %s", path, strerror(err));
		return -err;
	}
	s->fd = sv[0];
	err = read_line(s, line, sizeof(line), rw_clock_ns(CLOCK_MONOTONIC) + START_TIMEOUT_NS,
			abort);
	if (!err && strcmp(line, "ready")) {
		snprintf(why, len, "%s: %s", path,
			 strncmp(line, "fatal ", 6) ? line : line + 6);
		err = -EPROTO;
	} else if (err) {
		snprintf(why, len, "%s did not start: %s", path,
			 err == -EPIPE ? "it ended" : strerror(-err));
	}
	if (err)
		end_helper(s, 0); /* it ended, hangs, or the end is asked: no waiting for it */
	return err;
}

void rw_session_close(struct rw_session *s)
{
	end_helper(s, CLOSE_GRACE_NS);
}

/* Why a session's read or write failed, in words. */
static void say_broken(int err, char *why, size_t len)
{
	snprintf(why, len, "%s", err == -ECANCELED ? "stopped" :
		 err == -ETIMEDOUT ? "the session to the speaker timed out" :
		 err == -EPIPE ? "the session to the speaker ended" : strerror(-err));
}

int rw_session_ask(struct rw_session *s, const char *question,
		   void (*each)(const char *words, void *arg), void *arg, char *answer, size_t alen,
		   uint64_t timeout_ns, const atomic_bool *abort, char *why, size_t len)
{
	char line[RW_SESSION_LINE + 2];
	int err;

	if (!rw_session_open_p(s)) {
		snprintf(why, len, "no session to the speaker");
		return -ENOTCONN;
	}
	snprintf(line, sizeof(line), "%s\n", question);
	err = send_all(s, line, strlen(line));
	while (!err) {
		err = read_line(s, answer, alen, rw_clock_ns(CLOCK_MONOTONIC) + timeout_ns, abort);
		if (err || strncmp(answer, "route ", 6))
			break;
		if (each)
			each(answer + 6, arg);
	}
	if (err) {
		say_broken(err, why, len);
		end_helper(s, 0);
		return err;
	}
	if (!strncmp(answer, "error ", 6)) {
		snprintf(why, len, "%s", answer + 6);
		return -EIO;
	}
	return 0;
}

int rw_session_batch(struct rw_session *s, const char (*lines)[RW_SESSION_LINE], size_t n,
		     bool *done, uint64_t timeout_ns, const atomic_bool *abort, char *why, size_t len)
{
	char out[WINDOW * (RW_SESSION_LINE + 1)], answer[RW_SESSION_LINE];
	int err = 0;

	for (size_t i = 0; i < n; i++)
		done[i] = false;
	if (!rw_session_open_p(s)) {
		snprintf(why, len, "no session to the speaker");
		return -ENOTCONN;
	}
	for (size_t at = 0; at < n && !err; at += WINDOW) {
		size_t k = n - at < WINDOW ? n - at : WINDOW, used = 0;

		for (size_t i = 0; i < k; i++)
			used += (size_t)snprintf(out + used, sizeof(out) - used, "%s\n", lines[at + i]);
		err = send_all(s, out, used);
		if (err) {
			snprintf(why, len, "the session to the speaker ended: %s", strerror(-err));
			break;
		}
		for (size_t i = 0; i < k && !err; i++) {
			err = read_line(s, answer, sizeof(answer),
					rw_clock_ns(CLOCK_MONOTONIC) + timeout_ns, abort);
			if (err) {
				say_broken(err, why, len);
				break;
			}
			done[at + i] = !strcmp(answer, "ok");
			if (!done[at + i])
				snprintf(why, len, "%s",
					 strncmp(answer, "error ", 6) ? answer : answer + 6);
		}
	}
	if (err)
		end_helper(s, 0); /* it ended, hangs, or the end is asked: no waiting for it */
	return err;
}
