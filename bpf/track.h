/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A key's packet brought to its entry: found in the table (table.h), or
 * counted by the untracked tier (untracked.h), which may promote the key;
 * then this CPU's record of the entry steps into the packet's slot, and its
 * 32-bit byte counts go to the history (history.h) early, before they can
 * wrap. The main key and every --rank key are tracked here; what an entry's
 * packet meets next (a ban, its limit) is the caller's.
 */
#ifndef RW_BPF_TRACK_H
#define RW_BPF_TRACK_H

#include "maps.h"
#include "clock.h"
#include "history.h"
#include "table.h"
#include "untracked.h"

/*
 * A record's byte counts past RW_HOT_FLUSH_MARK go to the history now. If
 * the flush must wait, the next packet tries again; only a record that
 * reaches the top still waiting (2 GiB later: a CPU stopped in the middle
 * of a restart) stays at the top, this packet's bytes partly uncounted,
 * rather than wrap and lose 4 GiB of its window.
 */
static __always_inline void rw_flush_early(struct rw_hot *f, __u32 idx, const struct rw_time *t,
					   __u64 len, struct rw_stats *st)
{
	__u64 state = rw_entry_state(idx);

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

/*
 * A key's entry and this CPU's record of it, stepped into this slot. Only the
 * index of the entry: a packet reads its line only for a ban or an event
 * (rw_entry_at), and the frame it is kept in sits under the verifier's limit.
 */
struct rw_tracked {
	struct rw_hot *f;
	__u32 idx;
};

/* The entry's line, for a ban or an event (NULL only if idx is out of the map). */
static __always_inline struct rw_entry *rw_entry_at(__u32 idx)
{
	return bpf_map_lookup_elem(&keys, &idx);
}

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
	struct rw_hot *f;
	int idx, ret;

	/* This slot's record of the key on this CPU: no line of `keys` read. */
	idx = rw_find_current(w.home, w.tag, cpu, t->epoch);
	if (idx >= 0)
		goto tracked;
	if (idx != RW_NOT_TRACKED)
		idx = rw_table_find(key, &w, &state, false);
	else
		idx = -1;
	if (idx >= 0) {
		j = cpu * cfg_entries + (__u32)idx;
		f = bpf_map_lookup_elem(&hot, &j);
		if (!f)
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
		/* Matched again: its state, read now, must still be this key's. */
		if (!rw_match_promoted((__u32)idx, key, &state) ||
		    rw_enter_slot((__u32)idx, key, t, &state, st) < 0)
			return RW_PASS;
	}
tracked:
	j = cpu * cfg_entries + (__u32)idx;
	f = bpf_map_lookup_elem(&hot, &j);
	if (!f)
		return RW_PASS;
	/*
	 * 32-bit byte counts: flushed within the slot from half their range on,
	 * so that a flush that must wait (its history slot being restarted) is
	 * tried again by every packet, with 2 GiB of room meanwhile.
	 */
	if ((f->bytes | f->drop_bytes) & RW_HOT_FLUSH_MARK)
		rw_flush_early(f, (__u32)idx, t, len, st);
	*tr = (struct rw_tracked){ .f = f, .idx = (__u32)idx };
	return RW_TRACK;
}

#endif /* RW_BPF_TRACK_H */
