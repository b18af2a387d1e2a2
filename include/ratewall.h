/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every struct and constant that crosses the kernel/userspace boundary.
 * Fixed-width types, explicit padding, sizes pinned by _Static_assert, so the
 * BPF object and the loader can never disagree about a layout.
 *
 * The data path has two tiers (see docs/design.md):
 *   - a per-CPU count-min sketch that every untracked keyed packet bumps, and
 *   - tracked flows: sources promoted out of the sketch into a table the
 *     program owns (dir, keys, hot, hist below), one 32-byte record per CPU.
 */
#ifndef RATEWALL_H
#define RATEWALL_H

#include <linux/types.h>

#define RW_MIN_SLOTS 2
#define RW_MAX_SLOTS 32
#define RW_DEFAULT_SLOTS 10 /* --slots */
/* Up to this many possible CPUs are summed for a cross-CPU limit decision. */
#define RW_MAX_CPUS 1024
/* Interfaces one instance attaches to, sharing its flow state. */
#define RW_MAX_IFACES 8
/* stats entries: one per listed interface, then one for a packet from any other */
#define RW_STATS_ENTRIES (RW_MAX_IFACES + 1)

/*
 * Version of every pinned layout (the maps below and the loader's metadata
 * record). Bump it on any change a pinned instance would misread: a loader
 * never reads pinned state of another version; --replace swaps its own
 * program into that state's links (service/upgrade.c). The Makefile builds
 * one loader with the version before (build/layout-prev/), to test that.
 */
#ifndef RW_LAYOUT_VERSION
#define RW_LAYOUT_VERSION 18
#endif

#define RW_FAMILY_IPV4 4
#define RW_FAMILY_IPV6 6

/*
 * What a key stands for (--key). The key's own address (addr) is the source
 * for src, pair and flow, the destination for dst: rules, per-/LEN budgets and
 * prefix rankings always read addr.
 */
enum rw_key_kind {
	RW_KIND_SRC = 0,
	RW_KIND_DST = 1,
	RW_KIND_PAIR = 2, /* source -> destination */
	RW_KIND_FLOW = 3, /* protocol, source:port -> destination:port */
	RW_KIND_COUNT
};

/*
 * --rank: kinds ranked beside the main one (a bit per kind, never the main's)
 * are counted under keys whose `kind` carries RW_KIND_RANKED: tracked and
 * ranked like the main kind's, never limited. rw_kind_of() is the kind.
 */
#define RW_KIND_RANKED 0x80
/*
 * A qualified rule's budget (a rule with a protocol, port, flag or ICMP type
 * match): the key of the kind its `per` names, carrying RW_KIND_RULE and the
 * rule's id in `rule`. Its packets are counted and limited under it alone.
 */
#define RW_KIND_RULE 0x40
#define rw_kind_of(k) ((k)->kind & (RW_KIND_RULE - 1))

/* --v6-prefix: leading bits of an IPv6 address a src, dst or pair key keeps. */
#define RW_DEFAULT_V6_PREFIX 64
/*
 * The program's place in libxdp's dispatcher (lower runs first): after
 * xdp-filter's 10, so that what its rules deny costs ratewall nothing, and
 * before libxdp's default 50. The object declares it (XDP_RUN_CONFIG).
 */
#define RW_XDP_RUN_PRIO 20
#define RW_XDP_MAX_PRIO 1000

/*
 * A key: one struct for every kind, unused fields zero, so keys of any kind
 * hash and compare as 40 plain bytes. IPv4 addresses live in addr[0..3] and
 * addr2[0..3]. prefix_len: the key stands for addr/prefix_len (a `per /LEN`
 * budget, or an IPv6 address cut to --v6-prefix; for a pair both addresses
 * are cut to it); 0 = whole addresses.
 */
struct rw_key {
	__u8 addr[16];
	__u8 addr2[16]; /* pair, flow: the destination */
	__u8 family;
	__u8 prefix_len;
	__u8 kind;      /* enum rw_key_kind */
	__u8 proto;     /* flow: IP protocol (the last IPv6 next header) */
	union {
		struct {
			__be16 sport; /* flow, TCP and UDP only; 0 in a non-first fragment */
			__be16 dport;
		};
		__u32 rule;   /* RW_KIND_RULE: the id of the rule whose budget this is */
	};
};

/* --- Sketch ------------------------------------------------------------------ */

/*
 * Count-min geometry: rows x columns buckets per CPU, columns a power of two.
 * The sketch of one CPU is rows x columns x rw_bucket_size(slots): 256 KiB at
 * up to 13 slots, so it stays in L2 beside the packet path's other lines.
 */
#define RW_SKETCH_ROWS 2
#define RW_SKETCH_COLS_LOG2 11
#define RW_SKETCH_COLS (1 << RW_SKETCH_COLS_LOG2)

/*
 * Sketch counts are 16 bits a slot: packets, and bytes in units of
 * RW_BYTE_UNIT rounded up (an overestimate: a source is promoted or capped a
 * little early, never late). They saturate at RW_SKETCH_MAX.
 */
#define RW_BYTE_UNIT_LOG2 6
#define RW_BYTE_UNIT (1u << RW_BYTE_UNIT_LOG2)
#define RW_SKETCH_MAX 0xffffU

/*
 * One sketch bucket on one CPU, `slots` slots indexed by epoch % slots.
 * `epoch` (low 32 bits) is the newest slot written; a packet of a later slot
 * first clears every slot the bucket skipped, so a slot that nobody wiped is
 * recognised by its bucket, never counted twice. win_* are the sums over the
 * live slots. count[2 * i] is slot i's packets, count[2 * i + 1] its byte units.
 * Map value size: rw_bucket_size(slots), whole cache lines.
 */
struct rw_bucket {
	__u32 epoch;
	__u32 win_packets;
	__u32 win_units;
	__u16 count[];
};

/* A constant expression where the map definitions need one. */
#define RW_BUCKET_SIZE(slots) \
	((__u32)((sizeof(struct rw_bucket) + (slots) * 2 * sizeof(__u16) + 63) & ~63UL))

