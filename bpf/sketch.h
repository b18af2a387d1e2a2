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
#include "crowd.h"

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
 * Counts a packet in both rows and returns each row's window counts (0 if a
 * bucket cannot be had). Inlined: a BPF-to-BPF call costs about what both
 * bucket updates cost.
 */
static __always_inline int rw_sketch_add(const struct rw_sketch_at *at, struct rw_est *r0,
					 struct rw_est *r1)
{
	return rw_bucket_add(at->i0, at->epoch, at->slot, at->units, r0) &&
	       rw_bucket_add(at->i1, at->epoch, at->slot, at->units, r1);
}

/* What a source inherits is estimated in sixteenths: the noise of a slot is often a fraction. */
#define RW_OWN_FRAC_LOG2 4

/*
 * A source's own count in sixteenths, for what it inherits, from its two
 * rows' counts a and b and the load of that CPU's buckets: the rows' mean
 * less the noise (the smaller row would be low by about half the spread of
 * the noise, every time). The rows differ by that spread, a fraction of the
 * noise under a wide flood; when they differ by more, the larger holds
 * another source's traffic, and the smaller (plus a quarter of the noise,
 * where the mean would stand) is taken instead. The noise in sixteenths:
 * where it is less than a packet (a few thousand packets a CPU), whole
 * packets would leave each promotion the part of a packet it is, and a
 * quick succession of promotions (thousands, as a flood begins) adds them
 * up. Signed: below zero where the buckets hold less than the average.
 */
static __always_inline __s64 rw_own_of(__u64 a, __u64 b, __u64 load)
{
	__u64 noise = load >> (RW_SKETCH_COLS_LOG2 - RW_OWN_FRAC_LOG2);
	__u64 lo = (a < b ? a : b) << RW_OWN_FRAC_LOG2, mean = (a + b) << (RW_OWN_FRAC_LOG2 - 1);

	if (mean > lo + noise / 4)
		mean = lo + noise / 4;
	return (__s64)mean - (__s64)noise;
}

/*
 * Takes packets (and byte units) back out of slot `slot` of bucket idx, no
 * more than it holds; a saturated count stays. For a packet dropped at the
 * cap, which rw_sketch_add just counted: the sketch then holds what was
 * admitted, as a tracked flow's window does, and a source held at its cap
 * gets budget back as the window slides (with no room to track it, and no
 * loader to make room, it would otherwise be shut out for as long as it
 * sends). And for what a promoted source inherits (rw_take_inherited).
 */
static __always_inline int rw_bucket_take_in(__u32 idx, __u32 slot, __u32 packets, __u32 units)
{
	struct rw_bucket *b = bpf_map_lookup_elem(&sketch, &idx);
	__u16 *c;

	if (!b)
		return 0;
	c = rw_bucket_counts(b, slot);
	if (!c)
		return 0;
	if (c[0] != RW_SKETCH_MAX) {
		packets = packets > c[0] ? c[0] : packets;
		c[0] -= (__u16)packets;
		b->win_packets -= packets;
	}
	if (c[1] != RW_SKETCH_MAX) {
		units = units > c[1] ? c[1] : units;
		c[1] -= (__u16)units;
		b->win_units -= units;
	}
	return 1;
}

/* The cap's: a global function, out of the packet path's code. */
__noinline int rw_bucket_take(__u32 idx, __u32 slot, __u32 packets, __u32 units)
{
	return rw_bucket_take_in(idx, slot, packets, units);
}

/* A bucket's counts of round `epoch`, or NULL when it holds another round there. */
static __always_inline __u16 *rw_bucket_round(struct rw_bucket *b, __u64 epoch)
{
	if ((__u32)(b->epoch - (__u32)epoch) >= cfg_slots)
		return NULL;
	return rw_bucket_counts(b, rw_slot_index(epoch));
}

/*
 * Sums the sketch load of this CPU's other live slots into the current
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
			packets += rw_wslot_load(w);
			bytes += rw_wslot_load_bytes(w);
		}
	}
	ws->earlier_sketch_packets = packets;
	ws->earlier_sketch_bytes = bytes;
	ws->noise_epoch = epoch + 1;
	return 0;
}

/*
 * A source's own share of its counts on this CPU, for deciding on it, into
 * *est, which holds its row 0's window counts (r1: row 1's; in place: the
 * packet path's stack is full): the smaller less the noise of this CPU's
 * window, never below zero. The smaller row is what both must exceed, so a
 * flood's spread alone rarely reaches a threshold (the count-min rule, with
 * the noise taken out); the noise follows a flood that began since the
 * loader's last tick, or a loader that is gone. *load_p, *load_b: the load
 * of this CPU's buckets over the window, which that noise is of.
 */
