/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The source hash, shared by the BPF program and the loader: the sketch's
 * buckets and the tracked-source filter are indexed by it, and the loader must
 * find the same filter entry when it deletes a flow. Seeded at load, so
 * collisions cannot be aimed.
 */
#ifndef RATEWALL_HASH_H
#define RATEWALL_HASH_H

#include "ratewall.h"

#ifndef RW_INLINE
#define RW_INLINE static inline __attribute__((always_inline))
#endif

RW_INLINE __u64 rw_hash(const struct rw_key *key, __u64 seed)
{
	__u64 a, b, h;
	__u32 c;

	/*
	 * Three 64-bit rounds over the 20-byte key, each multiply followed by an
	 * xor-shift (a multiply only carries bits upward: without the shifts the
	 * low bits of IPv6 keys, which vary in their last word, would correlate
	 * the sketch's two rows), and a final multiply-shift. A unit test checks
	 * that the rows collide independently.
	 */
	__builtin_memcpy(&a, key->addr, 8);
	__builtin_memcpy(&b, key->addr + 8, 8);
	__builtin_memcpy(&c, &key->family, 4);
	h = (a ^ seed) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	h = (h ^ b) * 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	h = (h ^ c) * 0x94d049bb133111ebULL;
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* Sketch rows take bits 0..11 and 32..43; the filter bits 16..31. */
RW_INLINE __u32 rw_mark_index(__u64 h)
{
	return (__u32)(h >> 16) & (RW_MARKS - 1);
}

#endif /* RATEWALL_HASH_H */
