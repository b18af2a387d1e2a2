// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The benchmark floor: the least an XDP program can do with a frame. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_drop_all(struct xdp_md *ctx)
{
	return XDP_DROP;
}
