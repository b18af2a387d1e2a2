/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A tracked flow's history: per slot, what every CPU flushed for that slot's
 * round. A CPU flushes its record once a slot (and early, within a slot,
 * once its 32-bit byte counts are past RW_HOT_FLUSH_MARK); a flush adds in
 * place when the slot holds its round, and restarts a slot that holds an
 * older one. Nothing is ever zeroed that was not written: a flush that cannot
 * complete leaves the counts in the record for the next packet. Inlined
 * throughout: a flush is a cache line or two, and a BPF-to-BPF call would
 * cost a good part of it.
 */
#ifndef RW_BPF_HISTORY_H
#define RW_BPF_HISTORY_H

#include "maps.h"
#include "ratewall_window.h"

/*
 * The history slot of round e in entry idx, given the current epoch's slot
 * index (e at most a window back): no division, bounds checked where the
 * pointer is formed.
 */
static __always_inline struct rw_hist_slot *rw_hist_at(__u32 idx, __u64 epoch, __u32 slot,
						       __u64 e)
{
	struct rw_hist_slot *h = bpf_map_lookup_elem(&hist, &idx);
	__u32 back = (__u32)(epoch - e), s = slot >= back ? slot - back : slot + cfg_slots - back;

	asm volatile("" : "+r"(s));
	if (!h || back >= cfg_slots || s >= cfg_slots || s >= RW_MAX_SLOTS)
		return NULL;
	return &h[s];
}

/* Counts added to a history slot: a record's, or what a new entry inherits (no drops). */
struct rw_hist_counts {
	__u64 packets, bytes, drop_packets, drop_bytes;
};

/*
 * Adds counts of round e to a history slot, tries times at most. 1: done
 * (or the slot already holds a newer round: these counts have left the
 * window); 0: another CPU is restarting the slot.
 */
static __always_inline int rw_hist_add_counts(struct rw_hist_slot *s, __u64 e,
					      const struct rw_hist_counts *c, int tries)
{
	for (int i = 0; i < tries; i++) {
		__u64 w = *(volatile __u64 *)&s->epoch;

		if (w == e + 1) {
			__sync_fetch_and_add(&s->packets, c->packets);
			__sync_fetch_and_add(&s->bytes, c->bytes);
			if (c->drop_packets) {
				__sync_fetch_and_add(&s->drop_packets, c->drop_packets);
				__sync_fetch_and_add(&s->drop_bytes, c->drop_bytes);
			}
			return 1;
		}
		if (w == RW_HIST_BUSY)
			continue;
		if (w > e + 1)
			return 1;
		/* Empty, or an older round: this CPU restarts it, alone while it is busy. */
		if (__sync_val_compare_and_swap(&s->epoch, w, RW_HIST_BUSY) != w)
			continue;
		s->packets = c->packets;
		s->bytes = c->bytes;
		s->drop_packets = c->drop_packets;
		s->drop_bytes = c->drop_bytes;
		__sync_lock_test_and_set(&s->epoch, e + 1); /* a full barrier: counts before the round */
		return 1;
	}
	return 0;
}

/* A record's counts of round e into a history slot; 0: try again at the next packet. */
static __always_inline int rw_hist_add(struct rw_hist_slot *s, __u64 e, const struct rw_hot *f)
{
	struct rw_hist_counts c = { f->packets, f->bytes, f->drop_packets, f->drop_bytes };

	return rw_hist_add_counts(s, e, &c, 4);
}

/*
 * What a new entry inherits for round e, into a history slot that other
 * CPUs may already flush into (the entry is live). 0: a restart outlasted
 * the tries.
 */
static __always_inline int rw_hist_add_inherited(struct rw_hist_slot *s, __u64 e, __u64 packets,
						 __u64 bytes)
{
	struct rw_hist_counts c = { packets, bytes, 0, 0 };

	return rw_hist_add_counts(s, e, &c, 16);
}

/* Moves a record's counts (of round e) into entry idx's history; 1 when they are there. */
static __always_inline int rw_flush(struct rw_hot *f, __u32 idx, __u64 epoch, __u32 slot, __u64 e)
{
	/* Carried drops go to the middle of the slots they came in (rw_hot_count_epoch). */
	__u64 at = rw_hot_count_epoch(f, e);
	struct rw_hist_slot *s;

	if (rw_slot_live(at, epoch, cfg_slots)) {
		s = rw_hist_at(idx, epoch, slot, at);
		if (!s || !rw_hist_add(s, at, f))
			return 0;
	} /* else: they have left the window already */
	f->packets = 0;
	f->bytes = 0;
	f->drop_packets = 0;
	f->drop_bytes = 0;
	f->flags &= RW_HOT_STATE_MASK;
	return 1;
}

#endif /* RW_BPF_HISTORY_H */
