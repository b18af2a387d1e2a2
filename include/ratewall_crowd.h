/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The crowd's distinct count (struct rw_crowd): a HyperLogLog of
 * RW_CROWD_REGS registers over the key's one hash, written once for the data
 * path, which keeps it, and the tests, which check its error. A key picks
 * its register from bits 20-30 of the hash and ranks by the leading zeros of
 * the high word; the estimate is Flajolet et al.'s, with linear counting
 * (a table the loader fills) below 2.5 registers' worth.
 */
#ifndef RATEWALL_CROWD_H
#define RATEWALL_CROWD_H

#include "ratewall.h"

#ifndef RW_INLINE
#define RW_INLINE static inline __attribute__((always_inline))
#endif

/* A rank is 1 + the leading zeros of a 32-bit word: 33 for a word of zero. */
#define RW_CROWD_RANK_MAX 33
/* alpha x m^2 for m = 2048: alpha = 0.7213 / (1 + 1.079 / m). */
#define RW_CROWD_ALPHA_MM 3023758ULL
_Static_assert(RW_CROWD_REGS == 2048, "RW_CROWD_ALPHA_MM is for 2048 registers");

RW_INLINE __u32 rw_crowd_reg(__u64 h)
{
	return (__u32)(h >> 20) & (RW_CROWD_REGS - 1);
}

RW_INLINE __u8 rw_crowd_rank(__u64 h)
{
	__u32 x = (__u32)(h >> 32), n = 1;

	if (!x)
		return RW_CROWD_RANK_MAX;
	if (!(x & 0xffff0000u)) { n += 16; x <<= 16; }
	if (!(x & 0xff000000u)) { n += 8; x <<= 8; }
	if (!(x & 0xf0000000u)) { n += 4; x <<= 4; }
	if (!(x & 0xc0000000u)) { n += 2; x <<= 2; }
	if (!(x & 0x80000000u)) n += 1;
	return (__u8)n;
}

/* A register's term of the harmonic sum, in units of 2^-RW_CROWD_RANK_MAX. */
RW_INLINE __u64 rw_crowd_weight(__u8 rank)
{
	return 1ULL << (RW_CROWD_RANK_MAX - (rank > RW_CROWD_RANK_MAX ? RW_CROWD_RANK_MAX : rank));
}

/*
 * The bytewise maximum of two words of eight registers (every register is
 * under 128: bit 7 of (a | 0x80) - b is set where a >= b, with no borrow).
 */
RW_INLINE __u64 rw_crowd_max8(__u64 a, __u64 b)
{
	const __u64 high = 0x8080808080808080ULL;
	__u64 ge = ((((a | high) - b) & high) >> 7) * 0xff;

	return (a & ge) | (b & ~ge);
}

/* The distinct estimate from the harmonic sum, with lc = m ln(m / zeros) for small counts. */
RW_INLINE __u32 rw_crowd_estimate(__u64 zsum, __u32 zeros, __u32 lc)
{
	__u64 e = zsum ? (RW_CROWD_ALPHA_MM << RW_CROWD_RANK_MAX) / zsum : 0;

	if (e <= 5ULL * RW_CROWD_REGS / 2 && zeros)
		e = lc;
	return e > 0xffffffffULL ? 0xffffffffU : (__u32)e;
}

#endif /* RATEWALL_CROWD_H */
