// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ratewall XDP data path, in two tiers so that its cost does not grow with the
 * number of sources:
 *
 *  1. Every keyed packet of an untracked source bumps a per-CPU, slot-bucketed
 *     count-min sketch (two buckets, each one cache line and a half). A source
 *     whose estimate on this CPU crosses the promotion threshold becomes
 *     tracked. With a limit, the threshold is limit / possible CPUs, so a
 *     source that stays below it everywhere admits less than its limit.
 *  2. A tracked source is one hash element: a shared history, then a 64-byte
 *     hot record per CPU (each on its own cache line).
 *     Limits are exact across CPUs: a CPU admits from a local lease that lasts
 *     a window; when it runs dry it sums all CPUs' admitted counts and
 *     outstanding leases and takes 1/nr_cpus of what is left. Without budget
 *     the flow is saturated until budget can free up, so dropping costs one
 *     compare.
 *
 * A promoted flow inherits what every CPU's sketch counted for it, slot by
 * slot, so nothing admitted before promotion is forgotten (collisions can only
 * inflate that, which makes it admit less, never more).
 */
#include <stdbool.h>
#include "parse.h"
#include "ratewall_hash.h"
#include "ratewall_window.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load; frozen, so the verifier sees constants. */
const volatile __u64 cfg_slot_ns = 100000000ULL;
const volatile __u32 cfg_slots = 10;
const volatile __u64 cfg_limit_packets; /* per window, 0 = no packet limit */
const volatile __u64 cfg_limit_bytes;   /* per window, 0 = no byte limit */
const volatile __u64 cfg_cap_packets;   /* promotion threshold the limit needs, 0 = none */
const volatile __u64 cfg_cap_bytes;
const volatile __u32 cfg_nr_cpus = 1;
const volatile __u32 cfg_hot_off = 376; /* rw_flow_hot_offset(cfg_slots) */
const volatile __u64 cfg_hash_seed;     /* random per load: sketch collisions cannot be aimed */
const volatile bool cfg_test_clock;     /* tests drive time through test_clock_ns */
const volatile bool cfg_coarse_clock;   /* CLOCK_MONOTONIC_COARSE: about half the cost */
/* The instance's interfaces, in the loader's order: they index `stats`. */
const volatile __u32 cfg_ifindex[RW_MAX_IFACES];
const volatile __u32 cfg_nr_ifaces;
/* --dry-run: every verdict is taken and counted, none enforced */
const volatile bool cfg_dry_run;
/* --malformed drop: frames whose IP headers do not hold together are dropped */
const volatile bool cfg_malformed_drop;
/* --levels: sample one in (mask + 1) untracked packets for the loader; 0 = off */
const volatile __u32 cfg_sample_mask;
/* --events: limited / banned / unbanned go to the `events` ring buffer */
const volatile bool cfg_events;
/* --ban: a tracked source over its limit is dropped entirely this long; 0 = off */
const volatile __u64 cfg_ban_ns;
const volatile __u32 cfg_shared_off = 320; /* rw_flow_shared_offset(cfg_slots) */

__u64 test_clock_ns;

/* The limits one packet is held to: the command line's, or its rule's. */
struct rw_limit {
	__u64 packets, bytes;         /* per window, 0 = none */
	__u64 cap_packets, cap_bytes; /* promotion thresholds they need */
	bool deny;                    /* a deny rule: never admitted */
};
#define RW_U32_MAX 0xffffffffU

/*
 * Tracked sources: history, then one hot record per CPU (rw_flow_value_size,
 * set by the loader). An insert copies that much: O(CPUs x 64 B), once per source.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct rw_key));
	__uint(value_size, 376 + 64);
	__uint(max_entries, 32768);
} flows SEC(".maps");

/* A zeroed flow value to insert from (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__uint(value_size, 376 + 64);
	__uint(max_entries, 1);
} zero_flow SEC(".maps");

/* Tracked-source filter (struct rw_marks); the loader counts down through an mmap. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rw_marks);
	__uint(max_entries, 1);
} marks SEC(".maps");

/* Count-min sketch: RW_SKETCH_ROWS x RW_SKETCH_COLS buckets per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__uint(value_size, 16 + 10 * 8);
	__uint(max_entries, RW_SKETCH_ROWS * RW_SKETCH_COLS);
} sketch SEC(".maps");

/* Per-slot sums gathered from every CPU's sketch when a source is promoted. */
struct rw_inherit {
	__u64 packets[RW_MAX_SLOTS];
	__u64 bytes[RW_MAX_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_inherit);
	__uint(max_entries, 1);
} inherit_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_thresholds);
	__uint(max_entries, 1);
} thresholds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_stats);
	__uint(max_entries, RW_STATS_ENTRIES);
} stats SEC(".maps");