static inline __u32 rw_bucket_size(__u32 slots)
{
	return RW_BUCKET_SIZE(slots);
}

/*
 * The count-min noise: what the other sources of one CPU's window put in an
 * average bucket of a row, for a load (packets, or bytes) the buckets hold.
 * A bucket's count less this estimates its source's own count, within the
 * spread of the buckets around their mean; it is what promotion, the cap
 * and inheritance go by, so that a flood's noise is never charged to (or
 * shown as) a source.
 */
static inline __u64 rw_sketch_noise(__u64 load)
{
	return load >> RW_SKETCH_COLS_LOG2;
}

/* Byte units a frame of len bytes counts for in the sketch. */
static inline __u32 rw_byte_units(__u64 len)
{
	return (__u32)((len + RW_BYTE_UNIT - 1) >> RW_BYTE_UNIT_LOG2);
}

/*
 * The crowd: the untracked keys of a limited kind on one CPU, held together
 * to (their distinct count in the window) x the limit, so that a botnet with
 * more sources over their limit than the table holds is held in aggregate,
 * while a crowd of sources each under its limit is never dropped. The
 * distinct count is a HyperLogLog of RW_CROWD_REGS registers per CPU and
 * slot (include/ratewall_crowd.h); a CPU's entry `slots` is the window's:
 * made when a slot begins from the live slots (their registers merged,
 * their sums added), then kept up to date by every packet of the slot,
 * which reads its first 64 bytes and two register bytes only. A slot's
 * entry gets its sums when it ends (what the window's gained meanwhile).
 */
#define RW_CROWD_REGS_LOG2 11
#define RW_CROWD_REGS (1u << RW_CROWD_REGS_LOG2)
struct rw_crowd {
	__u64 epoch1;   /* epoch + 1 this entry is of (the window's: made for), 0 = none */
	__u64 packets;  /* admitted from the crowd (the window's: the live slots', this one's so far) */
	__u64 bytes;
	__u64 promoted; /* keys promoted out of the crowd, once counted in it */
	__u64 drops;    /* packets the crowd dropped at its budget */
	/* The window's only: */
	__u64 share_at; /* the load at which its share is taken again */
	__u32 distinct; /* the estimate from zsum and zeros */
	__u32 share;    /* of the budget its keys give this CPU, in 1/65536 (crowd.h) */
	__u64 zsum;     /* sum of 2^(RW_CROWD_RANK_MAX - reg) over the registers */
	__u32 zeros;    /* registers still 0 */
	__u32 pad;
	/* its sums when its slot began: the slot's own are what they gained since */
	__u64 start_packets;
	__u64 start_bytes;
	__u64 start_promoted;
	__u64 start_drops;
	__u8 reg[RW_CROWD_REGS];
};
_Static_assert(sizeof(struct rw_crowd) == 104 + RW_CROWD_REGS, "rw_crowd layout");
/* What the gate reads at every packet (crowd.h: rw_crowd_gate) in the first 64 bytes. */
_Static_assert(__builtin_offsetof(struct rw_crowd, share) + 4 <= 64, "rw_crowd: what the gate reads, first");
_Static_assert(RW_CROWD_REGS % 8 == 0, "registers are merged 8 at a time");

/* A CPU's crowd entries: one a slot, the window's, every CPU's merged. */
static inline __u32 rw_crowd_entries(__u32 slots)
{
	return slots + 2;
}

/*
 * Promotion thresholds are per-CPU window estimates. A source whose own count
 * reaches a threshold must show it in its buckets, so no threshold may exceed
 * what one slot of a bucket can hold: promotion happens there at the latest
 * (always safe: promoting early only means tracking exactly).
 */
#define RW_MAX_THRESHOLD ((__u64)RW_SKETCH_MAX)
#define RW_MAX_THRESHOLD_BYTES ((__u64)RW_SKETCH_MAX << RW_BYTE_UNIT_LOG2)

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

/* --- Tracked flows: a set-associative table the program owns -------------------- */

/*
 * The table has `nbuckets` buckets of RW_WAYS entries. One seeded 64-bit hash
 * of the key (ratewall_hash.h) gives everything a packet touches: its home
 * bucket, an overflow bucket, a 32-bit tag, and its sketch columns
 * (ratewall_table.h). Four arrays at the same entry index:
 *
 *   dir   one 64-byte line per bucket: the tags of its entries (0 = empty) and
 *         a control word. Shared, read by every keyed packet; small enough for
 *         L2 (4.3 B an entry). It replaces a separate tracked-source filter.
 *   keys  one 64-byte line per entry, shared: the full key, compared on every
 *         lookup so that no source is ever counted as another, and the state
 *         word that inserts, revivals and deletes change by compare-and-swap.
 *   hot   one 32-byte record per CPU and entry, CPU-major (CPU c's records are
 *         one contiguous stretch): everything a packet of a tracked source
 *         reads and writes, so the common case is the directory line and one
 *         line of this CPU's own; the first packet of a slot also reads the
 *         entry's line of `keys` (never written on that path).
 *   hist  per entry, the flushed per-slot counts of every CPU, touched once a
 *         slot per CPU, by a refill, and by the loader.
 *
 * All four are mmapable arrays: the loader reads them in place, with no
 * system call per flow.
 */
#define RW_WAYS 15
/* Entries per tracked flow asked for (--max-flows): 5/4, so a full table still places them. */
#define RW_TABLE_SLACK_NUM 5
#define RW_TABLE_SLACK_DEN 4

/* dir control word: an insert lock, and how many of the bucket's keys live in their overflow bucket. */
#define RW_DIR_LOCK (1u << 31)
#define RW_DIR_OVERFLOW_MASK 0xffffu
/*
 * ... and how many inserts into it are still inheriting (table.h): they hold
 * the lock only to place and publish the key, and inherit after.
 */
#define RW_DIR_INHERIT_ONE (1u << 16)
#define RW_DIR_INHERIT_MASK (0x3fffu << 16)
/*
 * ... and whether two of its ways ever held one tag at once (a 1 in 2^31
 * chance a pair): a tag that matches may then be another key's, and every
 * lookup in the bucket compares whole keys (bpf/table.h, rw_find_current).
 * Set by the insert that places the second; never cleared.
 */
