/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Header parsing for the XDP data path, and the packet's key (--key,
 * --v6-prefix). Each helper checks its own bounds against data_end before
 * touching a byte, and returns one of enum rw_parse.
 */
#ifndef RW_BPF_PARSE_H
#define RW_BPF_PARSE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "ratewall.h"

/* What a key is made of: load-time constants, so the verifier drops the other kinds' code. */
const volatile __u8 cfg_key_kind = RW_KIND_SRC;
const volatile __u8 cfg_v6_prefix = RW_DEFAULT_V6_PREFIX;
/* --rank: a bit per kind ranked beside cfg_key_kind; 0 = none */
const volatile __u8 cfg_rank_mask;
/*
 * What the parser fills in: the main kind, or with --rank the whole flow, every kind's source.
 * (The benchmark's reference programs, loaded by ip(8), set their own default at build time.)
 */
#ifndef RW_PARSE_KIND_DEFAULT
#define RW_PARSE_KIND_DEFAULT RW_KIND_SRC
#endif
const volatile __u8 cfg_parse_kind = RW_PARSE_KIND_DEFAULT;

/* IPv6 extension headers walked to find a flow's ports; beyond them the ports stay 0. */
#define RW_MAX_EXT_HDRS 4

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

/* A flow's ports: the first 4 bytes of a TCP or UDP header, when they are in the linear part. */
static __always_inline void rw_parse_ports(void *l4, void *end, __u8 proto, struct rw_key *key)
{
	__be16 *p = l4;

	key->proto = proto;
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) && (void *)(p + 2) <= end) {
		key->sport = p[0];
		key->dport = p[1];
	}
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

	key->family = RW_FAMILY_IPV4;
	key->kind = cfg_parse_kind;
	if (cfg_parse_kind == RW_KIND_DST) {
		__builtin_memcpy(key->addr, &ip->daddr, 4);
		return RW_PARSE_OK;
	}
	__builtin_memcpy(key->addr, &ip->saddr, 4);
	if (cfg_parse_kind == RW_KIND_SRC)
		return RW_PARSE_OK;
	__builtin_memcpy(key->addr2, &ip->daddr, 4);
	if (cfg_parse_kind == RW_KIND_FLOW) {
		key->proto = ip->protocol;
		/* A later fragment carries no ports: it is the flow's with ports 0. */
		if (!(ip->frag_off & bpf_htons(0x1fff)))
			rw_parse_ports(c->pos + hdr_len, c->end, ip->protocol, key);
	}
	return RW_PARSE_OK;
}

/* addr keeps its first len bits, 4 bytes at a time. */
static __always_inline void rw_addr_cut(__u8 *addr, __u32 len)
{
	__u32 *w = (__u32 *)addr;

#pragma unroll
	for (int i = 0; i < 4; i++) {
		int keep = (int)len - 32 * i;

		if (keep <= 0)
			w[i] = 0;
		else if (keep < 32)
			w[i] &= bpf_htonl(~0u << (32 - keep));
	}
}

/* What rw_ipv6_l4 found of fragmentation. */
enum rw_frag { RW_FRAG_NONE, RW_FRAG_FIRST, RW_FRAG_LATER };

/*
 * The upper-layer header past up to RW_MAX_EXT_HDRS extension headers: its
 * protocol in *proto, whether it comes in a fragment in *frag. NULL when the
 * chain is longer than that or truncated (*proto: the last next header), or
 * in a fragment other than the first. The header itself is not bounds-checked.
 */
static __always_inline void *rw_ipv6_l4(struct ipv6hdr *ip6, void *end, __u8 *proto, __u8 *frag)
{
	__u8 next = ip6->nexthdr, *p = (__u8 *)(ip6 + 1);

	*frag = RW_FRAG_NONE;
#pragma unroll
	for (int i = 0; i < RW_MAX_EXT_HDRS; i++) {
		__u32 len;

		if (next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_DSTOPTS) {
			if ((void *)(p + 2) > end)
				break;
			len = ((__u32)p[1] + 1) * 8;
		} else if (next == IPPROTO_AH) {
			if ((void *)(p + 2) > end)
				break;
			len = ((__u32)p[1] + 2) * 4;
		} else if (next == IPPROTO_FRAGMENT) {
			if ((void *)(p + 8) > end)
				break;
			/* Offset bits of the fragment header: not the first fragment. */
			*frag = (p[2] << 8 | p[3]) & 0xfff8 ? RW_FRAG_LATER : RW_FRAG_FIRST;
			if (*frag == RW_FRAG_LATER) {
				*proto = p[0];
				return NULL;
			}
			len = 8;
		} else {
			*proto = next;
			return p;
		}
		next = p[0];
		p += len;
	}
	*proto = next;
	return NULL;
}

/*
 * A flow's protocol and ports past the extension headers; a fragment other
 * than the first, or a chain longer than RW_MAX_EXT_HDRS, keeps ports 0.
 */
static __always_inline void rw_parse_ipv6_l4(struct ipv6hdr *ip6, void *end, struct rw_key *key)
{
	__u8 proto, frag;
	void *l4 = rw_ipv6_l4(ip6, end, &proto, &frag);

	key->proto = proto;
	if (l4)
		rw_parse_ports(l4, end, proto, key);
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

	key->family = RW_FAMILY_IPV6;
	key->kind = cfg_parse_kind;
	if (cfg_parse_kind == RW_KIND_DST)
		__builtin_memcpy(key->addr, &ip6->daddr, 16);
	else
		__builtin_memcpy(key->addr, &ip6->saddr, 16);
	if (cfg_parse_kind == RW_KIND_PAIR || cfg_parse_kind == RW_KIND_FLOW)
		__builtin_memcpy(key->addr2, &ip6->daddr, 16);
	/* Whole addresses here: rules match them before --v6-prefix cuts them (policy.h). */
	if (cfg_parse_kind == RW_KIND_FLOW)
		rw_parse_ipv6_l4(ip6, c->end, key);
	return RW_PARSE_OK;
}

/*
 * A key of kind `kind` out of a flow key (what the parser fills in with
 * --rank): the fields that kind has, the rest zero, addresses whole.
 */
static __always_inline void rw_key_derive(const struct rw_key *flow, __u8 kind, struct rw_key *k)
{
	*k = (struct rw_key){ .family = flow->family, .kind = kind };
	if (kind == RW_KIND_DST)
		__builtin_memcpy(k->addr, flow->addr2, sizeof(k->addr));
	else
		__builtin_memcpy(k->addr, flow->addr, sizeof(k->addr));
	if (kind == RW_KIND_PAIR || kind == RW_KIND_FLOW)
		__builtin_memcpy(k->addr2, flow->addr2, sizeof(k->addr2));
	if (kind == RW_KIND_FLOW) {
		k->proto = flow->proto;
		k->sport = flow->sport;
		k->dport = flow->dport;
	}
}

/* The IP header of a frame rw_parse_key took, found again (the rules read more of it). */
static __always_inline void *rw_ip_header(struct xdp_md *ctx)
{
	struct rw_cursor c = { .pos = (void *)(long)ctx->data, .end = (void *)(long)ctx->data_end };
	__u16 proto;

	if (rw_parse_eth(&c, &proto) != RW_PARSE_OK)
		return NULL;
	return c.pos;
}

/* Fills *key with the frame's key of kind cfg_parse_kind. */
static __always_inline int rw_parse_key(struct xdp_md *ctx, struct rw_key *key,
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
