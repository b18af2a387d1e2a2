/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Starting a program from one of act's threads: posix_spawnp (no fork of
 * the whole process), no shell, in a process group of its own (its pid), so
 * that it can be killed whole with what it started; no fd of ours beyond the
 * three given (an fd another part of ratewall opened without O_CLOEXEC
 * included), the signals at their defaults and none blocked (act's threads
 * block them all; ratewall ignores SIGPIPE).
 *
 * Every program ratewall starts goes through here (--on-event's commands,
 * GoBGP's client, --bgp's session helper), so who they run as is one
 * setting of the process: ratewall's own user (root), or the one
 * rw_spawn_run_as named (--on-event-user), with that user's groups and no
 * capability (the kernel clears them when root's ids go).
 */
#ifndef RW_SPAWN_H
#define RW_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define RW_SPAWN_OURS (-1) /* the fd as ratewall has it */
#define RW_SPAWN_NULL (-2) /* /dev/null */

/*
 * Starts argv[0] (searched in PATH) with argv; stdin, stdout and stderr
 * from the fds given (or RW_SPAWN_OURS, RW_SPAWN_NULL). 0 with *pid, or an
 * errno (ENOENT: not found; EPERM: the ids of rw_spawn_run_as refused).
 */
int rw_spawn_group(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid);
/* Its pidfd (O_CLOEXEC of itself), or -1 when the kernel has none: watch it by polling. */
int rw_pidfd_open(pid_t pid);

/*
 * From now on every program is started as user name: its uid, its primary
 * group and its supplementary groups as the group database lists them
 * (initgroups'), none of ratewall's. Called once, before any thread starts
 * one. 0, or -ENOENT (no such user: said in err), -ENOMEM.
 */
int rw_spawn_run_as(const char *name, char *err, size_t errlen);

#endif
