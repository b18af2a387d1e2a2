/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the data path is configured with and where it keeps its state: the
 * load-time constants (rodata, set by the loader before load, so the verifier
 * sees constants) and every map. Struct layouts come from include/ratewall.h.
 */
#ifndef RW_BPF_MAPS_H
#define RW_BPF_MAPS_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "ratewall.h"

/* --- Fixed at load ----------------------------------------------------------- */

const volatile __u64 cfg_slot_ns = 100000000ULL;
const volatile __u32 cfg_slots = RW_DEFAULT_SLOTS;
const volatile __u64 cfg_limit_packets; /* per window, 0 = no packet limit */
const volatile __u64 cfg_limit_bytes;   /* per window, 0 = no byte limit */
const volatile __u64 cfg_cap_packets;   /* promotion threshold the limit needs, 0 = none */
const volatile __u64 cfg_cap_bytes;
/*
 * --burst: how far ahead of its limit's schedule a key may run, ns (limit.h),
 * at most a window; RW_BURST_WINDOW: no schedule, the window alone.
 */
const volatile __u64 cfg_burst_ns;
/* How much of its rate a key may save up while it sends less, ns (2 x --burst; limit.h) */
const volatile __u64 cfg_bank_ns;
const volatile __u32 cfg_nr_cpus = 1;
const volatile __u32 cfg_nbuckets = 1;       /* tracked-flow table: buckets of RW_WAYS entries */
const volatile __u32 cfg_entries = RW_WAYS;  /* cfg_nbuckets * RW_WAYS */
const volatile __u32 cfg_bucket_size = RW_BUCKET_SIZE(RW_DEFAULT_SLOTS); /* of cfg_slots */
const volatile __u64 cfg_hash_seed;     /* random per load: collisions cannot be aimed */
/* tests drive time through test_clock_ns, and play races through test_race (race.h) */
const volatile bool cfg_test_clock;
const volatile bool cfg_coarse_clock;   /* CLOCK_MONOTONIC_COARSE, read once a jiffy */
/* The instance's interfaces, in the loader's order: they index `stats`. */
const volatile __u32 cfg_ifindex[RW_MAX_IFACES];
const volatile __u32 cfg_nr_ifaces;
/* --dry-run: every verdict is taken and counted, none enforced */
const volatile bool cfg_dry_run;
/* --malformed drop: frames whose IP headers do not hold together are dropped */
const volatile bool cfg_malformed_drop;
/* --levels: sample one in RW_SAMPLE_EVERY untracked packets for the loader */
const volatile bool cfg_sample;
/* --events: limited / banned / unbanned go to the `events` ring buffer */
const volatile bool cfg_events;
/* --ban: a tracked source over its limit is dropped entirely this long; 0 = off */
const volatile __u64 cfg_ban_ns;
/* m ln(m / zeros) for the crowd's distinct count when it is small (ratewall_crowd.h) */
const volatile __u32 cfg_crowd_lc[RW_CROWD_REGS + 1];

__u64 test_clock_ns;
struct rw_race test_race;

/* --- Tracked flows (see include/ratewall.h): sizes set by the loader ---------- */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rw_dir);
	__uint(max_entries, 1);
} dir SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rw_entry);
	__uint(max_entries, RW_WAYS);
} keys SEC(".maps");

/* cfg_nr_cpus x cfg_entries records, CPU-major. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rw_hot);
	__uint(max_entries, RW_WAYS);
} hot SEC(".maps");

/* rw_hist_size(cfg_slots) bytes an entry: its history slots, then its schedule (the loader sets it). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__uint(value_size, RW_HIST_SIZE(RW_DEFAULT_SLOTS));
	__uint(max_entries, RW_WAYS);
} hist SEC(".maps");

/* --- Untracked sources ------------------------------------------------------ */

/*
 * Count-min sketch, cfg_nr_cpus x RW_SKETCH_ROWS x RW_SKETCH_COLS buckets of
 * cfg_bucket_size bytes, CPU-major: a plain array, so another CPU's buckets
 * are one index away (promotion reads them). Mmapable for its alignment, not
 * to be mapped: a plain array's values start 312 bytes into its header (56
 * past a cache line on 6.x), so every 64-byte bucket straddled two lines;
 * an mmapable one's start on a page.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__uint(value_size, RW_BUCKET_SIZE(RW_DEFAULT_SLOTS)); /* the loader sets cfg_slots' */
	__uint(max_entries, RW_SKETCH_ROWS * RW_SKETCH_COLS);
} sketch SEC(".maps");

/*
 * The crowd of untracked keys, per CPU: one entry a slot, then the window's,
 * then every CPU's windows merged (crowd.h); the loader sizes it to cfg_slots.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_crowd);
	__uint(max_entries, RW_MAX_SLOTS + 2);
} crowd SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_scratch);
	__uint(max_entries, 1);
} scratch SEC(".maps");

/* What the loader sets at runtime: promotion thresholds, one entry per key kind. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_thresholds);
	__uint(max_entries, RW_KIND_COUNT);
} thresholds SEC(".maps");

/* --- Totals ----------------------------------------------------------------- */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_stats);
	__uint(max_entries, RW_STATS_ENTRIES);
} stats SEC(".maps");

/* Window totals of every keyed packet, per CPU and slot (index epoch % slots). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_wslot);
	__uint(max_entries, RW_MAX_SLOTS);
} window SEC(".maps");

/* --- Policy ----------------------------------------------------------------- */

/* Operators' rules, longest prefix first (struct rw_rule_key, family byte first). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(key_size, sizeof(struct rw_rule_key));
	__uint(value_size, sizeof(struct rw_rule));
	__uint(max_entries, RW_MAX_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} rules SEC(".maps");

/* The qualified matches in force (struct rw_match_index); any == 0: none. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_match_index);
	__uint(max_entries, 1);
} match_index SEC(".maps");

/* Each port's masks of matches, RW_PORT_ENTRIES (enum rw_port_table x 65 536). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, RW_PORT_ENTRIES);
} rule_ports SEC(".maps");

/* Where the data path searches for a packet's rule (struct rw_rule_search). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_rule_search);
	__uint(max_entries, 1);
} rule_search SEC(".maps");

/* What first fragments met, for their later fragments (struct rw_frag), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_frag);
	__uint(max_entries, RW_FRAG_SLOTS);
} frags SEC(".maps");

/* Each rule's counts by id, per CPU: what `rule list`, the report and /metrics show. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_rule_stats);
	__uint(max_entries, RW_MAX_RULES);
} rule_stats SEC(".maps");

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

/*
 * A key's schedule: after its history slots in the same map value, which has
 * room for it with every slot count up to RW_MAX_SLOTS included, on the first
 * cache line boundary (rw_pace_offset).
 */
static __always_inline struct rw_pace *rw_pace_of(__u32 idx)
{
	struct rw_hist_slot *h = bpf_map_lookup_elem(&hist, &idx);
	__u32 s = cfg_slots;

	if (!h || s > RW_MAX_SLOTS)
		return NULL;
	return (struct rw_pace *)((__u8 *)&h[s] + rw_pace_gap(s, idx));
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

#endif /* RW_BPF_MAPS_H */
