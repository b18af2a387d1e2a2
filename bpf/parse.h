/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Header parsing for the XDP data path. Each helper checks its own bounds
 * against data_end before touching a byte, and returns one of enum rw_parse.
 */
#ifndef RW_BPF_PARSE_H
#define RW_BPF_PARSE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "ratewall.h"

enum rw_parse {
	RW_PARSE_OK = 0,        /* key filled in */
	RW_PARSE_NOT_IP = 1,    /* well-formed frame, not IPv4/IPv6: pass untouched */
	RW_PARSE_MALFORMED = 2, /* truncated or inconsistent headers */
};

#define RW_MAX_VLAN_TAGS 2

struct rw_cursor {
	void *pos;
	void *end;
	__u64 off;       /* pos - data, kept as a scalar: the verifier refuses pointer differences */
	__u64 frame_len; /* whole frame, including non-linear fragments */
};

struct rw_vlan_hdr {
	__be16 tci;
	__be16 inner_proto;
};

/* Ethernet plus up to two 802.1Q/802.1ad tags; *proto gets the inner EtherType. */
static __always_inline int rw_parse_eth(struct rw_cursor *c, __u16 *proto)
{
	struct ethhdr *eth = c->pos;
	__u16 type;

	if ((void *)(eth + 1) > c->end)
		return RW_PARSE_MALFORMED;
	type = bpf_ntohs(eth->h_proto);
	c->pos = eth + 1;
	c->off += sizeof(*eth);

#pragma unroll
	for (int i = 0; i < RW_MAX_VLAN_TAGS; i++) {
		struct rw_vlan_hdr *vh = c->pos;

		if (type != ETH_P_8021Q && type != ETH_P_8021AD)
			break;
		if ((void *)(vh + 1) > c->end)
			return RW_PARSE_MALFORMED;
		type = bpf_ntohs(vh->inner_proto);
		c->pos = vh + 1;
		c->off += sizeof(*vh);
	}
	*proto = type;
	return RW_PARSE_OK;
}

/* Bytes from the cursor to the end of the frame, fragments included. */
static __always_inline __u64 rw_remaining(const struct rw_cursor *c)
{
	return c->frame_len > c->off ? c->frame_len - c->off : 0;
}

static __always_inline int rw_parse_ipv4(struct rw_cursor *c, struct rw_key *key)
{
	struct iphdr *ip = c->pos;
	__u32 hdr_len, tot_len;

	if ((void *)(ip + 1) > c->end)
		return RW_PARSE_MALFORMED;
	if (ip->version != 4 || ip->ihl < 5)
		return RW_PARSE_MALFORMED;
	hdr_len = ip->ihl * 4;
	tot_len = bpf_ntohs(ip->tot_len);
	/* Options must be inside the linear part; the datagram inside the frame. */
	if (c->pos + hdr_len > c->end)
		return RW_PARSE_MALFORMED;
	if (tot_len < hdr_len || tot_len > rw_remaining(c))
		return RW_PARSE_MALFORMED;

	__builtin_memcpy(key->addr, &ip->saddr, 4);
	key->family = RW_FAMILY_IPV4;
	return RW_PARSE_OK;
}

static __always_inline int rw_parse_ipv6(struct rw_cursor *c, struct rw_key *key)
{
	struct ipv6hdr *ip6 = c->pos;

	if ((void *)(ip6 + 1) > c->end)
		return RW_PARSE_MALFORMED;
	if (ip6->version != 6)
		return RW_PARSE_MALFORMED;
	/* payload_len 0 is legal (empty payload, or a jumbogram's HBH option). */
	if (sizeof(*ip6) + (__u64)bpf_ntohs(ip6->payload_len) > rw_remaining(c))
		return RW_PARSE_MALFORMED;

	__builtin_memcpy(key->addr, &ip6->saddr, 16);
	key->family = RW_FAMILY_IPV6;
	return RW_PARSE_OK;
}

/* Fills *key with the frame's source address. */
static __always_inline int rw_parse_source(struct xdp_md *ctx, struct rw_key *key,
					   __u64 frame_len)
{
	struct rw_cursor c = {
		.pos = (void *)(long)ctx->data,
		.end = (void *)(long)ctx->data_end,
		.frame_len = frame_len,
	};
	__u16 proto = 0;
	int ret;

	ret = rw_parse_eth(&c, &proto);
	if (ret != RW_PARSE_OK)
		return ret;
	if (proto == ETH_P_IP)
		return rw_parse_ipv4(&c, key);
	if (proto == ETH_P_IPV6)
		return rw_parse_ipv6(&c, key);
	return RW_PARSE_NOT_IP;
}

#endif /* RW_BPF_PARSE_H */
