/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One copy of the frame: which index the packet at a position of the sequence
 * carries, and how its varying field, checksums and (--random-sport) source
 * port are rewritten. Shared by the BPF program (live frames) and the
 * packet-socket sender (packet.c), so that either sends the same sequence.
 */
#ifndef RWGEN_PATCH_H
#define RWGEN_PATCH_H

#include <linux/types.h>
#include <bpf/bpf_endian.h>
#include "layout.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/*
 * A field at any offset: the program's stores as they were (BPF has no
 * alignment trap on these), the driver's through memcpy (C's rule on
 * alignment, which UBSan checks).
 */
static __always_inline void rwgen_store16(void *p, __u16 v)
{
#ifdef __bpf__
	*(__u16 *)p = v;
#else
	__builtin_memcpy(p, &v, sizeof(v));
#endif
}

static __always_inline void rwgen_store32(void *p, __u32 v)
{
#ifdef __bpf__
	*(__u32 *)p = v;
#else
	__builtin_memcpy(p, &v, sizeof(v));
#endif
}

/*
 * RFC 1624 incremental update for a 32-bit field changing from old to new (a
 * 16-bit field is the same sum with its high halves zero).
 */
static __always_inline __u16 rwgen_csum_replace32(__u16 csum, __u32 old, __u32 new)
{
	__u32 sum = (__u16)~csum;

	sum += (__u16)~(old >> 16) + (__u16)~(old & 0xffff);
	sum += (new >> 16) + (new & 0xffff);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* --dist random: splitmix64 of the position, so no two nearby packets share a source. */
static __always_inline __u32 rwgen_random_index(__u64 pos, __u64 seed, __u32 nsrc)
{
	__u64 x = pos + seed;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (__u32)(x % nsrc);
}

/*
 * Writes index idx's value (lay->base + idx) into the copy at data, with its
 * checksums, and for --random-sport a source port mixed from pos. Returns -1
 * when the frame is too short for the layout (the program aborts that copy).
 * The offset bounds are for the verifier: frame.c never places a field past them.
 */
static __always_inline int rwgen_patch(void *data, void *end, const volatile struct rwgen_layout *lay,
				       __u32 idx, __u64 pos, __u64 seed)
{
	__u32 val = lay->base + idx, sport = 0;
	__u16 off = lay->vary_off;

	if (lay->vary_len == 2) {
		if (off > 128 || data + off + 2 > end)
			return -1;
		rwgen_store16(data + off, bpf_htons((__u16)val));
	} else {
		if (off > 64 || data + off + 4 > end)
			return -1;
		rwgen_store32(data + off, bpf_htonl(val));
	}

	off = lay->ip_csum_off;
	if (off) {
		if (off > 64 || data + off + 2 > end)
			return -1;
		rwgen_store16(data + off,
			      bpf_htons(rwgen_csum_replace32(bpf_ntohs(lay->tmpl_ip_csum), lay->base, val)));
	}
	off = lay->sport_off;
	if (off) {
		if (off > 128 || data + off + 2 > end)
			return -1;
		sport = 1024 + (__u32)((pos * 0x9e3779b97f4a7c15ULL + seed) >> 40) % 64512;
		rwgen_store16(data + off, bpf_htons((__u16)sport));
	}
	off = lay->udp_csum_off;
	if (off) {
		if (off > 128 || data + off + 2 > end)
			return -1;
		__u16 csum = rwgen_csum_replace32(bpf_ntohs(lay->tmpl_udp_csum), lay->base, val);

		if (lay->sport_off)
			csum = rwgen_csum_replace32(csum, lay->tmpl_sport, sport);
		/* In UDP a computed zero is sent as all ones; zero means "none". */
		rwgen_store16(data + off, bpf_htons(csum ? csum : 0xffff));
	}
	return 0;
}

#endif
