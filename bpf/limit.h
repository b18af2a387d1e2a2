/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Admission of a tracked key's packet against its limit: a schedule that TCP
 * can follow, inside a window that is exact across CPUs.
 *
 * The window: a CPU admits from a local lease; when it runs dry it sums every
 * CPU's admitted counts in the window, the others' outstanding leases and the
 * history, and takes 1/nr_cpus of what is left. Without budget the record is
 * saturated until budget can free up, so dropping costs one compare. Refills
 * that meet cannot see each other's leases: a mark they read before the sum
 * and bump after the lease's store tells the one that ends later, which
 * keeps only what fits beside what it may have missed, and drops its packet
 * where nothing does (rw_refill). No key is ever admitted more than its
 * limit in any window.
 *
 * The schedule: a lease also never holds more than the key's schedule allows
 * (struct rw_pace). Budget comes at the limit's rate R; a key sending less
 * saves the rest, up to the bank (2 x --burst), and spends it at up to
 * RW_PEAK_FACTOR x R with --burst of slack on that pace (a key new or idle
 * for a while: 2 x R x --burst at once, then up to twice its rate until its
 * savings are spent). A key over its
 * limit is so admitted evenly, at R, a packet at a time, instead of a whole
 * window's budget at once and then nothing until an old slot slides out (the
 * blackout TCP cannot follow); a key that stalls (a TCP loss probe, a
 * retransmission timeout) catches up what it saved instead of losing it. A
 * key within its rate never meets the schedule. The window can still refuse
 * a key that spent saved budget (a window holds up to R x the window plus the
 * bank): it is saturated until budget frees up, as with the window alone, and
 * its schedule is left as it was, but for a new key's first refusal: a new
 * key starts with its bank full, and what it saves while that refusal lasts
 * is held to one burst (rw_sched_clip). A key over its rate from its first
 * packet so pays the bank's second burst once (the windows that take in that
 * pause hold up to a burst less than the limit), then goes round a cycle of
 * one burst a window (that burst at the start of each, a pause as long at the
 * end). Tried and measured: keeping nothing saved at every refusal (a source
 * that sends in bursts, a burst every 90 ms, lost 3-6 % of its limit at each,
 * and one TCP flow got 0.3-0.7 Mbit/s less of a 10 Mbit/s cap); holding the
 * savings to a burst at every refusal (TCP through a 20 ms round trip got
 * 0.2-0.3 Mbit/s less); never holding them (a new key over its rate paused
 * for its whole bank at the end of every window). --burst window: the window
 * alone.
 *
 * Admitted-only, and never undercounted by a concurrent reader: a packet is
 * counted as offered (and so as admitted) before its lease is taken or its
 * refill sums, and as dropped only after the verdict; a reader between the
 * two sees one packet too many, never one too few. A refill reads every CPU's
 * record before the history, so counts moving from one to the other are seen
 * at least once. Both orders hold on every CPU, not only as x86 keeps them
 * (RW_READ_ONCE and the barriers below).
 */
#ifndef RW_BPF_LIMIT_H
#define RW_BPF_LIMIT_H

#include "maps.h"
#include "race.h"
#include "ratewall_window.h"

/*
 * The order between a CPU's stores to its own record and another CPU's
 * refill reading that record: READ_ONCE / WRITE_ONCE (volatile accesses: one
 * load or store each, never torn, merged or repeated), and smp_wmb / smp_rmb
 * as the kernel's BPF selftests model them (bpf_atomic.h). x86 keeps stores
 * in order with stores and loads with loads: a compiler barrier is enough
 * there. Elsewhere (arm64 reorders both) the barrier is a fully ordered
 * atomic, an exchange on the stack (BPF has no fence of its own; an atomic
 * without fetch is not ordered). __TARGET_ARCH_* is the Makefile's, of the
 * machine the object is built for. Where the order matters:
 *  - the packet's owner counts it as offered before it takes it from the
 *    lease (rw_offer, then rw_admit) and as dropped only after the verdict
 *    (rw_drop): a reader that sees the lease taken, or the drop, sees the
 *    offered count that came before;
 *  - a refill reads another CPU's lease and drops before its offered counts
 *    (rw_sum_cpu), and every CPU's record before the history (rw_sum_window),
 *    so that it sees what moved between them at least once.
 */
