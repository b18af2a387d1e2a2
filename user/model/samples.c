// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "model/key.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-';
}

void rw_sample_name(char *buf, size_t len, int64_t wall_ns, const struct rw_key *key)
{
	char k[RW_KEY_STRLEN], *out;
	time_t sec = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	size_t n, j;

	if (!len)
		return;
	gmtime_r(&sec, &tm);
	n = strftime(buf, len, "%Y%m%dT%H%M%S", &tm);
	n += (size_t)snprintf(buf + n, len - n, ".%06dZ-", (int)(wall_ns % 1000000000 / 1000));
	rw_key_format_as(key, false, k, sizeof(k));
	out = buf + (n < len ? n : len - 1);
	/* A run of characters a file name should not carry is one '_'. */
	for (j = 0; k[j] && out + 6 < buf + len; j++) {
		if (name_char(k[j]))
			*out++ = k[j];
		else if (out[-1] != '_')
			*out++ = '_';
	}
	snprintf(out, (size_t)(buf + len - out), ".pcap");
}

bool rw_sample_name_ok(const char *name)
{
	size_t n = strlen(name);
	unsigned int d = 0;

	if (n < 24 || n >= RW_SAMPLE_NAMELEN || strcmp(name + n - 5, ".pcap") != 0)
		return false;
	for (size_t i = 0; i < 8; i++)
		d += name[i] >= '0' && name[i] <= '9';
	return d == 8 && name[8] == 'T';
}

int rw_sample_dir_find(const struct rw_sample_dir *d, const char *name)
{
	for (size_t i = d->n; i-- > 0;)
		if (strcmp(d->f[i].name, name) == 0)
			return (int)i;
	return -1;
}

int rw_sample_dir_add(struct rw_sample_dir *d, const char *name, uint64_t size, bool open)
{
	size_t i;

	if (strlen(name) >= RW_SAMPLE_NAMELEN)
		return -ENAMETOOLONG;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct rw_sample_file *f = realloc(d->f, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		d->f = f;
		d->cap = cap;
	}
	/* Names sort by time: a new one goes last, a scan's anywhere. */
	for (i = d->n; i > 0 && strcmp(d->f[i - 1].name, name) > 0; i--)
		;
	memmove(&d->f[i + 1], &d->f[i], (d->n - i) * sizeof(*d->f));
	d->f[i] = (struct rw_sample_file){ .size = size, .open = open };
	strcpy(d->f[i].name, name);
	d->n++;
	d->total += size;
	return (int)i;
}

bool rw_sample_dir_may_make(const struct rw_sample_dir *d, const char *name)
{
	return strcmp(name, d->floor) > 0;
}

bool rw_sample_dir_room(struct rw_sample_dir *d, uint64_t need,
			int (*remove)(void *arg, const char *name), void *arg)
{
	size_t i = 0;

	while (d->total + need > d->max) {
		while (i < d->n && d->f[i].open)
			i++;
		if (i == d->n || remove(arg, d->f[i].name))
			return false;
		d->total -= d->f[i].size;
		d->removed++;
		if (strcmp(d->f[i].name, d->floor) > 0)
			strcpy(d->floor, d->f[i].name);
		memmove(&d->f[i], &d->f[i + 1], (d->n - i - 1) * sizeof(*d->f));
		d->n--;
	}
	return true;
}

void rw_sample_dir_free(struct rw_sample_dir *d)
{
	free(d->f);
	*d = (struct rw_sample_dir){ 0 };
}
