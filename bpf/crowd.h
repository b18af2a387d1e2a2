/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The crowd: a CPU's untracked keys of a limited kind, held together to
 * (their distinct count in the window, less those promoted out of it) x the
 * limit. A source's own estimate (sketch.h) caps a source that stands out of
 * the noise; under a botnet of more sources over their limit than the table
 * holds, none stands out (each bucket holds a dozen of them), and this holds
 * them in aggregate instead. A crowd of sources each under its limit stays
 * under the budget and loses nothing. The distinct count is a HyperLogLog
 * per slot (include/ratewall_crowd.h), merged over the window when a slot
 * begins; the window's entry then follows every packet of the slot, its
 * sums too: a packet reads the window entry's first 64 bytes and a register
 * byte of the slot's and of the window's, no slot entry's sums (struct
 * rw_crowd). Only this CPU writes its entries.
 */
#ifndef RW_BPF_CROWD_H
#define RW_BPF_CROWD_H

#include "maps.h"
#include "clock.h"
#include "ratewall_crowd.h"
#include "ratewall_window.h"

/* A CPU's entries: its slots', then the window's, then every CPU's windows merged. */
#define RW_CROWD_WINDOW cfg_slots
#define RW_CROWD_ALL (cfg_slots + 1)
#define RW_CROWD_SHARE_FIRST 64         /* the load at which a slot's share is first taken again */
#define RW_CROWD_WORDS (RW_CROWD_REGS / 8)

static __always_inline void rw_crowd_clear(struct rw_crowd *c, __u64 epoch1)
{
	__u64 *r = (__u64 *)c->reg;

	c->epoch1 = epoch1;
	c->packets = 0;
	c->bytes = 0;
	c->promoted = 0;
	c->drops = 0;
	c->share_at = 0;
	c->zsum = 0;
	c->zeros = 0;
	c->distinct = 0;
	c->share = 1u << 16;
	c->start_packets = 0;
	c->start_bytes = 0;
	c->start_promoted = 0;
	c->start_drops = 0;
	/* The barriers keep clang from making a memset of it, which BPF has not. */
	asm volatile("" ::: "memory");
	for (__u32 i = 0; i < RW_CROWD_WORDS; i++) {
		r[i] = 0;
		asm volatile("" ::: "memory");
	}
}

/* The small-count estimate for `zeros` registers at 0, bounded where the verifier sees it. */
static __always_inline __u32 rw_crowd_lc(__u32 zeros)
{
	asm volatile("" : "+r"(zeros));
	if (zeros > RW_CROWD_REGS)
		return 0;
	return cfg_crowd_lc[zeros];
}

/* Where one crowd entry's registers merge into another's: the larger of each byte. */
struct rw_crowd_regs {
	__u64 *into;
	const __u64 *from;
};

#define RW_CROWD_WORDS_A_TURN 8

/*
 * Eight words of registers merged. A bpf_loop's turn: the verifier walks it
 * once, where a loop of RW_CROWD_WORDS it walks word by word, as often as
 * its caller is walked (once a CPU, once a slot).
 */
static long rw_crowd_max_words(__u32 turn, void *data)
{
	struct rw_crowd_regs *r = data;
	__u32 at = turn * RW_CROWD_WORDS_A_TURN;

	if (turn >= RW_CROWD_WORDS / RW_CROWD_WORDS_A_TURN)
		return 1;
#pragma unroll
	for (__u32 k = 0; k < RW_CROWD_WORDS_A_TURN; k++)
		r->into[at + k] = rw_crowd_max8(r->into[at + k], r->from[at + k]);
	return 0;
}

static __always_inline void rw_crowd_max_regs(struct rw_crowd *into, const struct rw_crowd *from)
{
	struct rw_crowd_regs r = { (__u64 *)into->reg, (const __u64 *)from->reg };

	bpf_loop(RW_CROWD_WORDS / RW_CROWD_WORDS_A_TURN, rw_crowd_max_words, &r, 0);
}

/* One slot into the window's entry: its registers, and its sums unless it is the slot now begun. */
static long rw_crowd_merge_slot(__u32 s, void *data)
{
	__u64 epoch = *(__u64 *)data;
	__u32 idx = s, w = RW_CROWD_WINDOW;
	struct rw_crowd *c, *win;

	if (s >= cfg_slots)
		return 1;
	c = bpf_map_lookup_elem(&crowd, &idx);
	win = bpf_map_lookup_elem(&crowd, &w);
	if (!c || !win || !c->epoch1 || c->epoch1 - 1 > epoch ||
	    !rw_slot_live(c->epoch1 - 1, epoch, cfg_slots))
		return 0;
	rw_crowd_max_regs(win, c);
	if (c->epoch1 != epoch + 1) {
		win->packets += c->packets;
		win->bytes += c->bytes;
		win->promoted += c->promoted;
		win->drops += c->drops;
	}
	return 0;
}

