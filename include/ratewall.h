/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every struct and constant that crosses the kernel/userspace boundary.
 * Fixed-width types, explicit padding, sizes pinned by _Static_assert, so the
 * BPF object and the loader can never disagree about a layout.
 *
 * The data path has two tiers (see README "How it works"):
 *   - a per-CPU count-min sketch that every untracked keyed packet bumps, and
 *   - tracked flows: sources promoted out of the sketch, each with a 64-byte
 *     per-CPU hot record (rw_flow) and one shared history record (rw_hist).
 */
#ifndef RATEWALL_H
#define RATEWALL_H

#include <linux/types.h>

#define RW_MIN_SLOTS 2
#define RW_MAX_SLOTS 32
/* Up to this many possible CPUs are summed for a cross-CPU limit decision. */
#define RW_MAX_CPUS 1024
/* Interfaces one instance attaches to, sharing its flow state. */
#define RW_MAX_IFACES 8
/* stats entries: one per listed interface, then one for a packet from any other */
#define RW_STATS_ENTRIES (RW_MAX_IFACES + 1)

/*
 * Version of every pinned layout (the maps below and the loader's metadata
 * record). Bump it on any change a pinned instance would misread: a loader
 * refuses pinned state of another version by name.
 */
#define RW_LAYOUT_VERSION 2

#define RW_FAMILY_IPV4 4
#define RW_FAMILY_IPV6 6

/* Source key. IPv4 addresses live in addr[0..3], the rest stays zero. */
struct rw_key {
	__u8 addr[16];
	__u8 family;
	__u8 pad[3];
};

/* --- Sketch ------------------------------------------------------------------ */

/* Count-min geometry: rows x columns buckets per CPU. Columns: a power of two. */
#define RW_SKETCH_ROWS 2
#define RW_SKETCH_COLS_LOG2 12
#define RW_SKETCH_COLS (1 << RW_SKETCH_COLS_LOG2)

/* One slot of one sketch bucket. Counts saturate instead of wrapping. */
struct rw_bucket_slot {
	__u32 packets;
	__u32 bytes;
};

/*
 * One sketch bucket on one CPU: `slots` slots indexed by epoch % slots, and
 * running sums over the live ones. `epoch` (low 32 bits) is the newest slot
 * written; a packet of a later slot first clears every slot the bucket skipped,
 * so a slot that nobody wiped is recognised by its bucket, never counted twice.
 * Map value size: rw_bucket_size(slots).
 */
struct rw_bucket {
	__u32 epoch;
	__u32 win_packets;
	__u64 win_bytes;
	struct rw_bucket_slot slot[];
};

static inline __u32 rw_bucket_size(__u32 slots)
{
	return (__u32)(sizeof(struct rw_bucket) + slots * sizeof(struct rw_bucket_slot));
}

/*
 * Sketch counts saturate at 2^32 - 1, so a threshold above 2^31 could be
 * unreachable: promotion happens at 2^31 at the latest (always safe: promoting
 * early only means tracking exactly).
 */
#define RW_MAX_THRESHOLD (1ULL << 31)

/*
 * Promotion threshold that enforces a per-window limit: a source below it on
 * every CPU admitted at most ncpus x (threshold - 1) < limit in the window.
 * 0 = no limit.
 */
static inline __u64 rw_limit_threshold(__u64 limit, __u32 ncpus, __u64 cap)
{
	__u64 t;

	if (!limit)
		return 0;
	t = limit / (ncpus ? ncpus : 1);
	if (t < 1)
		t = 1;
	return cap && t > cap ? cap : t;
}

/* --- Tracked flows -------------------------------------------------------------- */

/*
 * A tracked source is one element of a hash map, value laid out as
 *
 *   [ history: slots x RW_HIST_WORDS words | hot record of CPU 0 | CPU 1 | ... ]
 *
 * so one lookup finds everything, each CPU writes only its own 64-byte line,
 * and flushing a slot into the history touches the same element.
 *
 * Hot record: everything one packet touches. Counters belong to slot `epoch`;
 * the first packet of a later slot flushes them into the history. A CPU admits
 * from its lease without looking at other CPUs; the lease holds until
 * lease_until. A refill that finds no budget saturates the flow until
 * sat_until, the slot in which budget can first free up, so the drop path is
 * one compare across slot edges.
 */
struct rw_flow {
	__u64 epoch;
	__u64 bytes;        /* offered in `epoch` on this CPU */
	__u64 drop_bytes;
	__u32 packets;      /* offered */
	__u32 drop_packets;
	__u64 lease_bytes;
	__u32 lease_packets;
	__u32 sat_room;     /* while saturated, bytes a packet may still take (byte limits) */
	__u64 lease_until;  /* lease valid while epoch < lease_until */
	__u64 sat_until;    /* saturated while epoch < sat_until */
};

/*
 * History: per slot, four packed words (offered packets, offered bytes, dropped
 * packets, dropped bytes). Each word holds the low RW_HIST_TAG_BITS of its
 * slot's epoch above a RW_HIST_VALUE_BITS count, so CPUs flushing into it with
 * compare-and-swap never need a lock and a reader knows which round every count
 * belongs to.
 */
