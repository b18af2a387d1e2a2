/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sliding-window arithmetic: which slots are live, the packed history words,
 * and one tracked flow's sums. Plain C, no libc: usable from BPF programs and
 * userspace alike, so both sides read the same state by the same rules.
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

#define RW_HIST_TAG_MASK ((1ULL << RW_HIST_TAG_BITS) - 1)
#define RW_HIST_VALUE_MAX ((1ULL << RW_HIST_VALUE_BITS) - 1)

RW_INLINE __u64 rw_hist_pack(__u64 epoch, __u64 value)
{
	if (value > RW_HIST_VALUE_MAX)
		value = RW_HIST_VALUE_MAX;
	return ((epoch & RW_HIST_TAG_MASK) << RW_HIST_VALUE_BITS) | value;
}

RW_INLINE __u64 rw_hist_value(__u64 word)
{
	return word & RW_HIST_VALUE_MAX;
}

/*
 * The full epoch of a history word, seen from now_epoch: the tag is the low
 * bits, and a word is either from the last 2^23 rounds or at most two ahead
 * (a writer whose clock read came a moment later).
 */
RW_INLINE __u64 rw_hist_epoch(__u64 word, __u64 now_epoch)
{
	__u64 tag = word >> RW_HIST_VALUE_BITS;
	__u64 ahead = (tag - now_epoch) & RW_HIST_TAG_MASK;

	if (ahead <= 2)
		return now_epoch + ahead;
	return now_epoch - ((now_epoch - tag) & RW_HIST_TAG_MASK);
}

/* The count a word holds for the window ending at now_epoch (0 if stale or empty). */
RW_INLINE __u64 rw_hist_live(__u64 word, __u64 now_epoch, __u32 slots)
{
	if (!word || !rw_slot_live(rw_hist_epoch(word, now_epoch), now_epoch, slots))
		return 0;
	return rw_hist_value(word);
}

/* Adds one CPU's hot record to the sums. */
RW_INLINE void rw_window_add_hot(const struct rw_flow *f, __u32 slots, __u64 now_epoch,
				 struct rw_window_sum *out)
{
	if (!f->packets)
		return;
	if (f->epoch > out->newest_epoch)
		out->newest_epoch = f->epoch;
	if (!rw_slot_live(f->epoch, now_epoch, slots))
		return;
	out->packets += f->packets;
	out->bytes += f->bytes;
	out->drop_packets += f->drop_packets;
	out->drop_bytes += f->drop_bytes;
	out->cpus++;
}

/* Adds a flow's shared history (`slots` x RW_HIST_WORDS words) to the sums. */
RW_INLINE void rw_window_add_hist(const __u64 *w, __u32 slots, __u64 now_epoch,
				  struct rw_window_sum *out)
{
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		const __u64 *s = &w[i * RW_HIST_WORDS];
		__u64 e;

		if (i >= slots)
			break;
		if (!s[RW_H_PACKETS])
			continue;
		e = rw_hist_epoch(s[RW_H_PACKETS], now_epoch);
		if (e > out->newest_epoch)
			out->newest_epoch = e;
		out->packets += rw_hist_live(s[RW_H_PACKETS], now_epoch, slots);
		out->bytes += rw_hist_live(s[RW_H_BYTES], now_epoch, slots);
		out->drop_packets += rw_hist_live(s[RW_H_DROP_PACKETS], now_epoch, slots);
		out->drop_bytes += rw_hist_live(s[RW_H_DROP_BYTES], now_epoch, slots);
	}
}

/* Idle for a whole window: nothing live anywhere. */
RW_INLINE int rw_window_idle(const struct rw_window_sum *w, __u64 now_epoch, __u32 slots)
{
	return w->packets == 0 && !rw_slot_live(w->newest_epoch, now_epoch, slots);
}

_Static_assert(sizeof(struct rw_window_sum) == 48, "rw_window_sum layout");

#endif /* RATEWALL_WINDOW_H */