/* One register's term of an entry's harmonic sum (bpf_loop: verified once, not 2 048 times). */
static long rw_crowd_sum_reg(__u32 i, void *data)
{
	struct rw_crowd *c = bpf_map_lookup_elem(&crowd, data);
	__u8 r;

	if (!c || i >= RW_CROWD_REGS)
		return 1;
	r = c->reg[i];
	c->zsum += rw_crowd_weight(r);
	c->zeros += !r;
	return 0;
}

/* Entry idx's distinct estimate, from its registers (its sums cleared). */
static __always_inline __u32 rw_crowd_count(__u32 idx)
{
	struct rw_crowd *c;

	bpf_loop(RW_CROWD_REGS, rw_crowd_sum_reg, &idx, 0);
	c = bpf_map_lookup_elem(&crowd, &idx);
	if (!c)
		return 0;
	c->distinct = rw_crowd_estimate(c->zsum, c->zeros, rw_crowd_lc(c->zeros));
	return c->distinct;
}

struct rw_crowd_cpus {
	__u64 epoch;
	__u64 sum; /* of every CPU's distinct count */
};

/* A CPU's window (as of its slot's start) into this CPU's RW_CROWD_ALL entry. */
static long rw_crowd_merge_cpu(__u32 cpu, void *data)
{
	struct rw_crowd_cpus *all = data;
	__u32 w = RW_CROWD_WINDOW, a = RW_CROWD_ALL;
	struct rw_crowd *win = bpf_map_lookup_percpu_elem(&crowd, &w, cpu);
	struct rw_crowd *into = bpf_map_lookup_elem(&crowd, &a);

	if (!win || !into || !win->epoch1 || win->epoch1 - 1 > all->epoch ||
	    !rw_slot_live(win->epoch1 - 1, all->epoch, cfg_slots))
		return 0;
	rw_crowd_max_regs(into, win);
	all->sum += win->distinct;
	/*
	 * No count comes near it; but a sum the verifier sees grow with each
	 * turn never matches a turn it has seen, and it walked this callback
	 * again for each CPU. Capped, the second turn matches the first.
	 */
	if (all->sum > 0xffffffffULL)
		all->sum = 0xffffffffULL;
	return 0;
}

/*
 * This CPU's share of the budget its distinct keys give it: the keys of
 * every CPU's window merged, over the sum of each CPU's count (1 << 16 =
 * all of it). A key whose packets come in on k CPUs counts on each of them,
 * so each holds it to about 1/k of its limit: the whole crowd to its
 * distinct keys x the limit, however its keys spread over the CPUs. Taken
 * when a slot begins and again each time the crowd's load on this CPU has
 * doubled (rw_crowd_gate), so a botnet that starts within a slot is shared
 * out before it fills the budget. Global: its loops are verified once.
 */
__noinline int rw_crowd_share(__u64 epoch)
{
	struct rw_crowd_cpus all = { .epoch = epoch };
	__u32 a = RW_CROWD_ALL, keys;
	struct rw_crowd *c = bpf_map_lookup_elem(&crowd, &a);

	if (!c)
		return 1 << 16;
	rw_crowd_clear(c, 0);
	bpf_loop(cfg_nr_cpus, rw_crowd_merge_cpu, &all, 0);
	keys = rw_crowd_count(a);
	if (!all.sum || keys >= all.sum)
		return 1 << 16;
	return (int)(((__u64)keys << 16) / all.sum);
}

/*
 * The slot the window's entry was made for has ended: its own sums (what
 * the window's gained since it began) into its entry, for the windows after.
 */
static __always_inline void rw_crowd_close_slot(const struct rw_crowd *win)
{
	__u32 p = rw_slot_index(win->epoch1 - 1);
	struct rw_crowd *c;

	if (!win->epoch1)
		return;
	c = bpf_map_lookup_elem(&crowd, &p);
	if (!c || c->epoch1 != win->epoch1)
		return;
	c->packets = rw_sub_floor(win->packets, win->start_packets);
	c->bytes = rw_sub_floor(win->bytes, win->start_bytes);
	c->promoted = rw_sub_floor(win->promoted, win->start_promoted);
	c->drops = rw_sub_floor(win->drops, win->start_drops);
}

