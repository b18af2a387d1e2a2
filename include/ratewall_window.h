/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rules of age, in one place for the BPF program and the loader alike:
 * which slot is live, which round a record, a history slot or an entry state
 * belongs to, when an entry is idle, and one tracked flow's window sums.
 * Plain C, no libc.
 */
#ifndef RATEWALL_WINDOW_H
#define RATEWALL_WINDOW_H

#include "ratewall.h"

#ifndef RW_INLINE
#define RW_INLINE static inline __attribute__((always_inline))
#endif

struct rw_window_sum {
	__u64 packets;      /* offered, inside the window */
	__u64 bytes;
	__u64 drop_packets;
	__u64 drop_bytes;
	__u64 newest_epoch; /* newest slot with traffic (0: never) */
	__u32 cpus;         /* CPUs with traffic inside the window */
	__u32 pad;
};

/* Whether a slot of `epoch` lies in the window that ends at now_epoch. */
RW_INLINE int rw_slot_live(__u64 slot_epoch, __u64 now_epoch, __u32 slots)
{
	/* A CPU may already be a slot ahead of the reader: that slot counts too. */
	return slot_epoch + slots > now_epoch;
}

/* --- Entry state ---------------------------------------------------------------- */

RW_INLINE __u64 rw_st_epoch(__u64 state)
{
	return state & RW_ST_EPOCH_MASK;
}

RW_INLINE __u8 rw_st_gen(__u64 state)
{
	return (__u8)(state >> RW_ST_GEN_SHIFT);
}

RW_INLINE __u64 rw_st_make(__u64 epoch, __u8 gen, __u64 flags)
{
	return (epoch & RW_ST_EPOCH_MASK) | (__u64)gen << RW_ST_GEN_SHIFT | flags;
}

/* Holds a key that lookups may match. */
RW_INLINE int rw_st_live(__u64 state)
{
	return (state & (RW_ST_LIVE | RW_ST_BUSY)) == RW_ST_LIVE;
}

/*
 * Quiet: nothing any CPU counted for the entry can be in the window ending at
 * epoch, even a saturated record's counts carried up to rw_lazy_slots - 1
 * slots past the state (ratewall.h). A packet meeting a quiet entry starts its
 * counts over (a new generation).
 */
RW_INLINE int rw_st_quiet(__u64 state, __u64 epoch, __u32 slots)
{
	return rw_st_epoch(state) + slots + rw_lazy_slots(slots) <= epoch;
}

/*
 * Idle: quiet, with one slot to spare for a CPU whose clock read came a
 * moment earlier. Only an idle entry may be removed (by the loader) or taken
 * over (by a promotion that finds its buckets full), and only by a
 * compare-and-swap of the very state word this was decided on: a packet that
 * revives the entry changes that word first.
 */
RW_INLINE int rw_st_idle(__u64 state, __u64 now_epoch, __u32 slots)
{
	return rw_st_live(state) && rw_st_quiet(state, now_epoch - 1, slots) && now_epoch > 0;
}

/* --- Per-CPU records -------------------------------------------------------------- */

/*
 * How far a record may be ahead of an entry state read with it: a saturated
 * record runs up to rw_lazy_slots - 1 slots ahead of the state, a CPU's clock
 * up to a slot ahead of the reader's, and the loader may be held up between
 * reading the state and the records. Generous, and small beside 2^32.
 */
#define RW_HOT_AHEAD 256

/*
 * The full epoch of a record, from its low 32 bits and the entry's state
 * epoch: at most RW_HOT_AHEAD slots ahead of it, else behind it. A record of
 * a CPU that stopped seeing the flow falls behind while the other CPUs keep
 * the entry going in its generation, by up to 2^32 - RW_HOT_AHEAD - 1 slots
 * read right (at 1 ms slots, 49 days): read as +-2^31, one left behind for
 * longer than 2^31 slots (25 days) looked up to 2^31 slots ahead, live in
 * every window, its counts charged to its source again and its flush never
 * done. Only one left behind by a multiple of 2^32 slots, give or take
 * RW_HOT_AHEAD and a window, still looks recent: 32 bits cannot tell.
 */
