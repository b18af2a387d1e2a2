// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic generator, run through BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES:
 * every run rewrites the field that varies (a source or destination address,
 * or a port; the page may hold whatever an earlier run left there, so it is
 * written in full with its checksums) and redirects the frame out of
 * gen_ifindex.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <stdbool.h>
#include "layout.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 gen_ifindex;
const volatile __u32 gen_nsrc = 1;
const volatile __u32 gen_sched_len; /* 0: sources in round-robin order */
const volatile bool gen_random;     /* a pseudo-random source every packet (spoofed flood) */
const volatile __u64 gen_seed;
const volatile struct rwgen_layout gen_layout;

/* Per-CPU position in the source sequence; the driver seeds each CPU's start. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} seq SEC(".maps");

/* Source index for each position, for weighted or exact per-source counts. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} schedule SEC(".maps");

/*
 * RFC 1624 incremental update for a 32-bit field changing from old to new (a
 * 16-bit field is the same sum with its high halves zero).
 */
static __always_inline __u16 csum_replace32(__u16 csum, __u32 old, __u32 new)
{
	__u32 sum = (__u16)~csum;

	sum += (__u16)~(old >> 16) + (__u16)~(old & 0xffff);
	sum += (new >> 16) + (new & 0xffff);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

SEC("xdp")
int rwgen_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 zero = 0, idx, val, base = gen_layout.base, sport = 0;
	__u16 off;
	__u64 *pos;

	pos = bpf_map_lookup_elem(&seq, &zero);
	if (!pos)
		return XDP_ABORTED;
	if (gen_random) {
		/* splitmix64 of the position: no two nearby packets share a source. */
		__u64 x = *pos + gen_seed;

		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		x ^= x >> 31;
		idx = (__u32)(x % gen_nsrc);
	} else if (gen_sched_len) {
		__u32 slot = (__u32)(*pos % gen_sched_len);
		__u32 *s = bpf_map_lookup_elem(&schedule, &slot);

		idx = s ? *s : 0;
	} else {
		idx = (__u32)(*pos % gen_nsrc);
	}
	(*pos)++;
	val = base + idx;

	off = gen_layout.vary_off;
	if (gen_layout.vary_len == 2) {
		if (off > 128 || data + off + 2 > end)
			return XDP_ABORTED;
		*(__be16 *)(data + off) = bpf_htons((__u16)val);
	} else {
		if (off > 64 || data + off + 4 > end)
			return XDP_ABORTED;
		*(__be32 *)(data + off) = bpf_htonl(val);
	}

	off = gen_layout.ip_csum_off;
	if (off) {
		if (off > 64 || data + off + 2 > end)
			return XDP_ABORTED;
		*(__u16 *)(data + off) = bpf_htons(csum_replace32(bpf_ntohs(gen_layout.tmpl_ip_csum),
								  base, val));
	}
	/* --random-sport: a flood's source port, from the same mix as a random source. */
	off = gen_layout.sport_off;
	if (off) {
		if (off > 128 || data + off + 2 > end)
			return XDP_ABORTED;
		sport = 1024 + (__u32)((*pos * 0x9e3779b97f4a7c15ULL + gen_seed) >> 40) % 64512;
		*(__be16 *)(data + off) = bpf_htons((__u16)sport);
	}
	off = gen_layout.udp_csum_off;
	if (off) {
		if (off > 128 || data + off + 2 > end)
			return XDP_ABORTED;
		__u16 csum = csum_replace32(bpf_ntohs(gen_layout.tmpl_udp_csum), base, val);

		if (gen_layout.sport_off)
			csum = csum_replace32(csum, gen_layout.tmpl_sport, sport);

		/* In UDP a computed zero is sent as all ones; zero means "none". */
		*(__u16 *)(data + off) = bpf_htons(csum ? csum : 0xffff);
	}
	return bpf_redirect(gen_ifindex, 0);
}