static __always_inline void rw_own_estimate(struct rw_wslot *ws, __u64 epoch, struct rw_est *est,
					    const struct rw_est *r1, __u64 *load_p, __u64 *load_b)
{
	if (ws->noise_epoch != epoch + 1)
		rw_take_noise(ws, epoch);
	*load_p = ws->earlier_sketch_packets + rw_wslot_load(ws);
	*load_b = ws->earlier_sketch_bytes + rw_wslot_load_bytes(ws);
	est->packets = rw_sub_floor(est->packets < r1->packets ? est->packets : r1->packets,
				    rw_sketch_noise(*load_p));
	est->bytes = rw_sub_floor(est->bytes < r1->bytes ? est->bytes : r1->bytes,
				  rw_sketch_noise(*load_b));
}

/*
 * Whether an own estimate stands clear of the noise: its smaller row at
 * least twice the noise, plus two packets, so that the spread of a flood's
 * buckets around their mean promotes none of its sources. In sixteenths of
 * a packet: below a packet a bucket (fewer untracked packets on this CPU
 * than it has buckets) the noise in whole packets is 0, and a light
 * source's packet whose buckets each held one packet of others (one in
 * seven at half a packet a bucket) stood two packets clear of it.
 */
static __always_inline bool rw_above_noise(const struct rw_est *own, __u64 load_p, __u64 load_b)
{
	__u64 noise16 = load_p >> (RW_SKETCH_COLS_LOG2 - RW_OWN_FRAC_LOG2);
	__u64 rows16 = (own->packets + rw_sketch_noise(load_p)) << RW_OWN_FRAC_LOG2;

	return rows16 >= 2 * noise16 + (2 << RW_OWN_FRAC_LOG2) &&
	       own->bytes >= rw_sketch_noise(load_b);
}

/* --- Inheritance: what every CPU's sketch counted for a source being promoted ----- */

struct rw_inherit_ctx {
	__u64 h;
	__u64 epoch;
};

/*
 * Slot `e`'s own estimate of the source in the buckets and CPU named in
 * scratch (own.i0, own.i1, own.cpu), into own.packets and own.units, in
 * sixteenths: its counts there with that CPU's noise in that slot taken out
 * (rw_own_of; no noise when the CPU's window entry holds another round: the
 * buckets then hold nothing of it either). Global: the verifier checks it
 * once, not in every iteration of its callers' loops.
 */
__noinline int rw_slot_own(__u64 e)
{
	__u32 zero = 0, s = rw_slot_index(e), i0, i1;
	struct rw_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	__u64 load_p = 0, load_u = 0;
	struct rw_bucket *b0, *b1;
	struct rw_wslot *w;
	__u16 *c0, *c1;

	if (!sc)
		return 0;
	sc->own.packets = 0;
	sc->own.units = 0;
	i0 = sc->own.i0;
	i1 = sc->own.i1;
	b0 = bpf_map_lookup_elem(&sketch, &i0);
	b1 = bpf_map_lookup_elem(&sketch, &i1);
	if (!b0 || !b1)
		return 0;
	c0 = rw_bucket_round(b0, e);
	c1 = rw_bucket_round(b1, e);
	if (!c0 || !c1)
		return 0;
	w = bpf_map_lookup_percpu_elem(&window, &s, sc->own.cpu);
	if (w && w->epoch == e) {
		load_p = rw_wslot_load(w);
		load_u = rw_wslot_load_bytes(w) >> RW_BYTE_UNIT_LOG2;
	}
	if (sc->crowd_raw) {
		sc->own.packets = (__s64)(c0[0] < c1[0] ? c0[0] : c1[0]) << RW_OWN_FRAC_LOG2;
		sc->own.units = (__s64)(c0[1] < c1[1] ? c0[1] : c1[1]) << RW_OWN_FRAC_LOG2;
		return 0;
	}
	sc->own.packets = rw_own_of(c0[0], c1[0], load_p);
	sc->own.units = rw_own_of(c0[1], c1[1], load_u);
	return 0;
}

/* Scales a slot's positive own estimate so that the slots add up to the window's. */
static __always_inline __u64 rw_scaled(__s64 v, __s64 window, __u64 positive)
{
	return v > 0 && window > 0 && positive ? (__u64)v * (__u64)window / positive : 0;
}

/*
 * What a source promoted on this CPU inherits from this CPU's buckets in
 * round e leaves them: otherwise its count would stay there for the rest of
 * the window, and a source that shares both its buckets with promoted
 * sources (one in a few thousand under a flood, against ten heavy sources)
 * would be promoted with their counts and shown as a heavy source. It
 * leaves the round's load with it (taken_*, and the current slot's sum of
 * the earlier ones), so the noise stays what the buckets hold. Another
 * CPU's buckets are that CPU's alone to write: what the source left there
 * stays.
 */
