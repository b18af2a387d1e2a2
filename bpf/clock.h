/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The data path's time: a monotonic clock, the slot (epoch) it falls in and
 * the window's totals of that slot. The coarse clock only moves when jiffies
 * do, so it is read once a jiffy per CPU and kept in scratch with its epoch:
 * the common packet pays one inlined load of jiffies, no helper call and no
 * division. The precise clock (short slots) is read every packet.
 */
#ifndef RW_BPF_CLOCK_H
#define RW_BPF_CLOCK_H

#include "maps.h"

struct rw_time {
	__u64 now;   /* ns on the program's clock (what the loader reads as well) */
	__u64 epoch; /* now / slot length */
	__u32 slot;  /* epoch % slots: the index every per-slot array takes */
};

static __always_inline void rw_time_at(struct rw_time *t, __u64 now)
{
	t->now = now;
	t->epoch = now / cfg_slot_ns;
	t->slot = rw_slot_index(t->epoch);
}

static __always_inline void rw_clock(struct rw_scratch *sc, struct rw_time *t)
{
	__u64 j;

	if (cfg_test_clock) {
		rw_time_at(t, test_clock_ns);
		return;
	}
	if (!cfg_coarse_clock) {
		rw_time_at(t, bpf_ktime_get_ns());
		return;
	}
	/* Two divisions and a helper call once a jiffy, not once a packet. */
	j = bpf_jiffies64();
	if (sc->jiffies != j || !sc->now_ns) {
		rw_time_at(t, bpf_ktime_get_coarse_ns());
		sc->jiffies = j;
		sc->now_ns = t->now;
		sc->epoch = t->epoch;
		sc->slot = t->slot;
		return;
	}
	t->now = sc->now_ns;
	t->epoch = sc->epoch;
	t->slot = sc->slot < RW_MAX_SLOTS ? (__u32)sc->slot : 0;
}

/* a - b, or 0 below it: a count less what was taken out of it. */
static __always_inline __u64 rw_sub_floor(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* This CPU's window totals for the slot of this epoch (every keyed packet counts there). */
static __always_inline struct rw_wslot *rw_window_slot(__u64 epoch, __u32 idx)
{
	struct rw_wslot *ws = bpf_map_lookup_elem(&window, &idx);

	/* A slot still holding an older round starts over: every field belongs to its round. */
	if (ws && ws->epoch != epoch)
		*ws = (struct rw_wslot){ .epoch = epoch };
	return ws;
}

#endif /* RW_BPF_CLOCK_H */