#define RW_DIR_DUPTAG (1u << 30)

struct rw_dir {
	__u32 tag[RW_WAYS];
	__u32 ctl;
};

/*
 * Entry state word: bits 0..47 the newest epoch any CPU counted in (the
 * entry's last activity), 48..55 a generation that changes whenever the
 * entry's counts start over (insert, revival after a whole idle window), and
 * 56..63 flags. Written only by compare-and-swap.
 */
#define RW_ST_EPOCH_BITS 48
#define RW_ST_EPOCH_MASK ((1ULL << RW_ST_EPOCH_BITS) - 1)
#define RW_ST_GEN_SHIFT 48
#define RW_ST_FLAG_SHIFT 56
#define RW_ST_LIVE (1ULL << RW_ST_FLAG_SHIFT)      /* holds a tracked key */
#define RW_ST_BUSY (2ULL << RW_ST_FLAG_SHIFT)      /* being written or removed: skip it */
#define RW_ST_OVERFLOW (4ULL << RW_ST_FLAG_SHIFT)  /* placed in its key's overflow bucket */
#define RW_ST_INHERIT (8ULL << RW_ST_FLAG_SHIFT)   /* live, its history not yet inherited: no refill */

/* One cache line with the 40-byte key of any kind (an IPv6 5-tuple). */
struct rw_entry {
	__u64 state;
	struct rw_key key;
	__u32 home;          /* the key's home bucket (an overflow entry is counted there) */
	__u32 limited_epoch; /* low 32 bits of the slot of its last `limited` event, plus one; 0 = never */
	__u64 ban_until_ns;  /* --ban: dropped while the clock is below this; 0 = not banned */
};

/*
 * One CPU's record of a tracked flow. Counts belong to slot `epoch` (low 32
 * bits) of generation `gen` (low 8 bits of the entry's); the first packet of a
 * later slot flushes them into the history. The CPU admits from its lease
 * without looking at other CPUs while epoch < until; a refill that finds no
 * budget leaves it saturated (RW_HOT_SAT) until `until`, the slot in which
 * budget can first free up, so the drop path is one compare in this line.
 * While saturated, lease_bytes is the room a smaller packet may still find;
 * neither leased nor saturated, the two lease words hold the time a paced
 * refusal lasts until (limit.h, rw_pace_hold; a refill of another CPU that
 * read the flags as leased just before counts them as one lease at most).
 * `until` holds the low 16 bits of an epoch at most a window ahead.
 *
 * A lease is only as good as its CPU's use of it: a CPU that saw none of the
 * flow's packets for a whole slot gives its lease back at its next packet
 * (RW_LEASE_IDLE_SLOTS after its record's slot), and the other CPUs stop
 * counting it one slot later still (a CPU's clock may lag another's by a
 * jiffy, never by a slot). Otherwise a CPU that saw one stray packet would
 * hold up to half the budget for a whole window while the CPU with the
 * traffic drops it.
 */
#define RW_HOT_LEASE 1
#define RW_HOT_SAT 2
/*
 * The slots a saturated record has carried its drops across (ratewall.h,
 * rw_lazy_slots): its counts belong to slots epoch - carry .. epoch, and are
 * read (and flushed) as of the middle one, so that a window neither holds
 * nor misses them more often than their real slots would.
 */
#define RW_HOT_CARRY_SHIFT 2
#define RW_HOT_CARRY_MASK (0x3fu << RW_HOT_CARRY_SHIFT)
#define RW_HOT_STATE_MASK (RW_HOT_LEASE | RW_HOT_SAT)
#define RW_LEASE_IDLE_SLOTS 2

/*
 * A saturated record admits nothing, so which slot its offered and dropped
 * counts land in changes no limit decision: it carries them into the next
 * slots and flushes (and raises its entry's state) only once the entry's
 * state is this many slots behind, at most 4 and never more than the window.
 * Under a flood of sources over their limit this is what a packet saves:
 * a history line and a compare-and-swap every slot. The price: such a
 * source's drops are read (and flushed) as of the middle of the slots they
 * came in (RW_HOT_CARRY_*), so a window may hold them up to two slots early or
 * late, right on average; and an entry's state may be RW_LAZY - 1 slots behind
 * its newest count, which every age rule below allows for.
 */
static inline __u32 rw_lazy_slots(__u32 slots)
{
	return slots < 4 ? slots : 4;
}
struct rw_hot {
	__u32 epoch;
	__u32 packets;      /* offered in `epoch` on this CPU */
	__u32 bytes;
	__u32 drop_packets;
	__u32 drop_bytes;
	__u32 lease_packets;
	__u32 lease_bytes;
	__u16 until;
	__u8 flags;
	__u8 gen;
};

/*
 * History: per entry and slot (epoch % slots), what every CPU flushed for that
 * slot's round. `epoch` is the round plus one (0: never written; RW_HIST_BUSY
 * while a writer restarts the slot for a newer round): full 64 bits, so a
 * round is never mistaken for another however long a slot sits unwritten.
 * Counts are added with fetch-and-add; a restart takes the epoch word by
 * compare-and-swap first (ratewall_window.h holds the rule both sides use).
 * Every count is 64 bits: it sums all CPUs, and one source (a --key dst
 * victim) at 72 Mpps puts more than 2^32 packets in a 60 s slot
 * (RW_MAX_SLOT_NS), where 32-bit sums wrapped (a limited key's admitted
 * count then read as none, or as 2^64 less a few). 40 bytes: a flush
 * touches one cache line, or two for a slot across a line's edge (once a
 * slot a CPU, never on the per-packet path).
 */
#define RW_HIST_BUSY (~0ULL)
enum rw_hist_word { RW_H_PACKETS, RW_H_BYTES, RW_H_DROP_PACKETS, RW_H_DROP_BYTES };
struct rw_hist_slot {
	__u64 epoch;
	__u64 packets;      /* offered in the round, every CPU */
	__u64 drop_packets;
	__u64 bytes;
	__u64 drop_bytes;
};