/* Operators' rules, longest prefix first (struct rw_rule_key, family byte first). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(key_size, sizeof(struct rw_rule_key));
	__uint(value_size, sizeof(struct rw_rule));
	__uint(max_entries, RW_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} rules SEC(".maps");

/* Which /16s any rule covers: traffic from elsewhere never walks the trie. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_rule_hint);
	__uint(max_entries, 1);
} rule_hint SEC(".maps");

/* Sampled untracked packets (struct rw_sample) for the loader's prefix counts. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RW_SAMPLES_RINGBUF);
} samples SEC(".maps");

/* Limited, banned, unbanned (struct rw_event), for the loader's --events. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RW_EVENTS_RINGBUF);
} events SEC(".maps");

/* Window totals of every keyed packet, per CPU and slot (index epoch % slots). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_wslot);
	__uint(max_entries, RW_MAX_SLOTS);
} window SEC(".maps");

static __always_inline __u64 rw_now(void)
{
	if (cfg_test_clock)
		return test_clock_ns;
	if (cfg_coarse_clock)
		return bpf_ktime_get_coarse_ns();
	return bpf_ktime_get_ns();
}

/* epoch % cfg_slots, in a form the verifier can bound. */
static __always_inline __u32 rw_slot_index(__u64 epoch)
{
	__u64 idx = epoch % cfg_slots;

	/* Keep the clamp: the verifier cannot bound a modulo by itself. */
	asm volatile("" : "+r"(idx));
	if (idx >= RW_MAX_SLOTS || idx >= cfg_slots)
		return 0;
	return (__u32)idx;
}

/* --- Sketch --------------------------------------------------------------------- */

static __always_inline void rw_sketch_index(__u64 h, __u32 idx[RW_SKETCH_ROWS])
{
	idx[0] = (__u32)h & (RW_SKETCH_COLS - 1);
	idx[1] = RW_SKETCH_COLS + ((__u32)(h >> 32) & (RW_SKETCH_COLS - 1));
}

/*
 * Moves a bucket to `epoch`: the slots it skipped hold rounds that left the
 * window, so they are cleared, and the running sums are recounted.
 */
static __always_inline void rw_bucket_advance(struct rw_bucket *b, __u64 epoch)
{
	__u32 gap = (__u32)epoch - b->epoch, first;
	__u64 packets = 0, bytes = 0;

	if (gap == 0)
		return;
	/* The slots of rounds newest+1 .. epoch start at `first`, gap of them in a row. */
	first = rw_slot_index(epoch - gap + 1);
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		struct rw_bucket_slot *s = &b->slot[i];

		if (i >= cfg_slots)
			break;
		if (gap >= cfg_slots || (i + cfg_slots - first) % cfg_slots < gap) {
			s->packets = 0;
			s->bytes = 0;
			continue;
		}
		packets += s->packets;
		bytes += s->bytes;
	}
	b->win_packets = packets > RW_U32_MAX ? RW_U32_MAX : (__u32)packets;
	b->win_bytes = bytes;
	b->epoch = (__u32)epoch;
}

struct rw_est {
	__u64 packets;
	__u64 bytes;
};

/*
 * Counts a packet in one bucket and returns its window estimates (0 if the
 * bucket cannot be had). A global function: verified once, not per row.
 */
__noinline int rw_bucket_add(__u32 idx, __u64 epoch, __u32 slot, __u64 len, struct rw_est *est)
{
	struct rw_bucket *b = bpf_map_lookup_elem(&sketch, &idx);
	struct rw_bucket_slot *s;

	if (!b || !est || slot >= cfg_slots || slot >= RW_MAX_SLOTS)
		return 0;
	rw_bucket_advance(b, epoch);
	s = &b->slot[slot];
	if (s->packets != RW_U32_MAX) {
		s->packets++;
		if (b->win_packets != RW_U32_MAX)
			b->win_packets++;
	}
	s->bytes = s->bytes + len > RW_U32_MAX ? RW_U32_MAX : s->bytes + (__u32)len;
	b->win_bytes += len;
	est->packets = b->win_packets;
	est->bytes = b->win_bytes;
	return 1;
}

