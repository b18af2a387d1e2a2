// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np, close_range, getgrouplist */
#include "proc/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/errmsg.h"

extern char **environ;

/* The 32-bit ids' calls where the plain ones take 16 bits (i386, arm), as glibc uses. */
#ifdef SYS_setuid32
#define SYS_SETGROUPS SYS_setgroups32
#define SYS_SETGID SYS_setgid32
#define SYS_SETUID SYS_setuid32
#else
#define SYS_SETGROUPS SYS_setgroups
#define SYS_SETGID SYS_setgid
#define SYS_SETUID SYS_setuid
#endif

/* rw_spawn_run_as's user; set once before any thread starts a program. */
static struct {
	bool set;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t *groups;
} run_as;

/* One of the three: dup2'd from fd, /dev/null opened, or left as it is. */
static int add_fd(posix_spawn_file_actions_t *fa, int fd, int target)
{
	if (fd == RW_SPAWN_OURS)
		return 0;
	if (fd == RW_SPAWN_NULL)
		return posix_spawn_file_actions_addopen(fa, target, "/dev/null",
							target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0);
	return posix_spawn_file_actions_adddup2(fa, fd, target);
}

static int spawn_ours(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int err;

	sigemptyset(&none);
	sigfillset(&all);
	err = posix_spawn_file_actions_init(&fa);
	if (err)
		return err;
	err = posix_spawnattr_init(&attr);
	if (err) {
		posix_spawn_file_actions_destroy(&fa);
		return err;
	}
	err = add_fd(&fa, in_fd, STDIN_FILENO);
	if (!err)
		err = add_fd(&fa, out_fd, STDOUT_FILENO);
	if (!err)
		err = add_fd(&fa, err_fd, STDERR_FILENO);
	if (!err)
		err = posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
						      POSIX_SPAWN_SETSIGDEF);
	if (!err)
		err = posix_spawnattr_setpgroup(&attr, 0);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &none);
	if (!err)
		err = posix_spawnattr_setsigdefault(&attr, &all);
	if (!err)
		err = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

/* In the child: fd onto target as add_fd would; false with errno. */
static bool child_fd(int fd, int target)
{
	int nul;

	if (fd == RW_SPAWN_OURS)
		return true;
	if (fd != RW_SPAWN_NULL)
		return dup2(fd, target) == target;
	nul = open("/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY);
	if (nul < 0)
		return false;
	if (nul != target && (dup2(nul, target) != target || close(nul)))
		return false;
	return true;
}

/*
 * The child of fork(), a copy of one thread of a threaded process: only
 * async-signal-safe calls. The ids are set by the raw system calls, which
 * change this thread's alone (glibc's wrappers would signal the parent's
 * threads, which are not here). What fails is written to report (close on
 * exec: nothing is written when the exec succeeds).
 */
static _Noreturn void child(char *const argv[], const int fds[3], int report)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int err, out = report;

	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL); /* SIGKILL, SIGSTOP and glibc's own refuse: none is set */
	if (setpgid(0, 0) || !child_fd(fds[0], STDIN_FILENO) || !child_fd(fds[1], STDOUT_FILENO) ||
	    !child_fd(fds[2], STDERR_FILENO))
		goto fail;
	/* Past the three, report alone, at 3 (what fd 3 was, if one of the three, is copied by now). */
	if (report != 3 && dup3(report, 3, O_CLOEXEC) != 3)
		goto fail;
	out = 3;
	if (close_range(4, ~0U, 0) || syscall(SYS_SETGROUPS, (size_t)run_as.ngroups, run_as.groups) ||
	    syscall(SYS_SETGID, run_as.gid) || syscall(SYS_SETUID, run_as.uid))
		goto fail;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
fail:
	err = errno;
	if (write(out, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * posix_spawn sets no ids: fork, and the child takes the user's before its
 * exec. The signals stay blocked across the fork, so none of ratewall's
 * handlers runs in the child before its defaults are back.
 */
static int spawn_as(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid)
{
	const int fds[3] = { in_fd, out_fd, err_fd };
	sigset_t all, old;
	int report[2], err = 0;
	ssize_t n;
	pid_t p;

	if (pipe2(report, O_CLOEXEC))
		return errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p = fork();
	if (p == 0) {
		close(report[0]);
		child(argv, fds, report[1]);
	}
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (p < 0) {
		close(report[0]);
		return err;
	}
	/* Nothing: it ran. An errno: it did not, and it is reaped here. */
	do
		n = read(report[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(p, NULL, 0);
		return err ? err : EIO;
	}
	*pid = p;
	return 0;
}

int rw_spawn_group(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid)
{
	if (run_as.set)
		return spawn_as(argv, in_fd, out_fd, err_fd, pid);
	return spawn_ours(argv, in_fd, out_fd, err_fd, pid);
}

int rw_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int rw_spawn_run_as(const char *name, char *err, size_t errlen)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	gid_t *groups = NULL;
	int n = 16, e;

	e = getpwnam_r(name, &pw, buf, sizeof(buf), &found);
	if (!found)
		return rw_fail(err, errlen, -ENOENT, "no user '%s' on this system%s%s", name,
			       e ? ": " : "", e ? strerror(e) : "");
	for (;;) {
		gid_t *more = realloc(groups, (size_t)n * sizeof(*groups));
		int want = n;

		if (!more) {
			free(groups);
			return rw_fail(err, errlen, -ENOMEM, "no memory for the groups of '%s'", name);
		}
		groups = more;
		if (getgrouplist(name, pw.pw_gid, groups, &want) >= 0) {
			n = want;
			break;
		}
		n = want > n ? want : 2 * n;
	}
	free(run_as.groups);
	run_as.uid = pw.pw_uid;
	run_as.gid = pw.pw_gid;
	run_as.groups = groups;
	run_as.ngroups = n;
	run_as.set = true;
	return 0;
}
