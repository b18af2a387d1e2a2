/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Policy on top of counting: the operators' rules (the limits a source is held
 * to, or allow / deny), bans and the events that tell the loader about limits
 * and bans, and the sampling of untracked packets for prefix counts.
 */
#ifndef RW_BPF_POLICY_H
#define RW_BPF_POLICY_H

#include "maps.h"
#include "limit.h"
#include "frag.h"
#include "samples.h"

/* --- Rules -------------------------------------------------------------------- */

/*
 * The key becomes its address's /len, one budget for the prefix (`per /LEN`):
 * a source prefix, or a destination prefix under --key dst; a pair's or a
 * flow's other fields go.
 */
static __always_inline void rw_key_to_prefix(struct rw_key *key, __u32 len)
{
	rw_addr_cut(key->addr, len);
	__builtin_memset(key->addr2, 0, sizeof(key->addr2));
	key->kind = cfg_key_kind == RW_KIND_DST ? RW_KIND_DST : RW_KIND_SRC;
	key->proto = 0;
	key->sport = 0;
	key->dport = 0;
	key->prefix_len = (__u8)len;
}

/* An IPv6 src, dst or pair key cut to --v6-prefix (both addresses of a pair). */
static __always_inline void rw_key_v6_cut(struct rw_key *key, __u8 kind)
{
	if (key->family != RW_FAMILY_IPV6 || kind == RW_KIND_FLOW || cfg_v6_prefix >= 128)
		return;
	rw_addr_cut(key->addr, cfg_v6_prefix);
	if (kind == RW_KIND_PAIR)
		rw_addr_cut(key->addr2, cfg_v6_prefix);
	key->prefix_len = cfg_v6_prefix;
}

/*
 * The qualified matches (struct rw_match_index) a packet of family meets, its
 * IP header where the parser saw it. A whole packet's ports, flags and type
 * are read as far as the datagram and the linear part hold them; one cut
 * short meets only the matches that name its protocol alone (counted in
 * l4_unread when others would have been in play). A later fragment meets what
 * its first fragment met, when this CPU saw that lately (its slot in the
 * cache, frag.h); else, as a tiny first fragment or a deep chain, those and
 * the matches of its class. 0 when no match is in force.
 */
static __always_inline __u64 rw_packet_matches(struct xdp_md *ctx, __u8 family,
					       const struct rw_scratch *sc, struct rw_stats *st)
{
	void *ip = rw_seen_ip(ctx, sc), *end = (void *)(long)ctx->data_end;
	struct rw_frag *f = rw_frag_slot(sc);
	struct rw_match_index *mi;
	__u32 zero = 0, ports;
	__u8 flags = 0, *h;
	__u64 m, *sp, *dp;
	struct rw_l4 l4;

	if (f && (sc->frag & RW_FRAG_FOLLOW))
		return f->matches;
	mi = bpf_map_lookup_elem(&match_index, &zero);
	if (!mi || !mi->any)
		return 0;
	/* The parser checked it before keying the packet; the verifier wants to see it again. */
	if (ip + (family == RW_FAMILY_IPV4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)) > end)
		return 0;
	rw_l4_locate(ctx, ip, sc->ip_off & 0x3f, family, &l4);
	m = mi->proto[l4.proto] | mi->any_proto;
	if (l4.cls != RW_L4_WHOLE) {
		m &= mi->proto_only | mi->cls[l4.cls & (RW_L4_CLASSES - 1)];
		goto first;
	}
	m &= ~mi->classed;
	if (!m || !(m & ~mi->proto_only))
		goto first;
	if (l4.len < rw_l4_need(l4.proto))
		goto unread;
	if (l4.proto == IPPROTO_TCP || l4.proto == IPPROTO_UDP) {
		if (l4.proto == IPPROTO_TCP) {
			h = rw_l4_bytes(ctx, &l4, 14);
			if (!h)
				goto unread;
			flags = h[13];
		} else {
			h = rw_l4_bytes(ctx, &l4, 4);
			if (!h)
				goto unread;
		}
		ports = l4.proto == IPPROTO_TCP ? RW_PORTS_TCP_SRC : RW_PORTS_UDP_SRC;
		ports = ports * 65536 + ((__u32)h[0] << 8 | h[1]);
		sp = bpf_map_lookup_elem(&rule_ports, &ports);
		ports = (ports & ~0xffffu) + 65536 + ((__u32)h[2] << 8 | h[3]);
		dp = bpf_map_lookup_elem(&rule_ports, &ports);
		if (!sp || !dp)
			return 0;
		m &= *sp & *dp;
		if (l4.proto == IPPROTO_TCP)
			m &= mi->tcp_flags[flags];
	} else if (l4.proto == IPPROTO_ICMP || l4.proto == IPPROTO_ICMPV6) {
		h = rw_l4_bytes(ctx, &l4, 1);
		if (!h)
			goto unread;
		m &= mi->icmp_type[l4.proto == IPPROTO_ICMPV6][h[0]];
	}
	goto first;
