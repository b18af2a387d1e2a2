/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Runs a program (argv, no shell) to its end or its deadline and keeps what
 * it wrote: the BGP driver asks GoBGP's client this way and reads its
 * answer. The program gets /dev/null for stdin, pipes for stdout and stderr,
 * no other fd of ours, the signals at their defaults, and a process group of
 * its own, killed whole at the deadline; it is always reaped.
 */
#ifndef RW_CAPTURE_H
#define RW_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RW_CAPTURE_OUT_MAX (4u << 20) /* stdout kept, at most; the rest is read and dropped */
#define RW_CAPTURE_ERR_MAX 2048       /* stderr kept, at most */

struct rw_capture {
	char *out;       /* stdout, NUL-ended (malloc'd; rw_capture_free) */
	size_t out_len;
	char err[RW_CAPTURE_ERR_MAX]; /* stderr, NUL-ended */
	size_t err_len;
	int status;      /* exit status; 128 + signal when killed */
	bool timed_out;  /* killed at its deadline */
	bool aborted;    /* killed because *abort was set */
	bool truncated;  /* it wrote more than was kept */
};

/*
 * Runs argv[0] (searched in PATH) with argv, for at most timeout_ns; abort,
 * when not NULL, is polled (every 50 ms at most) and kills the program once
 * set. 0 once it ran and ended (whatever its status: c->status), or -errno
 * when it could not be started (-ENOENT: not found); c is filled either way
 * (status -1 when it did not start). c->out must be freed.
 */
int rw_capture_run(char *const argv[], uint64_t timeout_ns, const atomic_bool *abort,
		   struct rw_capture *c);
void rw_capture_free(struct rw_capture *c);

#endif
