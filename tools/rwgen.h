/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Shared by the generator's BPF program and its driver. */
#ifndef RWGEN_H
#define RWGEN_H

#include <linux/types.h>

/* Where the source address sits in the frame and how checksums follow it. */
struct rwgen_layout {
	__u16 saddr_off;    /* offset of the 32 bits of source address that vary */
	__u16 ip_csum_off;  /* IPv4 header checksum, 0 for IPv6 */
	__u16 udp_csum_off; /* UDP checksum, 0 when left at zero (IPv4) */
	__u16 pad;
	__u32 base_saddr;   /* the varying 32 bits, host order, of source index 0 */
	__u16 tmpl_ip_csum; /* checksums of the template (source index 0), as in the frame */
	__u16 tmpl_udp_csum;
};

_Static_assert(sizeof(struct rwgen_layout) == 16, "rwgen_layout layout");

#endif