#define RW_READ_ONCE(x) (*(volatile const __typeof__(x) *)&(x))
#define RW_WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define rw_barrier() asm volatile("" ::: "memory")
#ifdef __TARGET_ARCH_x86
#define rw_smp_wmb() rw_barrier()
#define rw_smp_rmb() rw_barrier()
#else
static __always_inline void rw_smp_mb(void)
{
	volatile __u64 v = 0;

	rw_barrier();
	__sync_lock_test_and_set(&v, 0);
	rw_barrier();
}
#define rw_smp_wmb() rw_smp_mb()
#define rw_smp_rmb() rw_smp_mb()
#endif

/* A tracked packet counted as offered on its CPU: before its lease is taken or its refill sums. */
static __always_inline void rw_offer(struct rw_hot *f, __u64 len)
{
	RW_WRITE_ONCE(f->packets, f->packets + 1);
	RW_WRITE_ONCE(f->bytes, f->bytes + (__u32)len);
}

/* ... and as dropped, only after its verdict: after its offered count, for any reader. */
static __always_inline void rw_drop(struct rw_hot *f, __u64 len)
{
	rw_smp_wmb();
	RW_WRITE_ONCE(f->drop_packets, f->drop_packets + 1);
	RW_WRITE_ONCE(f->drop_bytes, f->drop_bytes + (__u32)len);
}

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

_Static_assert(sizeof(struct rw_sum_ctx) <= sizeof(((struct rw_scratch *)0)->refill_sum),
	       "a refill's sums fit the scratch line kept for them");

/*
 * This CPU's scratch line (NULL only if the map is gone): a refill's sums,
 * and the limits of the packet it refills for (rw_decide keeps them there).
 */