/*
 * A slot begins on this CPU: the one before closes, its entry starts over,
 * the window's is made anew from the live slots, and its share from every
 * CPU's. Once a slot per CPU; global, so its loops are verified once.
 */
__noinline int rw_crowd_enter(__u64 epoch)
{
	__u32 s = rw_slot_index(epoch), w = RW_CROWD_WINDOW;
	struct rw_crowd *cur = bpf_map_lookup_elem(&crowd, &s);
	struct rw_crowd *win = bpf_map_lookup_elem(&crowd, &w);

	if (!cur || !win)
		return 0;
	rw_crowd_close_slot(win);
	if (cur->epoch1 != epoch + 1)
		rw_crowd_clear(cur, epoch + 1);
	rw_crowd_clear(win, 0);
	bpf_loop(cfg_slots, rw_crowd_merge_slot, &epoch, 0);
	rw_crowd_count(w);
	win->epoch1 = epoch + 1;
	win->share = (__u32)rw_crowd_share(epoch);
	win->share_at = 2 * win->packets + RW_CROWD_SHARE_FIRST;
	win->start_packets = win->packets;
	win->start_bytes = win->bytes;
	win->start_promoted = win->promoted;
	win->start_drops = win->drops;
	return 0;
}

/*
 * This CPU's entries of the slot (s: epoch's index) and the window, the
 * window's made for this slot. Only the window's epoch is read: the one
 * rw_crowd_enter that made it for this slot started the slot's entry over.
 */
static __always_inline bool rw_crowd_at(__u64 epoch, __u32 s, struct rw_crowd **cur,
					struct rw_crowd **win)
{
	__u32 w = RW_CROWD_WINDOW;

	*cur = bpf_map_lookup_elem(&crowd, &s);
	*win = bpf_map_lookup_elem(&crowd, &w);
	if (!*cur || !*win)
		return false;
	if ((*win)->epoch1 != epoch + 1)
		rw_crowd_enter(epoch);
	return true;
}

/* The key hashed to h is in the crowd: its register in the slot's and the window's. */
static __always_inline void rw_crowd_see(struct rw_crowd *cur, struct rw_crowd *win, __u64 h)
{
	__u32 j = rw_crowd_reg(h), zeros;
	__u8 rank = rw_crowd_rank(h), old;

	if (cur->reg[j] < rank)
		cur->reg[j] = rank;
	old = win->reg[j];
	if (old >= rank)
		return;
	win->reg[j] = rank;
	win->zsum += rw_crowd_weight(rank);
	win->zsum -= rw_crowd_weight(old);
	zeros = win->zeros - !old;
	win->zeros = zeros;
	win->distinct = rw_crowd_estimate(win->zsum, zeros, rw_crowd_lc(zeros));
}

/* n x limit, or all of __u64 where it would not fit (in halves: BPF has no 128-bit product). */
static __always_inline __u64 rw_crowd_budget(__u32 n, __u64 limit)
{
	__u64 high = (__u64)n * (limit >> 32), low = (__u64)n * (__u32)limit;

	if (high >> 32 || (high << 32) > ~0ULL - low)
		return ~0ULL;
	return (high << 32) + low;
}

/*
 * An untracked packet of a limited key hashed to h, not capped on its own:
 * counts the key in the crowd and admits the packet while the crowd's window
 * stays within its budget (lim's). 1: the crowd is at its budget, drop it.
 * Global: the packet path's stack is full.
 */
__noinline int rw_crowd_gate(__u64 h, const struct rw_time *t, __u64 len, const struct rw_limit *lim)
{
	struct rw_crowd *cur, *win;
	__u32 keys;

	if (!t || !lim || !rw_crowd_at(t->epoch, t->slot, &cur, &win))
		return 0;
	rw_crowd_see(cur, win, h);
	if (win->packets >= win->share_at) {
		win->share = (__u32)rw_crowd_share(t->epoch);
		win->share_at = 2 * win->packets;
	}
	keys = win->distinct > win->promoted ? win->distinct - (__u32)win->promoted : 1;
	keys = (__u32)(((__u64)keys * win->share + (1u << 16) - 1) >> 16);
	if ((lim->packets && win->packets + 1 > rw_crowd_budget(keys, lim->packets)) ||
	    (lim->bytes && win->bytes + len > rw_crowd_budget(keys, lim->bytes))) {
		win->drops++;
		return 1;
	}
	win->packets++;
	win->bytes += len;
	return 0;
}

