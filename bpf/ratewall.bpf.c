// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ratewall XDP data path: count every IP packet into a per-CPU sliding window
 * keyed by source address, and drop what is over the per-source limit.
 *
 * Limit decisions are exact across CPUs without touching other CPUs on every
 * packet: a CPU admits from a local lease; when the lease runs dry it sums all
 * CPUs' admitted counts plus the leases they still hold, and takes 1/nr_cpus
 * of what is left. Once nothing is left the flow is saturated on this CPU until
 * the next slot begins, so the drop path costs one comparison.
 */
#include <stdbool.h>
#include "parse.h"
#include "ratewall_window.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load; frozen, so the verifier sees constants. */
const volatile __u64 cfg_slot_ns = 100000000ULL;
const volatile __u32 cfg_slots = 10;
const volatile __u64 cfg_limit_packets; /* per window, 0 = no packet limit */
const volatile __u64 cfg_limit_bytes;   /* per window, 0 = no byte limit */
const volatile __u32 cfg_nr_cpus = 1;
const volatile bool cfg_test_clock;     /* tests drive time through test_clock_ns */
const volatile bool cfg_coarse_clock;   /* CLOCK_MONOTONIC_COARSE: about half the cost */

__u64 test_clock_ns;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__type(key, struct rw_key);
	/* Real size (header + cfg_slots slots) is set by the loader. */
	__uint(value_size, sizeof(struct rw_flow_hdr) + 10 * sizeof(struct rw_slot));
	__uint(max_entries, 65536);
} flows SEC(".maps");

/* One zeroed value to insert new flows from (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__uint(value_size, sizeof(struct rw_flow_hdr) + 10 * sizeof(struct rw_slot));
	__uint(max_entries, 1);
} zero_flow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rw_stats);
	__uint(max_entries, 1);
} stats SEC(".maps");

static __always_inline __u64 rw_now(void)
{
	if (cfg_test_clock)
		return test_clock_ns;
	if (cfg_coarse_clock)
		return bpf_ktime_get_coarse_ns();
	return bpf_ktime_get_ns();
}

/* The slot for `epoch`, reset if it still holds an older round. */
static __always_inline struct rw_slot *rw_slot_for(struct rw_flow *f, __u64 epoch)
{
	__u64 idx = epoch % cfg_slots;
	struct rw_slot *s;

	/* Keep the clamp: the verifier cannot bound a modulo by itself. */
	asm volatile("" : "+r"(idx));
	if (idx >= cfg_slots)
		return NULL;
	s = &f->slot[idx];
	if (s->epoch != epoch) {
		s->epoch = epoch;
		s->packets = 0;
		s->bytes = 0;
		s->drop_packets = 0;
		s->drop_bytes = 0;
	}
	return s;
}

struct rw_sum_ctx {
	struct rw_key key;
	__u64 epoch;
	__u64 packets; /* admitted in the window plus others' outstanding leases */
	__u64 bytes;
	__u32 self;
};

static long rw_sum_cpu(__u32 cpu, void *data)
{
	struct rw_sum_ctx *sum = data;
	struct rw_flow *f;

	f = bpf_map_lookup_percpu_elem(&flows, &sum->key, cpu);
	if (!f)
		return 0;
	for (__u32 i = 0; i < RW_MAX_SLOTS; i++) {
		struct rw_slot *s;

		if (i >= cfg_slots)
			break;
		s = &f->slot[i];
		if (!rw_slot_live(s->epoch, sum->epoch, cfg_slots))
			continue;
		sum->packets += s->packets - s->drop_packets;
		sum->bytes += s->bytes - s->drop_bytes;
	}
	if (cpu != sum->self && f->hdr.lease_epoch == sum->epoch) {
		sum->packets += f->hdr.lease_packets;
		sum->bytes += f->hdr.lease_bytes;
	}
	return 0;
}

