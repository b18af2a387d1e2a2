/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fragment cache (struct rw_frag): a datagram is one packet to the
 * rules and to a packet limit, whatever it was cut into. Its first fragment
 * is read and decided as a whole datagram; its later fragments carry no
 * ports or flags, so they meet what the first met (policy.h, rw_l4_matches)
 * and go where it went: dropped with it, or passed with it, uncharged under
 * a packet limit alone (not in the key's window either), decided and counted
 * as any packet under a byte limit or none. A later fragment whose
 * first this CPU did not see lately is an orphan: counted, and decided as a
 * packet of its class (a `frag` rule budgets them).
 */
#ifndef RW_BPF_FRAG_H
#define RW_BPF_FRAG_H

#include "maps.h"
#include "parse.h"

/* How rw_frag_find found a fragment, beside its slot (the low bits). */
#define RW_FRAG_FIRST (1u << 30)  /* a first fragment: the slot is its, to leave what it met in */
#define RW_FRAG_FOLLOW (1u << 29) /* a later fragment whose first is in the slot */
#define RW_FRAG_ORPHAN (1u << 28) /* a later fragment whose first is not */

/*
 * A fragment's datagram in this CPU's cache: RW_FRAG_* | its slot, 0 when the
 * packet is no fragment with a datagram to follow. A first fragment takes
 * its slot over. A function of its own, verified once: only fragments pay
 * for it, and its branches stay out of the main program's paths.
 */
__noinline int rw_frag_find(struct xdp_md *ctx, __u32 family, __u32 ip_off, __u64 now)
{
	__u32 src[4] = {}, dst[4] = {}, h, idx, diff = 0;
	void *ip = (void *)(long)ctx->data + (ip_off & 0x3f), *end = (void *)(long)ctx->data_end;
	struct rw_frag *f;
	struct rw_l4 l4;

	if (family == RW_FAMILY_IPV4) {
		struct iphdr *ip4 = ip;

		if ((void *)(ip4 + 1) > end)
			return 0;
		src[0] = ip4->saddr;
		dst[0] = ip4->daddr;
	} else {
		struct ipv6hdr *ip6 = ip;

		if ((void *)(ip6 + 1) > end)
			return 0;
		__builtin_memcpy(src, &ip6->saddr, 16);
		__builtin_memcpy(dst, &ip6->daddr, 16);
	}
	rw_l4_locate(ctx, ip, ip_off & 0x3f, (__u8)family, &l4);
	if (!l4.first && l4.cls != RW_L4_LATER)
		return 0;
	/* The addresses' last words: they differ between hosts of a /64 too. */
	h = (l4.id * 0x9e3779b1u ^ l4.proto ^ src[0] ^ src[3]) * 0x85ebca6bu;
	h = (h ^ dst[0] ^ dst[3]) * 0xc2b2ae35u;
	idx = (h ^ h >> 16) & (RW_FRAG_SLOTS - 1);
	f = bpf_map_lookup_elem(&frags, &idx);
	if (!f)
		return 0;
	if (l4.cls == RW_L4_LATER) {
#pragma unroll
		for (int i = 0; i < 4; i++)
			diff |= (f->src[i] ^ src[i]) | (f->dst[i] ^ dst[i]);
		if (!diff && f->ts_ns && now - f->ts_ns < RW_FRAG_TTL_NS && f->id == l4.id &&
		    f->family == family && f->proto == l4.proto)
			return RW_FRAG_FOLLOW | idx;
		return RW_FRAG_ORPHAN | idx;
	}
	*f = (struct rw_frag){ .id = l4.id, .family = (__u8)family, .proto = l4.proto, .ts_ns = now };
	__builtin_memcpy(f->src, src, sizeof(src));
	__builtin_memcpy(f->dst, dst, sizeof(dst));
	return RW_FRAG_FIRST | idx;
}

/* The packet's slot in the cache when it is a first fragment or follows one (sc->frag), or NULL. */
static __always_inline struct rw_frag *rw_frag_slot(const struct rw_scratch *sc)
{
	__u32 idx = sc->frag & (RW_FRAG_SLOTS - 1);

	if (!(sc->frag & (RW_FRAG_FIRST | RW_FRAG_FOLLOW)))
		return NULL;
	return bpf_map_lookup_elem(&frags, &idx);
}

/*
 * A later fragment that follows its first: 1 to drop it (its first was
 * dropped), 0 to pass it uncharged (its first passed, and a packet limit
 * alone counted the datagram), -1 to decide and count it as any packet (a
 * byte limit counts its bytes; with no limit it is only counted).
 */
static __always_inline int rw_frag_follows(const struct rw_scratch *sc, const struct rw_limit *lim)
{
	struct rw_frag *f = rw_frag_slot(sc);

	if (!f || !(sc->frag & RW_FRAG_FOLLOW))
		return -1;
	if (f->dropped)
		return 1;
	return lim->packets && !lim->bytes ? 0 : -1;
}

/* A first fragment's verdict, for its later fragments to follow. */
static __always_inline void rw_frag_verdict(const struct rw_scratch *sc, bool dropped)
{
	struct rw_frag *f = rw_frag_slot(sc);

	if (f && (sc->frag & RW_FRAG_FIRST))
		f->dropped = dropped;
}

#endif /* RW_BPF_FRAG_H */
