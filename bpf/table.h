/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tracked-flow table (layout in include/ratewall.h): finding a key, a
 * record stepping into a new slot, and promotion, which inserts a key, or
 * takes over an idle entry when both of its buckets are full.
 *
 * Who writes what, so that the loader and every CPU can work at once:
 *  - an entry's state word only by compare-and-swap: an insert takes a free
 *    entry (or an idle one) to BUSY, writes the key, then publishes LIVE; a
 *    record stepping into a slot newer than the entry's raises its epoch (a
 *    revival after a whole idle window also bumps the generation, so every
 *    CPU's record starts over); a delete (the loader's, of an idle entry)
 *    takes LIVE to BUSY, clears the tag, then frees it;
 *  - a lookup trusts an entry only if its state was LIVE and unchanged around
 *    the key compare;
 *  - a CPU's records only by that CPU; the history by rw_hist_add;
 *  - a bucket's tags under its insert lock or by the deleting loader, whose
 *    entry is BUSY meanwhile.
 * An insert holds the lock of the key's home bucket while it looks again and
 * places the key, so two CPUs promoting one source make one entry, and it
 * inherits the sketch's counts once, after the lock (rw_promote).
 */
#ifndef RW_BPF_TABLE_H
#define RW_BPF_TABLE_H

#include "maps.h"
#include "crowd.h"
#include "history.h"
#include "sketch.h"
#include "clock.h"
#include "limit.h"

#define RW_PROMOTE_BUSY (-2)
#define RW_NOT_TRACKED (-2) /* rw_find_current: not in the table, no need to look */

/* Tests clear bits of the hash to force collisions; the default keeps every bit. */
const volatile __u64 cfg_hash_mask = ~0ULL;

/* Whole keys compared, 8 bytes at a time (both sides are 8-byte aligned), the tail in 4. */
static __always_inline int rw_key_eq(const struct rw_key *a, const struct rw_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 d = 0;

#pragma unroll
	for (int i = 0; i < (int)(sizeof(*a) / sizeof(__u64)); i++)
		d |= x[i] ^ y[i];
	if (sizeof(*a) % sizeof(__u64))
		d |= *(const __u32 *)((const __u8 *)a + sizeof(*a) - 4) ^
		     *(const __u32 *)((const __u8 *)b + sizeof(*b) - 4);
	return d == 0;
}

static __always_inline __u64 rw_load64(__u64 *p)
{
	return *(volatile __u64 *)p;
}

/*
 * Tries at matching an entry whose state moves during the key's compare (a
 * record raising the epoch, a revival, an insert ending its inheritance).
 * The data path's lookup tries once: a miss only sends the packet the
 * untracked way, whose insert looks again. That look, under the bucket's
 * insert lock, tries until the state holds still, and at its last try takes
 * a live entry with the key as found: a miss there inserted the key a second
 * time (two entries, two budgets), and whoever uses the entry matches it again.
 */
#define RW_MATCH_ONCE 1
#define RW_MATCH_SETTLE 4

/* Entry idx if it holds key, with the state it was matched under (never torn by a writer). */
static __always_inline struct rw_entry *rw_entry_match(__u32 idx, const struct rw_key *key,
						       __u64 *state, int tries)
{
	struct rw_entry *e = bpf_map_lookup_elem(&keys, &idx);
	__u64 s;

	if (!e)
		return NULL;
	for (int i = 0; i < tries; i++) {
		s = rw_load64(&e->state);
		if (!rw_st_live(s) || !rw_key_eq(&e->key, key))
			return NULL;
		if (tries > RW_MATCH_ONCE) /* the data path's lookup pays nothing for the tests */
			rw_race(RW_RACE_MATCH);
		if (rw_load64(&e->state) == s || (tries > RW_MATCH_ONCE && i == tries - 1)) {
			*state = s;
			return e;
		}
	}
	return NULL;
}

/*
 * The ways of bucket b from `from` on, for a tag that matched a way before
 * them with another key (a 1 in 2^32 chance a lookup). Global: out of the
 * fast path's code.
 */
__noinline int rw_bucket_find_from(__u32 b, __u32 from, __u32 tag, const struct rw_key *key,
				   __u64 *state)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);

	if (!d || !key || !state)
		return -1;
	for (__u32 i = 0; i < RW_WAYS; i++) {
		if (i >= from && d->tag[i] == tag && rw_entry_match(b * RW_WAYS + i, key, state, RW_MATCH_ONCE))
			return (int)(b * RW_WAYS + i);
	}
	return -1;
}