static inline __u64 rw_hist_count(const struct rw_hist_slot *s, enum rw_hist_word what)
{
	switch (what) {
	case RW_H_PACKETS:
		return s->packets;
	case RW_H_BYTES:
		return s->bytes;
	case RW_H_DROP_PACKETS:
		return s->drop_packets;
	default:
		return s->drop_bytes;
	}
}

/*
 * A limited key's schedule (limit.h), for each of its limits two virtual
 * times (GCRA "theoretical arrival times", ns on the program's clock): by
 * when everything it was admitted would have passed at the limit's rate
 * (sustained), and at RW_PEAK_FACTOR times that rate (peak). A packet finding
 * either more than its tolerance ahead of the clock (the bank for sustained,
 * --burst for peak) is dropped with no further look. Written only by a
 * refill (limit.h): budget handed out (compare-and-swap, else fetch-and-add of
 * what was handed out), a lease's rest given back (compare-and-swap, never
 * below the clock), a start; gen is the entry generation the times belong to
 * (a new one starts afresh, claimed by compare-and-swap). It sits after the
 * key's history slots, in the same map value: a refill reads both.
 */
struct rw_pace_limit {
	__u64 tat;  /* sustained: at the limit's rate */
	__u64 peak; /* at RW_PEAK_FACTOR times the rate */
};

struct rw_pace {
	struct rw_pace_limit packets, bytes;
	__u32 gen;  /* a start claims it by compare-and-swap: 32 bits wide for that */
	/*
	 * gen + 1 while the generation's start, a full bank, is not yet repaid:
	 * its first window refusal holds what it saves to a burst (limit.h);
	 * 0 once it is.
	 */
	__u32 advance;
	/*
	 * Bumped (fetch-and-add) by every refill before its sum and again once
	 * its lease is in its record: a refill that finds it moved by more than
	 * its own two met another one, gives its lease back and drops its
	 * packet (limit.h). Until its lease is out, a refill keeps the mark in
	 * its record's lease_packets (unread without RW_HOT_LEASE).
	 */
	__u64 refills;
	__u8 pad[16]; /* to a whole cache line (rw_pace_offset puts it on one) */
};

#define RW_PEAK_FACTOR 2
/* The bank is this many bursts (the program holds both to a window at most). */
#define RW_BANK_FACTOR 2
/*
 * In history slots: the schedule's room, three (120 B), so that it can start
 * on the first 64-byte boundary after the history slots whatever 8-byte one
 * they end on (rw_pace_offset).
 */
#define RW_PACE_SLOTS 3

/* --burst window: no schedule, only the window (a key may take its window's budget at once). */
#define RW_BURST_WINDOW (~0ULL)

/* The bank a --burst gives (none for the window alone). */
static inline __u64 rw_bank_of(__u64 burst_ns)
{
	return burst_ns == RW_BURST_WINDOW ? 0 : RW_BANK_FACTOR * burst_ns;
}

/* History slots, then the schedule: the stride, in history slots, from one entry to the next. */
static inline __u32 rw_hist_stride(__u32 slots)
{
	return slots + RW_PACE_SLOTS;
}

#define RW_HIST_SIZE(slots) ((__u32)(((slots) + RW_PACE_SLOTS) * sizeof(struct rw_hist_slot)))

static inline __u32 rw_hist_size(__u32 slots)
{
	return RW_HIST_SIZE(slots);
}

/*
 * Where entry idx's schedule starts in the history map, in bytes from its
 * start: on the first 64-byte boundary after the entry's history slots, so
 * that it is one cache line, never across two (a refill's compare-and-swaps
 * and fetch-and-adds on it). The map's values start on a page (an mmapable
 * array, and the loader's mapping of it), one after the other (40 B slots:
 * no padding); rw_pace_gap is the same from the end of the entry's slots.
 */
static inline __u32 rw_pace_gap(__u32 slots, __u32 idx)
{
	__u32 at = idx * RW_HIST_SIZE(slots) + slots * (__u32)sizeof(struct rw_hist_slot);

	return (64 - (at & 63)) & 56;
}

static inline __u64 rw_pace_offset(__u32 slots, __u32 idx)
{
	return (__u64)idx * RW_HIST_SIZE(slots) + (__u64)slots * sizeof(struct rw_hist_slot) +
	       rw_pace_gap(slots, idx);
}

/* Entries in a table sized for max_flows: whole buckets, with slack. */
static inline __u32 rw_table_buckets(__u32 max_flows)
{
	__u64 entries = ((__u64)max_flows * RW_TABLE_SLACK_NUM + RW_TABLE_SLACK_DEN - 1) /
			RW_TABLE_SLACK_DEN;

	return (__u32)((entries + RW_WAYS - 1) / RW_WAYS);
}

/* The limits one packet is held to: the command line's, or its rule's (bpf/limit.h). */
struct rw_limit {
	__u64 packets, bytes;         /* per window, 0 = none */
	__u64 cap_packets, cap_bytes; /* promotion thresholds they need */
	__u8 deny;                    /* a deny rule: never admitted */
	__u32 rule;                   /* the id + 1 of the rule that decided them, 0 = none */
};

/*
 * Per-CPU scratch of the data path: the clock read once a jiffy (the coarse
 * clock cannot change within one), and the per-slot sums gathered from every
 * CPU's sketch when a source is promoted.
 */
