/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Races played out by the tests (struct rw_race): at a point of the data path
 * where another CPU's writes could land, a test load makes the writes the
 * test planted (a word stored, or added to; or a while spent, as a slow CPU
 * would), so that the race has one outcome, every run. Any other load
 * has cfg_test_clock false in its rodata: the verifier drops the call.
 */
#ifndef RW_BPF_RACE_H
#define RW_BPF_RACE_H

#include "maps.h"

/* The 64-byte line a race writes into; NULL for none (a hot record is 32 bytes: its own case). */
static __always_inline __u8 *rw_race_line(__u32 line, __u32 index)
{
	if (line == RW_RACE_KEYS)
		return bpf_map_lookup_elem(&keys, &index);
	if (line == RW_RACE_DIR)
		return bpf_map_lookup_elem(&dir, &index);
	if (line == RW_RACE_PACE)
		return (__u8 *)rw_pace_of(index);
	return NULL;
}

static long rw_race_spin_cb(__u32 i, void *data)
{
	return 0;
}

/* Global: verified once, however many points call it. */
__noinline int rw_race_writes(__u32 point)
{
	if (test_race.point != point)
		return 0;
	if (test_race.passes > 1) {
		test_race.passes--;
	} else {
		test_race.point = test_race.next;
		test_race.passes = test_race.next_passes;
		test_race.next = RW_RACE_NONE;
	}
	for (__u32 i = 0; i < RW_RACE_WRITES; i++) {
		struct rw_race_write *w = &test_race.w[i];
		__u32 off;
		__u8 *p;

		if (i >= test_race.nr)
			break;
		if (w->op == RW_RACE_SPIN) {
			bpf_loop(w->val < (1U << 23) ? (__u32)w->val : (1U << 23), rw_race_spin_cb, NULL, 0);
			continue;
		}
		if (w->line == RW_RACE_HOT) {
			p = bpf_map_lookup_elem(&hot, &w->index);
			off = w->off & 24;
		} else {
			p = rw_race_line(w->line, w->index);
			off = w->off & 56;
		}
		if (p && w->op == RW_RACE_ADD)
			__sync_fetch_and_add((__u64 *)(p + off), w->val);
		else if (p)
			__sync_lock_test_and_set((__u64 *)(p + off), w->val);
	}
	return 1;
}

static __always_inline void rw_race(__u32 point)
{
	if (cfg_test_clock)
		rw_race_writes(point);
}

#endif /* RW_BPF_RACE_H */
