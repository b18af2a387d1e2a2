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

/* The rule the key's address falls under, or NULL: the trie is walked only where the hint says. */
static __always_inline struct rw_rule *rw_rule_of(const struct rw_key *key)
{
	struct rw_rule_key rk = { .prefixlen = 8 + 128 };
	struct rw_rule_hint *hint;
	__u32 zero = 0, idx;
	__u64 word;

	hint = bpf_map_lookup_elem(&rule_hint, &zero);
	if (!hint)
		return NULL;
	idx = rw_hint_index(key->family, key->addr) & 0xffff;
	word = key->family == RW_FAMILY_IPV4 ? hint->v4[idx >> 6] : hint->v6[idx >> 6];
	if (!((word >> (idx & 63)) & 1))
		return NULL;
	rk.family = key->family;
	__builtin_memcpy(rk.addr, key->addr, sizeof(rk.addr));
	return bpf_map_lookup_elem(&rules, &rk);
}

/*
 * The limits this key is held to: the longest-matching rule's for its
 * address, else the command line's. Then the key takes its final shape: a
 * `per /LEN` rule turns it into its /LEN (that prefix shares one budget); an
 * IPv6 address of a src, dst or pair key is cut to --v6-prefix (after the
 * rule lookup, so a rule may name a longer IPv6 prefix inside it).
 */
static __always_inline void rw_rule_limits(struct rw_key *key, struct rw_limit *lim)
{
	struct rw_rule *r = rw_rule_of(key);
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
 * --ban the start of its ban. Plain stores in the shared entry: a race costs
 * at most a repeated event.
 */
static __always_inline void rw_limited(struct rw_entry *ent, __u64 epoch, __u64 now,
				       struct rw_wslot *ws)
{
	/* limited_epoch holds epoch + 1 (low 32 bits): 0 is "never", epoch 0 a real slot */
	if (ent->limited_epoch && (__u32)(epoch + 1 - ent->limited_epoch) < cfg_slots)
		return;
	ent->limited_epoch = (__u32)(epoch + 1) ? (__u32)(epoch + 1) : 1;
	if (cfg_events)
		rw_event(RW_EV_LIMITED, &ent->key, now, 0, ws);
	if (cfg_ban_ns) {
		ent->ban_until_ns = now + cfg_ban_ns;
		if (cfg_events)
			rw_event(RW_EV_BANNED, &ent->key, now, now + cfg_ban_ns, ws);
	}
}

/* --ban: whether the source is banned now; a ban that ran out ends here, once. */
static __always_inline bool rw_banned(struct rw_entry *ent, __u64 now, struct rw_wslot *ws)
{
	__u64 until = ent->ban_until_ns;

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
