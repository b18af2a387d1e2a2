/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --samples DIR: what the samples are called and how many bytes they may
 * take. One event's frames are one file, DIR/<time>-<key>.pcap: the event's
 * wall time (UTC, microseconds) and its key, so names sort oldest first and
 * the event's JSON can name its file before a frame is written. The
 * directory's files are kept in that order with their sizes; room for more
 * is made by removing the oldest first, never a file still being written.
 */
#ifndef RW_MODEL_SAMPLES_H
#define RW_MODEL_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ratewall.h"

/* "20261128T150853.123456Z-198.18.0.1.pcap" and the longest key, sanitized. */
#define RW_SAMPLE_NAMELEN 192

/*
 * The file name of the sample of key's event at wall_ns (ns since the epoch):
 * the key as rw_key_format writes it, every character but letters, digits,
 * '.' and '-' turned into '_' (a flow's arrow, an IPv6 colon, a /LEN).
 */
void rw_sample_name(char *buf, size_t len, int64_t wall_ns, const struct rw_key *key);
/* Whether name is one rw_sample_name could have made: the files the bound counts. */
bool rw_sample_name_ok(const char *name);

struct rw_sample_file {
	char name[RW_SAMPLE_NAMELEN];
	uint64_t size;
	bool open; /* being written: never removed */
};

/* The files of DIR, oldest first, and their total. */
struct rw_sample_dir {
	struct rw_sample_file *f;
	size_t n, cap;
	uint64_t total;
	uint64_t max;     /* --samples-max */
	uint64_t removed; /* files removed to keep under max, ever */
	/*
	 * The newest name removed: a file of a name up to it is not made again
	 * (its frames would only push out newer files, to be removed in turn).
	 */
	char floor[RW_SAMPLE_NAMELEN];
};

/* A file found in DIR or just made (kept in name order). Its index, or -ENOMEM. */
int rw_sample_dir_add(struct rw_sample_dir *d, const char *name, uint64_t size, bool open);
/* Its index, or -1. */
int rw_sample_dir_find(const struct rw_sample_dir *d, const char *name);
/* Whether a file of this name, not there, may be made: it is newer than every file removed. */
bool rw_sample_dir_may_make(const struct rw_sample_dir *d, const char *name);
/*
 * Makes room for `need` more bytes under max by removing the oldest files
 * that are not open (remove(arg, name) for each; it returns 0 or -errno).
 * True when the bytes now fit; false when only open files are left, or a
 * removal failed.
 */
bool rw_sample_dir_room(struct rw_sample_dir *d, uint64_t need,
			int (*remove)(void *arg, const char *name), void *arg);
void rw_sample_dir_free(struct rw_sample_dir *d);

#endif