struct rw_scratch {
	__u64 jiffies;
	__u64 now_ns;
	__u64 epoch;  /* the packet's: the coarse clock's, and an insert's (bpf/sketch.h) with any clock */
	__u64 slot;   /* epoch % slots */
	/*
	 * The packet's place in the fragment cache (bpf/frag.h: RW_FRAG_* |
	 * slot), 0: none. In the clock's line, which every packet reads: kept
	 * here, not on the stack, which the insert's call chain fills.
	 */
	__u32 frag;
	/*
	 * Where the parser saw the packet's IP header (the rules read it from
	 * there, bpf/parse.h: rw_seen_ip). Read from a map, it is any offset up
	 * to 63 to the verifier: held on the stack, it was the parser's path
	 * (14, 18 or 22 bytes) and every path walked all that follows it
	 * again, a third of the program's verification.
	 */
	__u32 ip_off;
	__u64 packets[RW_MAX_SLOTS];
	__u64 bytes[RW_MAX_SLOTS];
	/*
	 * --rank: the packet's whole flow, and the key of the kind being counted:
	 * here, not on the stack, which the call chain down to an insert fills.
	 * (The main key stays on the stack: in this line it cost its packet 3 ns
	 * more in progcost, side by side.)
	 */
	struct rw_key flow, ranked;
	/*
	 * Inheritance: the CPU and buckets being read, a map key, the round
	 * being read, its own estimate (signed sixteenths: a count less the
	 * noise) and the window's sums of them. Here, not on the stack, which
	 * the insert's call chain has filled.
	 */
	struct {
		__u32 i0, i1, cpu, key;
		__u64 round;
		__s64 packets, units;
		__s64 win_packets, win_units;
		__u64 pos_packets, pos_units;
	} own;
	/*
	 * The key being promoted is in the crowd (a limited one). take: what it
	 * inherits from this CPU leaves the crowd's counts with its budget, less
	 * the promoting packet, of crowd_take byte units (at least 1: a keyed
	 * frame has bytes); 0: nothing leaves them.
	 * raw: the crowd dropped in this window, so the key inherits its
	 * buckets' smaller count (never less than it sent, noise and all) and
	 * the crowd keeps what it admitted of it: the limit holds on both sides.
	 */
	__u32 crowd_take;
	__u32 crowd_raw;
	/*
	 * A refill's sums over every CPU and the history (bpf/limit.h, struct
	 * rw_sum_ctx): here, not in the refill's frame, which sits on the
	 * packet's under the verifier's 512 bytes.
	 */
	__u64 refill_sum[7];
	/* The packet's limits: here, not in its frame, which the insert's call chain fills. */
	struct rw_limit lim;
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
 * rw_stats_passed() (user/kernel/flowtab.h) derives it. Field order is fixed (tools read `dropped`).
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
	__u64 evicted;       /* idle entries (no count in the window) taken over by a promotion */
	__u64 flush_retries; /* flushes deferred to the next packet (history word contended) */
	__u64 paced_drops;   /* of dropped: ahead of the key's schedule (limit.h), window not full */
	__u64 met_drops;     /* of dropped: a refill that met others' without room for them (limit.h) */
	__u64 stalled_drops; /* packets dropped for a wait that ran out: untracked ones under
			      * their cap, an insert into their bucket on another CPU holding
			      * its lock (untracked.h); tracked ones refilling while their
			      * entry still inherits (table.h) */
	__u64 l4_unread;     /* of a protocol a qualified rule names, ports, flags or type not
			      * readable (a fragment, a truncated header): only protocol matches */
	__u64 crowd_drops;   /* of dropped: untracked packets dropped to hold the crowd of
			      * untracked keys to (its distinct keys) x the limit (crowd.h) */
	/* The classes of enum rw_l4_class, counted as parsed; tiny and deep go with --malformed drop. */
	__u64 frag_first;    /* first fragments of a datagram that has more (IPv6 atomic ones are whole) */
	__u64 frag_later;    /* fragments after the first: no L4 header */
	__u64 frag_unmatched; /* of frag_later, looked up for a rule with a match: their first not
			      * seen on this CPU lately (rw_frag) */
	__u64 tiny_frags;    /* first fragments too short for the L4 bytes a rule reads */
	__u64 long_chains;   /* IPv6 extension-header chains longer than the parser follows */
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
	/*
	 * Of sketch_*: taken back out of this CPU's buckets, by the cap (its
	 * drops) or by a promotion (what the source inherited from them).
	 */
	__u64 taken_packets;
	__u64 taken_bytes;
	__u64 takeovers; /* idle entries this CPU's promotions took over (RW_TAKEOVERS_A_SLOT at most) */
};

/*
 * Idle entries of a full table one CPU's promotions may take over in a slot
 * (rw_untracked): enough for the newcomers a table left full by a loader that
 * is gone, not for a spoofed flood to churn it.
 */
#define RW_TAKEOVERS_A_SLOT 64

/*
 * What a CPU's slot left in its sketch buckets (the sketch's load, which the
 * noise is made of): what went in, less what the cap and promotions took
 * back out. Packets, and bytes.
 */
static inline __u64 rw_wslot_load(const struct rw_wslot *w)
{
	return w->sketch_packets - w->taken_packets;
}

static inline __u64 rw_wslot_load_bytes(const struct rw_wslot *w)
{
	return w->sketch_bytes - w->taken_bytes;
}

/* --- Events (--events) ------------------------------------------------------- */

#define RW_EVENTS_RINGBUF (1u << 18)
enum rw_event_type {
	RW_EV_LIMITED = 1,  /* first drop of a source in a window */
	RW_EV_RELEASED = 2, /* a window with no drop after it was limited (the loader's) */
	RW_EV_BANNED = 3,   /* --ban: dropped entirely until `until_ns` */
	RW_EV_UNBANNED = 4, /* the ban ran out (seen at the source's next packet) */
	/* The loader's alone, never the data path's: */
	RW_EV_HEAVY = 5,    /* --levels: a prefix entered the heavy list */
	RW_EV_LIGHT = 6,    /* --levels: a prefix left it */
	RW_EV_HOOK = 7,     /* --on-event: how a command run for an event ended */
	RW_EV_TYPES,
};
struct rw_event {
	__u32 type;
	__u32 cpu;
	struct rw_key key;
	__u64 ts_ns;    /* the program's clock */
	__u64 until_ns; /* banned: when it ends, on the same clock */
};

/* --- Attack samples (--samples DIR) ---------------------------------------------- */

/*
 * A `limited` or `banned` key's first RW_PCAP_FRAMES dropped frames, each cut
 * to RW_PCAP_SNAP bytes, go to the loader through `pcap_ring` (bpf/samples.h),
 * which writes them as DIR/<time>-<key>.pcap. A key samples while its entry
 * in `pcap_keys` has frames left; `armed_ns` (the event's time) names the file.
 */
