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
#include <stdbool.h>
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

enum rw_parse {
	RW_PARSE_OK = 0,        /* key filled in */
	RW_PARSE_NOT_IP = 1,    /* well-formed frame, not IPv4/IPv6: pass untouched */
	RW_PARSE_MALFORMED = 2, /* truncated or inconsistent headers */
	RW_PARSE_HIDDEN = 3,    /* keyed, but its L4 header hides from the rules (tiny, deep) and
				 * --malformed drop takes it: the main program's verdict */
};

#define RW_MAX_VLAN_TAGS 2

struct rw_cursor {
	struct xdp_md *ctx;
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

/*
 * Where a packet's L4 header is and what it is to the rules (enum
 * rw_l4_class), found from its IP header. Scalars only: the chain walker
 * (rw_ipv6_chain) is a function of its own and fills one in for its caller.
 */
struct rw_l4 {
	__u32 off;   /* the L4 header's offset in the frame (linear part or not); 0: none (a
		      * later fragment, a chain not followed to its end) */
	__u32 len;   /* the datagram's bytes from there on (IPv6 jumbogram: as many as there are) */
	__u32 id;    /* a fragment's datagram id (IPv4: 16 bits) */
	__u8 proto;  /* the upper-layer protocol; of a chain not followed, its last next header */
	__u8 cls;    /* enum rw_l4_class */
	__u8 first;  /* a first fragment with more to come (an IPv6 atomic one is whole) */
	__u8 pad;
};

/* A first fragment short of what a rule reads is tiny (the rest of its header comes later). */
static __always_inline void rw_l4_tiny(struct rw_l4 *l4)
{
	if (l4->first && l4->len < rw_l4_need(l4->proto))
		l4->cls = RW_L4_TINY;
}

/*
 * IPv4, its header at offset ip_off (its length and total length checked by
 * the parser, rw_parse_ipv4).
 */
static __always_inline void rw_ipv4_l4(struct iphdr *ip4, __u32 ip_off, struct rw_l4 *l4)
{
	__u32 hlen = ip4->ihl * 4, tot = bpf_ntohs(ip4->tot_len);
	__u16 frag = bpf_ntohs(ip4->frag_off);

	*l4 = (struct rw_l4){ .proto = ip4->protocol, .off = ip_off + hlen,
			      .len = tot > hlen ? tot - hlen : 0 };
	if (!(frag & 0x3fff)) /* whole, as most are: no id to read */
		return;
	l4->id = bpf_ntohs(ip4->id);
	if (frag & 0x1fff) { /* an offset: a later fragment */
		l4->off = 0;
		l4->cls = RW_L4_LATER;
		return;
	}
	l4->first = 1; /* MF */
	rw_l4_tiny(l4);
}

/* IPv6 extension headers the parser follows to the upper-layer header. */
#define RW_MAX_EXT_HDRS 8

static __always_inline bool rw_ipv6_ext(__u8 next)
{
	return next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_DSTOPTS ||
	       next == IPPROTO_AH || next == IPPROTO_FRAGMENT;
}

/*
 * IPv6 behind extension headers, its header at offset ip_off: the upper-layer
 * header past up to RW_MAX_EXT_HDRS of them. A chain longer than that is
 * deep; one cut short by the linear part's end has no header (off 0, whole:
 * the rules read nothing of it). A function of its own, verified once: its
 * branches, inlined where the parser and the rules each walk a chain, were
 * more paths than the verifier takes. 0, or -1 when the header is not there.
 */
__noinline int rw_ipv6_chain(struct xdp_md *ctx, __u32 ip_off, struct rw_l4 *l4)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ipv6hdr *ip6;
	__u32 plen, off;
	__u8 next, *p;

	if (!l4 || ip_off > 64)
		return -1;
	ip6 = data + ip_off;
	if ((void *)(ip6 + 1) > end)
		return -1;
	*l4 = (struct rw_l4){ 0 };
	next = ip6->nexthdr;
	p = (__u8 *)(ip6 + 1);
	plen = bpf_ntohs(ip6->payload_len);
	off = 0;
	for (int i = 0; i < RW_MAX_EXT_HDRS; i++) {
		__u32 len;

		if (next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_DSTOPTS) {
			if ((void *)(p + 2) > end)
				goto cut;
			len = ((__u32)p[1] + 1) * 8;
		} else if (next == IPPROTO_AH) {
			if ((void *)(p + 2) > end)
				goto cut;
			len = ((__u32)p[1] + 2) * 4;
		} else if (next == IPPROTO_FRAGMENT) {
			__u16 offm;

			if ((void *)(p + 8) > end)
				goto cut;
			offm = (__u16)p[2] << 8 | p[3];
			l4->id = (__u32)p[4] << 24 | (__u32)p[5] << 16 | (__u32)p[6] << 8 | p[7];
			if (offm & 0xfff8) { /* an offset: a later fragment */
				l4->proto = p[0];
				l4->cls = RW_L4_LATER;
				return 0;
			}
			l4->first = offm & 1; /* M: more to come; an atomic fragment is whole */
			len = 8;
		} else {
			break;
		}
		next = p[0];
		p += len;
		off += len;
		if (off > 0xffff)
			goto cut;
	}
	if (rw_ipv6_ext(next)) {
		l4->cls = RW_L4_DEEP;
		goto cut;
	}
	l4->proto = next;
	l4->off = ip_off + sizeof(*ip6) + off;
	/* payload_len 0: a jumbogram, its length in an option: what there is */
	l4->len = !plen ? 0xffffffffu : plen > off ? plen - off : 0;
	rw_l4_tiny(l4);
	return 0;
cut:
	l4->proto = next;
	return 0;
}