/*
 * Takes back a packet rw_bucket_add just counted in the current slot, for a
 * packet dropped at the cap: the sketch then holds what was admitted, as a
 * tracked flow's window does, and a source held at its cap gets budget back as
 * the window slides (with no room to track it, and no loader to make room, it
 * would otherwise be shut out for as long as it sends). A saturated count stays.
 */
__noinline int rw_bucket_undo(__u32 idx, __u32 slot, __u64 len)
{
	struct rw_bucket *b = bpf_map_lookup_elem(&sketch, &idx);
	struct rw_bucket_slot *s;

	if (!b || slot >= cfg_slots || slot >= RW_MAX_SLOTS)
		return 0;
	s = &b->slot[slot];
	if (s->packets != RW_U32_MAX && s->packets) {
		s->packets--;
		if (b->win_packets != RW_U32_MAX && b->win_packets)
			b->win_packets--;
	}
	if (s->bytes != RW_U32_MAX)
		s->bytes = s->bytes > len ? s->bytes - (__u32)len : 0;
	b->win_bytes = b->win_bytes > len ? b->win_bytes - len : 0;
	return 1;
}

/* The count a bucket holds for `epoch`, 0 if it holds another round there. */
static __always_inline void rw_bucket_count(const struct rw_bucket *b, __u64 epoch, __u64 *packets,
					    __u64 *bytes)
{
	const struct rw_bucket_slot *s;

	if ((__u32)(b->epoch - (__u32)epoch) >= cfg_slots) {
		*packets = 0;
		*bytes = 0;
		return;
	}
	s = &b->slot[rw_slot_index(epoch)];
	*packets = s->packets;
	*bytes = s->bytes;
}

/* --- Shared history --------------------------------------------------------- */

/*
 * Adds v to a packed word for `epoch`: a word of an older round is restarted,
 * one of a newer round is left alone (our count has left the window). Lock-free;
 * a CPU retries only when another one changed the word in between, so eight
 * tries are many more than two CPUs flushing the same flow at once need.
 * A global function: the verifier checks its loop once, not at every call.
 */
__noinline int rw_hist_add(__u64 *w, __u64 epoch, __u64 v)
{
	__u64 tag = epoch & RW_HIST_TAG_MASK;

	if (!w)
		return 0;
	for (int i = 0; i < 8; i++) {
		__u64 old = *(volatile __u64 *)w, next, d = (tag - (old >> RW_HIST_VALUE_BITS)) &
								RW_HIST_TAG_MASK;

		if (old == 0 || (d != 0 && d < (RW_HIST_TAG_MASK >> 1)))
			next = rw_hist_pack(epoch, v);
		else if (d == 0)
			next = rw_hist_pack(epoch, rw_hist_value(old) + v);
		else
			return 0;
		if (__sync_val_compare_and_swap(w, old, next) == old)
			return 1;
	}
	return 0;
}

/*
 * The words of slot `idx` (an rw_slot_index) in a history record. The bound is
 * checked again here, where the pointer is formed: a clamp made earlier can be
 * lost to the verifier when the compiler keeps the index in another register.
 */
static __always_inline __u64 *rw_hist_slot(__u64 *h, __u32 idx)
{
	asm volatile("" : "+r"(idx));
	if (idx >= cfg_slots || idx >= RW_MAX_SLOTS)
		return NULL;
	return &h[idx * RW_HIST_WORDS];
}

/* A CPU's hot record inside a flow's value. */
static __always_inline struct rw_flow *rw_hot(void *v, __u32 cpu)
{
	__u64 off;

	if (cpu >= cfg_nr_cpus) /* a load-time constant: the verifier's bound too */
		return NULL;
	off = cfg_hot_off + (__u64)cpu * sizeof(struct rw_flow);
	return v + off;
}

