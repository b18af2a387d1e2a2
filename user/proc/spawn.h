/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Starting a program from one of act's threads: posix_spawnp (no fork of
 * the whole process), no shell, in a process group of its own (its pid), so
 * that it can be killed whole with what it started; no fd of ours beyond the
 * three given (an fd another part of ratewall opened without O_CLOEXEC
 * included), the signals at their defaults and none blocked (act's threads
 * block them all; ratewall ignores SIGPIPE).
 */
#ifndef RW_SPAWN_H
#define RW_SPAWN_H

#include <sys/types.h>

#define RW_SPAWN_OURS (-1) /* the fd as ratewall has it */
#define RW_SPAWN_NULL (-2) /* /dev/null */

/*
 * Starts argv[0] (searched in PATH) with argv; stdin, stdout and stderr
 * from the fds given (or RW_SPAWN_OURS, RW_SPAWN_NULL). 0 with *pid, or an
 * errno (ENOENT: not found).
 */
int rw_spawn_group(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid);
/* Its pidfd (O_CLOEXEC of itself), or -1 when the kernel has none: watch it by polling. */
int rw_pidfd_open(pid_t pid);

#endif