#define RW_PCAP_FRAMES 64
#define RW_PCAP_SNAP 256
/* Keys sampling at once, at most (an LRU: the oldest budgets go first). */
#define RW_PCAP_KEYS 4096
/* 64 frames of 1000 keys' worth in flight between two drains. */
#define RW_PCAP_RINGBUF (1u << 22)
struct rw_pcap_budget {
	__u32 left;     /* frames still to copy */
	__u32 pad;
	__u64 armed_ns; /* the program's clock when the event armed it */
};
struct rw_pcap_frame {
	struct rw_key key;
	__u64 armed_ns; /* the event's time: with the key, the file's name */
	__u64 ts_ns;    /* when the frame came, on the program's clock */
	__u32 len;      /* the frame's true length */
	__u32 caplen;   /* bytes in data[] */
	__u8 data[RW_PCAP_SNAP];
};
/*
 * --levels with --samples: a prefix that turns heavy is armed by the loader in
 * `pcap_nets` (an LPM trie, family byte first): the next RW_PCAP_FRAMES frames
 * offered (passed or dropped) whose key's own address falls in it are copied
 * as a key's are, under the prefix's key (its file's name). The loader alone
 * arms, disarms (light, or its frames spent) and keeps the count of armed
 * prefixes the data path reads (bpf/samples.h, pcap_nets_armed).
 */
#define RW_PCAP_NETS 256
struct rw_pcap_net_key {
	__u32 prefixlen; /* 8 (the family byte) + the prefix's length */
	__u8 family;
	__u8 addr[16];
} __attribute__((packed));
struct rw_pcap_net {
	struct rw_pcap_budget b;
	struct rw_key prefix; /* as --levels gives it: with b.armed_ns, the file's name */
};

/* --- Prefix samples (hierarchical heavy hitters) ------------------------------- */

/* One in RW_SAMPLE_EVERY untracked keyed packets goes to the loader, this way. */
#define RW_SAMPLE_EVERY 64
#define RW_SAMPLES_RINGBUF (1u << 20)
struct rw_sample {
	struct rw_key key;
	__u64 epoch;
};

/*
 * Longest slot: 2^32 packets per CPU per slot must stay out of reach (at 70
 * Mpps). A record's byte counts are 32 bits: they are flushed early, within
 * the slot, once past RW_HOT_FLUSH_MARK, and a flush that must wait is tried
 * again by every packet until it lands (track.h, rw_flush_early).
 */
#define RW_HOT_FLUSH_MARK (1U << 31)
#define RW_MAX_SLOT_NS (60ULL * 1000000000ULL)
#define RW_MIN_SLOT_NS (1000000ULL)

_Static_assert(sizeof(struct rw_key) == 40, "rw_key layout");
_Static_assert(__builtin_offsetof(struct rw_entry, key) % 8 == 0, "keys compared 8 bytes at a time");
_Static_assert(sizeof(struct rw_key) % 4 == 0, "... with a 4-byte tail at most");
_Static_assert(sizeof(struct rw_bucket) == 12, "rw_bucket layout");
_Static_assert(sizeof(struct rw_dir) == 64, "rw_dir layout: one cache line");
_Static_assert(sizeof(struct rw_entry) == 64, "rw_entry layout: one cache line");
_Static_assert(sizeof(struct rw_hot) == 32, "rw_hot layout: two to a cache line");
_Static_assert(RW_WAYS + 1 == 64 / sizeof(__u32), "a bucket's tags and control fill its line");
/* --- Rules -------------------------------------------------------------------- */

#define RW_MAX_RULES 65536

enum rw_rule_action {
	RW_RULE_LIMIT = 0, /* its own limits (0: none), per source or per /per_len */
	RW_RULE_ALLOW = 1, /* never dropped; counted and ranked */
	RW_RULE_DENY = 2,  /* always dropped; counted and ranked */
};

/*
 * A rule's match beyond its prefix: a protocol and, for TCP and UDP, source
 * and destination ports, for TCP flags, for ICMP a type. Rules with the same
 * match share a match number (1..RW_MATCHES-1, the loader hands them out);
 * prefix-only rules have match 0.
 */
#define RW_MATCHES 64

/*
 * A match as written (`tcp dport 22,80 flags syn`): the protocol, 0 for a
 * prefix-only rule; for TCP and UDP, up to RW_MATCH_RANGES port ranges each
 * way (none: any port); for TCP the flags that must be set and those that
 * must be clear; for ICMP and ICMPv6 a type. Rules with equal matches share
 * a match number.
 */
#define RW_MATCH_RANGES 8
struct rw_port_range {
	__u16 lo, hi;
};
/*
 * What a packet's L4 header is to the rules. A first fragment holding the
 * bytes a rule reads is whole; a match of another class (`frag`, `tiny-frag`,
 * `long-chain`) takes only packets of that class.
 */
enum rw_l4_class {
	RW_L4_WHOLE = 0, /* not a fragment, or a first fragment holding what rules read */
	RW_L4_LATER = 1, /* a fragment after the first: no L4 header of its own */
	RW_L4_TINY = 2,  /* a first fragment too short for what rules read (RFC 1858) */
	RW_L4_DEEP = 3,  /* IPv6: more extension headers than the parser follows */
	RW_L4_CLASSES = 4,
};

/*
 * The L4 header bytes a match may read of a protocol: TCP's ports and flags
 * (byte 13), UDP's ports, ICMP's and ICMPv6's type; 0 for any other. A first
 * fragment holding fewer is tiny.
 */
static inline __u32 rw_l4_need(__u8 proto)
{
	switch (proto) {
	case 6: /* TCP */
		return 14;
	case 17: /* UDP */
		return 4;
	case 1: /* ICMP */
	case 58: /* ICMPv6 */
		return 1;
	default:
		return 0;
	}
}

struct rw_match {
	__u8 proto;          /* 0: any, in a match of a class (cls); else a prefix-only rule */
	__u8 flags_set, flags_clear;
	__u8 has_type, type;
	__u8 nsport, ndport;
	__u8 cls;            /* enum rw_l4_class */
	struct rw_port_range sport[RW_MATCH_RANGES], dport[RW_MATCH_RANGES];
};