static __always_inline void rw_take_inherited(struct rw_scratch *sc)
{
	struct rw_wslot *w, *ws;

	/* Map keys in the scratch line, not on the stack: the insert's call chain filled it. */
	sc->own.key = rw_slot_index(sc->own.round);
	w = bpf_map_lookup_elem(&window, &sc->own.key);
	sc->own.key = rw_slot_index(sc->epoch);
	ws = bpf_map_lookup_elem(&window, &sc->own.key);
	if (!w || !ws || w->epoch != sc->own.round)
		return;
	rw_bucket_take_in(sc->own.i0, rw_slot_index(sc->own.round), (__u32)sc->own.packets,
			  (__u32)sc->own.units);
	rw_bucket_take_in(sc->own.i1, rw_slot_index(sc->own.round), (__u32)sc->own.packets,
			  (__u32)sc->own.units);
	w->taken_packets += (__u64)sc->own.packets;
	w->taken_bytes += (__u64)sc->own.units << RW_BYTE_UNIT_LOG2;
	if (sc->crowd_take)
		rw_crowd_take(sc);
	if (sc->own.round != sc->epoch && ws->epoch == sc->epoch &&
	    ws->noise_epoch == sc->epoch + 1) {
		ws->earlier_sketch_packets = rw_sub_floor(ws->earlier_sketch_packets,
							  (__u64)sc->own.packets);
		ws->earlier_sketch_bytes = rw_sub_floor(ws->earlier_sketch_bytes,
							(__u64)sc->own.units << RW_BYTE_UNIT_LOG2);
	}
}

/*
 * Round e's share of what the source inherits from the CPU being read: its
 * own estimate there (rw_slot_own, in scratch) where positive, scaled so the
 * rounds add up to the window's own estimate, added to the sums; and taken
 * out of the buckets when they are this CPU's. Global: verified once. Its
 * values live in the scratch line, not on the stack (see rw_take_inherited).
 */
__noinline int rw_slot_inherit(__u64 e)
{
	__u32 zero = 0;
	struct rw_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	__u32 s = rw_slot_index(e);

	if (!sc || s >= RW_MAX_SLOTS)
		return 0;
	sc->own.round = e;
	/* Whole packets and units, rounded down: never more than the estimate. */
	sc->own.packets = (__s64)(rw_scaled(sc->own.packets, sc->own.win_packets, sc->own.pos_packets) >>
				  RW_OWN_FRAC_LOG2);
	sc->own.units = (__s64)(rw_scaled(sc->own.units, sc->own.win_units, sc->own.pos_units) >>
				RW_OWN_FRAC_LOG2);
	sc->packets[s] += (__u64)sc->own.packets;
	sc->bytes[s] += (__u64)sc->own.units << RW_BYTE_UNIT_LOG2;
	if (sc->own.cpu == bpf_get_smp_processor_id() && (sc->own.packets || sc->own.units))
		rw_take_inherited(sc);
	return 0;
}

/*
 * Adds one CPU's own estimates of a source (buckets i0 and i1), per live
 * slot, to this CPU's scratch sums. A slot's estimate is noisy on its own
 * and cannot go below zero, so the slots are taken where they are positive
 * and scaled to add up to the window's own estimate: the spread of the noise
 * does not add up into a count the source never sent. Global: its loops are
 * verified once, not once for every path through the caller.
 */
__noinline int rw_inherit_buckets(__u32 i0, __u32 i1, __u32 cpu, __u64 epoch)
{
	struct rw_scratch *acc;
	__u32 zero = 0;

	acc = bpf_map_lookup_elem(&scratch, &zero);
	if (!acc)
		return 0;
	acc->own.i0 = i0;
	acc->own.i1 = i1;
	acc->own.cpu = cpu;
	acc->own.win_packets = 0;
	acc->own.win_units = 0;
	acc->own.pos_packets = 0;
	acc->own.pos_units = 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		if (i >= cfg_slots || i > epoch)
			break;
		rw_slot_own(epoch - i);
		acc->own.win_packets += acc->own.packets;
		acc->own.win_units += acc->own.units;
		acc->own.pos_packets += acc->own.packets > 0 ? (__u64)acc->own.packets : 0;
		acc->own.pos_units += acc->own.units > 0 ? (__u64)acc->own.units : 0;
	}
	if (acc->own.win_packets <= 0)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		if (i >= cfg_slots || i > epoch)
			break;
		rw_slot_own(epoch - i);
		rw_slot_inherit(epoch - i);
	}
	return 0;
}

static long rw_inherit_cpu(__u32 cpu, void *data)
{
	struct rw_inherit_ctx *ctx = data;

	rw_inherit_buckets(rw_bucket_index(cpu, 0, ctx->h), rw_bucket_index(cpu, 1, ctx->h), cpu,
			   ctx->epoch);
	return 0;
}

/*
 * Per-slot sums of every CPU's own estimates for the key hashed to h, less
 * the packet being processed (the tracked path counts that one), in this
 * CPU's scratch. The noise taken out is an average: a source whose buckets
 * hold less than it inherits up to that CPU's noise too little, one whose
 * buckets hold more up to their excess too much (docs/limits.md).
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
	/* The packet's round, for rw_take_inherited: only the coarse clock keeps it there. */
	acc->epoch = epoch;
	bpf_loop(cfg_nr_cpus, rw_inherit_cpu, &ctx, 0);
	now = rw_slot_index(epoch);
	acc->packets[now] -= acc->packets[now] ? 1 : 0;
	units <<= RW_BYTE_UNIT_LOG2;
	acc->bytes[now] -= acc->bytes[now] > units ? units : acc->bytes[now];
	return acc;
}

#endif /* RW_BPF_SKETCH_H */
