// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reference programs: the drop-all floor for benchmarks and a plain pass for tests. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_drop_all(struct xdp_md *ctx)
{
	return XDP_DROP;
}

SEC("xdp")
int xdp_pass_all(struct xdp_md *ctx)
{
	return XDP_PASS;
}
