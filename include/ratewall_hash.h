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
	__u32 w[5];
	__u64 h = seed;

	__builtin_memcpy(w, key, sizeof(w));
	/* Five rounds, constant-bounded: clang unrolls it for BPF, gcc as it likes. */
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	/* murmur3's finaliser: every key bit reaches every part of the hash. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* Sketch rows take bits 0..11 and 32..43; the filter bits 16..31. */
RW_INLINE __u32 rw_mark_index(__u64 h)
{
	return (__u32)(h >> 16) & (RW_MARKS - 1);
}

#endif /* RATEWALL_HASH_H */
