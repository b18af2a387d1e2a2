// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic generator, run through BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES:
 * every run rewrites the field that varies (a source or destination address,
 * or a port; the page may hold whatever an earlier run left there, so it is
 * written in full with its checksums: patch.h) and redirects the frame out of
 * gen_ifindex.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <stdbool.h>
#include "patch.h"

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

SEC("xdp")
int rwgen_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 zero = 0, idx;
	__u64 *pos, p;

	pos = bpf_map_lookup_elem(&seq, &zero);
	if (!pos)
		return XDP_ABORTED;
	p = (*pos)++;
	if (gen_random) {
		idx = rwgen_random_index(p, gen_seed, gen_nsrc);
	} else if (gen_sched_len) {
		__u32 slot = (__u32)(p % gen_sched_len);
		__u32 *s = bpf_map_lookup_elem(&schedule, &slot);

		idx = s ? *s : 0;
	} else {
		idx = (__u32)(p % gen_nsrc);
	}
	if (rwgen_patch(data, end, &gen_layout, idx, p, gen_seed))
		return XDP_ABORTED;
	return bpf_redirect(gen_ifindex, 0);
}
