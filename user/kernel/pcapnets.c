// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/pcapnets.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "model/errmsg.h"

static void net_key(const struct rw_key *prefix, struct rw_pcap_net_key *k)
{
	memset(k, 0, sizeof(*k));
	k->prefixlen = 8u + prefix->prefix_len;
	k->family = prefix->family;
	memcpy(k->addr, prefix->addr, sizeof(k->addr));
}

static int find(const struct rw_pcap_nets *p, const struct rw_key *prefix)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (memcmp(&p->keys[i], prefix, sizeof(*prefix)) == 0)
			return (int)i;
	return -1;
}

/* The count the data path reads: the prefixes armed here. */
static void publish(struct rw_pcap_nets *p)
{
	__atomic_store_n(p->armed, p->n, __ATOMIC_RELEASE);
}

static void forget(struct rw_pcap_nets *p, uint32_t i)
{
	struct rw_pcap_net_key k;

	net_key(&p->keys[i], &k);
	bpf_map_delete_elem(p->fd, &k);
	p->keys[i] = p->keys[--p->n];
	publish(p); /* after the delete: never below what the map holds */
}

int rw_pcap_nets_start(struct rw_pcap_nets *p, int map_fd, uint32_t *armed, char *err,
		       size_t errlen)
{
	struct rw_pcap_net_key k, next;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->armed = armed;
	if (!armed)
		return rw_fail(err, errlen, -ENOENT, "cannot reach the program's count of sampled "
			       "prefixes (its .bss)");
	/* A pinned map a run before left armed: emptied, its count with it. */
	while (!bpf_map_get_next_key(map_fd, NULL, &next)) {
		k = next;
		if (bpf_map_delete_elem(map_fd, &k))
			break;
	}
	p->fd = map_fd;
	publish(p);
	return 0;
}

int rw_pcap_nets_arm(struct rw_pcap_nets *p, const struct rw_key *prefix, uint64_t now)
{
	struct rw_pcap_net v = { .b = { .left = RW_PCAP_FRAMES, .armed_ns = now }, .prefix = *prefix };
	struct rw_pcap_net_key k;
	int i;

	if (p->fd < 0)
		return 0;
	i = find(p, prefix);
	if (i < 0 && p->n == RW_PCAP_NETS)
		return -ENOSPC;
	net_key(prefix, &k);
	if (bpf_map_update_elem(p->fd, &k, &v, BPF_ANY))
		return -errno;
	if (i < 0) {
		p->keys[p->n++] = *prefix;
		publish(p); /* after the update: the data path finds it once it looks */
	}
	return 0;
}

void rw_pcap_nets_disarm(struct rw_pcap_nets *p, const struct rw_key *prefix)
{
	int i = p->fd < 0 ? -1 : find(p, prefix);

	if (i >= 0)
		forget(p, (uint32_t)i);
}

void rw_pcap_nets_tick(struct rw_pcap_nets *p)
{
	for (uint32_t i = 0; p->fd >= 0 && i < p->n;) {
		struct rw_pcap_net_key k;
		struct rw_pcap_net v;

		net_key(&p->keys[i], &k);
		if (bpf_map_lookup_elem(p->fd, &k, &v) || !v.b.left)
			forget(p, i); /* the last moved into i: looked at next */
		else
			i++;
	}
}

void rw_pcap_nets_stop(struct rw_pcap_nets *p)
{
	while (p->fd >= 0 && p->n)
		forget(p, p->n - 1);
	p->armed = NULL;
	p->fd = -1;
}
