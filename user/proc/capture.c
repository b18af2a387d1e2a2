// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One program run to its end: posix_spawnp (safe from a thread: no fork of
 * the whole process), its output read through two pipes while a pidfd says
 * when it ended, its process group killed at the deadline or on abort, and
 * the leader reaped last so that the group's id stays its own until then.
 */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include "proc/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/spawn.h"
#include "model/clock.h"


#define ABORT_POLL_MS 50

/* Reads what fd holds now into the buffer, up to cap (the rest dropped). -1 at EOF. */
static int drain(int fd, char **buf, size_t *len, size_t *size, size_t cap, bool *truncated)
{
	char scratch[4096];

	for (;;) {
		char *into = scratch;
		size_t room = sizeof(scratch);
		ssize_t n;

		if (*len + 1 < cap) {
			if (*size - *len < sizeof(scratch) + 1 && *size < cap) {
				size_t want = *size ? *size * 2 : 8192;
				char *p;

				want = want > cap ? cap : want;
				p = realloc(*buf, want);
				if (p) {
					*buf = p;
					*size = want;
				}
			}
			if (*size > *len + 1) {
				into = *buf + *len;
				room = *size - *len - 1;
			}
		}
		n = read(fd, into, room);
		if (n == 0)
			return -1;
		if (n < 0)
			return errno == EINTR ? 0 : errno == EAGAIN ? 0 : -1;
		if (into == scratch)
			*truncated = true;
		else
			*len += (size_t)n;
	}
}

int rw_capture_run(char *const argv[], uint64_t timeout_ns, const atomic_bool *abort,
		   struct rw_capture *c)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, pidfd = -1, err;
	size_t out_size = 0, err_size = sizeof(c->err);
	uint64_t deadline = rw_clock_ns(CLOCK_MONOTONIC) + timeout_ns;
	char *errbuf = c->err;
	bool ended = false;
	siginfo_t si;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	/* Non-blocking on our end only: the program's end blocks as a pipe's should. */
	if (pipe2(outp, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
	    fcntl(outp[0], F_SETFL, O_NONBLOCK) || fcntl(errp[0], F_SETFL, O_NONBLOCK)) {
		err = errno;
		goto out;
	}
	err = rw_spawn_group(argv, RW_SPAWN_NULL, outp[1], errp[1], &pid);
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
	if (err)
		goto out;
	pidfd = rw_pidfd_open(pid); /* -1: poll in slices */
	for (;;) {
		struct pollfd p[3] = { { outp[0], POLLIN, 0 }, { errp[0], POLLIN, 0 },
				       { pidfd, POLLIN, 0 } };
		uint64_t now = rw_clock_ns(CLOCK_MONOTONIC);
		int wait_ms;

		if (ended)
			break;
		if (now >= deadline || (abort && atomic_load(abort))) {
			c->timed_out = now >= deadline;
			c->aborted = !c->timed_out;
			break;
		}
		wait_ms = (int)((deadline - now + 999999) / 1000000);
		if (abort || pidfd < 0)
			wait_ms = wait_ms > ABORT_POLL_MS ? ABORT_POLL_MS : wait_ms;
		if (poll(p, 3, wait_ms) < 0 && errno != EINTR)
			break;
		if (outp[0] >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    drain(outp[0], &c->out, &c->out_len, &out_size, RW_CAPTURE_OUT_MAX,
			  &c->truncated) < 0) {
			close(outp[0]);
			outp[0] = -1;
		}
		if (errp[0] >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    drain(errp[0], &errbuf, &c->err_len, &err_size, sizeof(c->err), &c->truncated) < 0) {
			close(errp[0]);
			errp[0] = -1;
		}
		/* Ended: what it wrote is in the pipes already (a child of its own may hold them open). */
		memset(&si, 0, sizeof(si));
		if ((pidfd < 0 || (p[2].revents & POLLIN)) &&
		    waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			ended = true;
	}
	for (int i = 0; i < 2; i++) {
		int *fd = i ? &errp[0] : &outp[0];

		if (*fd >= 0)
			drain(*fd, i ? &errbuf : &c->out, i ? &c->err_len : &c->out_len,
			      i ? &err_size : &out_size, i ? sizeof(c->err) : RW_CAPTURE_OUT_MAX,
			      &c->truncated);
	}
	/* What it left running in its group goes with it, before the reap frees the group's id. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL); /* one that left its group */
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED) < 0 && errno == EINTR)
		;
	if (si.si_pid)
		c->status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
out:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (!c->out)
		c->out = calloc(1, 1);
	else
		c->out[c->out_len] = '\0';
	c->err[c->err_len] = '\0';
	return -err;
}

void rw_capture_free(struct rw_capture *c)
{
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
}