/* The first way of bucket d whose tag is tag, RW_WAYS when none is. */
static __always_inline __u32 rw_first_way(const struct rw_dir *d, __u32 tag)
{
#pragma unroll
	for (__u32 i = 0; i < RW_WAYS; i++) {
		if (d->tag[i] == tag)
			return i;
	}
	return RW_WAYS;
}

/*
 * Index of key's entry in bucket d (number b), or -1: the tags compared first,
 * then one key where one matches. The key match is inlined once, not once a
 * way: the program's code stays small enough for the instruction cache.
 */
static __always_inline int rw_bucket_find(const struct rw_dir *d, __u32 b, __u32 tag,
					  const struct rw_key *key, __u64 *state)
{
	__u32 way = rw_first_way(d, tag);

	if (way >= RW_WAYS)
		return -1;
	if (rw_entry_match(b * RW_WAYS + way, key, state, RW_MATCH_ONCE))
		return (int)(b * RW_WAYS + way);
	return rw_bucket_find_from(b, way + 1, tag, key, state);
}

/* rw_bucket_find for the look again under the insert lock: each way whose tag matches, settled. */
static __always_inline int rw_bucket_settle(const struct rw_dir *d, __u32 b, __u32 tag,
					    const struct rw_key *key, __u64 *state)
{
#pragma nounroll
	for (__u32 i = 0; i < RW_WAYS; i++) {
		if (d->tag[i] == tag && rw_entry_match(b * RW_WAYS + i, key, state, RW_MATCH_SETTLE))
			return (int)(b * RW_WAYS + i);
	}
	return -1;
}

/*
 * The key's entry index, or -1: its home bucket, and the overflow bucket if
 * home ever overflowed. settle: the look again under the insert lock.
 */
static __always_inline int rw_table_find(const struct rw_key *key, const struct rw_where *w,
					 __u64 *state, bool settle)
{
	/* Keys from the stack: 6.1's verifier takes no argument's memory for one. */
	__u32 h = w->home, b = w->overflow;
	struct rw_dir *home = bpf_map_lookup_elem(&dir, &h), *ovf;
	int idx;

	if (!home)
		return -1;
	idx = settle ? rw_bucket_settle(home, w->home, w->tag, key, state) :
		       rw_bucket_find(home, w->home, w->tag, key, state);
	if (idx >= 0 || !(home->ctl & RW_DIR_OVERFLOW_MASK))
		return idx;
	ovf = bpf_map_lookup_elem(&dir, &b);
	if (!ovf)
		return -1;
	return settle ? rw_bucket_settle(ovf, b, w->tag, key, state) :
			rw_bucket_find(ovf, b, w->tag, key, state);
}

/*
 * A saturated record that admitted nothing carries its counts into slot
 * `epoch` (ratewall.h, rw_lazy_slots): the slots carried are added up, to at
 * most what the flags hold.
 */
static __always_inline void rw_carry(struct rw_hot *f, __u64 epoch)
{
	__u32 carry = ((f->flags & RW_HOT_CARRY_MASK) >> RW_HOT_CARRY_SHIFT) + ((__u32)epoch - f->epoch);

	if (carry > RW_HOT_CARRY_MASK >> RW_HOT_CARRY_SHIFT)
		carry = RW_HOT_CARRY_MASK >> RW_HOT_CARRY_SHIFT;
	f->flags = (__u8)((f->flags & RW_HOT_STATE_MASK) | (carry << RW_HOT_CARRY_SHIFT));
	f->epoch = (__u32)epoch;
}

/*
 * Whether this CPU's saturated record may carry into slot epoch (< 2^32) on
 * its own word, with no line of `keys` read: what rw_enter_slot decides from
 * the entry's state, proven from the record. Its last whole entry, at slot
 * e0 = its epoch - carry (exact while the carry is below its cap), raised the
 * state to e0 or later, and a live state only rises; so while e0 +
 * rw_lazy_slots > epoch the state is less than that behind, and the entry,
 * counted at e0, cannot have been quiet since: not removed, not given to
 * another key, not revived in a new generation (ratewall_window.h). Under a
 * flood over its limit, three slot entries in four are this one.
 */
