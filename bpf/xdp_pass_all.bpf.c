// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hands every frame to the stack. Benchmarks put it in front of nftables and
 * iptables: a veth only accepts redirected frames when its peer runs XDP.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_pass_all(struct xdp_md *ctx)
{
	return XDP_PASS;
}