/* Moves this CPU's counts of an earlier slot into the history, and starts `epoch`. */
static __always_inline void rw_flush(struct rw_flow *f, __u64 *hist, __u64 epoch,
				     struct rw_stats *st)
{
	if (f->packets && rw_slot_live(f->epoch, epoch, cfg_slots)) {
		__u64 *w = rw_hist_slot(hist, rw_slot_index(f->epoch));

		if (w) {
			rw_hist_add(&w[RW_H_PACKETS], f->epoch, f->packets);
			rw_hist_add(&w[RW_H_BYTES], f->epoch, f->bytes);
			if (f->drop_packets) {
				rw_hist_add(&w[RW_H_DROP_PACKETS], f->epoch, f->drop_packets);
				rw_hist_add(&w[RW_H_DROP_BYTES], f->epoch, f->drop_bytes);
			}
			st->hist_flushes++;
		}
	}
	f->epoch = epoch;
	f->packets = 0;
	f->bytes = 0;
	f->drop_packets = 0;
	f->drop_bytes = 0;
}

/* --- Exact limit across CPUs -------------------------------------------------- */

struct rw_sum_ctx {
	void *v;         /* the flow's value: every CPU's hot record and the history */
	struct rw_key key;
	__u32 self;
	__u64 epoch;
	__u64 packets;   /* admitted in the window plus others' outstanding leases */
	__u64 bytes;
	__u64 oldest;    /* oldest slot with admitted traffic */
	__u64 lease_end; /* first epoch at which another CPU's lease lapses */
};

static long rw_sum_cpu(__u32 cpu, void *data)
{
	struct rw_sum_ctx *sum = data;
	struct rw_flow *f = rw_hot(sum->v, cpu);

	if (!f)
		return 1;
	if (f->packets > f->drop_packets && rw_slot_live(f->epoch, sum->epoch, cfg_slots)) {
		sum->packets += f->packets - f->drop_packets;
		sum->bytes += f->bytes - f->drop_bytes;
		if (f->epoch < sum->oldest)
			sum->oldest = f->epoch;
	}
	if (cpu != sum->self && f->lease_until > sum->epoch) {
		sum->packets += f->lease_packets;
		sum->bytes += f->lease_bytes;
		if (f->lease_until < sum->lease_end)
			sum->lease_end = f->lease_until;
	}
	return 0;
}

/*
 * Adds the shared history to a refill's sums. A global function: the verifier
 * checks it once with *sum unknown, where a loop inlined into the refill (or a
 * bpf_loop callback) would be walked again for every value the sums can take.
 */
__noinline int rw_sum_hist(struct rw_sum_ctx *sum)
{
	__u64 *h;

	if (!sum)
		return 0;
	h = bpf_map_lookup_elem(&flows, &sum->key);
	if (!h)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u64 *w, p, dp, y, dy;

		if (i >= cfg_slots)
			break;
		w = rw_hist_slot(h, i);
		if (!w)
			break;
		p = rw_hist_live(w[RW_H_PACKETS], sum->epoch, cfg_slots);
		dp = rw_hist_live(w[RW_H_DROP_PACKETS], sum->epoch, cfg_slots);
		if (p <= dp)
			continue;
		/* A word may be caught mid-flush in another round: never subtract past zero. */
		y = rw_hist_live(w[RW_H_BYTES], sum->epoch, cfg_slots);
		dy = rw_hist_live(w[RW_H_DROP_BYTES], sum->epoch, cfg_slots);
		sum->packets += p - dp;
		sum->bytes += y > dy ? y - dy : 0;
		p = rw_hist_epoch(w[RW_H_PACKETS], sum->epoch);
		if (p < sum->oldest)
			sum->oldest = p;
	}
	return 0;
}