unread:
	st->l4_unread++;
	m &= mi->proto_only;
first:
	/* A first fragment leaves what it met to the later ones. */
	if (f)
		f->matches = m;
	return m;
}

/*
 * Which rule decides: the longest prefix; at equal length a qualified rule
 * before a prefix-only one, then the lower order (the earlier line). One
 * number, larger wins; 0 = none.
 */
static __always_inline __u64 rw_rule_score(const struct rw_rule *r)
{
	return ((__u64)r->plen + 1) << 33 | (__u64)(r->match != 0) << 32 |
	       (r->match ? 0xffffffffu - r->order : 0);
}

/* bpf_loop step: match i + 1's longest prefix, when the packet meets it. */
static long rw_rule_candidate(__u64 i, void *ctx)
{
	struct rw_rule_search *s = *(struct rw_rule_search **)ctx;
	__u32 m = (__u32)i + 1;
	struct rw_rule *r;
	__u64 score;

	if (!s->mask || m >= RW_MATCHES)
		return 1;
	if (!((s->mask >> m) & 1))
		return 0;
	s->mask &= ~(1ULL << m);
	s->rk.match = (__u8)m;
	r = bpf_map_lookup_elem(&rules, &s->rk);
	if (!r)
		return 0;
	score = rw_rule_score(r);
	if (score > s->best) {
		s->best = score;
		s->best_match = (__u8)m;
	}
	return 0;
}

/*
 * The rule that decides a packet, or NULL: the prefix-only rule when plain,
 * then the longest prefix of each match in `matches`. A call of its own, off
 * the stack of the insert's call chain.
 */
static __noinline struct rw_rule *rw_rule_search(const struct rw_key *key, bool plain,
						 __u64 matches)
{
	struct rw_rule_search *s;
	struct rw_rule *r;
	__u32 zero = 0;

	s = bpf_map_lookup_elem(&rule_search, &zero);
	if (!s)
		return NULL;
	s->rk = (struct rw_rule_key){ .prefixlen = 16 + 128, .family = key->family };
	__builtin_memcpy(s->rk.addr, key->addr, sizeof(s->rk.addr));
	r = plain ? bpf_map_lookup_elem(&rules, &s->rk) : NULL;
	if (!matches)
		return r;
	s->mask = matches;
	s->best = r ? rw_rule_score(r) : 0;
	s->best_match = 0;
	/* The loop's context is on the stack, as bpf_loop wants: a pointer to this CPU's search. */
	bpf_loop(RW_MATCHES - 1, rw_rule_candidate, &s, 0);
	if (!s->best_match)
		return r;
	s->rk.match = s->best_match;
	return bpf_map_lookup_elem(&rules, &s->rk);
}

/*
 * The rule that decides the packet, or NULL. With no rule in force, one
 * word of the hint says so. Else the hint says whether prefix-only rules,
 * rules with a match, or both may cover its address: a packet none covers
 * costs two bit tests; one only rules with a match cover reads its L4 header
 * and, meeting none of them, goes no further.
 */