static __always_inline bool rw_carry_proven(const struct rw_hot *f, __u64 epoch)
{
	__u32 carry = (f->flags & RW_HOT_CARRY_MASK) >> RW_HOT_CARRY_SHIFT;

	return (f->flags & RW_HOT_SAT) && f->packets == f->drop_packets && f->epoch < epoch &&
	       carry < RW_HOT_CARRY_MASK >> RW_HOT_CARRY_SHIFT &&
	       (__u64)f->epoch - carry + rw_lazy_slots(cfg_slots) > epoch && rw_before(epoch, f->until);
}

/*
 * The record-proven lookup: entry idx of the first way of home bucket b whose
 * tag is the key's, when this CPU's record of it already counts in this slot;
 * RW_NOT_TRACKED when the key cannot be in the table (no way of its home has
 * its tag, and none of the home's keys overflowed); -1 otherwise, and the
 * whole lookup follows. A saturated record a slot or more behind is carried
 * into this one here when the record alone proves it may (rw_carry_proven).
 * Such a packet reads no line of `keys`, what a tracked packet costs most at
 * 64 Ki sources (bench/: the line of a 6.5 MB array the toy program does not
 * have).
 *
 * Why the record is proof: it steps into a slot only for a packet whose whole
 * key matched the entry (rw_enter_slot), and an entry is removed, revived or
 * given to another key only once idle or quiet (ratewall_window.h), which an
 * entry counted in this slot cannot be for a window yet. So it is the same
 * occupant, of the same generation, whose state is less than rw_lazy_slots
 * behind: all that the whole lookup would find. A record holds its slot's low
 * 32 bits only, so the proof holds while every epoch fits in them (2^32
 * slots: 13.6 years of uptime at the default 100 ms slot, 49.7 days at the
 * shortest, 1 ms); later every packet takes the whole lookup.
 *
 * What the tag cannot tell: a packet of a key that is not tracked, with a
 * tracked key's home bucket and 31-bit tag, is counted as that key's (at most
 * RW_WAYS in 2^31 of such packets: docs/limits.md). Two tracked keys with one
 * tag in one bucket make it compare keys (RW_DIR_DUPTAG), and tests that
 * force collisions by clearing hash bits test the whole lookup.
 *
 * Inlined (a call cost the one-key rows 5-9 % in make bench-ab): what follows
 * a found entry is walked again for this path, and stays cheap to verify
 * since the refill is a function of its own (limit.h).
 */
static __always_inline int rw_find_current(__u32 b, __u32 tag, __u32 cpu, __u64 epoch)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);
	__u32 way, idx, j;
	struct rw_hot *f;

	if (!d || cfg_hash_mask != ~0ULL || epoch > RW_U32_MAX)
		return -1;
	way = rw_first_way(d, tag);
	/* No way has the tag, nor has the key an overflow bucket to be in: not tracked. */
	if (way >= RW_WAYS)
		return d->ctl & RW_DIR_OVERFLOW_MASK ? -1 : RW_NOT_TRACKED;
	if (d->ctl & RW_DIR_DUPTAG)
		return -1;
	idx = b * RW_WAYS + way;
	j = cpu * cfg_entries + idx;
	f = bpf_map_lookup_elem(&hot, &j);
	if (!f)
		return -1;
	/* Offered nothing: never stepped into a slot (a new map reads epoch 0). */
	if (f->epoch != epoch || !f->packets) {
		if (!rw_carry_proven(f, epoch))
			return -1;
		rw_carry(f, epoch);
	}
	return (int)idx;
}

/*
 * Whether bucket b holds tag in a way other than `way`. Read after the tag is
 * published (a full barrier): of two inserts placing one tag in one bucket at
 * once, one sees the other. Global: verified once, its frame off the
 * insert's.
 */
__noinline int rw_tag_elsewhere(__u32 b, __u32 way, __u32 tag)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);
	int seen = 0;

	if (!d)
		return 0;
	for (__u32 i = 0; i < RW_WAYS; i++)
		seen |= i != way && RW_READ_ONCE(d->tag[i]) == tag;
	return seen;
}

/*
 * The look again under the insert lock (rw_promote): the key's entry index,
 * or -1. Global, a frame of its own: inlined, its loops grew the insert's
 * frame, which is on the deepest call chain (the inheritance's), past the
 * verifier's 512 bytes.
 */
