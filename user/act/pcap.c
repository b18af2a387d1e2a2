// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "act/pcap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

static void close_all(struct rw_pcap_out *o)
{
	for (uint32_t i = 0; i < o->nopen; i++) {
		int f = rw_sample_dir_find(&o->files, o->open[i].name);

		pcap_dump_close(o->open[i].d);
		if (f >= 0)
			o->files.f[f].open = false;
	}
	o->nopen = 0;
}

/* The open file of name, opened (made, or appended to) when it is not: its slot, or -1. */
static int open_file(struct rw_pcap_out *o, const char *name, uint64_t frame_bytes)
{
	bool made;
	char path[4400];
	uint64_t need;
	int f;

	for (uint32_t i = 0; i < o->nopen; i++)
		if (strcmp(o->open[i].name, name) == 0)
			return (int)i;
	if (o->nopen == RW_PCAP_OPEN)
		close_all(o);
	f = rw_sample_dir_find(&o->files, name);
	made = f < 0;
	need = frame_bytes + (made ? FILE_HEADER : 0);
	if (!made)
		o->files.f[f].open = true; /* not to be removed to make its own room */
	if (!rw_sample_dir_room(&o->files, need, remove_file, o)) {
		if (!made && (f = rw_sample_dir_find(&o->files, name)) >= 0)
			o->files.f[f].open = false;
		return -1;
	}
	path_of(o, name, path, sizeof(path));
	struct rw_pcap_open *op = &o->open[o->nopen];

	op->d = made ? pcap_dump_open(o->dead, path) : pcap_dump_open_append(o->dead, path);
	if (!op->d) {
		if (!made && (f = rw_sample_dir_find(&o->files, name)) >= 0)
			o->files.f[f].open = false;
		return -1;
	}
	if (made) {
		if (rw_sample_dir_add(&o->files, name, FILE_HEADER, true) < 0) {
			pcap_dump_close(op->d);
			unlink(path);
			return -1;
		}
		o->made++;
	}
	snprintf(op->name, sizeof(op->name), "%s", name);
	return (int)o->nopen++;
}

void rw_pcap_frame(struct rw_pcap_out *o, const void *data, size_t size)
{
	const struct rw_pcap_frame *fr = data;
	char name[RW_SAMPLE_NAMELEN];
	struct pcap_pkthdr h;
	uint64_t wall;
	int slot, f;

	if (size < sizeof(*fr) || fr->caplen > RW_PCAP_SNAP)
		return;
	if (!o->tick_left) {
		o->not_written++;
		return;
	}
	o->tick_left--;
	rw_pcap_name_of(o, fr->armed_ns, &fr->key, name, sizeof(name));
	slot = open_file(o, name, FRAME_HEADER + fr->caplen);
	if (slot < 0) {
		o->not_written++;
		return;
	}
	/* A file open on another tick had its room made at open: each frame makes its own. */
	f = rw_sample_dir_find(&o->files, name);
	if (f < 0 || (o->files.f[f].size > FILE_HEADER &&
		      !rw_sample_dir_room(&o->files, FRAME_HEADER + fr->caplen, remove_file, o))) {
		o->not_written++;
		return;
	}
	f = rw_sample_dir_find(&o->files, name);
	wall = fr->ts_ns + (uint64_t)o->wall_minus_clock;
	h.ts.tv_sec = (time_t)(wall / 1000000000ULL);
	h.ts.tv_usec = (suseconds_t)(wall % 1000000000ULL); /* nanoseconds: the dead handle's precision */
	h.caplen = fr->caplen;
	h.len = fr->len;
	pcap_dump((u_char *)o->open[slot].d, &h, fr->data);
	o->files.f[f].size += FRAME_HEADER + fr->caplen;
	o->files.total += FRAME_HEADER + fr->caplen;
	o->frames++;
}

int rw_pcap_start(struct rw_pcap_out *o, const char *dir, uint64_t max, int64_t wall_minus_clock)
{
	int e;

	*o = (struct rw_pcap_out){ .files.max = max, .name_offset = wall_minus_clock,
				   .wall_minus_clock = wall_minus_clock };
	snprintf(o->dir, sizeof(o->dir), "%s", dir);
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
	o->tick_left = RW_PCAP_TICK_FRAMES;
}

void rw_pcap_tick_end(struct rw_pcap_out *o)
{
	close_all(o);
}

void rw_pcap_stop(struct rw_pcap_out *o)
{
	close_all(o);
	if (o->dead)
		pcap_close(o->dead);
	o->dead = NULL;
	rw_sample_dir_free(&o->files);
}
