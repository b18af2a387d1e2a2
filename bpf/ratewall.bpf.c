// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ratewall XDP data path. The order of decisions for one frame:
 *
 *   count it on its interface; parse (non-IP passes, malformed IP is counted
 *   and handled by policy); read the clock; count it in the window; find its
 *   rule (by prefix, and by protocol, port, flags or ICMP type where a rule
 *   with a match covers it) and the limits and key the rule gives it; hash
 *   its key once; look the key up in the
 *   tracked-flow table (table.h). Untracked: count it in the sketch, promote
 *   it once it may matter, or drop it at the cap when there is no room to
 *   track it (sketch.h). Tracked: step its record into this slot, serve a
 *   ban, admit or drop it against its limit (limit.h), count it.
 *
 * Its cost does not grow with the number of sources: a spoofed packet costs a
 * directory line and two sketch lines, a tracked one the directory, its entry
 * line and this CPU's record.
 */
#include "parse.h"
#include "maps.h"
#include "clock.h"
#include "crowd.h"
#include "sketch.h"
#include "table.h"
#include "limit.h"
#include "policy.h"
#include "untracked.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * A record's byte counts past RW_HOT_FLUSH_MARK go to the history now. If
 * the flush must wait, the next packet tries again; only a record that
 * reaches the top still waiting (2 GiB later: a CPU stopped in the middle
 * of a restart) stays at the top, this packet's bytes partly uncounted,
 * rather than wrap and lose 4 GiB of its window.
 */
static __always_inline void rw_flush_early(struct rw_hot *f, __u32 idx, const struct rw_time *t,
					   __u64 state, __u64 len, struct rw_stats *st)
{
	if (rw_flush(f, idx, t->epoch, t->slot, rw_hot_epoch(f, rw_st_epoch(state)))) {
		st->hist_flushes++;
		return;
	}
	st->flush_retries++;
	if (f->bytes > RW_U32_MAX - len)
		f->bytes = RW_U32_MAX - (__u32)len;
	if (f->drop_bytes > RW_U32_MAX - len)
		f->drop_bytes = RW_U32_MAX - (__u32)len;
}

/* A key's entry and this CPU's record of it, stepped into this slot. */
struct rw_tracked {
	struct rw_entry *ent;
	struct rw_hot *f;
	__u64 state;
	__u32 idx, cpu;
};

/*
 * Finds the key's entry, or counts the key in the sketch and promotes it by
 * its kind's thresholds; then steps this CPU's record into this slot and
 * flushes its byte counts early, before they can wrap. RW_TRACK with *tr
 * filled, else what the sketch decided (RW_PASS, RW_DROP). The main key and
 * every --rank key go through here.
 */
static __always_inline int rw_track(const struct rw_key *key, const struct rw_time *t, __u64 len,
				    struct rw_stats *st, struct rw_wslot *ws,
				    const struct rw_limit *lim, __u32 kind, bool sample,
				    struct rw_tracked *tr)
{
	__u64 h = rw_hash(key, cfg_hash_seed) & cfg_hash_mask; /* the only hash of this key */
	struct rw_where w = rw_where_of(h, cfg_nbuckets);
	__u32 j, cpu = bpf_get_smp_processor_id();
	__u64 state = 0;
	struct rw_entry *ent;
	struct rw_hot *f;
	int idx, ret;

	idx = rw_table_find(key, &w, &state);
	if (idx >= 0) {
		ent = bpf_map_lookup_elem(&keys, (__u32 *)&idx);
		j = cpu * cfg_entries + (__u32)idx;
		f = bpf_map_lookup_elem(&hot, &j);
		if (!ent || !f)
			return RW_PASS;
		/*
		 * The common case ends here: this slot, this generation (the entry's
		 * own epoch far behind this one means a record's low 32 bits came round).
		 */
		if ((f->epoch != (__u32)t->epoch || f->gen != rw_st_gen(state) ||
		     rw_st_epoch(state) + rw_lazy_slots(cfg_slots) <= t->epoch) &&
		    rw_enter_slot((__u32)idx, key, t, &state, st) < 0)
			idx = -1; /* removed under us: the packet is a newcomer's */
	}
	if (idx < 0) {
		ret = rw_untracked(key, h, w.home, t, t->slot, len, st, ws, lim, &idx, kind, sample);
		if (ret != RW_TRACK)
			return ret;
		ent = bpf_map_lookup_elem(&keys, (__u32 *)&idx);
		j = cpu * cfg_entries + (__u32)idx;
		f = bpf_map_lookup_elem(&hot, &j);
		if (!ent || !f)
			return RW_PASS;
		/* Matched again: its state, read now, must still be this key's. */
		if (!rw_entry_match((__u32)idx, key, &state) ||
		    rw_enter_slot((__u32)idx, key, t, &state, st) < 0)
			return RW_PASS;
	}
	/*
	 * 32-bit byte counts: flushed within the slot from half their range on,
	 * so that a flush that must wait (its history slot being restarted) is
	 * tried again by every packet, with 2 GiB of room meanwhile.
	 */
	if ((f->bytes | f->drop_bytes) & RW_HOT_FLUSH_MARK)
		rw_flush_early(f, (__u32)idx, t, state, len, st);
	*tr = (struct rw_tracked){ .ent = ent, .f = f, .state = state, .idx = (__u32)idx, .cpu = cpu };
	return RW_TRACK;
}