#define RW_HIST_TAG_BITS 24
#define RW_HIST_VALUE_BITS 40
#define RW_HIST_WORDS 4 /* per slot */
enum rw_hist_word { RW_H_PACKETS, RW_H_BYTES, RW_H_DROP_PACKETS, RW_H_DROP_BYTES };

static inline __u32 rw_hist_size(__u32 slots)
{
	return slots * RW_HIST_WORDS * (__u32)sizeof(__u64);
}

/* The kernel's hash element header and key before a value (struct htab_elem + key, x86_64). */
#define RW_HTAB_VALUE_SKEW 72

/*
 * Where CPU 0's hot record starts: after the history, placed so that hot
 * records fall on cache lines (the kernel lays elements out at multiples of
 * their size, which rw_flow_value_size keeps a multiple of 64). A wrong guess
 * costs speed (lines shared by two CPUs), never correctness.
 */
/*
 * After the history: what every CPU shares about the source beyond its counts
 * (plain stores; a race costs at most a repeated event).
 */
struct rw_flow_shared {
	__u64 limited_epoch; /* slot of its last `limited` event, plus one; 0 = never */
	__u64 ban_until_ns;  /* --ban: dropped while the clock is below this; 0 = not banned */
};

static inline __u32 rw_flow_shared_offset(__u32 slots)
{
	return rw_hist_size(slots);
}

static inline __u32 rw_flow_hot_offset(__u32 slots)
{
	__u32 skew = RW_HTAB_VALUE_SKEW % 64;

	return ((rw_hist_size(slots) + (__u32)sizeof(struct rw_flow_shared) + skew + 63) & ~63u) -
	       skew;
}

static inline __u32 rw_flow_value_size(__u32 slots, __u32 ncpus)
{
	return rw_flow_hot_offset(slots) + ncpus * (__u32)sizeof(struct rw_flow);
}

/*
 * Tracked-source filter: per index (bits of the source hash), how many tracked
 * sources have it. Zero means no source with that index is tracked, so a
 * packet skips the flow-table lookup. Promotion counts up before its insert,
 * the loader counts down after its delete (through an mmap), so the count never
 * falls below the tracked sources it stands for.
 */
#define RW_MARKS 65536
struct rw_marks {
	__u32 count[RW_MARKS];
};

/* What the loader sets at runtime (one-element array), read by untracked packets. */
struct rw_thresholds {
	__u64 promote_packets; /* promote at this per-CPU window estimate, 0 = off */
	__u64 promote_bytes;
	__s64 free_promotions; /* promotions allowed below the thresholds, taken atomically */
	__u64 pad;
};

/*
 * Global counters, one copy per CPU and interface (index in the instance's
 * interface list; RW_MAX_IFACES for any other); cumulative since load. Every counted
 * packet is either dropped or passed, so passed is not stored:
 * rw_stats_passed() derives it. Field order is fixed (tools read `dropped`).
 */
struct rw_stats {
	__u64 rx_packets;
	__u64 rx_bytes;
	__u64 dropped;       /* by limit, and malformed frames with --malformed drop
			      * (with --dry-run: would have been dropped) */
	__u64 dropped_bytes;
	__u64 malformed;     /* passed, not keyed */
	__u64 non_ip;        /* passed, not keyed */
	__u64 new_flows;     /* promotions out of the sketch */
	__u64 failed_inserts; /* promotion refused (table full): capped at the threshold */
	__u64 cross_cpu_checks; /* exact cross-CPU limit decisions taken */
	__u64 sketch_packets; /* keyed packets counted in the sketch only */
	__u64 capped_drops;  /* untracked packets dropped at the threshold (no room to track) */
	__u64 hist_flushes;  /* slot counts moved from a hot record into the history */
};

/*
 * Window totals per CPU and slot, for every keyed packet: what the report's
 * window figures are made of, without reading any per-source state.
 */
struct rw_wslot {
	__u64 epoch;
	__u64 packets;
	__u64 bytes;
	__u64 drop_packets;
	__u64 drop_bytes;
	__u64 sketch_packets; /* of which went into the sketch (a promoting packet too) */
	__u64 sketch_bytes;
	__u64 refused_epoch;  /* epoch + 1 of a refused promotion (table full), 0 = none */
	/* The other live slots' sketch sums, fixed during this slot: taken once, when first needed. */
	__u64 noise_epoch;    /* epoch + 1 they were taken for, 0 = not yet */
	__u64 earlier_sketch_packets;
	__u64 earlier_sketch_bytes;
	__u64 sampled;        /* untracked packets written to `samples` (--levels) */
	__u64 sample_lost;    /* ... that did not fit: the loader was slow or gone */
	__u64 event_lost;     /* events that did not fit in `events` */
	__u64 pad;
};

/* --- Events (--events) ------------------------------------------------------- */

