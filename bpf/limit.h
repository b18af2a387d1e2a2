/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Admission of a tracked source's packet against its limit, exact across
 * CPUs. A CPU admits from a local lease; when it runs dry it sums every CPU's
 * admitted counts in the window, the others' outstanding leases and the
 * history, and takes 1/nr_cpus of what is left. Without budget the record is
 * saturated until budget can free up, so dropping costs one compare.
 *
 * Admitted-only, and never undercounted by a concurrent reader: a packet is
 * counted as offered (and so as admitted) before its lease is taken or its
 * refill sums, and as dropped only after the verdict; a reader between the
 * two sees one packet too many, never one too few. A refill reads every CPU's
 * record before the history, so counts moving from one to the other are seen
 * at least once.
 */
#ifndef RW_BPF_LIMIT_H
#define RW_BPF_LIMIT_H

#include "maps.h"
#include "ratewall_window.h"

/* The limits one packet is held to: the command line's, or its rule's. */
struct rw_limit {
	__u64 packets, bytes;         /* per window, 0 = none */
	__u64 cap_packets, cap_bytes; /* promotion thresholds they need */
	bool deny;                    /* a deny rule: never admitted */
};

/* Whether `epoch` comes before the epoch whose low 16 bits are until (at most a window apart). */
static __always_inline bool rw_before(__u64 epoch, __u16 until)
{
	return (__s16)(until - (__u16)epoch) > 0;
}

/* The full epoch of a record's `until`, seen from `epoch`. */
static __always_inline __u64 rw_until(__u64 epoch, __u16 until)
{
	return epoch + (__s64)(__s16)(until - (__u16)epoch);
}

struct rw_sum_ctx {
	__u32 idx;
	__u32 self;
	__u64 state;     /* the entry's, for its generation and newest epoch */
	__u64 epoch;
	__u64 packets;   /* admitted in the window plus others' outstanding leases */
	__u64 bytes;
	__u64 oldest;    /* oldest slot with admitted traffic */
	__u64 lease_end; /* first epoch at which another CPU's lease lapses */
};

static long rw_sum_cpu(__u32 cpu, void *data)
{
	struct rw_sum_ctx *sum = data;
	__u32 j = cpu * cfg_entries + sum->idx;
	struct rw_hot *f = bpf_map_lookup_elem(&hot, &j);
	__u64 fe;

	if (!f)
		return 1;
	if (f->gen != rw_st_gen(sum->state))
		return 0;
	fe = rw_hot_epoch(f, rw_st_epoch(sum->state));
	if (!rw_slot_live(fe, sum->epoch, cfg_slots))
		return 0;
	if (f->packets > f->drop_packets) {
		sum->packets += f->packets - f->drop_packets;
		sum->bytes += f->bytes > f->drop_bytes ? f->bytes - f->drop_bytes : 0;
		if (fe < sum->oldest)
			sum->oldest = fe;
	}
	/* Another CPU's lease, unless it lapsed or that CPU let it lie idle (ratewall.h). */
	if (cpu != sum->self && (f->flags & RW_HOT_LEASE) && rw_before(sum->epoch, f->until) &&
	    fe + RW_LEASE_IDLE_SLOTS >= sum->epoch) {
		__u64 end = rw_until(sum->epoch, f->until);

		if (fe + RW_LEASE_IDLE_SLOTS + 1 < end)
			end = fe + RW_LEASE_IDLE_SLOTS + 1;
		sum->packets += f->lease_packets;
		sum->bytes += f->lease_bytes;
		if (end < sum->lease_end)
			sum->lease_end = end;
	}
	return 0;
}

/*
 * Adds the history to a refill's sums. A global function: the verifier checks
 * its loop once with *sum unknown, where a loop inlined into the refill would
 * be walked again for every value the sums can take.
 */
__noinline int rw_sum_hist(struct rw_sum_ctx *sum)
{
	struct rw_hist_slot *h;
	__u32 idx;

	if (!sum)
		return 0;
	idx = sum->idx;
	h = bpf_map_lookup_elem(&hist, &idx);
	if (!h)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		struct rw_window_sum w = {};

		if (i >= cfg_slots)
			break;
		rw_window_add_hist_slot(&h[i], cfg_slots, sum->epoch, &w);
		if (w.packets <= w.drop_packets)
			continue;
		sum->packets += w.packets - w.drop_packets;
		sum->bytes += w.bytes > w.drop_bytes ? w.bytes - w.drop_bytes : 0;
		if (w.newest_epoch < sum->oldest)
			sum->oldest = w.newest_epoch;
	}
	return 0;
}