static __always_inline struct rw_scratch *rw_scratch_line(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/* This CPU's refill sums, in its scratch (NULL only if the map is gone). */
static __always_inline struct rw_sum_ctx *rw_refill_sum(void)
{
	struct rw_scratch *sc = rw_scratch_line();

	return sc ? (struct rw_sum_ctx *)sc->refill_sum : NULL;
}

static __always_inline __u64 rw_lease_most(__u64 limit);

static long rw_sum_cpu(__u32 cpu, void *data)
{
	struct rw_scratch *sc = rw_scratch_line();
	struct rw_sum_ctx *sum = sc ? (struct rw_sum_ctx *)sc->refill_sum : NULL;
	__u32 lease_p, lease_b, drop_p, drop_b, p, b, j;
	struct rw_hot *f;
	__u16 until;
	__u8 flags;
	__u64 fe;

	if (!sc || !sum)
		return 1;
	j = cpu * cfg_entries + sum->idx;
	f = bpf_map_lookup_elem(&hot, &j);
	if (!f)
		return 1;
	if (f->gen != rw_st_gen(sum->state))
		return 0;
	fe = rw_hot_epoch(f, rw_st_epoch(sum->state));
	if (!rw_slot_live(fe, sum->epoch, cfg_slots))
		return 0;
	/*
	 * The lease and the drops before the offered counts (its CPU stores them
	 * the other way round, rw_offer, rw_admit, rw_drop): a packet taken from
	 * the lease or dropped meanwhile is then counted twice at worst, never
	 * missed. Read the other way, a packet admitted from the lease between
	 * the two reads is in neither (the refill sums one too few).
	 */
	flags = RW_READ_ONCE(f->flags);
	until = RW_READ_ONCE(f->until);
	lease_p = RW_READ_ONCE(f->lease_packets);
	lease_b = RW_READ_ONCE(f->lease_bytes);
	drop_p = RW_READ_ONCE(f->drop_packets);
	drop_b = RW_READ_ONCE(f->drop_bytes);
	rw_race(RW_RACE_SUM);
	rw_smp_rmb();
	p = RW_READ_ONCE(f->packets);
	b = RW_READ_ONCE(f->bytes);
	if (p > drop_p) {
		sum->packets += p - drop_p;
		sum->bytes += b > drop_b ? b - drop_b : 0;
		if (fe < sum->oldest)
			sum->oldest = fe;
	}
	/* Another CPU's lease, unless it lapsed or that CPU let it lie idle (ratewall.h). */
	if (cpu != sum->self && (flags & RW_HOT_LEASE) && rw_before(sum->epoch, until) &&
	    fe + RW_LEASE_IDLE_SLOTS >= sum->epoch) {
		__u64 end = rw_until(sum->epoch, until);

		if (fe + RW_LEASE_IDLE_SLOTS + 1 < end)
			end = fe + RW_LEASE_IDLE_SLOTS + 1;
		/*
		 * Its words read while its CPU left the lease (the flags read
		 * before them) may hold a refill's mark or a paced hold
		 * (rw_pace_hold), no lease: counted as the most a lease is.
		 */
		if (lease_p > rw_lease_most(sc->lim.packets))
			lease_p = (__u32)rw_lease_most(sc->lim.packets);
		if (lease_b > rw_lease_most(sc->lim.bytes))
			lease_b = (__u32)rw_lease_most(sc->lim.bytes);
		sum->packets += lease_p;
		sum->bytes += lease_b;
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

/*
 * a * b / c for a <= c, rounded up or down, with no 128-bit product: c (and a
 * with it) is first brought under 2^32, so a * (b % c) fits in 64 bits. The
 * shift costs at most 2^-31 of relative precision, where c is that large.
 */
static __always_inline __u64 rw_muldiv(__u64 a, __u64 b, __u64 c, bool up)
{
	__u64 x, q;

	if (c >> 48) { a >>= 16; c >>= 16; }
	if (c >> 40) { a >>= 8; c >>= 8; }
	if (c >> 36) { a >>= 4; c >>= 4; }
	if (c >> 34) { a >>= 2; c >>= 2; }
	if (c >> 33) { a >>= 1; c >>= 1; }
	if (c >> 32) { a >>= 1; c >>= 1; }
	if (!c)
		return 0;
	x = a * (b % c);
	q = a * (b / c) + x / c;
	return up && x % c ? q + 1 : q;
}

static __always_inline __u64 rw_window_ns(void)
{
	return (__u64)cfg_slots * cfg_slot_ns;
}

/* The tolerances, at most a window (rw_muldiv wants them no longer than the window). */
static __always_inline __u64 rw_burst_ns(void)
{
	return cfg_burst_ns < rw_window_ns() ? cfg_burst_ns : rw_window_ns();
}

static __always_inline __u64 rw_bank_ns(void)
{
	__u64 bank = cfg_bank_ns > rw_burst_ns() ? cfg_bank_ns : rw_burst_ns();

	return bank < rw_window_ns() ? bank : rw_window_ns();
}

/* The first time a virtual time lets anything pass: tol before it (0: at once). */
static __always_inline __u64 rw_vt_ready(__u64 tat, __u64 tol)
{
	return tat > tol ? tat - tol : 0;
}

/*
 * What one virtual time for `limit` a window lets pass now, once it is at
 * most tol ahead of now (rw_vt_ready): the units from the later of it and
 * now up to now + tol, this packet's included.
 */
static __always_inline __u64 rw_vt_credit(__u64 tat, __u64 now, __u64 tol, __u64 limit)
{
	__u64 base = tat > now ? tat : now;

	return rw_muldiv(now + tol - base, limit, rw_window_ns(), false);
}

/*
 * Moves a virtual time on by `units` handed out (at most its limit). A
 * concurrent refill on another CPU may move it between the read and the
 * write: then this one's grant is added on top, so neither is lost.
 */
static __always_inline void rw_vt_take(__u64 *tatp, __u64 now, __u64 units, __u64 limit)
{
	__u64 cost = rw_muldiv(units, rw_window_ns(), limit, true);
	__u64 tat = *(volatile const __u64 *)tatp;

	if (__sync_val_compare_and_swap(tatp, tat, (tat > now ? tat : now) + cost) != tat)
		__sync_fetch_and_add(tatp, cost);
}

/*
 * What one limit's schedule lets pass now (both its times), into *credit;
 * false when either is more than its tolerance ahead, *ready then the time
 * at which neither is (what the record holds off its next refills with:
 * rw_pace_hold).
 */
static __always_inline bool rw_sched_read(struct rw_pace_limit *pl, __u64 now, __u64 limit,
					  __u64 *credit, __u64 *ready)
{
	__u64 tat = *(volatile const __u64 *)&pl->tat, peak = *(volatile const __u64 *)&pl->peak;
	__u64 at = rw_vt_ready(tat, rw_bank_ns()), peak_at = rw_vt_ready(peak, rw_burst_ns());
	__u64 peak_credit;

	*ready = at > peak_at ? at : peak_at;
	if (*ready > now)
		return false;
	*credit = rw_vt_credit(tat, now, rw_bank_ns(), limit);
	peak_credit = rw_vt_credit(peak, now, rw_burst_ns(), limit * RW_PEAK_FACTOR);
	if (peak_credit < *credit)
		*credit = peak_credit;
	return true;
}

static __always_inline void rw_sched_take(struct rw_pace_limit *pl, __u64 now, __u64 units,
					  __u64 limit)
{
	rw_vt_take(&pl->tat, now, units, limit);
	rw_vt_take(&pl->peak, now, units, limit * RW_PEAK_FACTOR);
}

/*
 * Moves a virtual time back by what `units` cost, never below now: a time at
 * or before now lets its whole tolerance pass already, and another CPU's start
 * may have brought it down since the units were handed out (a time moved back
 * from there would wrap, and refuse everything). A concurrent take or start
 * makes the compare fail: the units stay spent, the safe side.
 */
static __always_inline void rw_vt_refund(__u64 *tatp, __u64 now, __u64 units, __u64 limit)
{
	__u64 back = rw_muldiv(units, rw_window_ns(), limit, false);
	__u64 tat = *(volatile const __u64 *)tatp;

	if (tat > now)
		__sync_val_compare_and_swap(tatp, tat, back < tat - now ? tat - back : now);
}

/* Gives back `units` handed out and never used (at most the limit: a lease is). */
static __always_inline void rw_sched_refund(struct rw_pace_limit *pl, __u64 now, __u64 units,
					    __u64 limit)
{
	rw_vt_refund(&pl->tat, now, units, limit);
	rw_vt_refund(&pl->peak, now, units, limit * RW_PEAK_FACTOR);
}

/*
 * A new generation of the entry (a new key, or one back from quiet) starts
 * with its bank full, as a key idle for a while: a sender's first write may
 * be more than a burst of its rate and still well under it (iperf3 writes 128
 * KiB at once: 134 kB of frames against 125 kB in 100 ms of 10 Mbit/s; with
 * a burst's worth, a TCP flow at half that cap lost 6-9 packets and
 * retransmitted them, every run). Several CPUs may meet the new generation at
 * once: one claims it (compare-and-swap of gen) and starts it; the times are
 * read before the claim and started by compare-and-swap from what was read,
 * so a take that any CPU made once the generation was claimed is never
 * undone (it stays on the older times instead: less to spend, never more).
 * Global: its reads live in its own stack frame, not in the packet path's.
 */
__noinline int rw_sched_start(struct rw_pace *pc, __u32 gen, __u64 now)
{
	__u64 tat = now, pt, pp, bt, bp;
	__u32 old;

	if (!pc)
		return 0;
	old = *(volatile const __u32 *)&pc->gen;
	pt = *(volatile const __u64 *)&pc->packets.tat;
	pp = *(volatile const __u64 *)&pc->packets.peak;
	bt = *(volatile const __u64 *)&pc->bytes.tat;
	bp = *(volatile const __u64 *)&pc->bytes.peak;
	rw_race(RW_RACE_SCHED_START);
	if (old == gen || __sync_val_compare_and_swap(&pc->gen, old, gen) != old)
		return 0;
	__sync_val_compare_and_swap(&pc->packets.tat, pt, tat);
	__sync_val_compare_and_swap(&pc->packets.peak, pp, 0);
	__sync_val_compare_and_swap(&pc->bytes.tat, bt, tat);
	__sync_val_compare_and_swap(&pc->bytes.peak, bp, 0);
	pc->advance = gen + 1;
	return 1;
}

/*
 * The window refused a new key for the first time, until `at`: what it saves
 * while it waits is held to one burst, the packet that ends the wait
 * included (the + 1: a whole burst and that packet would lengthen each
 * later pause by a packet). Left alone, the pause would save what the key
 * spent early and let it spend it again at the start of the next window,
 * every window (a new key over its rate: its bank at once and a pause as
 * long at every window's end). A concurrent take moves the time on: the
 * compare fails, and the take saved less already.
 */
static __always_inline void rw_sched_clip(struct rw_pace_limit *pl, __u64 at)
{
	__u64 least = at + rw_bank_ns() - rw_burst_ns() + 1;
	__u64 tat = *(volatile const __u64 *)&pl->tat;

	if (tat < least)
		__sync_val_compare_and_swap(&pl->tat, tat, least);
}

/*
 * A scheduled lease holds at most RW_LEASE_NS of the limit's rate: budget a
 * CPU leased and then never used (its traffic moved to another CPU) is gone
 * from the schedule, so it is kept small; a refill per millisecond of traffic
 * costs nothing that matters.
 */
#define RW_LEASE_NS 1000000ULL

static __always_inline __u64 rw_lease_cap(__u64 limit)
{
	__u64 t = RW_LEASE_NS < rw_window_ns() ? RW_LEASE_NS : rw_window_ns();

	return rw_muldiv(t, limit, rw_window_ns(), false);
}

static __always_inline __u32 rw_clamp32(__u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (__u32)v;
}

/* The most one CPU's lease of `limit` holds: a scheduled one's cap, else its 1/nr_cpus share. */
static __always_inline __u64 rw_lease_most(__u64 limit)
{
	return rw_clamp32(cfg_burst_ns != RW_BURST_WINDOW ? rw_lease_cap(limit) : limit / cfg_nr_cpus);
}

/* The most bytes one packet may count for: a multi-buffer frame's whole length, with room. */
#define RW_MAX_FRAME (256ULL * 1024)

/*
 * Whether the window has room for what a refill that met `missed` other
 * refills' ends (rw_refill) may not have seen of them: each one's packet (at
 * most RW_MAX_FRAME bytes) and lease (a scheduled lease's cap; 1/nr_cpus of
 * the limit for the window alone). Its own packet is in its sum already. Only
 * a refill under way on another CPU at this one's start can hold what it did
 * not see and not have seen this packet, one a CPU: one that began later
 * summed this packet, so what it kept fits the window with this packet in
 * it, and one still going at this one's end finds that end and answers for
 * it itself. So a refill stalled while others made hundreds (a CPU of a
 * guest descheduled) counts nr_cpus - 1 of them at most. Refills that met
 * find it true where a key is far from its limit: a source at 0.95x of --pps
 * 1000 spread over 2 CPUs lost 1-16 packets of 17 098 to such meetings when
 * every one was dropped, and one at 0.5x over 64 emulated CPUs lost a few
 * when more than nr_cpus bumps were.
 *
 * With room, the refill keeps the part of its lease that fits beside all of
 * that (1/nr_cpus of what is left), where it counted every refill that
 * ended during its own (no more than nr_cpus - 1): giving it all back left
 * the next packet to refill again, and the one after, a sum over every CPU
 * and another end for the others to meet each time. Past nr_cpus - 1 ends,
 * those begun later may have missed its lease (not its packet): it keeps
 * none.
 */
static __always_inline bool rw_room_for_missed(const struct rw_sum_ctx *sum,
					       const struct rw_limit *lim, __u64 missed,
					       __u64 *lease_p, __u64 *lease_b)
{
	bool paced = cfg_burst_ns != RW_BURST_WINDOW;
	__u64 lp = paced ? rw_lease_cap(lim->packets) : lim->packets / cfg_nr_cpus;
	__u64 lb = paced ? rw_lease_cap(lim->bytes) : lim->bytes / cfg_nr_cpus;
	__u64 unseen = missed < cfg_nr_cpus - 1 ? missed : cfg_nr_cpus - 1;
	__u64 need_p = sum->packets + unseen * (1 + lp);
	__u64 need_b = sum->bytes + unseen * (RW_MAX_FRAME + lb);

	if ((lim->packets && need_p > lim->packets) || (lim->bytes && need_b > lim->bytes))
		return false;
	if (missed > unseen) {
		*lease_p = 0;
		*lease_b = 0;
		return true;
	}
	if (lim->packets && *lease_p > (lim->packets - need_p) / cfg_nr_cpus)
		*lease_p = (lim->packets - need_p) / cfg_nr_cpus;
	if (lim->bytes && *lease_b > (lim->bytes - need_b) / cfg_nr_cpus)
		*lease_b = (lim->bytes - need_b) / cfg_nr_cpus;
	return true;
}

/* Sums the window afresh: every CPU's record (others' leases with them), then the history. */
static __always_inline void rw_sum_window(struct rw_sum_ctx *sum)
{
	sum->packets = 0;
	sum->bytes = 0;
	sum->oldest = ~0ULL;
	sum->lease_end = ~0ULL;
	bpf_loop(cfg_nr_cpus, rw_sum_cpu, NULL, 0);
	rw_smp_rmb(); /* the records before the history: a flush moves counts from one to the other */
	rw_sum_hist(sum);
}

static __always_inline bool rw_over(const struct rw_sum_ctx *sum, const struct rw_limit *lim)
{
	return (lim->packets && sum->packets > lim->packets) ||
	       (lim->bytes && sum->bytes > lim->bytes);
}

/*
 * The entry's state as it is now, for a refill or an early flush, read where
 * it is needed rather than carried from the lookup through the packet's frame.
 * The packet's record was stepped into this slot for this entry, and an entry
 * is removed or given to another key only once idle (ratewall_window.h,
 * rw_st_idle), which it cannot be meanwhile: the state is the same
 * occupant's, of the same generation, at most moved on by other CPUs.
 */
static __always_inline __u64 rw_entry_state(__u32 idx)
{
	struct rw_entry *e = bpf_map_lookup_elem(&keys, &idx);

	return e ? RW_READ_ONCE(e->state) : 0;
}

static __always_inline bool rw_inheriting(__u32 idx)
{
	struct rw_entry *e = bpf_map_lookup_elem(&keys, &idx);

	return e && (RW_READ_ONCE(e->state) & RW_ST_INHERIT);
}

static long rw_inherit_wait_cb(__u32 i, void *data)
{
	return !rw_inheriting(*(__u32 *)data);
}

/* Spins a refill waits for a new entry's inheritance (as a packet waits for a bucket's lock). */
#define RW_INHERIT_WAIT_SPINS 1024

/*
 * Whether entry idx's history holds what it inherits (table.h, rw_inherit):
 * a refill of an entry another CPU just published waits for it a bounded
 * while, and its packet is dropped if it outlasts that (stalled_drops). Its
 * key's packets alone wait, where the bucket's lock held them all.
 */
__noinline int rw_wait_inherited(__u32 idx)
{
	bpf_loop(RW_INHERIT_WAIT_SPINS, rw_inherit_wait_cb, &idx, 0);
	return !rw_inheriting(idx);
}

static __always_inline bool rw_inherited(__u32 idx)
{
	/* Global, the wait: its loop's context off the packet path's stack. */
	if (rw_inheriting(idx) && !rw_wait_inherited(idx))
		return false;
	rw_smp_rmb(); /* the flag before the history: it was cleared after the history was written */
	return true;
}

/*
 * A paced refusal holds the record off its next refills until its schedule
 * lets a packet pass again: neither leased nor saturated, the record's lease
 * words (read by other CPUs only with RW_HOT_LEASE, ratewall.h) hold that
 * time, low word and high, and its packets before it are dropped with one
 * compare, as a saturated record's are (rw_admit). A key over its rate is
 * refused so between the packets its schedule admits: each refusal was a
 * refill's call, its entry's line and its schedule's. Nothing is admitted
 * that the schedule refuses. Other CPUs' refunds of unused leases (each at
 * most RW_LEASE_NS of the rate) may free a packet before the time, which
 * then waits for it; the time is the first refusing limit's (the other is
 * not read), so the refill that ends the hold may be refused again; and it
 * is not tied to the limits that set it (a rules reload that lifts them
 * takes effect here at that time). Another CPU's refill that read the
 * flags as leased just before counts the words as one lease at most
 * (rw_sum_cpu).
 */
static __always_inline void rw_pace_hold(struct rw_hot *f, __u64 ready)
{
	f->lease_packets = (__u32)ready;
	f->lease_bytes = (__u32)(ready >> 32);
}

/* Whether the record holds a paced refusal past now (rw_pace_hold). */
static __always_inline bool rw_pace_held(const struct rw_hot *f, __u64 now)
{
	return cfg_burst_ns != RW_BURST_WINDOW && !(f->flags & RW_HOT_STATE_MASK) &&
	       ((__u64)f->lease_bytes << 32 | f->lease_packets) > now;
}

/* What a refill decided (rw_refill), and whether it summed the other CPUs' counts. */
enum {
	RW_REFILL_DROP,    /* out of window budget (or no record) */
	RW_REFILL_ADMIT,
	RW_REFILL_STALLED, /* a new entry's inheritance outlasted the wait */
	RW_REFILL_PACED,   /* off the key's schedule */
	RW_REFILL_MET,     /* another refill met the budget first */
	RW_REFILL_CHECKED = 8,
};

/*
 * Refills this CPU's lease of entry idx from what all CPUs left of the
 * window's budget and what the key's schedule allows, the packet being
 * decided counted in: RW_REFILL_ADMIT when it fits. Off schedule, the packet
 * is dropped with nothing summed; out of window budget, the record is
 * saturated until budget can free up. The caller counts the outcome in the
 * interface's stats.
 *
 * Global: verified once. Inlined, it was walked again for every state a
 * packet's path reached it in (every --key, --rank and rule path): with
 * --burst and every option, 683 k of the verifier's million instructions on
 * this VM's 6.18 (tests/bpf/test_load.c), 318 k now. Its sums live in this
 * CPU's scratch (rw_refill_sum), not in its frame, which sits on the packet's.
 */
__noinline int rw_refill(__u32 idx, __u64 now, __u64 epoch, __u64 len, const struct rw_limit *lim)
{
	__u32 cpu = bpf_get_smp_processor_id(), j = cpu * cfg_entries + idx;
	struct rw_sum_ctx *sum = rw_refill_sum();
	struct rw_hot *f = bpf_map_lookup_elem(&hot, &j);
	struct rw_pace *pc = rw_pace_of(idx);
	__u64 credit_p = 0, credit_b = 0;
	__u64 until, lease_p = 0, lease_b = 0, ready;
	__u32 mark, missed;

	if (!pc || !f || !lim || !sum)
		return RW_REFILL_DROP;
	*sum = (struct rw_sum_ctx){ .idx = idx, .self = cpu, .state = rw_entry_state(idx), .epoch = epoch };
	/* A new entry's history is not all there yet: nothing is summed without it. */
	if (!rw_inherited(idx))
		return RW_REFILL_STALLED;
	/*
	 * This CPU's lease goes back into the pool (carried drops stay marked),
	 * and what is left of it back into the schedule: a refill comes when the
	 * lease cannot hold the packet, and its rest is no one's.
	 */
	if (cfg_burst_ns != RW_BURST_WINDOW && (f->flags & RW_HOT_LEASE) &&
	    rw_before(epoch, f->until) && pc->gen == f->gen) {
		if (lim->packets && f->lease_packets)
			rw_sched_refund(&pc->packets, now, f->lease_packets, lim->packets);
		if (lim->bytes && f->lease_bytes)
			rw_sched_refund(&pc->bytes, now, f->lease_bytes, lim->bytes);
	}
	f->flags &= RW_HOT_CARRY_MASK;
	f->lease_packets = 0;
	f->lease_bytes = 0;
	if (cfg_burst_ns == RW_BURST_WINDOW)
		goto window;
	if (pc->gen != f->gen)
		rw_sched_start(pc, f->gen, now);
	if ((lim->packets && !rw_sched_read(&pc->packets, now, lim->packets, &credit_p, &ready)) ||
	    (lim->bytes && !rw_sched_read(&pc->bytes, now, lim->bytes, &credit_b, &ready))) {
		rw_pace_hold(f, ready);
		return RW_REFILL_PACED;
	}

window:
	/*
	 * The refill mark: read before the sum (a fetch-and-add of 0, which clang
	 * emits as a fetch-or: fully ordered, as every BPF atomic that fetches,
	 * so after this packet's count), bumped once the lease is in the
	 * record, by a refill that admits or keeps a lease (one that finds no
	 * budget took nothing and leaves it). Every store of a refill comes
	 * before its bump (fully ordered, on one word), so of two refills that
	 * overlap, the one that ends last may have missed the other's packet or
	 * lease, but the other's sum saw its packet, and it finds the mark moved
	 * by the other's end: it keeps only the lease that fits beside all it may
	 * have missed, and its packet passes only where the window has room for
	 * that, a packet and a lease for every other end it found
	 * (rw_room_for_missed), else it is dropped (the record is not saturated:
	 * the next packet refills). What refills that kept their leases took fits
	 * the window with whatever they did not see of each other. Its cost: a
	 * packet, when two refills of one key meet at the window's edge, and two
	 * fetch-and-adds on the schedule's line a refill. While no lease is out
	 * the lease word holds the mark (nobody reads it without RW_HOT_LEASE),
	 * not the stack.
	 */
	f->lease_packets = (__u32)__sync_fetch_and_add(&pc->refills, 0);
	rw_sum_window(sum);
	if (rw_over(sum, lim))
		goto full;
	/*
	 * The lease: a 1/nr_cpus share of what is left of the window, no more
	 * than the schedule allows beyond this packet.
	 */
	if (lim->packets) {
		lease_p = rw_clamp32((lim->packets - sum->packets) / cfg_nr_cpus);
		if (cfg_burst_ns != RW_BURST_WINDOW) {
			if (lease_p + 1 > credit_p)
				lease_p = credit_p ? credit_p - 1 : 0;
			if (lease_p > rw_lease_cap(lim->packets))
				lease_p = rw_lease_cap(lim->packets);
		}
	}
	if (lim->bytes) {
		lease_b = rw_clamp32((lim->bytes - sum->bytes) / cfg_nr_cpus);
		if (cfg_burst_ns != RW_BURST_WINDOW) {
			if (lease_b + len > credit_b)
				lease_b = credit_b > len ? credit_b - len : 0;
			if (lease_b > rw_lease_cap(lim->bytes))
				lease_b = rw_lease_cap(lim->bytes);
		}
	}
	rw_race(RW_RACE_REFILL);
	mark = f->lease_packets;
	f->lease_packets = (__u32)lease_p;
	f->lease_bytes = (__u32)lease_b;
	/* What is left holds for the whole window: budget only frees up as it slides. */
	f->until = (__u16)(epoch + cfg_slots);
	f->flags = (f->flags & RW_HOT_CARRY_MASK) | RW_HOT_LEASE;
	missed = (__u32)__sync_fetch_and_add(&pc->refills, 1) - mark;
	if (missed) {
		if (!rw_room_for_missed(sum, lim, missed, &lease_p, &lease_b)) {
			f->flags &= RW_HOT_CARRY_MASK;
			f->lease_packets = 0;
			f->lease_bytes = 0;
			return RW_REFILL_MET | RW_REFILL_CHECKED;
		}
		/* Less than it stored: a reader meanwhile counts more, never less. */
		if (!lease_p && !lease_b)
			f->flags &= RW_HOT_CARRY_MASK;
		RW_WRITE_ONCE(f->lease_packets, (__u32)lease_p);
		RW_WRITE_ONCE(f->lease_bytes, (__u32)lease_b);
	}
	/* The schedule moves on by this packet and the lease, as they stand. */
	if (cfg_burst_ns != RW_BURST_WINDOW) {
		if (lim->packets)
			rw_sched_take(&pc->packets, now, 1 + lease_p, lim->packets);
		if (lim->bytes)
			rw_sched_take(&pc->bytes, now, len + lease_b, lim->bytes);
	}
	return RW_REFILL_ADMIT | RW_REFILL_CHECKED;

full:
	/*
	 * Budget frees up when the oldest admitted slot leaves, or a lease
	 * lapses; a smaller packet may still fit the bytes left (the room).
	 */
	until = sum->oldest != ~0ULL ? sum->oldest + cfg_slots : epoch + cfg_slots;
	if (sum->lease_end < until)
		until = sum->lease_end;
	if (until <= epoch)
		until = epoch + 1;
	/* A new key's first refusal: what it saves until then is a burst at most. */
	if (cfg_burst_ns != RW_BURST_WINDOW && pc->gen == f->gen &&
	    __sync_val_compare_and_swap(&pc->advance, f->gen + 1, 0) == f->gen + 1) {
		if (lim->packets)
			rw_sched_clip(&pc->packets, until * cfg_slot_ns);
		if (lim->bytes)
			rw_sched_clip(&pc->bytes, until * cfg_slot_ns);
	}
	f->until = (__u16)until;
	f->flags = (f->flags & RW_HOT_CARRY_MASK) | RW_HOT_SAT;
	f->lease_packets = 0;
	f->lease_bytes = lim->bytes && (!lim->packets || sum->packets <= lim->packets) &&
				 lim->bytes + len > sum->bytes ?
			 rw_clamp32(lim->bytes + len - sum->bytes) : 0;
	return RW_REFILL_DROP | RW_REFILL_CHECKED;
}

/* Whether a tracked packet (already counted as offered in f, rw_offer) is admitted. */
static __always_inline bool rw_admit(struct rw_hot *f, __u32 idx, __u64 now, __u64 epoch,
				     __u64 len, const struct rw_limit *lim, struct rw_stats *st)
{
	int r;

	if (!lim->packets && !lim->bytes)
		return true;
	if ((f->flags & RW_HOT_SAT) && rw_before(epoch, f->until) && len > f->lease_bytes)
		return false;
	if (rw_pace_held(f, now)) {
		st->paced_drops++;
		return false;
	}
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
		/* The offered count (rw_offer) before the lease's decrement, for any reader. */
		rw_smp_wmb();
		if (lim->packets)
			RW_WRITE_ONCE(f->lease_packets, f->lease_packets - 1);
		if (lim->bytes)
			RW_WRITE_ONCE(f->lease_bytes, f->lease_bytes - (__u32)len);
		return true;
	}
	r = rw_refill(idx, now, epoch, len, lim);
	st->cross_cpu_checks += !!(r & RW_REFILL_CHECKED);
	r &= ~RW_REFILL_CHECKED;
	st->stalled_drops += r == RW_REFILL_STALLED;
	st->paced_drops += r == RW_REFILL_PACED;
	st->met_drops += r == RW_REFILL_MET;
	return r == RW_REFILL_ADMIT;
}

#endif /* RW_BPF_LIMIT_H */