static __always_inline struct rw_rule *rw_rule_of(struct xdp_md *ctx, const struct rw_key *key,
						  const struct rw_scratch *sc, struct rw_stats *st)
{
	struct rw_rule_hint *hint;
	__u32 zero = 0, idx;
	__u64 plain, match, matches = 0;

	hint = bpf_map_lookup_elem(&rule_hint, &zero);
	if (!hint || !hint->rules)
		return NULL;
	idx = rw_hint_index(key->family, key->addr);
	/* Kept for 6.1's verifier, which loses the bound of an index it filled from the stack. */
	barrier_var(idx);
	idx &= 0xffff;
	plain = key->family == RW_FAMILY_IPV4 ? hint->v4[idx >> 6] : hint->v6[idx >> 6];
	match = key->family == RW_FAMILY_IPV4 ? hint->q4[idx >> 6] : hint->q6[idx >> 6];
	plain = (plain >> (idx & 63)) & 1;
	if ((match >> (idx & 63)) & 1)
		matches = rw_packet_matches(ctx, key->family, sc, st);
	if (!plain && !matches)
		return NULL;
	return rw_rule_search(key, plain, matches);
}

/*
 * A qualified rule's budget, or a `per src|dst|pair` rule's: the key of the kind its `per` names (per /LEN:
 * the key's own address, cut), carrying the rule's id, its addresses read
 * from the header again (a src key has no destination). IPv6 addresses are
 * cut to --v6-prefix as any src, dst or pair key's.
 */
static __always_inline void rw_rule_key_of(struct xdp_md *ctx, const struct rw_scratch *sc,
					   struct rw_key *key, const struct rw_rule *r)
{
	void *ip = rw_seen_ip(ctx, sc), *end = (void *)(long)ctx->data_end;
	__u8 fam = key->family, per = r->per;
	__u32 len = r->per_len, cut = fam == RW_FAMILY_IPV6 ? cfg_v6_prefix : 128;
	__u8 side = cfg_key_kind == RW_KIND_DST ? RW_KIND_DST : RW_KIND_SRC;
	__u8 kind = per == RW_PER_SRC ? RW_KIND_SRC : per == RW_PER_DST ? RW_KIND_DST :
		    per == RW_PER_PAIR ? RW_KIND_PAIR :
		    cfg_key_kind == RW_KIND_FLOW ? RW_KIND_SRC : cfg_key_kind;

	if (len)
		kind = side;
	*key = (struct rw_key){ .family = fam, .kind = kind | RW_KIND_RULE, .rule = r->id };
	if (fam == RW_FAMILY_IPV4) {
		struct iphdr *ip4 = ip;

		if ((void *)(ip4 + 1) > end)
			return;
		__builtin_memcpy(key->addr, kind == RW_KIND_DST ? &ip4->daddr : &ip4->saddr, 4);
		if (kind == RW_KIND_PAIR)
			__builtin_memcpy(key->addr2, &ip4->daddr, 4);
	} else {
		struct ipv6hdr *ip6 = ip;

		if ((void *)(ip6 + 1) > end)
			return;
		__builtin_memcpy(key->addr, kind == RW_KIND_DST ? &ip6->daddr : &ip6->saddr, 16);
		if (kind == RW_KIND_PAIR)
			__builtin_memcpy(key->addr2, &ip6->daddr, 16);
	}
	if (len) {
		len = len < cut ? len : cut;
		rw_addr_cut(key->addr, len);
		key->prefix_len = (__u8)len;
	} else {
		rw_key_v6_cut(key, kind);
	}
}

/*
 * The limits this key is held to: its rule's (rw_rule_of), else the command
 * line's. Then the key takes its final shape: a qualified rule's budget
 * (rw_rule_key_of); a `per /LEN` rule turns it into its /LEN (that prefix
 * shares one budget); an IPv6 address of a src, dst or pair key is cut to
 * --v6-prefix (after the rule lookup, so a rule may name a longer IPv6
 * prefix inside it).
 */
