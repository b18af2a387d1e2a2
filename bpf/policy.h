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

/* Keeps the first len bits of the key's address: the key then stands for its /len. */
static __always_inline void rw_key_mask(struct rw_key *key, __u32 len)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		int keep = (int)len - 8 * i;

		if (keep < 8)
			key->addr[i] &= keep <= 0 ? 0 : (__u8)(0xff << (8 - keep));
	}
	RW_KEY_PREFIX_LEN(key) = (__u8)len;
}

/*
 * The limits this source is held to: its longest-matching rule's, else the
 * command line's. The trie is walked only where the hint says a rule may be. A
 * `per /LEN` rule turns the key into its /LEN: that prefix shares one budget.
 */
static __always_inline void rw_rule_limits(struct rw_key *key, struct rw_limit *lim)
{
	struct rw_rule_key rk = { .prefixlen = 8 + 128 };
	struct rw_rule_hint *hint;
	struct rw_rule *r;
	__u32 zero = 0, idx;
	__u64 word;

	*lim = (struct rw_limit){ .packets = cfg_limit_packets, .bytes = cfg_limit_bytes,
				  .cap_packets = cfg_cap_packets, .cap_bytes = cfg_cap_bytes };
	hint = bpf_map_lookup_elem(&rule_hint, &zero);
	if (!hint)
		return;
	idx = rw_hint_index(key->family, key->addr) & 0xffff;
	word = key->family == RW_FAMILY_IPV4 ? hint->v4[idx >> 6] : hint->v6[idx >> 6];
	if (!((word >> (idx & 63)) & 1))
		return;
	rk.family = key->family;
	__builtin_memcpy(rk.addr, key->addr, sizeof(rk.addr));
	r = bpf_map_lookup_elem(&rules, &rk);
	if (!r)
		return;
	if (r->action == RW_RULE_ALLOW) {
		*lim = (struct rw_limit){ 0 };
		return;
	}
	if (r->action == RW_RULE_DENY) {
		*lim = (struct rw_limit){ .deny = true };
		return;
	}
	*lim = (struct rw_limit){ .packets = r->limit_packets, .bytes = r->limit_bytes,
				  .cap_packets = r->cap_packets, .cap_bytes = r->cap_bytes };
	if (r->per_len)
		rw_key_mask(key, r->per_len > 128 ? 128 : r->per_len);
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