/*
 * The key hashed to h leaves the crowd for the table with this packet: it
 * counts in the crowd's distinct keys (now, if it did not already), and out
 * of them as promoted, so the crowd keeps no budget for a key the table
 * limits. The packet itself is the entry's to count, never the crowd's: it
 * did not pass the gate, and what the key inherits leaves the crowd without
 * it (rw_crowd_take).
 */
__noinline int rw_crowd_promoted(__u64 h, __u64 epoch)
{
	struct rw_crowd *cur, *win;

	if (!rw_crowd_at(epoch, rw_slot_index(epoch), &cur, &win))
		return 0;
	rw_crowd_see(cur, win, h);
	win->promoted++;
	return 0;
}

/*
 * What a limited key about to be promoted on this CPU inherits and leaves
 * of the crowd (struct rw_scratch: crowd_take, crowd_raw): the count-min
 * upper bound of it, where the crowd dropped in this window (a botnet: the
 * key's own estimate may fall short of what it was admitted, and its limit
 * would then hold it to more); else its own estimate, which leaves the
 * crowd's count with it, less the promoting packet of units byte units
 * (rw_crowd_take). limited 0 (a --rank kind's key) clears both. Set
 * by each insert just before it inherits (table.h: rw_promote), whose frame
 * is deep: so it reads the entries as they are and makes none anew
 * (rw_crowd_at would). The window's entry counts its slot's drops: one
 * made for an earlier slot still within a window of this one counts them
 * (it may hold a slot that has just left: the upper bound is then inherited
 * where the own estimate would do, the safe side).
 * Global: the packet path's frame has no room for its map keys.
 */
__noinline int rw_crowd_promoting(__u64 epoch, __u32 limited, __u32 units)
{
	__u32 zero = 0, w = RW_CROWD_WINDOW;
	struct rw_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	struct rw_crowd *win = bpf_map_lookup_elem(&crowd, &w);
	bool full;

	if (!sc)
		return 0;
	full = limited && win && win->epoch1 && win->epoch1 - 1 <= epoch &&
	       rw_slot_live(win->epoch1 - 1, epoch, cfg_slots) && win->drops;
	sc->crowd_take = limited && !full ? units : 0;
	sc->crowd_raw = full;
	return 0;
}

/*
 * What a key promoted on this CPU inherits of round own.round (struct
 * rw_scratch: own) leaves the crowd's count with it (crowd_take): the
 * window's running sums where the round is the slot its entry was made for;
 * else the round's entry, and the window's sums and their start alike where
 * they hold that round (the slot's own count, what the window gained since
 * its start, stays). The packet's own round less the packet: its estimate
 * holds the packet, which the gate never counted and the entry does
 * (rw_crowd_promoted); the estimate may also have none of it (less the
 * noise, in whole packets), and then nothing of it leaves. In the insert's
 * deep frame: map keys in scratch.
 */
static __always_inline void rw_crowd_take(struct rw_scratch *sc)
{
	__u64 r = sc->own.round, p = (__u64)sc->own.packets;
	__u64 b = (__u64)sc->own.units << RW_BYTE_UNIT_LOG2;
	struct rw_crowd *c, *win;

	if (r == sc->epoch) {
		p = rw_sub_floor(p, 1);
		b = rw_sub_floor(b, (__u64)sc->crowd_take << RW_BYTE_UNIT_LOG2);
	}
	sc->own.key = RW_CROWD_WINDOW;
	win = bpf_map_lookup_elem(&crowd, &sc->own.key);
	if (!win)
		return;
	if (win->epoch1 == r + 1) {
		/* Out of the slot's own count only, never the earlier slots' under it. */
		win->packets = win->start_packets +
			       rw_sub_floor(rw_sub_floor(win->packets, win->start_packets), p);
		win->bytes = win->start_bytes + rw_sub_floor(rw_sub_floor(win->bytes, win->start_bytes), b);
		return;
	}
	sc->own.key = rw_slot_index(r);
	c = bpf_map_lookup_elem(&crowd, &sc->own.key);
	if (!c || c->epoch1 != r + 1)
		return;
	p = p < c->packets ? p : c->packets;
	b = b < c->bytes ? b : c->bytes;
	c->packets -= p;
	c->bytes -= b;
	if (win->epoch1 <= r + 1 || !rw_slot_live(r, win->epoch1 - 1, cfg_slots))
		return;
	p = p < win->start_packets ? p : win->start_packets;
	b = b < win->start_bytes ? b : win->start_bytes;
	win->start_packets -= p;
	win->start_bytes -= b;
	win->packets = rw_sub_floor(win->packets, p);
	win->bytes = rw_sub_floor(win->bytes, b);
}

#endif /* RW_BPF_CROWD_H */
