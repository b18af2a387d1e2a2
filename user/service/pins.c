// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/pins.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "model/errmsg.h"

#define BPF_FS_MAGIC 0xcafe4a11
#define RW_BPFFS_DEFAULT "/sys/fs/bpf"

#define fail rw_fail

static bool on_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == BPF_FS_MAGIC;
}

/* mkdir -p, each component on the way. */
static int make_dirs(const char *path)
{
	char buf[RW_PIN_ROOT_MAX];

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0700) && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				return 0;
		}
	}
}

int rw_pins_root(const char *root, char *err, size_t errlen)
{
	size_t n = strlen(RW_BPFFS_DEFAULT);
	int e;

	/* The usual place: mount bpffs there if nobody has (as bpftool and systemd do). */
	if (strncmp(root, RW_BPFFS_DEFAULT, n) == 0 && (root[n] == '/' || root[n] == '\0') &&
	    !on_bpffs(RW_BPFFS_DEFAULT) &&
	    mount("bpf", RW_BPFFS_DEFAULT, "bpf", 0, "mode=0700"))
		return fail(err, errlen, -errno, "cannot mount a BPF filesystem on %s: %s",
			    RW_BPFFS_DEFAULT, strerror(errno));
	e = make_dirs(root);
	if (e)
		return fail(err, errlen, e, "cannot create the pin directory %s: %s", root,
			    strerror(-e));
	if (!on_bpffs(root))
		return fail(err, errlen, -EINVAL,
			    "--pin-dir %s is not on a BPF filesystem (mount one: mount -t bpf bpf DIR)",
			    root);
	return 0;
}

int rw_pin_path(char *buf, size_t len, const char *dir, const char *what)
{
	int n = snprintf(buf, len, "%s/%s", dir, what);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void rw_pin_map_name(char *buf, size_t len, const char *map)
{
	snprintf(buf, len, "map_%s", map);
}

void rw_pin_link_name(char *buf, size_t len, const char *ifname)
{
	snprintf(buf, len, "link_%s", ifname);
}

/* dir/what with the file flags given (0, or BPF_F_RDONLY): an fd or a negative errno. */
static int open_pin(const char *dir, const char *what, __u32 file_flags)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = file_flags);
	char path[PATH_MAX];
	int fd;

	if (rw_pin_path(path, sizeof(path), dir, what))
		return -ENAMETOOLONG;
	fd = bpf_obj_get_opts(path, &opts);
	return fd < 0 ? -errno : fd;
}

static int open_map_pin(const char *dir, const char *map, __u32 file_flags)
{
	char name[64];

	rw_pin_map_name(name, sizeof(name), map);
	return open_pin(dir, name, file_flags);
}

int rw_pin_open(const char *dir, const char *what)
{
	return open_pin(dir, what, 0);
}

int rw_pin_open_ro(const char *dir, const char *what)
{
	return open_pin(dir, what, BPF_F_RDONLY);
}

int rw_pin_open_map(const char *dir, const char *map)
{
	return open_map_pin(dir, map, 0);
}

int rw_pin_open_map_ro(const char *dir, const char *map)
{
	return open_map_pin(dir, map, BPF_F_RDONLY);
}

int rw_pin_open_link(const char *dir, const char *ifname)
{
	char name[32];

	rw_pin_link_name(name, sizeof(name), ifname);
	return rw_pin_open(dir, name);
}

uint32_t rw_prog_id(int prog_fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? 0 : info.id;
}

void *rw_prog_bss_map(int prog_fd, size_t size)
{
	__u32 ids[64], len = sizeof(struct bpf_prog_info);
	struct bpf_prog_info info;
	void *bss = NULL;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return NULL;
	for (__u32 i = 0; !bss && i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bpf_map_info mi;
		__u32 mlen = sizeof(mi);
		size_t nlen;
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		nlen = bpf_obj_get_info_by_fd(fd, &mi, &mlen) ? 0 : strnlen(mi.name, sizeof(mi.name));
		/* The section may end before the struct's tail padding (up to 7 bytes). */
		if (nlen >= 4 && !strcmp(mi.name + nlen - 4, ".bss") && mi.value_size <= size &&
		    size - mi.value_size < 8 && (mi.map_flags & BPF_F_MMAPABLE)) {
			void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

			bss = p == MAP_FAILED ? NULL : p;
		}
		close(fd); /* the mapping holds the map */
	}
	return bss;
}

