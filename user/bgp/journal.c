// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "bgp/journal.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/clock.h"

int rw_bgp_journal_create(uint32_t max)
{
	/* Not preallocated: it costs the routes in it, not --bgp-max of them. */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "rw_bgp_journal", sizeof(struct rw_route),
				sizeof(uint64_t), max ? max : 1, &opts);

	return fd < 0 ? -errno : fd;
}

int rw_journal_capacity(int fd, uint32_t *max)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_HASH || info.key_size != sizeof(struct rw_route) ||
	    info.value_size != sizeof(uint64_t))
		return -EINVAL;
	*max = info.max_entries;
	return 0;
}

int rw_journal_put(int fd, const struct rw_route *r, uint64_t when_ns)
{
	return bpf_map_update_elem(fd, r, &when_ns, BPF_ANY) ? -errno : 0;
}

int rw_journal_del(int fd, const struct rw_route *r)
{
	return bpf_map_delete_elem(fd, r) && errno != ENOENT ? -errno : 0;
}

int rw_journal_load(int fd, struct rw_held_set *s)
{
	struct rw_route key, next;
	const void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct rw_route r = next;

		/* A key written by hand into a pinned map is not trusted to be one route's only spelling. */
		if (rw_route_normalize(&r) && (err = rw_held_add(s, &r, false, rw_clock_ns(CLOCK_MONOTONIC))))
			return err;
		key = next;
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

/*
 * The journal's keys before this one, each a beginning of today's: before
 * flow rules, a blackhole's prefix (family, len, addr: 18 bytes); before a
 * flow rule's rate, the route to its destination (36 bytes: a discard);
 * before their protocol and ports, the route to its rate (40 bytes).
 */
#define RW_ROUTE_V1_SIZE 18
#define RW_ROUTE_V1_5_SIZE offsetof(struct rw_route, rate)
#define RW_ROUTE_V2_SIZE offsetof(struct rw_route, proto)

int rw_journal_upgrade(int fd)
{
	uint8_t k[sizeof(struct rw_route)], next[sizeof(struct rw_route)];
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	int nfd, err = 0;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_HASH || info.value_size != sizeof(uint64_t) ||
	    (info.key_size != RW_ROUTE_V1_SIZE && info.key_size != RW_ROUTE_V1_5_SIZE &&
	     info.key_size != RW_ROUTE_V2_SIZE))
		return -EINVAL;
	nfd = rw_bgp_journal_create(info.max_entries);
	if (nfd < 0)
		return nfd;
	for (const void *prev = NULL; !err && !bpf_map_get_next_key(fd, prev, next); prev = k) {
		struct rw_route r = { 0 };
		uint64_t when;

		memcpy(k, next, info.key_size);
		memcpy(&r, next, info.key_size); /* the rest: none (a blackhole, or any port) */
		if (bpf_map_lookup_elem(fd, next, &when) || !rw_route_normalize(&r))
			continue; /* gone meanwhile, or no route */
		err = rw_journal_put(nfd, &r, when);
	}
	if (!err && errno != ENOENT)
		err = -errno;
	if (err) {
		close(nfd);
		return err;
	}
	return nfd;
}

size_t rw_journal_count(int fd)
{
	struct rw_route k, next;
	size_t n = 0;

	for (const void *prev = NULL; !bpf_map_get_next_key(fd, prev, &next); prev = &k) {
		k = next;
		n++;
	}
	return n;
}