/* Refill this CPU's lease from what all CPUs left of the window's budget. */
static __always_inline bool rw_refill(struct rw_flow *f, void *v, const struct rw_key *key,
				      __u64 epoch, __u64 len, struct rw_stats *st,
				      const struct rw_limit *lim)
{
	struct rw_sum_ctx sum = {
		.v = v,
		.key = *key,
		.self = bpf_get_smp_processor_id(),
		.epoch = epoch,
		.oldest = ~0ULL,
		.lease_end = ~0ULL,
	};
	__u64 left_packets = 0, left_bytes = 0, share, until;

	st->cross_cpu_checks++;
	bpf_loop(cfg_nr_cpus, rw_sum_cpu, &sum, 0);
	rw_sum_hist(&sum);

	if (lim->packets > sum.packets)
		left_packets = lim->packets - sum.packets;
	if (lim->bytes > sum.bytes)
		left_bytes = lim->bytes - sum.bytes;
	f->lease_packets = 0;
	f->lease_bytes = 0;
	if ((lim->packets && left_packets < 1) || (lim->bytes && left_bytes < len)) {
		/*
		 * Budget frees up when the oldest admitted slot leaves, or a lease
		 * lapses. With neither, the whole budget is free and this packet
		 * alone is too big for it: nothing changes before a window passes
		 * (a smaller packet still gets through sat_room).
		 */
		until = sum.oldest != ~0ULL ? sum.oldest + cfg_slots : epoch + cfg_slots;
		if (sum.lease_end < until)
			until = sum.lease_end;
		f->sat_until = until > epoch ? until : epoch + 1;
		f->sat_room = lim->packets && left_packets < 1 ? 0 :
			      (left_bytes > RW_U32_MAX ? RW_U32_MAX : (__u32)left_bytes);
		return false;
	}
	/* A 1/nr_cpus share keeps concurrent refills inside what is left. */
	share = left_packets / cfg_nr_cpus;
	f->lease_packets = share > RW_U32_MAX ? RW_U32_MAX : (share ? share : 1);
	share = left_bytes / cfg_nr_cpus;
	f->lease_bytes = share > len ? share : len;
	/* What is left holds for the whole window: budget only frees up as it slides. */
	f->lease_until = epoch + cfg_slots;
	f->sat_until = 0;
	return true;
}

/* Admitted-only: a refused packet takes nothing from the budget. */
static __always_inline bool rw_admit(struct rw_flow *f, void *v, const struct rw_key *key,
				     __u64 epoch, __u64 len, struct rw_stats *st,
				     const struct rw_limit *lim)
{
	if (epoch < f->sat_until && len > f->sat_room)
		return false;
	if (epoch >= f->lease_until) {
		f->lease_packets = 0;
		f->lease_bytes = 0;
	}
	if ((lim->packets && f->lease_packets < 1) || (lim->bytes && f->lease_bytes < len)) {
		if (!rw_refill(f, v, key, epoch, len, st, lim))
			return false;
	}
	if (lim->packets)
		f->lease_packets--;
	if (lim->bytes)
		f->lease_bytes -= len;
	return true;
}

/* --- Promotion ------------------------------------------------------------------ */

struct rw_inherit_ctx {
	__u32 idx[RW_SKETCH_ROWS];
	__u64 epoch;
};

/* Adds one CPU's count-min estimate of the source, per live slot. */
static long rw_inherit_cpu(__u32 cpu, void *data)
{
	struct rw_inherit_ctx *ctx = data;
	struct rw_bucket *b0, *b1;
	struct rw_inherit *acc;
	__u32 zero = 0;

	acc = bpf_map_lookup_elem(&inherit_scratch, &zero);
	b0 = bpf_map_lookup_percpu_elem(&sketch, &ctx->idx[0], cpu);
	b1 = bpf_map_lookup_percpu_elem(&sketch, &ctx->idx[1], cpu);
	if (!acc || !b0 || !b1)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u64 e = ctx->epoch - i, p0, p1, y0, y1;
		__u32 s;

		if (i >= cfg_slots || i > ctx->epoch)
			break;
		rw_bucket_count(b0, e, &p0, &y0);
		rw_bucket_count(b1, e, &p1, &y1);
		s = rw_slot_index(e);
		acc->packets[s] += p0 < p1 ? p0 : p1;
		acc->bytes[s] += y0 < y1 ? y0 : y1;
	}
	return 0;
}

/*
 * Writes into the source's history what every CPU's sketch counted for it,
 * slot by slot, less the packet being processed (the tracked path counts that
 * one). Global: verified once.
 */
__noinline int rw_inherit(const struct rw_inherit_ctx *in, const struct rw_key *key, __u64 len)
{
	struct rw_inherit_ctx ctx;
	struct rw_inherit *acc;
	__u32 zero = 0, now;
	__u64 *h;

	if (!in || !key)
		return 0;
	ctx = *in;
	acc = bpf_map_lookup_elem(&inherit_scratch, &zero);
	if (!acc)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		acc->packets[i] = 0;
		acc->bytes[i] = 0;
	}
	bpf_loop(cfg_nr_cpus, rw_inherit_cpu, &ctx, 0);
	now = rw_slot_index(ctx.epoch);
	acc->packets[now] -= acc->packets[now] ? 1 : 0;
	acc->bytes[now] -= acc->bytes[now] > len ? len : acc->bytes[now];

	h = bpf_map_lookup_elem(&flows, key);
	if (!h)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		__u64 e = ctx.epoch - i, *w;
		__u32 s;

		if (i >= cfg_slots || i > ctx.epoch)
			break;
		s = rw_slot_index(e);
		w = rw_hist_slot(h, s);
		if (!acc->packets[s] || !w)
			continue;
		rw_hist_add(&w[RW_H_PACKETS], e, acc->packets[s]);
		rw_hist_add(&w[RW_H_BYTES], e, acc->bytes[s]);
	}
	return 1;
}

