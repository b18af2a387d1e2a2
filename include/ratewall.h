/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every struct and constant that crosses the kernel/userspace boundary.
 * Fixed-width types, explicit padding, sizes pinned by _Static_assert, so the
 * BPF object and the loader can never disagree about a layout.
 */
#ifndef RATEWALL_H
#define RATEWALL_H

#include <linux/types.h>

#define RW_MIN_SLOTS 2
#define RW_MAX_SLOTS 32
/* Up to this many possible CPUs are summed for a cross-CPU limit decision. */
#define RW_MAX_CPUS 1024

#define RW_FAMILY_IPV4 4
#define RW_FAMILY_IPV6 6

/* Source key. IPv4 addresses live in addr[0..3], the rest stays zero. */
struct rw_key {
	__u8 addr[16];
	__u8 family;
	__u8 pad[3];
};

/*
 * One slot of a sliding window, on one CPU. `epoch` is the slot's round
 * (monotonic ns / slot length); a slot whose epoch is not the current round is
 * reset by the first packet that lands in it, and readers skip slots whose
 * epoch is outside the window, so nothing is counted twice.
 * Packet counts are 32-bit: the loader caps the slot length (RW_MAX_SLOT_NS)
 * so one CPU cannot overflow them within a slot.
 */
struct rw_slot {
	__u64 epoch;
	__u64 bytes;      /* offered */
	__u64 drop_bytes;
	__u32 packets;    /* offered */
	__u32 drop_packets;
};

/*
 * Per-CPU limiter state for one source. A CPU may admit up to its lease without
 * looking at other CPUs; when the lease runs out it sums every CPU's admitted
 * counts and outstanding leases, and takes a share of what is left. Leases and
 * the saturated flag only hold for lease_epoch.
 */
struct rw_flow_hdr {
	__u64 lease_epoch;
	__u64 lease_bytes;
	__u32 lease_packets;
	__u32 saturated;
};

/* Map value: header followed by `slots` slots (value size set at load). */
struct rw_flow {
	struct rw_flow_hdr hdr;
	struct rw_slot slot[];
};

static inline __u32 rw_flow_value_size(__u32 slots)
{
	return (__u32)(sizeof(struct rw_flow_hdr) + slots * sizeof(struct rw_slot));
}

/* Bytes between two CPUs' values of one flow in what a per-CPU lookup returns. */
static inline __u32 rw_flow_stride(__u32 slots)
{
	return (rw_flow_value_size(slots) + 7) & ~7u;
}

/*
 * Global counters, one copy per CPU; cumulative since load. Every counted
 * packet is either dropped by the limit or passed, so passed is not stored:
 * rw_stats_passed() derives it.
 */
struct rw_stats {
	__u64 rx_packets;
	__u64 rx_bytes;
	__u64 dropped;       /* by limit */
	__u64 dropped_bytes;
	__u64 malformed;     /* passed, not keyed */
	__u64 non_ip;        /* passed, not keyed */
	__u64 new_flows;
	__u64 failed_inserts; /* flow map refused the insert: passed, not limited */
	__u64 cross_cpu_checks; /* exact cross-CPU limit decisions taken */
};

/* Longest slot: 2^32 packets per CPU per slot must stay out of reach (at 70 Mpps). */
#define RW_MAX_SLOT_NS (60ULL * 1000000000ULL)
#define RW_MIN_SLOT_NS (1000000ULL)

_Static_assert(sizeof(struct rw_key) == 20, "rw_key layout");
_Static_assert(sizeof(struct rw_slot) == 32, "rw_slot layout");
_Static_assert(sizeof(struct rw_flow_hdr) == 24, "rw_flow_hdr layout");
_Static_assert(sizeof(struct rw_stats) == 72, "rw_stats layout");

static inline __u64 rw_stats_passed(const struct rw_stats *s)
{
	return s->rx_packets - s->dropped;
}

#endif /* RATEWALL_H */
