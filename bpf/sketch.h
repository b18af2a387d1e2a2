/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The untracked tier: a per-CPU, slot-bucketed count-min sketch that every
 * keyed packet of an untracked source bumps (two buckets, one cache line
 * each at up to 13 slots), its noise floor, and what a promoted source
 * inherits from it. A bucket from an older round is recognised by its epoch
 * and cleared by the writer: nobody else ever writes a CPU's buckets.
 */
#ifndef RW_BPF_SKETCH_H
#define RW_BPF_SKETCH_H

#include "maps.h"
#include "ratewall_hash.h"
#include "ratewall_window.h"

#define RW_U32_MAX 0xffffffffU

struct rw_est {
	__u64 packets;
	__u64 bytes;
};

static __always_inline __u32 rw_bucket_index(__u32 cpu, __u32 row, __u64 h)
{
	return (cpu * RW_SKETCH_ROWS + row) * RW_SKETCH_COLS + rw_sketch_col(h, row);
}

/* A slot's two counts inside a bucket, bounds checked where the pointer is formed. */
static __always_inline __u16 *rw_bucket_counts(struct rw_bucket *b, __u32 slot)
{
	asm volatile("" : "+r"(slot));
	if (slot >= cfg_slots || slot >= RW_MAX_SLOTS)
		return NULL;
	return &b->count[2 * slot];
}

/*
 * Moves bucket idx to `epoch`: the slots it skipped hold rounds that left the
 * window, so they are cleared, and the running sums are recounted. Once a
 * slot per bucket, so a global function: its loop is verified once, not on
 * every path that counts a packet.
 */
__noinline int rw_bucket_advance(__u32 idx, __u64 epoch)
{
	struct rw_bucket *b = bpf_map_lookup_elem(&sketch, &idx);
	__u32 gap, first, packets = 0, units = 0;

	if (!b)
		return 0;
	gap = (__u32)epoch - b->epoch;
	if (gap == 0)
		return 0;
	/* The slots of rounds newest+1 .. epoch start at `first`, gap of them in a row. */
	first = rw_slot_index(epoch - gap + 1);
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u16 *c = rw_bucket_counts(b, i);

		if (!c)
			break;
		if (gap >= cfg_slots || (i + cfg_slots - first) % cfg_slots < gap) {
			c[0] = 0;
			c[1] = 0;
			continue;
		}
		packets += c[0];
		units += c[1];
	}
	b->win_packets = packets;
	b->win_units = units;
	b->epoch = (__u32)epoch;
	return 0;
}

/* Counts a packet in one bucket of this CPU and returns its window estimates (0: no bucket). */
static __always_inline int rw_bucket_add(__u32 idx, __u64 epoch, __u32 slot, __u32 units,
					 struct rw_est *est)
{
	struct rw_bucket *b = bpf_map_lookup_elem(&sketch, &idx);
	__u16 *c;

	if (!b)
		return 0;
	if (b->epoch != (__u32)epoch)
		rw_bucket_advance(idx, epoch);
	c = rw_bucket_counts(b, slot);
	if (!c)
		return 0;
	if (c[0] != RW_SKETCH_MAX) {
		c[0]++;
		b->win_packets++;
	}
	units = units > RW_SKETCH_MAX - c[1] ? RW_SKETCH_MAX - c[1] : units;
	c[1] += (__u16)units;
	b->win_units += units;
	est->packets = b->win_packets;
	est->bytes = (__u64)b->win_units << RW_BYTE_UNIT_LOG2;
	return 1;
}

/* Where a packet is counted in this CPU's sketch. */
struct rw_sketch_at {
	__u32 i0, i1; /* its bucket in each row */
	__u32 slot;
	__u32 units;
	__u64 epoch;
};

/*
 * Counts a packet in both rows and returns the count-min window estimates
 * (0 if a bucket cannot be had). Inlined: a BPF-to-BPF call costs about what
 * both bucket updates cost.
 */
static __always_inline int rw_sketch_add(const struct rw_sketch_at *at, struct rw_est *est)
{
	struct rw_est r0 = {}, r1 = {};

	if (!rw_bucket_add(at->i0, at->epoch, at->slot, at->units, &r0) ||
	    !rw_bucket_add(at->i1, at->epoch, at->slot, at->units, &r1))
		return 0;
	est->packets = r0.packets < r1.packets ? r0.packets : r1.packets;
	est->bytes = r0.bytes < r1.bytes ? r0.bytes : r1.bytes;
	return 1;
}

/*
 * Takes back a packet rw_sketch_add just counted in the current slot, for a
 * packet dropped at the cap: the sketch then holds what was admitted, as a
 * tracked flow's window does, and a source held at its cap gets budget back as
 * the window slides (with no room to track it, and no loader to make room, it
 * would otherwise be shut out for as long as it sends). A saturated count stays.
 */
__noinline int rw_bucket_undo(__u32 idx, __u32 slot, __u32 units)
{
	struct rw_bucket *b = bpf_map_lookup_elem(&sketch, &idx);
	__u16 *c;

	if (!b)
		return 0;
	c = rw_bucket_counts(b, slot);
	if (!c)
		return 0;
	if (c[0] != RW_SKETCH_MAX && c[0]) {
		c[0]--;
		b->win_packets--;
	}
	if (c[1] != RW_SKETCH_MAX) {
		units = units > c[1] ? c[1] : units;
		c[1] -= (__u16)units;
		b->win_units -= units;
	}
	return 1;
}