__noinline int rw_look_again(const struct rw_key *key, const struct rw_where *w)
{
	__u64 state;

	if (!key || !w)
		return -1;
	return rw_table_find(key, w, &state, true);
}

/*
 * The entry a promotion gave the key, matched again for the state the
 * packet's record steps from: settled too, or a move in between (the
 * inserting CPU ending its inheritance) let the packet pass uncounted.
 * 0 when the entry is no longer the key's. Global, as rw_look_again.
 */
__noinline int rw_match_promoted(__u32 idx, const struct rw_key *key, __u64 *state)
{
	return key && state && rw_entry_match(idx, key, state, RW_MATCH_SETTLE);
}

/*
 * A record meets a slot (or a generation) other than its own. Raises the
 * entry's state to `epoch` first (so a concurrent delete either sees it or
 * wins, and then this packet is untracked), flushes the record's counts of
 * an earlier live slot, and starts it on this one. *state: what key's entry
 * was matched with. 0: ready; 1: the flush must wait (the packet is counted
 * in the record as it is); -1: the entry is gone, or no longer key's.
 */
__noinline int rw_enter_slot(__u32 idx, const struct rw_key *key, const struct rw_time *t,
			     __u64 *state, struct rw_stats *st)
{
	__u32 j = bpf_get_smp_processor_id() * cfg_entries + idx;
	struct rw_entry *ent = bpf_map_lookup_elem(&keys, &idx);
	struct rw_hot *f = bpf_map_lookup_elem(&hot, &j);
	__u64 s, fe, epoch;
	bool keep;

	if (!ent || !f || !state || !st || !t || !key)
		return -1;
	epoch = t->epoch;
	s = *state;
	/*
	 * A saturated record of this generation that admitted nothing carries its
	 * counts into this slot while the state is less than rw_lazy_slots behind:
	 * no history line, no compare-and-swap (ratewall.h says why that is exact).
	 * Its `until` (16 bits) is only read while the record is younger than a
	 * window, as it always is when set: one its CPU left behind while others
	 * kept the entry going would otherwise look saturated again from 2^15
	 * slots on, for 2^15 slots of every 2^16.
	 */
	if ((f->flags & RW_HOT_SAT) && f->gen == rw_st_gen(s) && f->packets == f->drop_packets &&
	    rw_hot_epoch(f, rw_st_epoch(s)) + cfg_slots > epoch && rw_before(epoch, f->until) &&
	    rw_st_epoch(s) + rw_lazy_slots(cfg_slots) > epoch && rw_st_live(s)) {
		rw_carry(f, epoch);
		return 0;
	}
	rw_race(RW_RACE_ENTER_SLOT);
	for (int i = 0; i < 8 && rw_st_epoch(s) < epoch; i++) {
		__u64 flags = s & (RW_ST_LIVE | RW_ST_OVERFLOW | RW_ST_INHERIT), next, old;

		if (!rw_st_live(s))
			return -1;
		/* Quiet a whole window: nothing of it is live, its counts start over. */
		if (rw_st_quiet(s, epoch, cfg_slots))
			next = rw_st_make(epoch, rw_st_gen(s) + 1, flags);
		else
			next = rw_st_make(epoch, rw_st_gen(s), flags);
		old = __sync_val_compare_and_swap(&ent->state, s, next);
		/*
		 * The state moved under us: the entry may have been deleted and
		 * given to another key since it was matched, so it is matched
		 * again before anything is raised, or counted, in it.
		 */
		if (old == s)
			s = next;
		else if (!rw_entry_match(idx, key, &s, RW_MATCH_ONCE))
			return -1;
	}
	if (!rw_st_live(s) || rw_st_epoch(s) < epoch)
		return -1;
	*state = s;
	keep = f->gen == rw_st_gen(s);
	fe = rw_hot_epoch(f, rw_st_epoch(s));
	/*
	 * This CPU's own record is never ahead of its clock: one that reads so
	 * was left behind by about 2^32 slots (rw_hot_epoch), and is stale.
	 */
	keep = keep && rw_slot_live(fe, epoch, cfg_slots) && fe <= epoch;
	if (keep && f->packets && fe != epoch) {
		if (!rw_flush(f, idx, epoch, t->slot, fe)) {
			st->flush_retries++;
			return 1;
		}
		st->hist_flushes++;
	}
	/*
	 * Another generation's, a lease and saturation older than the window, or
	 * a lease this CPU left idle a whole slot: the others stop counting it.
	 */
	if (!keep || ((f->flags & RW_HOT_LEASE) && fe + RW_LEASE_IDLE_SLOTS <= epoch)) {
		f->flags = 0;
		f->lease_packets = 0;
		f->lease_bytes = 0;
	}
	f->packets = 0;
	f->bytes = 0;
	f->drop_packets = 0;
	f->drop_bytes = 0;
	f->flags &= RW_HOT_STATE_MASK;
	f->epoch = (__u32)epoch;
	f->gen = rw_st_gen(s);
	return 0;
}