void rw_prog_bss_unmap(void *bss, size_t size)
{
	if (bss)
		munmap(bss, size);
}

uint32_t rw_link_target(int link_fd, uint32_t *prog_id, uint32_t *link_id)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len) || info.type != BPF_LINK_TYPE_XDP)
		return 0;
	if (prog_id)
		*prog_id = info.prog_id;
	if (link_id)
		*link_id = info.id;
	return info.xdp.ifindex;
}

int rw_meta_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rw_meta", sizeof(__u32),
				sizeof(struct rw_meta), 1, &opts);

	return fd < 0 ? -errno : fd;
}

int rw_pin_fd(const char *dir, int fd, const char *what)
{
	char path[PATH_MAX];

	if (rw_pin_path(path, sizeof(path), dir, what))
		return -ENAMETOOLONG;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

int rw_heavy_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rw_heavy", sizeof(__u32),
				sizeof(struct rw_heavy_record), 1, &opts);

	return fd < 0 ? -errno : fd;
}

int rw_heavy_write(int fd, const struct rw_heavy_record *r)
{
	__u32 zero = 0;

	return bpf_map_update_elem(fd, &zero, r, BPF_ANY) ? -errno : 0;
}

int rw_heavy_read(const char *dir, struct rw_heavy_record *r)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	int fd = rw_pin_open_ro(dir, "heavy"), e = 0;

	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		e = -errno;
	else if (info.type != BPF_MAP_TYPE_ARRAY || info.max_entries != 1 ||
		 info.value_size != sizeof(*r))
		e = -EPROTO;
	else if (bpf_map_lookup_elem(fd, &zero, r))
		e = -errno;
	else if (r->n > RW_HEAVY_MAX)
		e = -EPROTO;
	close(fd);
	return e;
}

int rw_meta_read(int fd, struct rw_meta *m, char *err, size_t errlen)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	static char buf[1 << 16];
	struct rw_meta head;

	memset(m, 0, sizeof(*m));
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != sizeof(__u32) ||
	    info.max_entries != 1 || info.value_size < offsetof(struct rw_meta, name) ||
	    info.value_size > sizeof(buf)) {
		snprintf(err, errlen, "its 'meta' is not a ratewall record (map of %u-byte values)",
			 info.value_size);
		return -EPROTO;
	}
	/* Read whatever size it has: a record of another version is named, not misread. */
	if (bpf_map_lookup_elem(fd, &zero, buf))
		return -errno;
	memcpy(&head, buf, offsetof(struct rw_meta, name));
	if (memcmp(head.magic, RW_META_MAGIC, sizeof(head.magic)) != 0) {
		snprintf(err, errlen, "its 'meta' is not a ratewall record");
		return -EPROTO;
	}
	if (head.layout != RW_LAYOUT_VERSION || head.size != sizeof(*m) ||
	    info.value_size != sizeof(*m)) {
		memcpy(m, &head, offsetof(struct rw_meta, name)); /* for rw_meta_foreign() */
		snprintf(err, errlen, "it has pinned layout version %u (%u-byte record); this ratewall "
			 "reads version %u only", head.layout, head.size, RW_LAYOUT_VERSION);
		return -EPROTO;
	}
	memcpy(m, buf, sizeof(*m));
	m->name[sizeof(m->name) - 1] = '\0';
	if (m->nifaces > RW_MAX_IFACES)
		m->nifaces = RW_MAX_IFACES;
	for (uint32_t i = 0; i < RW_MAX_IFACES; i++)
		m->ifaces[i].name[IF_NAMESIZE - 1] = '\0';
	for (uint32_t i = 0; i < RW_META_ERRORS; i++)
		m->errors[i].msg[RW_META_ERROR_LEN - 1] = '\0';
	return 0;
}

bool rw_meta_foreign(const struct rw_meta *m)
{
	return memcmp(m->magic, RW_META_MAGIC, sizeof(m->magic)) == 0 &&
	       m->layout != RW_LAYOUT_VERSION;
}

int rw_meta_write(int fd, const struct rw_meta *m)
{
	__u32 zero = 0;

	return bpf_map_update_elem(fd, &zero, m, BPF_ANY) ? -errno : 0;
}

