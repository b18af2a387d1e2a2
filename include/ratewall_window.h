/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sliding-window arithmetic: which slots are live, and one flow's sums across
 * CPUs. Plain C, no libc: usable from BPF programs and userspace alike.
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
	__u64 newest_epoch; /* newest slot with traffic on any CPU (0: never) */
	__u32 cpus;         /* CPUs with traffic inside the window */
	__u32 pad;
};

/* Whether a slot of `epoch` lies in the window that ends at now_epoch. */
RW_INLINE int rw_slot_live(__u64 slot_epoch, __u64 now_epoch, __u32 slots)
{
	/* A CPU may already be a slot ahead of the reader: that slot counts too. */
	return slot_epoch + slots > now_epoch;
}

/* Adds one CPU's value of a flow to the sums. */
RW_INLINE void rw_window_add_cpu(const struct rw_flow *f, __u32 slots, __u64 now_epoch,
				 struct rw_window_sum *out)
{
	int active = 0;

	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		const struct rw_slot *s = &f->slot[i];

		if (i >= slots)
			break;
		if (s->epoch > out->newest_epoch && (s->packets || s->drop_packets))
			out->newest_epoch = s->epoch;
		if (!rw_slot_live(s->epoch, now_epoch, slots) || s->packets == 0)
			continue;
		out->packets += s->packets;
		out->bytes += s->bytes;
		out->drop_packets += s->drop_packets;
		out->drop_bytes += s->drop_bytes;
		active = 1;
	}
	out->cpus += active;
}

/* Idle for a whole window: nothing live on any CPU. */
RW_INLINE int rw_window_idle(const struct rw_window_sum *w, __u64 now_epoch, __u32 slots)
{
	return w->packets == 0 && !rw_slot_live(w->newest_epoch, now_epoch, slots);
}

_Static_assert(sizeof(struct rw_window_sum) == 48, "rw_window_sum layout");

#endif /* RATEWALL_WINDOW_H */