/*
 * Gives the source a tracked record that inherits the sketch's counts. The
 * hot record is inserted first, so a full table costs one failed insert and no
 * inheritance work. NULL when the table has no room.
 */
static __always_inline void *rw_promote(const struct rw_key *key, const __u32 idx[2], __u64 epoch,
					__u64 len, __u32 *mark, struct rw_stats *st)
{
	struct rw_inherit_ctx ctx = { .idx = { idx[0], idx[1] }, .epoch = epoch };
	__u32 zero = 0;
	void *init, *v;

	init = bpf_map_lookup_elem(&zero_flow, &zero);
	if (!init)
		return NULL;
	/* Counted up first: no CPU may skip the lookup once the record exists. */
	__sync_fetch_and_add(mark, 1);
	if (bpf_map_update_elem(&flows, key, init, BPF_NOEXIST) == 0)
		st->new_flows++;
	else /* the table is full, or another CPU's insert (and count) won */
		__sync_fetch_and_add(mark, -1);
	v = bpf_map_lookup_elem(&flows, key);
	if (!v) {
		st->failed_inserts++;
		return NULL;
	}
	rw_inherit(&ctx, key, len);
	return v;
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

enum rw_verdict { RW_PASS, RW_DROP, RW_TRACK };

/* Hands one untracked packet's source to the loader; a full buffer costs a count. */
static __always_inline void rw_sample(const struct rw_key *key, __u64 epoch, struct rw_wslot *ws)
{
	struct rw_sample s = { .key = *key, .epoch = epoch };

	if (bpf_ringbuf_output(&samples, &s, sizeof(s), 0))
		ws->sample_lost++;
	else
		ws->sampled++;
}

/*
 * An untracked source's packet: count it in the sketch, and promote the source
 * when this CPU's estimate reaches a threshold. With no room to track it, a
 * source at the limit's threshold is dropped: it can never exceed its limit.
 */
static __always_inline int rw_untracked(const struct rw_key *key, __u64 h, __u32 *mark,
					__u64 epoch, __u32 slot, __u64 len, struct rw_stats *st,
					struct rw_wslot *ws, void **vp, const struct rw_limit *lim)
{
	struct rw_est r0 = {}, r1 = {};
	__u64 est_p, est_b;
	struct rw_thresholds *th;
	__u32 idx[2], zero = 0;
	bool over_cap, promote;

	rw_sketch_index(h, idx);
	if (!rw_bucket_add(idx[0], epoch, slot, len, &r0) ||
	    !rw_bucket_add(idx[1], epoch, slot, len, &r1))
		return RW_PASS;
	est_p = r0.packets < r1.packets ? r0.packets : r1.packets;
	est_b = r0.bytes < r1.bytes ? r0.bytes : r1.bytes;
	/*
	 * Every packet in the buckets is in the window's sketch load, the one that
	 * promotes its source included: the noise floor must see all of it, or
	 * each promotion would lower the bar for the next.
	 */
	ws->sketch_packets++;
	ws->sketch_bytes += len;
	/* Every (mask + 1)-th untracked packet of this CPU and slot, for the prefix counts. */
	if (cfg_sample_mask && !(ws->sketch_packets & cfg_sample_mask))
		rw_sample(key, epoch, ws);

	over_cap = (lim->cap_packets && est_p >= lim->cap_packets) ||
		   (lim->cap_bytes && est_b >= lim->cap_bytes);
	promote = over_cap;
	th = bpf_map_lookup_elem(&thresholds, &zero);
	if (!promote && th) {
		promote = ((th->promote_packets && est_p >= th->promote_packets) ||
			   (th->promote_bytes && est_b >= th->promote_bytes)) &&
			  rw_above_noise(ws, epoch, est_p, est_b);
		if (!promote && th->free_promotions > 0)
			promote = __sync_fetch_and_add(&th->free_promotions, -1) > 0;
	}
	/* After a refused insert, wait for the next slot before trying again. */
	if (promote && ws->refused_epoch != epoch + 1) {
		*vp = rw_promote(key, idx, epoch, len, mark, st);
		if (*vp)
			return RW_TRACK;
		ws->refused_epoch = epoch + 1;
	}
	st->sketch_packets++;
	if (over_cap) {
		rw_bucket_undo(idx[0], slot, len);
		rw_bucket_undo(idx[1], slot, len);
		st->capped_drops++;
		return RW_DROP;
	}
	return lim->deny ? RW_DROP : RW_PASS;
}

static __always_inline struct rw_wslot *rw_window_slot(__u64 epoch, __u32 idx)
{
	struct rw_wslot *ws = bpf_map_lookup_elem(&window, &idx);

	/* A slot still holding an older round starts over: every field belongs to its round. */
	if (ws && ws->epoch != epoch)
		*ws = (struct rw_wslot){ .epoch = epoch };
	return ws;
}

/* Keeps the first len bits of the key's address: the key then stands for its /len. */
static __always_inline void rw_key_mask(struct rw_key *key, __u32 len)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		int keep = (int)len - 8 * i;

		if (keep < 8)
			key->addr[i] &= keep <= 0 ? 0 : (__u8)(0xff << (8 - keep));
	}
	RW_KEY_PREFIX_LEN(key) = (__u8)len;
}