/*
 * Longest-prefix-match key: the match number, the family byte, then the
 * address. prefixlen counts bits of all three: 16 + the prefix length.
 * Packed: the trie's key size is exactly 4 + 18 bytes.
 */
struct rw_rule_key {
	__u32 prefixlen;
	__u8 match;
	__u8 family;
	__u8 addr[16];
} __attribute__((packed));

/* Whose budget a limit rule's packets share (`per`); 0: the key's, as --key says. */
enum rw_rule_per {
	RW_PER_KEY = 0,
	RW_PER_SRC = 1,
	RW_PER_DST = 2,
	RW_PER_PAIR = 3,
};

/* What a rule does; limits are per window, as the loader computes them. */
struct rw_rule {
	__u32 action;        /* enum rw_rule_action */
	__u32 per_len;       /* 0: each key its own budget; else each /per_len one */
	__u64 limit_packets; /* 0 = no packet limit */
	__u64 limit_bytes;
	__u64 cap_packets;   /* promotion thresholds these limits need (rw_limit_threshold) */
	__u64 cap_bytes;
	__u64 pps, bps;      /* as written, for listing */
	__u32 id;            /* stable while the rule is in force: its rule_stats entry */
	__u32 order;         /* its place in the file: of two that tie, the lower wins */
	__u8 plen;           /* its prefix length (the trie's, for the data path to compare) */
	__u8 per;            /* enum rw_rule_per */
	__u8 match;          /* its match number; 0: the prefix alone */
	__u8 pad[5];
	struct rw_match m;   /* the match as written, for listing and for the loader's index */
};

/* The data path's search for a packet's rule, per CPU (the stack has no room for it). */
struct rw_rule_search {
	struct rw_rule_key rk; /* the packet's address; match set per lookup */
	__u8 best_match;       /* the best qualified rule's match so far, 0 = none */
	__u8 pad;
	__u64 mask;            /* matches met, not looked up yet */
	__u64 best;            /* score of the best rule so far */
};

/*
 * What a first fragment met and what became of it, for its later fragments
 * (which carry no ports or flags): they meet its rule and budget, and go
 * where it went (bpf/frag.h). Per CPU, a direct-mapped cache of
 * RW_FRAG_SLOTS by the datagram's addresses, protocol and id: a slot is
 * taken over by the next first fragment hashed to it; a later fragment whose
 * first is not there, or older than RW_FRAG_TTL_NS, is counted
 * (frag_unmatched) and meets the matches of its class.
 */
#define RW_FRAG_SLOTS 256
#define RW_FRAG_TTL_NS (2ULL * 1000000000ULL)
struct rw_frag {
	__u32 id;            /* the datagram's id (IPv4: 16 bits) */
	__u8 family, proto;
	__u8 dropped;        /* the first fragment's verdict */
	__u8 pad;
	__u32 src[4], dst[4]; /* the addresses as they are on the wire (IPv4: the first word) */
	__u64 matches;       /* the matches the first fragment met */
	__u64 ts_ns;         /* when it was seen; 0: empty */
};

/* A rule's counts, per CPU (rule_stats, by id): the packets it decided, and dropped. */
struct rw_rule_stats {
	__u64 packets;
	__u64 drops;
};

/*
 * What the qualified matches in force are, as bit masks over match numbers
 * (bit 0 unused): a packet meets match m when bit m is set in proto[its
 * protocol], in both of its ports' entries (rule_ports) for TCP and UDP, in
 * tcp_flags[its flags] for TCP, in icmp_type[v6][its type] for ICMP. A
 * packet of another class than whole (enum rw_l4_class) meets the matches in
 * proto_only and those of its class; a later fragment whose first fragment
 * was seen meets what that one met (struct rw_frag). A whole packet whose
 * header is cut short meets only proto_only.
 */
struct rw_match_index {
	__u64 any;           /* every match in force; 0: no packet reads its L4 header */
	__u64 proto_only;    /* matches that name a protocol and nothing else */
	__u64 proto[256];
	__u64 tcp_flags[256];
	__u64 icmp_type[2][256];
	__u64 any_proto;     /* matches of a class that name no protocol */
	__u64 cls[RW_L4_CLASSES]; /* matches of each class but whole (cls[RW_L4_WHOLE]: unused) */
	__u64 classed;       /* matches of any class but whole: a whole packet meets none */
};

/* rule_ports: for each of TCP sport, TCP dport, UDP sport, UDP dport, 65 536 port masks. */
enum rw_port_table { RW_PORTS_TCP_SRC, RW_PORTS_TCP_DST, RW_PORTS_UDP_SRC, RW_PORTS_UDP_DST };
#define RW_PORT_ENTRIES (4 * 65536)

/* TCP flags as the match reads them: the 8 bits of header byte 13. */
#define RW_TCP_FIN 0x01
#define RW_TCP_SYN 0x02
#define RW_TCP_RST 0x04
#define RW_TCP_PSH 0x08
#define RW_TCP_ACK 0x10
#define RW_TCP_URG 0x20

/*
 * Which /16s of IPv4, and which /32s of IPv6 (folded to 16 bits), any rule
 * covers, one bit each: a packet from anywhere else skips the trie. Set before
 * a rule goes in, cleared after it is gone, so a bit is never missing. v4 and
 * v6 for the prefix-only rules, q4 and q6 for those with a match: a packet
 * that only the second cover skips the prefix-only lookup, and one that only
 * the first cover never reads its L4 header. `rules`: whether any bit is set,
 * so that a packet with no rule in force reads this one word, always in
 * cache, and not the two lines of the bits (16 KiB apart) its source picks.
 */
#define RW_HINT_WORDS (65536 / 64)
struct rw_rule_hint {
	__u64 rules;
	__u64 v4[RW_HINT_WORDS];
	__u64 v6[RW_HINT_WORDS];
	__u64 q4[RW_HINT_WORDS];
	__u64 q6[RW_HINT_WORDS];
};

/* A source's bit in the hint: IPv4 by its /16, IPv6 by its /32 folded in half. */
static inline __u32 rw_hint_index(__u8 family, const __u8 *addr)
{
	__u32 hi = (__u32)addr[0] << 8 | addr[1];

	return family == RW_FAMILY_IPV4 ? hi : hi ^ ((__u32)addr[2] << 8 | addr[3]);
}