/* --- Promotion ------------------------------------------------------------------ */

/* Takes a free entry (FREE -> BUSY); its old state in *old. */
static __always_inline bool rw_claim_free(struct rw_entry *e, __u64 *old)
{
	__u64 s = rw_load64(&e->state);

	if (s & (RW_ST_LIVE | RW_ST_BUSY))
		return false;
	if (__sync_val_compare_and_swap(&e->state, s, s | RW_ST_BUSY) != s)
		return false;
	*old = s;
	return true;
}

/*
 * Takes over an idle entry (LIVE -> BUSY): one with no count in the window and
 * no ban in force, never a source that is limited or banned. Its place in its
 * own home bucket's overflow count goes with it.
 */
static __always_inline bool rw_claim_idle(struct rw_entry *e, __u64 epoch, __u64 now, __u64 *old)
{
	__u64 s = rw_load64(&e->state);
	struct rw_dir *h;
	__u32 home;

	/*
	 * With events, a ban that ran out still holds its entry until someone
	 * says `unbanned` (the loader's next tick, or the key's next packet).
	 */
	if (!rw_st_idle(s, epoch, cfg_slots) || e->ban_until_ns > now ||
	    (cfg_events && e->ban_until_ns))
		return false;
	if (__sync_val_compare_and_swap(&e->state, s, (s & ~RW_ST_LIVE) | RW_ST_BUSY) != s)
		return false;
	home = e->home;
	if (s & RW_ST_OVERFLOW) {
		h = bpf_map_lookup_elem(&dir, &home);
		if (h)
			__sync_fetch_and_add(&h->ctl, -1);
	}
	*old = s;
	return true;
}

/* A way of bucket b for a new key: a free one, else (idle_too) an idle one. -1: none. */
static __always_inline int rw_claim_way(__u32 b, bool idle_too, __u64 epoch, __u64 now, __u64 *old)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);

	if (!d)
		return -1;
	for (__u32 i = 0; i < RW_WAYS; i++) {
		__u32 idx = b * RW_WAYS + i;
		struct rw_entry *e;

		if (!idle_too && d->tag[i])
			continue;
		e = bpf_map_lookup_elem(&keys, &idx);
		if (e && (idle_too ? rw_claim_idle(e, epoch, now, old) : rw_claim_free(e, old)))
			return (int)i;
	}
	return -1;
}

/* A new entry's history starts empty: whatever an earlier occupant left goes (it is BUSY, ours). */
static __always_inline void rw_hist_clear(__u32 idx)
{
	struct rw_hist_slot *hs = bpf_map_lookup_elem(&hist, &idx);

	if (!hs)
		return;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		if (i >= cfg_slots)
			break;
		hs[i].epoch = 0;
	}
}

/*
 * What a new entry inherits: the sketch's counts of its source, slot by slot,
 * summed over every CPU into this CPU's scratch (rw_inherit_sums). Global:
 * verified once; and its frame, on the deepest call chain, stays small.
 */
__noinline int rw_inherit(__u64 h, __u64 epoch, __u32 units)
{
	rw_race(RW_RACE_INHERIT);
	rw_inherit_sums(h, epoch, units);
	return 0;
}

/*
 * ... added to its history, once the entry is published: other CPUs may
 * flush into it meanwhile (rw_hist_add_inherited). Global: its loops are
 * verified once, not once per way the insert went.
 */