/* IPv6, its header at offset ip_off: the header right behind it, or the chain's walk. */
static __always_inline void rw_ipv6_l4(struct xdp_md *ctx, struct ipv6hdr *ip6, __u32 ip_off,
				       struct rw_l4 *l4)
{
	__u32 plen = bpf_ntohs(ip6->payload_len);

	if (!rw_ipv6_ext(ip6->nexthdr)) {
		*l4 = (struct rw_l4){ .proto = ip6->nexthdr, .off = ip_off + sizeof(*ip6),
				      .len = plen ? plen : 0xffffffffu };
		return;
	}
	if (rw_ipv6_chain(ctx, ip_off, l4))
		*l4 = (struct rw_l4){ .proto = ip6->nexthdr };
}

/* The L4 header of the IP header at ip, offset ip_off (checked to be whole), of family. */
static __always_inline void rw_l4_locate(struct xdp_md *ctx, void *ip, __u32 ip_off, __u8 family,
					 struct rw_l4 *l4)
{
	if (family == RW_FAMILY_IPV4)
		rw_ipv4_l4(ip, ip_off, l4);
	else
		rw_ipv6_l4(ctx, ip, ip_off, l4);
}

/*
 * The L4 header's first `need` bytes in the linear part, or NULL. A linear
 * part is a page at most: an offset past 14 bits is no header there, and the
 * mask shows the verifier no access through a pointer past 64 KiB less the
 * bytes read.
 */
#define RW_L4_OFF_MAX 0x3fff
#define rw_l4_bytes(ctx, l4, need)                                                                \
	({                                                                                         \
		__u8 *h_ = (void *)(long)(ctx)->data + ((l4)->off & RW_L4_OFF_MAX);              \
		(l4)->off && (l4)->off <= RW_L4_OFF_MAX &&                                         \
				(void *)(h_ + (need)) <= (void *)(long)(ctx)->data_end ? h_ : NULL; \
	})

/*
 * What the parser says of a packet beside its key: where its IP header is,
 * for the rules to find its L4 header again (rw_l4_locate) without parsing
 * the link layer twice, its L4 header's class, and whether it is a first
 * fragment with more to come (the totals count the last two).
 */
struct rw_l4_seen {
	__u8 ip_off;
	__u8 cls;
	__u8 first;
};

/* The IP header where the parser saw it, sc->ip_off (at most 22 bytes in: the mask shows the verifier). */
#define rw_seen_ip(ctx, sc) ((void *)(long)(ctx)->data + ((sc)->ip_off & 0x3f))

/* A flow's ports: the first 4 bytes of a TCP or UDP header, when they are in the linear part. */
static __always_inline void rw_parse_ports(struct xdp_md *ctx, const struct rw_l4 *l4,
					   struct rw_key *key)
{
	__be16 *p;

	key->proto = l4->proto;
	if (l4->proto != IPPROTO_TCP && l4->proto != IPPROTO_UDP)
		return;
	p = (__be16 *)rw_l4_bytes(ctx, l4, 4);
	if (p && l4->len >= 4) {
		key->sport = p[0];
		key->dport = p[1];
	}
}

static __always_inline int rw_parse_ipv4(struct rw_cursor *c, struct rw_key *key,
					 struct rw_l4_seen *seen)
{
	struct iphdr *ip = c->pos;
	__u32 hdr_len, tot_len;
	struct rw_l4 l4;

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
	rw_ipv4_l4(ip, c->off, &l4);
	seen->ip_off = (__u8)c->off;
	seen->cls = l4.cls;
	seen->first = l4.first;

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
		if (l4.cls == RW_L4_WHOLE)
			rw_parse_ports(c->ctx, &l4, key);
	}
	return RW_PARSE_OK;
}

static __always_inline int rw_parse_ipv6(struct rw_cursor *c, struct rw_key *key,
					 struct rw_l4_seen *seen)
{
	struct ipv6hdr *ip6 = c->pos;
	struct rw_l4 l4;

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
	rw_ipv6_l4(c->ctx, ip6, c->off, &l4);
	seen->ip_off = (__u8)c->off;
	seen->cls = l4.cls;
	seen->first = l4.first;
	if (cfg_parse_kind == RW_KIND_FLOW) {
		/* A later fragment, or a chain not followed to its end, carries no ports. */
		key->proto = l4.proto;
		if (l4.cls == RW_L4_WHOLE)
			rw_parse_ports(c->ctx, &l4, key);
	}
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

/* Fills *key with the frame's key of kind cfg_parse_kind, *seen with its L4 header's class. */
static __always_inline int rw_parse_key(struct xdp_md *ctx, struct rw_key *key,
					   __u64 frame_len, struct rw_l4_seen *seen)
{
	struct rw_cursor c = {
		.ctx = ctx,
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
		return rw_parse_ipv4(&c, key, seen);
	if (proto == ETH_P_IPV6)
		return rw_parse_ipv6(&c, key, seen);
	return RW_PARSE_NOT_IP;
}

#endif /* RW_BPF_PARSE_H */