/* A source key standing for a prefix (a shared budget) carries its length here. */
#define RW_KEY_PREFIX_LEN(k) ((k)->prefix_len)

_Static_assert(sizeof(struct rw_rule_key) == 22, "rw_rule_key layout");
_Static_assert(sizeof(struct rw_match) == 72, "rw_match layout");
_Static_assert(sizeof(struct rw_rule) == 144, "rw_rule layout");
_Static_assert(sizeof(struct rw_rule_stats) == 16, "rw_rule_stats layout");
_Static_assert(sizeof(struct rw_frag) == 56, "rw_frag layout");
_Static_assert((RW_FRAG_SLOTS & (RW_FRAG_SLOTS - 1)) == 0, "a power of two");
_Static_assert(sizeof(struct rw_thresholds) == 32, "rw_thresholds layout");
_Static_assert(sizeof(struct rw_stats) == 192, "rw_stats layout");
/* bench/rig.py reads `dropped` at bytes 16..24 of a raw (BTF-less) stats dump. */
_Static_assert(__builtin_offsetof(struct rw_stats, dropped) == 16, "rw_stats.dropped offset");
/* Three lines (per-CPU values are 8-aligned); what every keyed packet writes is in the first 64 bytes. */
_Static_assert(sizeof(struct rw_wslot) == 136, "rw_wslot layout");
_Static_assert(__builtin_offsetof(struct rw_wslot, sketch_bytes) + 8 <= 64, "rw_wslot: a packet's counts in one line");
_Static_assert(sizeof(struct rw_event) == 64, "rw_event layout");
_Static_assert(sizeof(struct rw_sample) == 48, "rw_sample layout");
_Static_assert(sizeof(struct rw_pcap_frame) == 64 + RW_PCAP_SNAP, "rw_pcap_frame layout");
_Static_assert(sizeof(struct rw_pcap_net_key) == 21, "rw_pcap_net_key layout");
_Static_assert(sizeof(struct rw_pcap_net) == 56, "rw_pcap_net layout");
_Static_assert((RW_PCAP_SNAP & (RW_PCAP_SNAP - 1)) == 0, "RW_PCAP_SNAP a power of two (bpf/samples.h clamps by a mask)");
_Static_assert((RW_SAMPLE_EVERY & (RW_SAMPLE_EVERY - 1)) == 0, "a power of two");
_Static_assert(sizeof(struct rw_hist_slot) == 40, "rw_hist_slot layout: 64-bit sums");
_Static_assert(sizeof(struct rw_pace) == 64, "rw_pace layout: one cache line");
_Static_assert(sizeof(struct rw_hist_slot) % 8 == 0,
	       "history values, and so the gap before a schedule, are whole 8-byte words");
_Static_assert(RW_PACE_SLOTS * sizeof(struct rw_hist_slot) >= 64 - 8 + sizeof(struct rw_pace),
	       "rw_pace fits its room from a line boundary after a gap of up to 56 bytes");
_Static_assert(sizeof(struct rw_scratch) == 40 + 2 * 8 * RW_MAX_SLOTS + 2 * sizeof(struct rw_key) + 80 + 56 + sizeof(struct rw_limit),
	       "rw_scratch layout");

/* --- Races, played out by the tests --------------------------------------------- */

/*
 * A load with the test clock also plays races in one run: when the data path
 * reaches `point`, it first makes the writes another CPU could have made
 * there, then forgets the point; or, with `passes`, makes them again at the
 * point's next passes (another CPU that goes on writing), and then arms
 * `next` for its `next_passes` (the same writes). Each write is 8
 * bytes at `off` (a multiple of 8, below 64) of a 64-byte line: entry `index`
 * of keys, bucket `index` of dir, or entry `index`'s schedule (struct
 * rw_pace); or of one CPU's 32-byte record in hot.
 */
enum rw_race_point {
	RW_RACE_NONE,
	RW_RACE_ENTER_SLOT,   /* rw_enter_slot, between the entry's match and its revival */
	RW_RACE_PROMOTE,      /* rw_promote, between the key's lookup and the insert lock */
	RW_RACE_SCHED_START,  /* rw_refill, between reading an older generation's schedule and starting it */
	RW_RACE_REFILL,       /* rw_refill, between the window's sum and the lease's store */
	RW_RACE_BUCKET_WAIT,  /* rw_wait_bucket, while a packet waits for another CPU's insert */
	RW_RACE_SUM,          /* rw_sum_cpu, between a refill's reads of another CPU's counts and lease */
	RW_RACE_INHERIT,      /* rw_inherit, as an insert starts inheriting */
	RW_RACE_MATCH,        /* rw_entry_match when it settles, between the key's compare and the state's second read */
};
/* RW_RACE_HOT: record `index` (cpu x entries + entry) of hot, 32 bytes: off below 32. */
enum rw_race_line { RW_RACE_KEYS, RW_RACE_DIR, RW_RACE_PACE, RW_RACE_HOT };
/* What a race write does: val stored, val added (fetch-and-add), or val rounds of a slow CPU. */
enum rw_race_op { RW_RACE_STORE, RW_RACE_ADD, RW_RACE_SPIN };
#define RW_RACE_WRITES 8
struct rw_race_write {
	__u32 line;  /* enum rw_race_line */
	__u32 index;
	__u32 off;
	__u32 op;    /* enum rw_race_op */
	__u64 val;
};
struct rw_race {
	__u32 point;  /* enum rw_race_point */
	__u32 nr;
	__u32 passes; /* the point's passes that make the writes: 0 or 1 the first only */
	__u32 next;   /* then this point, for next_passes passes; RW_RACE_NONE: none */
	__u32 next_passes;
	__u32 pad;
	struct rw_race_write w[RW_RACE_WRITES];
};

_Static_assert(__builtin_offsetof(struct rw_pace, pad) <= 64,
	       "rw_pace: every field in the first 64 bytes, where a race's writes land");

#endif /* RATEWALL_H */
