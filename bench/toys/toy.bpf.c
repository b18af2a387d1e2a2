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
 *   TOY_RANK       TOY_D64 for the source, and beside it one more 64-byte line in an array
 *                  of its own for the destination and one for the (source, destination)
 *                  pair, counted only: the least an exact tally of `--rank dst,pair`
 *                  costs, each kind one hash and one line
 *
 * TOY_LIMIT: a source's packets beyond this many are dropped (0: none are).
 * TOY_ENTRIES: array entries (a power of two). Colliding sources share an
 * entry: these are floors, not limiters.
 */
#ifdef TOY_RANK
#define TOY_D64
#define RW_PARSE_KIND_DEFAULT RW_KIND_PAIR /* the parser fills in both addresses */
#endif
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

#ifdef TOY_RANK
/* One array a ranked kind, as large as the source's. */
struct toy_kind_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct toy_line);
	__uint(max_entries, TOY_ENTRIES);
};
struct toy_kind_map toy_dst SEC(".maps");
struct toy_kind_map toy_pair SEC(".maps");
#endif

/*
 * A multiplicative hash of the whole address, with xor-shifts so that every
 * byte reaches the bits taken (IPv6 sources that differ only in their last
 * bytes must spread over the array as well as IPv4 ones do).
 */
static __always_inline __u64 toy_mix(__u64 a, __u64 b)
{
	__u64 x = a ^ (b * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 32;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 29);
}

static __always_inline __u32 toy_hash_addr(const __u8 *addr)
{
	__u64 a, b;

	__builtin_memcpy(&a, addr, 8);
	__builtin_memcpy(&b, addr + 8, 8);
	return (__u32)toy_mix(a, b);
}

static __always_inline __u32 toy_hash(const struct rw_key *k)
{
	return toy_hash_addr(k->addr);
}

#ifdef TOY_RANK
/* Counts the packet in line idx of one ranked kind's array. */
static __always_inline void toy_count(void *map, __u32 idx, __u64 len)
{
	struct toy_line *l = bpf_map_lookup_elem(map, &idx);

	if (l) {
		l->packets++;
		l->bytes += len;
	}
}

/* The ranked kinds: the destination's line, and the pair's (both addresses mixed). */
static __always_inline void toy_rank(const struct rw_key *k, __u64 len)
{
	__u32 dst = toy_hash_addr(k->addr2);

	toy_count(&toy_dst, dst & (TOY_ENTRIES - 1), len);
	toy_count(&toy_pair, (__u32)toy_mix(toy_hash(k), dst) & (TOY_ENTRIES - 1), len);
}
#endif

SEC("xdp")
int toy_xdp(struct xdp_md *ctx)
{
	struct rw_key key = {};
	struct rw_l4_seen seen;
	__u64 len = ctx->data_end - ctx->data;
	__u32 idx;

	if (rw_parse_key(ctx, &key, len, &seen) != RW_PARSE_OK)
		return XDP_PASS;
	idx = toy_hash(&key) & (TOY_ENTRIES - 1);
#ifdef TOY_RANK
	toy_rank(&key, len);
#endif
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