/*
 * The limits this source is held to: its longest-matching rule's, else the
 * command line's. The trie is walked only where the hint says a rule may be. A
 * `per /LEN` rule turns the key into its /LEN: that prefix shares one budget.
 */
static __always_inline void rw_rule_limits(struct rw_key *key, struct rw_limit *lim)
{
	struct rw_rule_key rk = { .prefixlen = 8 + 128 };
	struct rw_rule_hint *hint;
	struct rw_rule *r;
	__u32 zero = 0, idx;
	__u64 word;

	*lim = (struct rw_limit){ .packets = cfg_limit_packets, .bytes = cfg_limit_bytes,
				  .cap_packets = cfg_cap_packets, .cap_bytes = cfg_cap_bytes };
	hint = bpf_map_lookup_elem(&rule_hint, &zero);
	if (!hint)
		return;
	idx = rw_hint_index(key->family, key->addr) & 0xffff;
	word = key->family == RW_FAMILY_IPV4 ? hint->v4[idx >> 6] : hint->v6[idx >> 6];
	if (!((word >> (idx & 63)) & 1))
		return;
	rk.family = key->family;
	__builtin_memcpy(rk.addr, key->addr, sizeof(rk.addr));
	r = bpf_map_lookup_elem(&rules, &rk);
	if (!r)
		return;
	if (r->action == RW_RULE_ALLOW) {
		*lim = (struct rw_limit){ 0 };
		return;
	}
	if (r->action == RW_RULE_DENY) {
		*lim = (struct rw_limit){ .deny = true };
		return;
	}
	*lim = (struct rw_limit){ .packets = r->limit_packets, .bytes = r->limit_bytes,
				  .cap_packets = r->cap_packets, .cap_bytes = r->cap_bytes };
	if (r->per_len)
		rw_key_mask(key, r->per_len > 128 ? 128 : r->per_len);
}

static __always_inline void rw_event(__u32 type, const struct rw_key *key, __u64 now,
				     __u64 until, struct rw_wslot *ws)
{
	struct rw_event ev = { .type = type, .cpu = bpf_get_smp_processor_id(), .key = *key,
			       .ts_ns = now, .until_ns = until };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		ws->event_lost++;
}

/*
 * A tracked source's first drop in a window: the `limited` event, and with
 * --ban the start of its ban.
 */
static __always_inline void rw_limited(struct rw_flow_shared *sh, const struct rw_key *key,
				       __u64 epoch, __u64 now, struct rw_wslot *ws)
{
	/* limited_epoch holds epoch + 1: 0 is "never", epoch 0 a real slot */
	if (sh->limited_epoch && epoch + 1 < sh->limited_epoch + cfg_slots)
		return;
	sh->limited_epoch = epoch + 1;
	if (cfg_events)
		rw_event(RW_EV_LIMITED, key, now, 0, ws);
	if (cfg_ban_ns) {
		sh->ban_until_ns = now + cfg_ban_ns;
		if (cfg_events)
			rw_event(RW_EV_BANNED, key, now, now + cfg_ban_ns, ws);
	}
}

