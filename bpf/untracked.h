/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An untracked key's packet: counted in the sketch (sketch.h), and promoted
 * into the table (table.h) once its estimate says it may matter. Without an
 * entry a limited key is still held: dropped at its cap when there is no room
 * to track it, held with the crowd of untracked keys (crowd.h), and made to
 * wait out another CPU's insert into its bucket. Every keyed packet whose key
 * has no entry, the main kind's or a --rank kind's, comes here.
 */
#ifndef RW_BPF_UNTRACKED_H
#define RW_BPF_UNTRACKED_H

#include "maps.h"
#include "clock.h"
#include "crowd.h"
#include "sketch.h"
#include "table.h"
#include "policy.h"

/* What a tier decides for a key's packet; RW_TRACK: its entry decides (rw_track). */
enum rw_verdict { RW_PASS, RW_DROP, RW_TRACK };

/*
 * rw_promote for an untracked packet: a limited key is in the
 * crowd, which has its say in what it inherits (pr->limited, table.h) and
 * which it leaves once it has an entry (crowd.h).
 */
static __always_inline int rw_promote_from_crowd(const struct rw_key *key, struct rw_promotion *pr,
						 const struct rw_time *t, struct rw_stats *st)
{
	int idx = rw_promote(key, pr, t, st);

	if (idx >= 0 && pr->limited)
		rw_crowd_promoted(pr->h, t->epoch);
	return idx;
}

/*
 * An untracked source's packet: count it in the sketch, and promote the source
 * when this CPU's estimate of its own count (its buckets less the noise of
 * the window, sketch.h) reaches a threshold. With no room to track it, a
 * source whose own estimate reaches the limit's threshold is dropped: it is
 * held to its limit within the spread of the noise, and a flood's noise alone
 * never drops anyone. RW_TRACK with *idx set when it was promoted. kind: whose
 * thresholds promote it; sample: whether it may go to the loader for --levels
 * (the main kind's).
 */