void rw_meta_error(struct rw_meta *m, const char *msg)
{
	struct rw_meta_error *e = &m->errors[m->nerrors % RW_META_ERRORS];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	e->at_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	m->nerrors++;
}

int rw_instance_open(const char *root, const char *name, struct rw_instance *in, char *err,
		     size_t errlen)
{
	int e;

	in->dir_fd = in->meta_fd = -1;
	if (snprintf(in->dir, sizeof(in->dir), "%s/%s", root, name) >= (int)sizeof(in->dir))
		return -ENAMETOOLONG;
	in->dir_fd = open(in->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (in->dir_fd < 0)
		return -errno;
	/* Everyone who opens an instance this way only reads its record. */
	in->meta_fd = rw_pin_open_ro(in->dir, "meta");
	if (in->meta_fd < 0) {
		e = in->meta_fd;
		if (e == -ENOENT)
			snprintf(err, errlen, "it has no 'meta' record (a start that never finished)");
		return e == -ENOENT ? -ENODATA : e;
	}
	return rw_meta_read(in->meta_fd, &in->meta, err, errlen);
}

void rw_instance_close(struct rw_instance *in)
{
	if (in->meta_fd >= 0)
		close(in->meta_fd);
	if (in->dir_fd >= 0)
		close(in->dir_fd); /* releases the loader's lock */
	in->meta_fd = in->dir_fd = -1;
}

bool rw_instance_lock(int dir_fd)
{
	return flock(dir_fd, LOCK_EX | LOCK_NB) == 0;
}

bool rw_instance_loader_alive(int dir_fd)
{
	int fd;
	bool alive;

	/* A fresh open file description: a lock this process holds does not count. */
	fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	alive = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

static bool kept(const char *name, const char *const *keep)
{
	for (; keep && *keep; keep++)
		if (strcmp(name, *keep) == 0)
			return true;
	return false;
}

int rw_instance_remove(const char *dir)
{
	return rw_instance_remove_keeping(dir, NULL);
}

int rw_instance_remove_keeping(const char *dir, const char *const *keep)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);
	bool any_kept = false;
	int ret = 0;

	if (!dp)
		return -errno;
	/* Links first: a detached link lets go of the program and, with it, the maps. */
	while ((d = readdir(dp))) {
		int fd;

		if (strncmp(d->d_name, "link_", 5) != 0 || rw_pin_path(path, sizeof(path), dir, d->d_name))
			continue;
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			if (bpf_link_detach(fd) && errno != ENOLINK && !ret)
				ret = -errno;
			close(fd);
		}
	}
	rewinddir(dp);
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || rw_pin_path(path, sizeof(path), dir, d->d_name))
			continue;
		if (kept(d->d_name, keep)) {
			any_kept = true;
			continue;
		}
		if (unlink(path) && !ret)
			ret = -errno;
	}
	closedir(dp);
	if (!any_kept && rmdir(dir) && !ret)
		ret = -errno;
	return ret;
}

int rw_instance_links_each(const char *dir, int (*fn)(const char *ifname, int link_fd, void *arg),
			   void *arg)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = 0;

	if (!dp)
		return -errno;
	while (!ret && (d = readdir(dp))) {
		int fd;

		if (strncmp(d->d_name, "link_", 5) != 0 || !d->d_name[5] ||
		    strlen(d->d_name + 5) >= IF_NAMESIZE)
			continue;
		fd = rw_pin_open(dir, d->d_name);
		if (fd < 0)
			continue;
		ret = fn(d->d_name + 5, fd, arg);
		close(fd);
	}
	closedir(dp);
	return ret;
}

int rw_instance_unpin_keeping(const char *dir, const char *const *keep)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = 0;

	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || kept(d->d_name, keep) ||
		    rw_pin_path(path, sizeof(path), dir, d->d_name))
			continue;
		if (unlink(path) && !ret)
			ret = -errno;
	}
	closedir(dp);
	return ret;
}

static int only_dirs(const struct dirent *d)
{
	return d->d_type == DT_DIR && strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

int rw_instances_each(const char *root, int (*fn)(const char *name, void *arg), void *arg)
{
	struct dirent **names;
	int n = scandir(root, &names, only_dirs, alphasort), ret = 0;

	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		if (!ret)
			ret = fn(names[i]->d_name, arg);
		free(names[i]);
	}
	free(names);
	return ret;
}

uint64_t rw_netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (uint64_t)st.st_ino;
}