RW_INLINE __u64 rw_hot_epoch(const struct rw_hot *f, __u64 entry_epoch)
{
	__u32 ahead = f->epoch - (__u32)entry_epoch, behind = (__u32)entry_epoch - f->epoch;

	if (ahead <= RW_HOT_AHEAD)
		return entry_epoch + ahead;
	/* Before the first slot: none was ever written there, the oldest slot will do. */
	return behind <= entry_epoch ? entry_epoch - behind : 0;
}

/*
 * The slot a record's counts are read as of: its epoch, or with drops carried
 * across slots (nothing admitted among them) the middle of those slots.
 */
RW_INLINE __u64 rw_hot_count_epoch(const struct rw_hot *f, __u64 e)
{
	__u32 carry = (f->flags & RW_HOT_CARRY_MASK) >> RW_HOT_CARRY_SHIFT;

	return carry && f->packets == f->drop_packets ? e - carry / 2 : e;
}

/* Whether a record's counts belong to the entry's current generation. */
RW_INLINE int rw_hot_current(const struct rw_hot *f, __u64 state)
{
	return f->gen == rw_st_gen(state) && (f->packets || f->flags);
}

/* --- History ------------------------------------------------------------------- */

/*
 * The round a history slot holds, read as a reader must: its epoch word
 * before and after the counts (ok = 0 if they differ, or a writer is
 * restarting it: the counts are then no round's). A slot being restarted held
 * a round that has left the window; the new round's counts are still in the
 * restarting CPU's record until the restart is done, and a reader that sums
 * records before history sees them there.
 */
RW_INLINE __u64 rw_hist_round(__u64 epoch_word)
{
	return epoch_word - 1;
}

RW_INLINE int rw_hist_held(__u64 epoch_word)
{
	return epoch_word != 0 && epoch_word != RW_HIST_BUSY;
}

/* --- A tracked flow's window --------------------------------------------------- */

/* Adds one CPU's record to the sums (state: the entry's, for its generation and newest epoch). */
RW_INLINE void rw_window_add_hot(const struct rw_hot *f, __u64 state, __u32 slots,
				 __u64 now_epoch, struct rw_window_sum *out)
{
	__u64 e;

	if (!f->packets || f->gen != rw_st_gen(state))
		return;
	e = rw_hot_epoch(f, rw_st_epoch(state));
	if (e > out->newest_epoch)
		out->newest_epoch = e;
	if (!rw_slot_live(rw_hot_count_epoch(f, e), now_epoch, slots))
		return;
	out->packets += f->packets;
	out->bytes += f->bytes;
	out->drop_packets += f->drop_packets;
	out->drop_bytes += f->drop_bytes;
	out->cpus++;
}

/* Adds one history slot to the sums. */
RW_INLINE void rw_window_add_hist_slot(const struct rw_hist_slot *h, __u32 slots, __u64 now_epoch,
				       struct rw_window_sum *out)
{
	__u64 w = *(volatile const __u64 *)&h->epoch, p, b, dp, db, e;

	if (!rw_hist_held(w))
		return;
	p = h->packets;
	b = h->bytes;
	dp = h->drop_packets;
	db = h->drop_bytes;
	if (*(volatile const __u64 *)&h->epoch != w)
		return;
	e = rw_hist_round(w);
	if (e > out->newest_epoch)
		out->newest_epoch = e;
	if (!rw_slot_live(e, now_epoch, slots))
		return;
	out->packets += p;
	out->bytes += b;
	out->drop_packets += dp;
	out->drop_bytes += db;
}

/* Idle for a whole window: nothing live anywhere. */
RW_INLINE int rw_window_idle(const struct rw_window_sum *w, __u64 now_epoch, __u32 slots)
{
	return w->packets == 0 && !rw_slot_live(w->newest_epoch, now_epoch, slots);
}

_Static_assert(sizeof(struct rw_window_sum) == 48, "rw_window_sum layout");

#endif /* RATEWALL_WINDOW_H */