static __always_inline int rw_untracked(const struct rw_key *key, __u64 h, __u32 home,
					const struct rw_time *t, __u32 slot, __u64 len, struct rw_stats *st,
					struct rw_wslot *ws, const struct rw_limit *lim, int *idx,
					__u32 kind, bool sample)
{
	__u32 cpu = bpf_get_smp_processor_id(), units = rw_byte_units(len);
	struct rw_sketch_at at = { .i0 = rw_bucket_index(cpu, 0, h), .i1 = rw_bucket_index(cpu, 1, h),
				   .slot = slot, .units = units, .epoch = t->epoch };
	struct rw_thresholds *th;
	struct rw_est own = {}, row1 = {}; /* own: row 0's counts until rw_own_estimate */
	__u64 load_p, load_b;
	bool over_cap, promote, stalled, crowded, busy = false, limited = lim->packets || lim->bytes;

	if (cpu >= cfg_nr_cpus || !rw_sketch_add(&at, &own, &row1))
		return RW_PASS;
	/*
	 * Every packet in the buckets is in the window's sketch load, the one that
	 * promotes its source included: the noise floor must see all of it, or
	 * each promotion would lower the bar for the next.
	 */
	ws->sketch_packets++;
	ws->sketch_bytes += len;
	rw_own_estimate(ws, t->epoch, &own, &row1, &load_p, &load_b);

	over_cap = (lim->cap_packets && own.packets >= lim->cap_packets) ||
		   (lim->cap_bytes && own.bytes >= lim->cap_bytes);
	promote = over_cap;
	th = bpf_map_lookup_elem(&thresholds, &kind);
	if (!promote && th) {
		promote = ((th->promote_packets && own.packets >= th->promote_packets) ||
			   (th->promote_bytes && own.bytes >= th->promote_bytes)) &&
			  rw_above_noise(&own, load_p, load_b);
		/*
		 * Free promotions track sources from their first packet while they
		 * are few; not once this CPU's buckets hold noise (a flood the
		 * loader has not seen yet): what a source inherits must be its own.
		 */
		if (!promote && !rw_sketch_noise(load_p) && th->free_promotions > 0)
			promote = __sync_fetch_and_add(&th->free_promotions, -1) > 0;
	}
	if (promote) {
		/*
		 * A full set may take over an idle entry, a scan of its entries'
		 * lines; after one that found none, this CPU skips that scan for
		 * the rest of the slot (a flood into a full table costs no more),
		 * and after RW_TAKEOVERS_A_SLOT that found one: a spoofed flood
		 * over a cap smaller than a frame is over it at a source's first
		 * packet, and took an entry a source, never to use it again (a
		 * tenth of the program's time in make bench's flood to one
		 * destination). A heavy source over its cap tries at every packet.
		 */
		struct rw_promotion pr = {
			.h = h, .units = units, .limited = limited,
			.take_idle = ws->refused_epoch != t->epoch + 1 &&
				     ws->takeovers < RW_TAKEOVERS_A_SLOT
		};
		__u64 evicted = st->evicted;

		*idx = rw_promote_from_crowd(key, &pr, t, st);
		ws->takeovers += st->evicted != evicted;
		if (*idx >= 0)
			return RW_TRACK;
		busy = *idx == RW_PROMOTE_BUSY;
		if (!busy && pr.take_idle) {
			st->failed_inserts++;
			ws->refused_epoch = t->epoch + 1;
		}
	} else if (limited) {
		busy = rw_bucket_locked(home);
	}
	/*
	 * Another CPU is inserting into this key's home bucket (perhaps this very
	 * key) and may have read this CPU's sketch before this packet reached it:
	 * admitted, a limited packet would be in no window. So it waits for the
	 * insert's lock (a bounded while; the inheritance runs after it, table.h)
	 * and then takes the key's entry: the one that CPU made (found under the
	 * lock), or its own (without an idle scan). The lock is read after the
	 * count, so an insert that takes it later reads this packet. An insert
	 * still going at the end of the wait (a CPU stalled in it) drops the
	 * packet (stalled_drops): without that, a stalled insert would let every
	 * other CPU admit up to its whole threshold. In a 64-CPU emulated guest,
	 * where a CPU can be descheduled in the middle of an insert, a source at
	 * half its limit lost 5-15 of 8 500 packets so, at its first packets.
	 * Dropping it at once was the first version: a source under its limit lost
	 * a packet for every CPU that met an insert into its bucket (spread over 2
	 * CPUs, a flood of 65 536 such sources lost 1 to 3 a run). Counted twice
	 * at worst instead: in the other CPU's inheritance and in the entry, a
	 * packet a CPU, once.
	 */
	if (busy && limited && rw_wait_bucket(home)) {
		struct rw_promotion again = { .h = h, .units = units, .limited = limited };

		*idx = rw_promote_from_crowd(key, &again, t, st);
		if (*idx >= 0)
			return RW_TRACK;
		busy = *idx == RW_PROMOTE_BUSY;
	}
	stalled = busy && limited && !over_cap;
	/*
	 * Not capped on its own: still held with the crowd of untracked keys
	 * (crowd.h), which a botnet bigger than the table fills with sources
	 * whose own estimates never stand out of the noise.
	 */
	crowded = limited && !over_cap && !stalled && !lim->deny &&
		  rw_crowd_gate(h, t, len, lim);
	over_cap |= stalled | crowded;
	/*
	 * Every RW_SAMPLE_EVERY-th untracked packet of this CPU and slot, for the
	 * prefix counts; not one that promoted its source, which the source's
	 * exact count holds (the prefix counts would hold it twice).
	 */
	if (sample && cfg_sample && !(ws->sketch_packets & (RW_SAMPLE_EVERY - 1)))
		rw_sample(key, t->epoch, ws);
	st->sketch_packets++;
	if (over_cap) {
		rw_bucket_take(at.i0, slot, 1, units);
		rw_bucket_take(at.i1, slot, 1, units);
		ws->taken_packets++;
		ws->taken_bytes += len;
		if (stalled)
			st->stalled_drops++;
		else if (crowded)
			st->crowd_drops++;
		else
			st->capped_drops++;
		return RW_DROP;
	}
	return lim->deny ? RW_DROP : RW_PASS;
}

#endif /* RW_BPF_UNTRACKED_H */