__noinline int rw_inherit_add(__u32 idx, __u64 epoch)
{
	struct rw_hist_slot *hs = bpf_map_lookup_elem(&hist, &idx);
	__u32 zero = 0;
	struct rw_scratch *acc = bpf_map_lookup_elem(&scratch, &zero);

	if (!acc || !hs)
		return 0;
	/* Rounds epoch, epoch - 1, ...: never before round 0, whose index would wrap. */
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u64 e = epoch - i;
		__u32 k;

		if (i >= cfg_slots || i > epoch)
			break;
		k = rw_slot_index(e);
		asm volatile("" : "+r"(k));
		if (k >= cfg_slots || k >= RW_MAX_SLOTS || !acc->packets[k])
			continue;
		/* A restart that outlasts the tries (a CPU stalled in it) loses this slot's share. */
		rw_hist_add_inherited(&hs[k], e, acc->packets[k], acc->bytes[k]);
	}
	return 0;
}

/* Whether bucket b has a way with no tag (a free entry, or one being freed). */
static __always_inline bool rw_bucket_has_room(__u32 b)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);
	__u32 empty = 0;

	if (!d)
		return false;
#pragma unroll
	for (int i = 0; i < RW_WAYS; i++)
		empty |= d->tag[i] == 0;
	return empty;
}

/*
 * Whether a CPU is inserting into bucket b now (its line is in cache: the
 * lookup read it): placing a key under the lock, or inheriting for one it
 * placed. A limited untracked packet that finds it so may be one the
 * inheritance read too early: it takes the key's entry (rw_wait_bucket, then
 * rw_promote), which the insert published before it inherits.
 */
static __always_inline bool rw_bucket_locked(__u32 b)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);

	return d && (*(volatile __u32 *)&d->ctl & (RW_DIR_LOCK | RW_DIR_INHERIT_MASK));
}

/* Whether bucket b's insert lock is held (the short part of an insert). */
static __always_inline bool rw_bucket_lock_held(__u32 b)
{
	struct rw_dir *d = bpf_map_lookup_elem(&dir, &b);

	return d && (*(volatile __u32 *)&d->ctl & RW_DIR_LOCK);
}

static long rw_bucket_free_cb(__u32 i, void *data)
{
	return !rw_bucket_lock_held(*(__u32 *)data);
}

/*
 * Spins of rw_wait_bucket, a map lookup each: 3-5 us in all on this 2-vCPU VM
 * (3 ns a spin). 8192 (25 us) was tried: a wide flood over both CPUs still
 * lost 1 and 4 packets of 280 000 to inserts that outlasted it (1 with 1024),
 * so a stall that long is no insert's own work (a vCPU descheduled).
 */
#define RW_BUCKET_WAIT_SPINS 1024

/*
 * Waits a bounded while for another CPU to release bucket b's insert lock:
 * true when it has (an inheritance that goes on after is no reason to wait:
 * the key it is for is published).
 */
static __always_inline bool rw_wait_bucket(__u32 b)
{
	rw_race(RW_RACE_BUCKET_WAIT);
	bpf_loop(RW_BUCKET_WAIT_SPINS, rw_bucket_free_cb, &b, 0);
	return !rw_bucket_lock_held(b);
}

/* What a promotion needs beside the key and the time. */
struct rw_promotion {
	__u64 h;        /* the key's hash */
	__u32 units;    /* the packet's sketch byte units (not inherited: it is counted tracked) */
	bool take_idle; /* a full set may take over an idle entry (a slower scan) */
	bool limited;   /* a limited key: it leaves the crowd (crowd.h), which has its say in what it inherits */
};

/*
 * Gives the key an entry that inherits the sketch's counts: its index, -1
 * when its buckets have no free entry (nor, with take_idle, an idle one),
 * RW_PROMOTE_BUSY when another CPU is inserting into its home bucket right
 * now. Global: verified once.
 */
