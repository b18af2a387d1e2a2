/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The frame's varying field, shared by the generator's BPF program and its driver. */
#ifndef RWGEN_LAYOUT_H
#define RWGEN_LAYOUT_H

#include <linux/types.h>

/*
 * Where the field that varies (--vary: a source or destination address, or a
 * port) sits in the frame and how checksums follow it.
 */
struct rwgen_layout {
	__u16 vary_off;     /* offset of the 32 address bits, or the 16 port bits, that vary */
	__u16 ip_csum_off;  /* IPv4 header checksum when an address varies, else 0 */
	__u16 udp_csum_off; /* UDP, TCP or ICMPv6 checksum when an address or port it covers
			     * varies; 0 when it does not follow (IPv4 UDP: left at zero) */
	__u16 vary_len;     /* 4 (address bits) or 2 (a port) */
	__u32 base;         /* the varying bits, host order, of index 0 */
	__u16 tmpl_ip_csum; /* checksums of the template (index 0), as in the frame */
	__u16 tmpl_udp_csum;
	__u16 sport_off;    /* --random-sport: the source port, 0 = left as it is */
	__u16 tmpl_sport;   /* its value in the template, host order */
};

_Static_assert(sizeof(struct rwgen_layout) == 20, "rwgen_layout layout");

#endif