/* --ban: whether the source is banned now; a ban that ran out ends here, once. */
static __always_inline bool rw_banned(struct rw_flow_shared *sh, const struct rw_key *key,
				      __u64 now, struct rw_wslot *ws)
{
	__u64 until = sh->ban_until_ns;

	if (!until)
		return false;
	if (now < until)
		return true;
	if (__sync_val_compare_and_swap(&sh->ban_until_ns, until, 0) == until && cfg_events)
		rw_event(RW_EV_UNBANNED, key, now, until, ws);
	return false;
}

/* The stats entry of the interface the packet came in on: constant compares, no lookup. */
static __always_inline __u32 rw_iface_index(const struct xdp_md *ctx)
{
	__u32 ifindex = ctx->ingress_ifindex;

	for (__u32 i = 0; i < RW_MAX_IFACES; i++) {
		if (i >= cfg_nr_ifaces)
			break;
		if (cfg_ifindex[i] == ifindex)
			return i;
	}
	return RW_MAX_IFACES;
}

SEC("xdp.frags")
int ratewall_xdp(struct xdp_md *ctx)
{
	__u64 len = bpf_xdp_get_buff_len(ctx);
	struct rw_key key = {};
	struct rw_wslot *ws;
	struct rw_stats *st;
	struct rw_flow *f;
	__u32 zero = 0, slot, *mark, ifi = rw_iface_index(ctx);
	struct rw_limit lim;
	struct rw_flow_shared *sh;
	struct rw_marks *mk;
	__u64 epoch, h, now;
	bool admit, banned;
	void *v;
	int ret;

	st = bpf_map_lookup_elem(&stats, &ifi);
	if (!st)
		return XDP_PASS;
	st->rx_packets++;
	st->rx_bytes += len;

	ret = rw_parse_source(ctx, &key, len);
	if (ret == RW_PARSE_NOT_IP) {
		st->non_ip++;
		return XDP_PASS;
	}
	if (ret != RW_PARSE_OK) {
		/* No source to trust: never keyed; passed, or dropped as a class. */
		st->malformed++;
		if (!cfg_malformed_drop)
			return XDP_PASS;
		st->dropped++;
		st->dropped_bytes += len;
		return cfg_dry_run ? XDP_PASS : XDP_DROP;
	}

	now = rw_now();
	epoch = now / cfg_slot_ns;
	slot = rw_slot_index(epoch); /* once a packet: every user takes it from here */
	ws = rw_window_slot(epoch, slot);
	if (!ws)
		return XDP_PASS;
	ws->packets++;
	ws->bytes += len;

	rw_rule_limits(&key, &lim);
	h = rw_hash(&key, cfg_hash_seed);
	mk = bpf_map_lookup_elem(&marks, &zero);
	if (!mk)
		return XDP_PASS;
	mark = &mk->count[rw_mark_index(h)];
	/* Most untracked sources skip the flow table: their filter count is zero. */
	v = *mark ? bpf_map_lookup_elem(&flows, &key) : NULL;
	if (!v) {
		ret = rw_untracked(&key, h, mark, epoch, slot, len, st, ws, &v, &lim);
		if (ret == RW_PASS)
			return XDP_PASS;
		if (ret == RW_DROP)
			goto drop;
		if (!v)
			return XDP_PASS;
	}
	f = rw_hot(v, bpf_get_smp_processor_id());
	if (!f)
		return XDP_PASS;
	if (f->epoch != epoch)
		rw_flush(f, v, epoch, st);
	sh = v + cfg_shared_off;
	banned = cfg_ban_ns && rw_banned(sh, &key, now, ws);
	/* Decide before counting: the sum a refill takes must not hold this packet. */
	admit = !lim.deny && !banned &&
		((!lim.packets && !lim.bytes) || rw_admit(f, v, &key, epoch, len, st, &lim));
	f->packets++;
	f->bytes += len;
	if (admit)
		return XDP_PASS;
	f->drop_packets++;
	f->drop_bytes += len;
	/* Over its limit (not denied, not serving a ban): limited, and maybe banned. */
	if ((cfg_events || cfg_ban_ns) && !lim.deny && !banned)
		rw_limited(sh, &key, epoch, now, ws);
drop:
	ws->drop_packets++;
	ws->drop_bytes += len;
	st->dropped++;
	st->dropped_bytes += len;
	return cfg_dry_run ? XDP_PASS : XDP_DROP;
}