static __always_inline void rw_rule_limits(struct xdp_md *ctx, struct rw_key *key,
					   const struct rw_scratch *sc, struct rw_limit *lim, struct rw_stats *st)
{
	struct rw_rule *r = rw_rule_of(ctx, key, sc, st);
	__u32 per = 0, v6 = 128;

	*lim = (struct rw_limit){ .packets = cfg_limit_packets, .bytes = cfg_limit_bytes,
				  .cap_packets = cfg_cap_packets, .cap_bytes = cfg_cap_bytes };
	if (r) {
		if (r->action == RW_RULE_ALLOW)
			*lim = (struct rw_limit){ 0 };
		else if (r->action == RW_RULE_DENY)
			*lim = (struct rw_limit){ .deny = true };
		else
			*lim = (struct rw_limit){ .packets = r->limit_packets, .bytes = r->limit_bytes,
						  .cap_packets = r->cap_packets, .cap_bytes = r->cap_bytes };
		lim->rule = r->id + 1;
		if (r->match || r->per) {
			rw_rule_key_of(ctx, sc, key, r);
			return;
		}
		if (r->action == RW_RULE_LIMIT && r->per_len)
			per = r->per_len > 128 ? 128 : r->per_len;
	}
	if (key->family == RW_FAMILY_IPV6 && cfg_key_kind != RW_KIND_FLOW)
		v6 = cfg_v6_prefix;
	if (per)
		rw_key_to_prefix(key, per < v6 ? per : v6);
	else
		rw_key_v6_cut(key, cfg_key_kind);
}

/* A rule's counts: the packets it decided, and of them the dropped. */
static __always_inline void rw_rule_count(const struct rw_limit *lim, bool dropped)
{
	__u32 id = lim->rule - 1;
	struct rw_rule_stats *rs;

	if (!lim->rule)
		return;
	rs = bpf_map_lookup_elem(&rule_stats, &id);
	if (!rs)
		return;
	rs->packets++;
	rs->drops += dropped;
}

/* --- Events and bans ------------------------------------------------------------- */

static __always_inline void rw_event(__u32 type, const struct rw_key *key, __u64 now,
				     __u64 until, struct rw_wslot *ws)
{
	struct rw_event ev = { .type = type, .cpu = bpf_get_smp_processor_id(), .key = *key,
			       .ts_ns = now, .until_ns = until };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		ws->event_lost++;
}

/*
 * A tracked source's first drop in a window: the `limited` event, and with
 * --ban the start of its ban. A key that stands for a destination (--key
 * dst, a `per dst` rule, a /LEN of destinations) is the victim's budget:
 * limited, never banned. Plain stores in the shared entry: a race costs at
 * most a repeated event.
 */
static __always_inline void rw_limited(struct rw_entry *ent, __u64 epoch, __u64 now,
				       struct rw_wslot *ws)
{
	/* limited_epoch holds epoch + 1 (low 32 bits): 0 is "never", epoch 0 a real slot */
	if (!ent)
		return;
	if (ent->limited_epoch && (__u32)(epoch + 1 - ent->limited_epoch) < cfg_slots)
		return;
	ent->limited_epoch = (__u32)(epoch + 1) ? (__u32)(epoch + 1) : 1;
	if (cfg_pcap)
		rw_pcap_arm(&ent->key, now); /* --samples: the event's frames (samples.h) */
	if (cfg_events)
		rw_event(RW_EV_LIMITED, &ent->key, now, 0, ws);
	if (cfg_ban_ns && rw_kind_of(&ent->key) != RW_KIND_DST) {
		ent->ban_until_ns = now + cfg_ban_ns;
		if (cfg_events)
			rw_event(RW_EV_BANNED, &ent->key, now, now + cfg_ban_ns, ws);
	}
}

/* --ban: whether the source is banned now; a ban that ran out ends here, once. */
static __always_inline bool rw_banned(struct rw_entry *ent, __u64 now, struct rw_wslot *ws)
{
	__u64 until;

	if (!ent)
		return false;
	until = ent->ban_until_ns;
	if (!until)
		return false;
	if (now < until)
		return true;
	if (__sync_val_compare_and_swap(&ent->ban_until_ns, until, 0) == until && cfg_events)
		rw_event(RW_EV_UNBANNED, &ent->key, now, until, ws);
	return false;
}

/* --- Sampling (--levels) ------------------------------------------------------------ */

/* Hands one untracked packet's source to the loader; a full buffer costs a count. */
static __always_inline void rw_sample(const struct rw_key *key, __u64 epoch, struct rw_wslot *ws)
{
	struct rw_sample s = { .key = *key, .epoch = epoch };

	if (bpf_ringbuf_output(&samples, &s, sizeof(s), 0))
		ws->sample_lost++;
	else
		ws->sampled++;
}

#endif /* RW_BPF_POLICY_H */
