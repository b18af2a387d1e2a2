/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One seeded 64-bit hash of a key, and everything it indexes: the key's home
 * and overflow buckets and its tag in the tracked-flow table, and its column
 * in each sketch row. The BPF program hashes a packet's key once; the loader
 * uses the same functions to find a key's entry. Seeded at load, so where
 * a key lands differs from one load to the next and a flood's keys cannot be
 * aimed at one bucket. It is not a keyed hash: a key that keeps all 128 bits
 * of an IPv6 address hashes the same, under every seed, as that key with the
 * top bit of address bytes 7, 11 and 15 flipped (docs/limits.md).
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
	 * 64-bit rounds over the key, each multiply followed by an xor-shift (a
	 * multiply only carries bits upward: without the shifts the low bits of
	 * IPv6 keys, which vary in their last word, would correlate the sketch's
	 * two rows), and a final multiply-shift. A source or destination key
	 * takes three rounds over its first 20 bytes (the rest is zero); a pair
	 * or a flow two more over the destination and the ports. A unit test
	 * checks that the rows collide independently.
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
	if (key->kind >= RW_KIND_PAIR) {
		__u32 ports;

		__builtin_memcpy(&a, key->addr2, 8);
		__builtin_memcpy(&b, key->addr2 + 8, 8);
		__builtin_memcpy(&ports, &key->sport, 4);
		h = (h ^ a) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
		h = (h ^ b ^ ((__u64)ports << 32)) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* Where a key lives in the tracked-flow table. */
struct rw_where {
	__u32 home;     /* bucket tried first */
	__u32 overflow; /* bucket tried when home was full at the key's insert */
	__u32 tag;      /* never 0: 0 marks an empty way */
};

/*
 * Bits of the hash: the home bucket takes the low word (a multiply-shift onto
 * any bucket count), the tag and the overflow bucket the high word (so keys
 * sharing a home spread over every overflow bucket); the sketch columns take
 * low bits of each word.
 */
RW_INLINE struct rw_where rw_where_of(__u64 h, __u32 nbuckets)
{
	struct rw_where w;
	__u32 lo = (__u32)h, hi = (__u32)(h >> 32);

	w.home = (__u32)(((__u64)lo * nbuckets) >> 32);
	w.overflow = (__u32)(((__u64)(hi * 0x9e3779b1u) * nbuckets) >> 32);
	w.tag = hi | 1;
	return w;
}

/* The bucket a row of the sketch counts the key in (row 0 or 1), before the row's offset. */
RW_INLINE __u32 rw_sketch_col(__u64 h, __u32 row)
{
	return (row ? (__u32)(h >> 33) : (__u32)h) & (RW_SKETCH_COLS - 1);
}

#endif /* RATEWALL_HASH_H */