static __always_inline __u32 rw_clamp32(__u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (__u32)v;
}

/*
 * Refills this CPU's lease from what all CPUs left of the window's budget, the
 * packet being decided counted in. False when it does not fit: the record is
 * then saturated until budget can free up.
 */
static __always_inline bool rw_refill(struct rw_hot *f, __u32 idx, __u32 cpu, __u64 state,
				      __u64 epoch, __u64 len, const struct rw_limit *lim,
				      struct rw_stats *st)
{
	struct rw_sum_ctx sum = { .idx = idx, .self = cpu, .state = state, .epoch = epoch,
				  .oldest = ~0ULL, .lease_end = ~0ULL };
	__u64 until;

	st->cross_cpu_checks++;
	/* This CPU's lease goes back into the pool before the sum (carried drops stay marked). */
	f->flags &= RW_HOT_CARRY_MASK;
	f->lease_packets = 0;
	f->lease_bytes = 0;
	bpf_loop(cfg_nr_cpus, rw_sum_cpu, &sum, 0);
	rw_sum_hist(&sum);
	if ((lim->packets && sum.packets > lim->packets) || (lim->bytes && sum.bytes > lim->bytes)) {
		/*
		 * Budget frees up when the oldest admitted slot leaves, or a lease
		 * lapses; a smaller packet may still fit the bytes left (the room).
		 */
		until = sum.oldest != ~0ULL ? sum.oldest + cfg_slots : epoch + cfg_slots;
		if (sum.lease_end < until)
			until = sum.lease_end;
		f->until = (__u16)(until > epoch ? until : epoch + 1);
		f->flags = (f->flags & RW_HOT_CARRY_MASK) | RW_HOT_SAT;
		f->lease_bytes = lim->bytes && (!lim->packets || sum.packets <= lim->packets) &&
					 lim->bytes + len > sum.bytes ?
				 rw_clamp32(lim->bytes + len - sum.bytes) : 0;
		return false;
	}
	/* A 1/nr_cpus share keeps concurrent refills inside what is left. */
	f->lease_packets = lim->packets ? rw_clamp32((lim->packets - sum.packets) / cfg_nr_cpus) : 0;
	f->lease_bytes = lim->bytes ? rw_clamp32((lim->bytes - sum.bytes) / cfg_nr_cpus) : 0;
	/* What is left holds for the whole window: budget only frees up as it slides. */
	f->until = (__u16)(epoch + cfg_slots);
	f->flags = (f->flags & RW_HOT_CARRY_MASK) | RW_HOT_LEASE;
	return true;
}

/* Whether a tracked packet (already counted as offered in f) is admitted. */
static __always_inline bool rw_admit(struct rw_hot *f, __u32 idx, __u32 cpu, __u64 state,
				     __u64 epoch, __u64 len, const struct rw_limit *lim,
				     struct rw_stats *st)
{
	if (!lim->packets && !lim->bytes)
		return true;
	if ((f->flags & RW_HOT_SAT) && rw_before(epoch, f->until) && len > f->lease_bytes)
		return false;
	/* Larger than the whole window's byte budget: it can never pass, no need to sum anything. */
	if (lim->bytes && len > lim->bytes) {
		f->flags = (f->flags & RW_HOT_CARRY_MASK) | RW_HOT_SAT;
		f->until = (__u16)(epoch + cfg_slots);
		f->lease_packets = 0;
		f->lease_bytes = 0;
		return false;
	}
	if ((f->flags & RW_HOT_LEASE) && rw_before(epoch, f->until) &&
	    (!lim->packets || f->lease_packets) && (!lim->bytes || f->lease_bytes >= len)) {
		if (lim->packets)
			f->lease_packets--;
		if (lim->bytes)
			f->lease_bytes -= (__u32)len;
		return true;
	}
	return rw_refill(f, idx, cpu, state, epoch, len, lim, st);
}

#endif /* RW_BPF_LIMIT_H */
