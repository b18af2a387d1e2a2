// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "act/pcap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include "model/errmsg.h"

/* A pcap file's header, and each frame's record header before its bytes. */
#define FILE_HEADER 24
#define FRAME_HEADER 16

int rw_pcap_dir_check(const char *dir, char *err, size_t errlen)
{
	char probe[4200];
	struct stat st;
	int fd;

	if (stat(dir, &st))
		return rw_fail(err, errlen, -errno, "--samples %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rw_fail(err, errlen, -ENOTDIR, "--samples %s: not a directory", dir);
	/* Root passes every permission test: only a file made shows that one can be. */
	snprintf(probe, sizeof(probe), "%s/.ratewall-samples-probe.%d", dir, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return rw_fail(err, errlen, -errno, "--samples %s: cannot write there: %s", dir,
			       strerror(errno));
	close(fd);
	unlink(probe);
	return 0;
}

static void path_of(const struct rw_pcap_out *o, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", o->dir, name);
}

static int remove_file(void *arg, const char *name)
{
	char path[4400];

	path_of(arg, name, path, sizeof(path));
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/* The samples already in DIR, counted under the bound. */
static int scan(struct rw_pcap_out *o)
{
	DIR *d = opendir(o->dir);
	struct dirent *de;
	char path[4400];
	struct stat st;
	int e = 0;

	if (!d)
		return -errno;
	while (!e && (de = readdir(d))) {
		if (!rw_sample_name_ok(de->d_name))
			continue;
		path_of(o, de->d_name, path, sizeof(path));
		if (!stat(path, &st) && S_ISREG(st.st_mode))
			e = rw_sample_dir_add(&o->files, de->d_name, (uint64_t)st.st_size, false);
	}
	closedir(d);
	return e < 0 ? e : 0;
}

void rw_pcap_name_of(const struct rw_pcap_out *o, uint64_t clock_ns, const struct rw_key *key,
		     char *buf, size_t len)
{
	rw_sample_name(buf, len, (int64_t)clock_ns + o->name_offset, key);
}

/* The tick's frames, by file and then by time: each file is opened once a tick. */
static int by_file(const void *a, const void *b)
{
	const struct rw_pcap_held *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->fr.ts_ns > y->fr.ts_ns) - (x->fr.ts_ns < y->fr.ts_ns);
}

void rw_pcap_frame(struct rw_pcap_out *o, const void *data, size_t size)
{
	const struct rw_pcap_frame *fr = data;
	struct rw_pcap_held *h;

	if (size < sizeof(*fr) || fr->caplen > RW_PCAP_SNAP)
		return;
	if (o->nheld == RW_PCAP_TICK_FRAMES) {
		o->not_written++;
		return;
	}
	h = &o->held[o->nheld++];
	h->fr = *fr;
	rw_pcap_name_of(o, fr->armed_ns, &fr->key, h->name, sizeof(h->name));
}

/* Frames [0, n) of one file into it (made, or appended to): how many were written. */
static uint32_t write_file(struct rw_pcap_out *o, const struct rw_pcap_held *h, uint32_t n)
{
	int f = rw_sample_dir_find(&o->files, h->name);
	bool made = f < 0, fits;
	uint64_t bytes = made ? FILE_HEADER : 0;
	struct pcap_dumper *d;
	char path[4400];

	if (made && !rw_sample_dir_may_make(&o->files, h->name))
		return 0; /* removed for the bound: its later frames are not written */
	for (uint32_t i = 0; i < n; i++)
		bytes += FRAME_HEADER + h[i].fr.caplen;
	if (!made)
		o->files.f[f].open = true; /* not removed to make its own room */
	fits = rw_sample_dir_room(&o->files, bytes, remove_file, o);
	f = rw_sample_dir_find(&o->files, h->name);
	if (f >= 0)
		o->files.f[f].open = false;
	if (!fits)
		return 0;
	path_of(o, h->name, path, sizeof(path));
	d = made ? pcap_dump_open(o->dead, path) : pcap_dump_open_append(o->dead, path);
	if (!d)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t wall = h[i].fr.ts_ns + (uint64_t)o->wall_minus_clock;
		struct pcap_pkthdr ph = {
			.ts.tv_sec = (time_t)(wall / 1000000000ULL),
			/* nanoseconds: the precision the dead handle was opened with */
			.ts.tv_usec = (suseconds_t)(wall % 1000000000ULL),
			.caplen = h[i].fr.caplen,
			.len = h[i].fr.len,
		};

		pcap_dump((u_char *)d, &ph, h[i].fr.data);
	}
	pcap_dump_close(d);
	if (made) {
		if (rw_sample_dir_add(&o->files, h->name, bytes, false) < 0) {
			unlink(path); /* not counted, so not kept */
			return 0;
		}
		o->made++;
	} else {
		o->files.f[f].size += bytes;
		o->files.total += bytes;
	}
	return n;
}

int rw_pcap_start(struct rw_pcap_out *o, const char *dir, uint64_t max, int64_t wall_minus_clock)
{
	int e;

	*o = (struct rw_pcap_out){ .files.max = max, .name_offset = wall_minus_clock,
				   .wall_minus_clock = wall_minus_clock };
	snprintf(o->dir, sizeof(o->dir), "%s", dir);
	o->held = calloc(RW_PCAP_TICK_FRAMES, sizeof(*o->held));
	if (!o->held)
		return -ENOMEM;
	o->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, RW_PCAP_SNAP,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!o->dead)
		return -ENOMEM;
	e = scan(o);
	if (e)
		return e;
	/* A smaller bound than last time: the oldest go now. */
	rw_sample_dir_room(&o->files, 0, remove_file, o);
	return 0;
}

void rw_pcap_tick_begin(struct rw_pcap_out *o, int64_t wall_minus_clock)
{
	o->wall_minus_clock = wall_minus_clock;
}

void rw_pcap_tick_end(struct rw_pcap_out *o)
{
	uint32_t opened = 0, i = 0, j;

	qsort(o->held, o->nheld, sizeof(*o->held), by_file);
	for (; i < o->nheld; i = j) {
		uint32_t n, w = 0;

		for (j = i + 1; j < o->nheld && strcmp(o->held[j].name, o->held[i].name) == 0; j++)
			;
		n = j - i;
		if (opened < RW_PCAP_TICK_FILES) {
			opened++;
			w = write_file(o, &o->held[i], n);
		}
		o->frames += w;
		o->not_written += n - w;
	}
	o->nheld = 0;
}

void rw_pcap_stop(struct rw_pcap_out *o)
{
	if (o->held)
		rw_pcap_tick_end(o);
	free(o->held);
	o->held = NULL;
	if (o->dead)
		pcap_close(o->dead);
	o->dead = NULL;
	rw_sample_dir_free(&o->files);
}
