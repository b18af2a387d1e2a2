// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reference programs for `make bench`: the least state a per-source limiter
 * can keep, so every ratewall figure stands beside the floor of what its
 * state costs on the same machine. Each is one parse of Ethernet + IPv4/IPv6
 * (the data path's own parser), a multiplicative hash of the source, and:
 *
 *   TOY_PARSE      nothing more (the parse and the hash alone)
 *   TOY_D8         a per-CPU array of 8-byte counters indexed by the hash
 *   TOY_D64        a per-CPU array of 64-byte lines (packets, bytes) indexed by the hash
 *
 * TOY_LIMIT: a source's packets beyond this many are dropped (0: none are).
 * TOY_ENTRIES: array entries (a power of two). Colliding sources share an
 * entry: these are floors, not limiters.
 */
#include "parse.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#ifndef TOY_ENTRIES
#define TOY_ENTRIES 65536
#endif
#ifndef TOY_LIMIT
#define TOY_LIMIT 1
#endif

struct toy_line {
	__u64 packets;
	__u64 bytes;
	__u64 pad[6];
};

#if defined(TOY_D8) || defined(TOY_D64)
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
#ifdef TOY_D8
	__type(value, __u64);
#else
	__type(value, struct toy_line);
#endif
	__uint(max_entries, TOY_ENTRIES);
} toy_state SEC(".maps");
#endif

/*
 * A multiplicative hash of the whole address, with xor-shifts so that every
 * byte reaches the bits taken (IPv6 sources that differ only in their last
 * bytes must spread over the array as well as IPv4 ones do).
 */
static __always_inline __u32 toy_hash(const struct rw_key *k)
{
	__u64 a, b, x;

	__builtin_memcpy(&a, k->addr, 8);
	__builtin_memcpy(&b, k->addr + 8, 8);
	x = a ^ (b * 0x9e3779b97f4a7c15ULL);
	x ^= x >> 32;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (__u32)(x ^ (x >> 29));
}

SEC("xdp")
int toy_xdp(struct xdp_md *ctx)
{
	struct rw_key key = {};
	__u64 len = ctx->data_end - ctx->data;
	__u32 idx;

	if (rw_parse_key(ctx, &key, len) != RW_PARSE_OK)
		return XDP_PASS;
	idx = toy_hash(&key) & (TOY_ENTRIES - 1);
#if defined(TOY_D8)
	__u64 *c = bpf_map_lookup_elem(&toy_state, &idx);

	if (!c)
		return XDP_PASS;
	*c += 1;
	return TOY_LIMIT && *c > TOY_LIMIT ? XDP_DROP : XDP_PASS;
#elif defined(TOY_D64)
	struct toy_line *l = bpf_map_lookup_elem(&toy_state, &idx);

	if (!l)
		return XDP_PASS;
	l->packets++;
	l->bytes += len;
	return TOY_LIMIT && l->packets > TOY_LIMIT ? XDP_DROP : XDP_PASS;
#else
	if (idx == 0xffffffff) /* keeps the hash */
		return XDP_ABORTED;
	return TOY_LIMIT ? XDP_DROP : XDP_PASS;
#endif
}