/* The counts a bucket holds for round `epoch` (0 if it holds another round there). */
static __always_inline void rw_bucket_count(struct rw_bucket *b, __u64 epoch, __u64 *packets,
					    __u64 *units)
{
	__u16 *c = NULL;

	if ((__u32)(b->epoch - (__u32)epoch) < cfg_slots)
		c = rw_bucket_counts(b, rw_slot_index(epoch));
	*packets = c ? c[0] : 0;
	*units = c ? c[1] : 0;
}

/*
 * Sums the sketch traffic of this CPU's other live slots into the current
 * slot's entry. They cannot change during the slot (this CPU writes only the
 * current one), so this runs once per slot and CPU, not per packet. Global:
 * its loop is verified once.
 */
__noinline int rw_take_noise(struct rw_wslot *ws, __u64 epoch)
{
	__u64 packets = 0, bytes = 0;

	if (!ws)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u32 idx = i;
		struct rw_wslot *w;

		if (i >= cfg_slots)
			break;
		w = bpf_map_lookup_elem(&window, &idx);
		if (w && w->epoch != epoch && rw_slot_live(w->epoch, epoch, cfg_slots)) {
			packets += w->sketch_packets;
			bytes += w->sketch_bytes;
		}
	}
	ws->earlier_sketch_packets = packets;
	ws->earlier_sketch_bytes = bytes;
	ws->noise_epoch = epoch + 1;
	return 0;
}

/*
 * Whether an estimate clears twice the count-min noise of this CPU's window:
 * what the sketch counted on this CPU over the live slots, spread over a row.
 * The loader's thresholds follow the last tick; this follows a flood that
 * began since, or a loader that is gone.
 */
static __always_inline bool rw_above_noise(struct rw_wslot *ws, __u64 epoch, __u64 est_packets,
					   __u64 est_bytes)
{
	if (ws->noise_epoch != epoch + 1)
		rw_take_noise(ws, epoch);
	return est_packets >= ((ws->earlier_sketch_packets + ws->sketch_packets) >>
			       (RW_SKETCH_COLS_LOG2 - 1)) + 2 &&
	       est_bytes >= ((ws->earlier_sketch_bytes + ws->sketch_bytes) >> (RW_SKETCH_COLS_LOG2 - 1));
}

/* --- Inheritance: what every CPU's sketch counted for a source being promoted ----- */

struct rw_inherit_ctx {
	__u64 h;
	__u64 epoch;
};

/*
 * Adds the count-min estimate of buckets i0 and i1 (one CPU's two rows), per
 * live slot, to this CPU's scratch sums. Global: its loop is verified once,
 * not once for every path through the caller.
 */
__noinline int rw_inherit_buckets(__u32 i0, __u32 i1, __u64 epoch)
{
	struct rw_bucket *b0 = bpf_map_lookup_elem(&sketch, &i0);
	struct rw_bucket *b1 = bpf_map_lookup_elem(&sketch, &i1);
	struct rw_scratch *acc;
	__u32 zero = 0;

	acc = bpf_map_lookup_elem(&scratch, &zero);
	if (!acc || !b0 || !b1)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u64 e = epoch - i, p0, p1, u0, u1;
		__u32 s;

		if (i >= cfg_slots || i > epoch)
			break;
		rw_bucket_count(b0, e, &p0, &u0);
		rw_bucket_count(b1, e, &p1, &u1);
		s = rw_slot_index(e);
		acc->packets[s] += p0 < p1 ? p0 : p1;
		acc->bytes[s] += (u0 < u1 ? u0 : u1) << RW_BYTE_UNIT_LOG2;
	}
	return 0;
}

static long rw_inherit_cpu(__u32 cpu, void *data)
{
	struct rw_inherit_ctx *ctx = data;

	rw_inherit_buckets(rw_bucket_index(cpu, 0, ctx->h), rw_bucket_index(cpu, 1, ctx->h),
			   ctx->epoch);
	return 0;
}

/*
 * Per-slot sums of every CPU's sketch for the key hashed to h, less the packet
 * being processed (the tracked path counts that one), in this CPU's scratch.
 * Collisions can only inflate them, which makes a promoted source admit less,
 * never more.
 */
static __always_inline struct rw_scratch *rw_inherit_sums(__u64 h, __u64 epoch, __u32 units)
{
	struct rw_inherit_ctx ctx = { .h = h, .epoch = epoch };
	struct rw_scratch *acc;
	__u32 zero = 0, now;

	acc = bpf_map_lookup_elem(&scratch, &zero);
	if (!acc)
		return NULL;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		acc->packets[i] = 0;
		acc->bytes[i] = 0;
	}
	bpf_loop(cfg_nr_cpus, rw_inherit_cpu, &ctx, 0);
	now = rw_slot_index(epoch);
	acc->packets[now] -= acc->packets[now] ? 1 : 0;
	units <<= RW_BYTE_UNIT_LOG2;
	acc->bytes[now] -= acc->bytes[now] > units ? units : acc->bytes[now];
	return acc;
}

#endif /* RW_BPF_SKETCH_H */