#define RW_EVENTS_RINGBUF (1u << 18)
enum rw_event_type {
	RW_EV_LIMITED = 1,  /* first drop of a source in a window */
	RW_EV_RELEASED = 2, /* a window with no drop after it was limited (the loader's) */
	RW_EV_BANNED = 3,   /* --ban: dropped entirely until `until_ns` */
	RW_EV_UNBANNED = 4, /* the ban ran out (seen at the source's next packet) */
};
struct rw_event {
	__u32 type;
	__u32 cpu;
	struct rw_key key;
	__u32 pad;
	__u64 ts_ns;    /* the program's clock */
	__u64 until_ns; /* banned: when it ends, on the same clock */
};

/* --- Prefix samples (hierarchical heavy hitters) ------------------------------- */

/* One in RW_SAMPLE_EVERY untracked keyed packets goes to the loader, this way. */
#define RW_SAMPLE_EVERY 64
#define RW_SAMPLES_RINGBUF (1u << 20)
struct rw_sample {
	struct rw_key key;
	__u32 pad;
	__u64 epoch;
};

/* Longest slot: 2^32 packets per CPU per slot must stay out of reach (at 70 Mpps). */
#define RW_MAX_SLOT_NS (60ULL * 1000000000ULL)
#define RW_MIN_SLOT_NS (1000000ULL)

_Static_assert(sizeof(struct rw_key) == 20, "rw_key layout");
_Static_assert(sizeof(struct rw_bucket) == 16, "rw_bucket layout");
_Static_assert(sizeof(struct rw_bucket_slot) == 8, "rw_bucket_slot layout");
_Static_assert(sizeof(struct rw_flow) == 64, "rw_flow layout: one cache line");
/* --- Rules -------------------------------------------------------------------- */

#define RW_MAX_RULES 65536

enum rw_rule_action {
	RW_RULE_LIMIT = 0, /* its own limits (0: none), per source or per /per_len */
	RW_RULE_ALLOW = 1, /* never dropped; counted and ranked */
	RW_RULE_DENY = 2,  /* always dropped; counted and ranked */
};

/*
 * Longest-prefix-match key: one family byte, then the address. prefixlen
 * counts bits of both: 8 + the prefix length. Packed: the trie's key size is
 * exactly 4 + 17 bytes.
 */
struct rw_rule_key {
	__u32 prefixlen;
	__u8 family;
	__u8 addr[16];
} __attribute__((packed));

/* What a rule does; limits are per window, as the loader computes them. */
struct rw_rule {
	__u32 action;        /* enum rw_rule_action */
	__u32 per_len;       /* 0: each source its own budget; else each /per_len one */
	__u64 limit_packets; /* 0 = no packet limit */
	__u64 limit_bytes;
	__u64 cap_packets;   /* promotion thresholds these limits need (rw_limit_threshold) */
	__u64 cap_bytes;
	__u64 pps, bps;      /* as written, for listing */
};

/*
 * Which /16s of IPv4, and which /32s of IPv6 (folded to 16 bits), any rule
 * covers, one bit each: a packet from anywhere else skips the trie. Set before
 * a rule goes in, cleared after it is gone, so a bit is never missing.
 */
#define RW_HINT_WORDS (65536 / 64)
struct rw_rule_hint {
	__u64 v4[RW_HINT_WORDS];
	__u64 v6[RW_HINT_WORDS];
};

/* A source's bit in the hint: IPv4 by its /16, IPv6 by its /32 folded in half. */
static inline __u32 rw_hint_index(__u8 family, const __u8 *addr)
{
	__u32 hi = (__u32)addr[0] << 8 | addr[1];

	return family == RW_FAMILY_IPV4 ? hi : hi ^ ((__u32)addr[2] << 8 | addr[3]);
}

/* A source key standing for a prefix (a shared budget) carries its length here. */
#define RW_KEY_PREFIX_LEN(k) ((k)->pad[0])

_Static_assert(sizeof(struct rw_rule_key) == 21, "rw_rule_key layout");
_Static_assert(sizeof(struct rw_rule) == 56, "rw_rule layout");
_Static_assert(sizeof(struct rw_thresholds) == 32, "rw_thresholds layout");
_Static_assert(sizeof(struct rw_stats) == 96, "rw_stats layout");
_Static_assert(sizeof(struct rw_wslot) == 120, "rw_wslot layout");
_Static_assert(sizeof(struct rw_event) == 48, "rw_event layout");
_Static_assert(sizeof(struct rw_flow_shared) == 16, "rw_flow_shared layout");
_Static_assert(sizeof(struct rw_sample) == 32, "rw_sample layout");
_Static_assert((RW_SAMPLE_EVERY & (RW_SAMPLE_EVERY - 1)) == 0, "a power of two");
_Static_assert(RW_HIST_TAG_BITS + RW_HIST_VALUE_BITS == 64, "history word");

static inline __u64 rw_stats_passed(const struct rw_stats *s)
{
	return s->rx_packets - s->dropped;
}

#endif /* RATEWALL_H */