/*
 * The packet's verdict under the main key (--key): its rule, its entry or the
 * sketch, its limit, a ban, events. lim: the limits its rule gave it.
 */
static __always_inline bool rw_decide(struct xdp_md *ctx, struct rw_key *key,
				      const struct rw_time *t, __u64 len, struct rw_stats *st,
				      struct rw_wslot *ws, struct rw_limit *lim)
{
	struct rw_tracked tr;
	bool admit, banned;
	int ret;

	rw_rule_limits(ctx, key, lim, st);
	ret = rw_track(key, t, len, st, ws, lim, cfg_key_kind, true, &tr);
	if (ret == RW_PASS)
		return false;
	if (ret == RW_DROP)
		goto drop;
	banned = cfg_ban_ns && rw_banned(tr.ent, t->now, ws);
	/* Offered first: a refill's sum holds this packet, a concurrent one sees it once at least. */
	rw_offer(tr.f, len);
	admit = !lim->deny && !banned &&
		rw_admit(tr.f, tr.idx, tr.cpu, tr.state, t->now, t->epoch, len, lim, st);
	if (admit)
		return false;
	rw_drop(tr.f, len);
	/* Over its limit (not denied, not serving a ban): limited, and maybe banned. */
	if ((cfg_events || cfg_ban_ns) && !lim->deny && !banned)
		rw_limited(tr.ent, t->epoch, t->now, ws);
drop:
	ws->drop_packets++;
	ws->drop_bytes += len;
	st->dropped++;
	st->dropped_bytes += len;
	return true;
}

static const struct rw_limit rw_no_limit; /* a ranked kind's limits: none */

/*
 * --rank: every kind ranked beside the main one, each from the packet's flow
 * key. The keys live in this CPU's scratch line: the stack has no room left.
 */
static __always_inline void rw_rank_kinds(struct rw_scratch *sc, const struct rw_time *t,
					  __u64 len, struct rw_stats *st, struct rw_wslot *ws)
{
	struct rw_tracked tr;

	for (__u32 k = 0; k < RW_KIND_COUNT; k++) {
		if (!(cfg_rank_mask & (1u << k)))
			continue;
		rw_key_derive(&sc->flow, (__u8)k, &sc->ranked);
		rw_key_v6_cut(&sc->ranked, (__u8)k);
		sc->ranked.kind |= RW_KIND_RANKED;
		/* Counted, never limited: tracked or in the sketch, never dropped. */
		if (rw_track(&sc->ranked, t, len, st, ws, &rw_no_limit, k, false, &tr) == RW_TRACK) {
			tr.f->packets++;
			tr.f->bytes += (__u32)len;
		}
	}
}

SEC("xdp.frags")
int ratewall_xdp(struct xdp_md *ctx)
{
	__u64 len = ctx->data_end - ctx->data;
	__u32 zero = 0, ifi = rw_iface_index(ctx);
	struct rw_key k __attribute__((aligned(8))) = {};
	struct rw_key *key = &k;
	struct rw_scratch *sc;
	struct rw_wslot *ws;
	struct rw_stats *st;
	struct rw_limit lim;
	struct rw_time t;
	bool dropped;
	int ret;

	st = bpf_map_lookup_elem(&stats, &ifi);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!st || !sc)
		return XDP_PASS;
	/*
	 * The linear part is the whole frame whenever the IP datagram fits in it;
	 * only a frame that does not parse that way (a datagram running on into
	 * fragments, or no IP at all) pays for the helper that sums the fragments.
	 */
	ret = rw_parse_key(ctx, key, len);
	if (ret != RW_PARSE_OK) {
		__u64 whole = bpf_xdp_get_buff_len(ctx);

		if (whole != len) {
			len = whole;
			ret = rw_parse_key(ctx, key, len);
		}
	}
	st->rx_packets++;
	st->rx_bytes += len;

	if (ret == RW_PARSE_NOT_IP) {
		st->non_ip++;
		return XDP_PASS;
	}
	if (ret != RW_PARSE_OK) {
		/* No source to trust: never keyed; passed, or dropped as a class. */
		st->malformed++;
		if (!cfg_malformed_drop)
			return XDP_PASS;
		st->dropped++;
		st->dropped_bytes += len;
		return cfg_dry_run ? XDP_PASS : XDP_DROP;
	}

	rw_clock(sc, &t);
	ws = rw_window_slot(t.epoch, t.slot);
	if (!ws)
		return XDP_PASS;
	ws->packets++;
	ws->bytes += len;

	/* With --rank the parser filled in the whole flow: the main key is cut out of it. */
	if (cfg_rank_mask) {
		sc->flow = *key;
		rw_key_derive(&sc->flow, cfg_key_kind, key);
	}
	dropped = rw_decide(ctx, key, &t, len, st, ws, &lim);
	rw_rule_count(&lim, dropped);
	if (cfg_rank_mask)
		rw_rank_kinds(sc, &t, len, st, ws);
	return dropped && !cfg_dry_run ? XDP_DROP : XDP_PASS;
}
