// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np */
#include "proc/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

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

int rw_spawn_group(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid)
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

int rw_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}