__noinline int rw_promote(const struct rw_key *key, const struct rw_promotion *pr,
			  const struct rw_time *t, struct rw_stats *st)
{
	struct rw_dir *home, *d;
	struct rw_entry *ent;
	struct rw_where w;
	__u64 old = 0, epoch, now;
	__u32 b, ctl, idx;
	bool overflow = false;
	int way;

	if (!key || !st || !t || !pr)
		return -1;
	epoch = t->epoch;
	now = t->now;
	w = rw_where_of(pr->h, cfg_nbuckets);
	/* A full set and no time to look for idle entries: no lock taken, nothing written. */
	if (!pr->take_idle && !rw_bucket_has_room(w.home) && !rw_bucket_has_room(w.overflow))
		return -1;
	home = bpf_map_lookup_elem(&dir, &w.home);
	if (!home)
		return -1;
	rw_race(RW_RACE_PROMOTE);
	/* The word also counts overflow keys and inheritances, which may move: tried again then. */
	for (int i = 0;; i++) {
		ctl = *(volatile __u32 *)&home->ctl;
		if ((ctl & RW_DIR_LOCK) || i >= 4)
			return RW_PROMOTE_BUSY;
		if (__sync_val_compare_and_swap(&home->ctl, ctl, ctl | RW_DIR_LOCK) == ctl)
			break;
	}
	/* Under the lock: another CPU may have inserted this key since our lookup. */
	way = rw_look_again(key, &w);
	if (way >= 0)
		goto unlock;
	b = w.home;
	way = rw_claim_way(b, false, epoch, now, &old);
	if (way < 0) {
		b = w.overflow;
		overflow = b != w.home;
		way = rw_claim_way(b, false, epoch, now, &old);
	}
	if (way < 0 && pr->take_idle) {
		b = w.home;
		overflow = false;
		way = rw_claim_way(b, true, epoch, now, &old);
		if (way < 0) {
			b = w.overflow;
			overflow = b != w.home;
			way = rw_claim_way(b, true, epoch, now, &old);
		}
		if (way >= 0)
			st->evicted++;
	}
	if (way < 0)
		goto unlock;
	idx = b * RW_WAYS + (__u32)way;
	ent = bpf_map_lookup_elem(&keys, &idx);
	d = bpf_map_lookup_elem(&dir, &b);
	if (!ent || !d || (__u32)way >= RW_WAYS) {
		way = -1;
		goto unlock;
	}
	ent->key = *key;
	ent->home = w.home;
	ent->limited_epoch = 0;
	ent->ban_until_ns = 0;
	rw_hist_clear(idx);
	if (overflow)
		__sync_fetch_and_add(&home->ctl, 1); /* counted before the tag can be seen */
	/*
	 * Published before it inherits, and counted as inheriting before the
	 * lock goes: a packet of the key that the inheritance reads too early
	 * (counted in the sketch after its CPU's buckets were read) finds the
	 * bucket busy after its count, and then the entry (rw_untracked); a
	 * refill of the entry waits for its history (RW_ST_INHERIT, limit.h).
	 * The lock covers only the placing: the look again, the claim, the
	 * key, the tag. Inheriting under it, a CPU read every CPU's sketch
	 * while every limited packet of the bucket's keys waited, and at 64
	 * CPUs outwaited them (stalled_drops).
	 */
	__sync_lock_test_and_set(&ent->state,
				 rw_st_make(epoch, rw_st_gen(old) + 1,
					    RW_ST_LIVE | RW_ST_INHERIT | (overflow ? RW_ST_OVERFLOW : 0)));
	/*
	 * A tag the bucket holds already is marked before the new one can be
	 * matched (rw_find_current), and looked for again after: another
	 * insert may be placing it there at once, from another home bucket.
	 */
	if (rw_tag_elsewhere(b, (__u32)way, w.tag))
		__sync_fetch_and_or(&d->ctl, RW_DIR_DUPTAG);
	__sync_lock_test_and_set(&d->tag[way], w.tag);
	if (rw_tag_elsewhere(b, (__u32)way, w.tag))
		__sync_fetch_and_or(&d->ctl, RW_DIR_DUPTAG);
	__sync_fetch_and_add(&home->ctl, RW_DIR_INHERIT_ONE);
	__sync_fetch_and_and(&home->ctl, ~RW_DIR_LOCK);
	st->new_flows++;
	/*
	 * The crowd's say in the inheritance, set for this insert only: not
	 * around every attempt, which under a spoofed flood into a full table is
	 * every packet and inserts nothing.
	 */
	rw_crowd_promoting(epoch, pr->limited, pr->units);
	rw_inherit(pr->h, epoch, pr->units);
	rw_inherit_add(idx, epoch);
	/* Fully ordered, both: the history before the flag, the flag before the count. */
	__sync_fetch_and_and(&ent->state, ~RW_ST_INHERIT);
	__sync_fetch_and_add(&home->ctl, -RW_DIR_INHERIT_ONE);
	return (int)idx;
unlock:
	__sync_fetch_and_and(&home->ctl, ~RW_DIR_LOCK);
	return way;
}

#endif /* RW_BPF_TABLE_H */