/* Refill this CPU's lease from what all CPUs left of the window's budget. */
static __always_inline bool rw_refill(struct rw_flow_hdr *h, const struct rw_key *key,
				      __u64 epoch, __u64 len, struct rw_stats *st)
{
	struct rw_sum_ctx sum = {
		.key = *key,
		.epoch = epoch,
		.self = bpf_get_smp_processor_id(),
	};
	__u64 left_packets = 0, left_bytes = 0, share;

	st->cross_cpu_checks++;
	bpf_loop(cfg_nr_cpus, rw_sum_cpu, &sum, 0);

	if (cfg_limit_packets > sum.packets)
		left_packets = cfg_limit_packets - sum.packets;
	if (cfg_limit_bytes > sum.bytes)
		left_bytes = cfg_limit_bytes - sum.bytes;
	if ((cfg_limit_packets && left_packets < 1) || (cfg_limit_bytes && left_bytes < len)) {
		h->saturated = 1;
		h->lease_packets = 0;
		h->lease_bytes = 0;
		return false;
	}
	/* A 1/nr_cpus share keeps concurrent refills inside what is left. */
	share = left_packets / cfg_nr_cpus;
	h->lease_packets = share > 0xffffffffULL ? 0xffffffffU : (share ? share : 1);
	share = left_bytes / cfg_nr_cpus;
	h->lease_bytes = share > len ? share : len;
	return true;
}

/* Admitted-only: a refused packet takes nothing from the budget. */
static __always_inline bool rw_admit(struct rw_flow *f, const struct rw_key *key, __u64 epoch,
				     __u64 len, struct rw_stats *st)
{
	struct rw_flow_hdr *h = &f->hdr;

	if (h->lease_epoch != epoch) {
		h->lease_epoch = epoch;
		h->lease_packets = 0;
		h->lease_bytes = 0;
		h->saturated = 0;
	}
	if (h->saturated)
		return false;
	if ((cfg_limit_packets && h->lease_packets < 1) || (cfg_limit_bytes && h->lease_bytes < len)) {
		if (!rw_refill(h, key, epoch, len, st))
			return false;
	}
	if (cfg_limit_packets)
		h->lease_packets--;
	if (cfg_limit_bytes)
		h->lease_bytes -= len;
	return true;
}

static __always_inline struct rw_flow *rw_flow_get(const struct rw_key *key, struct rw_stats *st)
{
	struct rw_flow *f;
	__u32 zero = 0;
	void *init;

	f = bpf_map_lookup_elem(&flows, key);
	if (f)
		return f;
	init = bpf_map_lookup_elem(&zero_flow, &zero);
	if (!init)
		return NULL;
	/* Another CPU may win the insert race: that is fine, look it up again. */
	if (bpf_map_update_elem(&flows, key, init, BPF_NOEXIST) == 0)
		st->new_flows++;
	f = bpf_map_lookup_elem(&flows, key);
	if (!f)
		st->failed_inserts++;
	return f;
}

SEC("xdp.frags")
int ratewall_xdp(struct xdp_md *ctx)
{
	__u64 len = bpf_xdp_get_buff_len(ctx);
	struct rw_key key = {};
	struct rw_stats *st;
	struct rw_flow *f;
	struct rw_slot *s;
	__u32 zero = 0;
	__u64 epoch;
	bool admit;
	int ret;

	st = bpf_map_lookup_elem(&stats, &zero);
	if (!st)
		return XDP_PASS;
	st->rx_packets++;
	st->rx_bytes += len;

	ret = rw_parse_source(ctx, &key, len);
	if (ret != RW_PARSE_OK) {
		if (ret == RW_PARSE_NOT_IP)
			st->non_ip++;
		else
			st->malformed++;
		return XDP_PASS;
	}

	epoch = rw_now() / cfg_slot_ns;
	f = rw_flow_get(&key, st);
	if (!f)
		return XDP_PASS; /* fail open: an unkeyed packet is never dropped */
	s = rw_slot_for(f, epoch);
	if (!s)
		return XDP_PASS;
	/* Decide before counting: the sum a refill takes must not hold this packet. */
	admit = !(cfg_limit_packets || cfg_limit_bytes) || rw_admit(f, &key, epoch, len, st);
	s->packets++;
	s->bytes += len;
	if (admit)
		return XDP_PASS;
	s->drop_packets++;
	s->drop_bytes += len;
	st->dropped++;
	st->dropped_bytes += len;
	return XDP_DROP;
}
