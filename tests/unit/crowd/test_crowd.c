// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The crowd's distinct count and register merge (include/ratewall_crowd.h,
 * the data path's own code), and the loader's small-count table for it.
 */
#include "kernel/window.h"
#include "ratewall_crowd.h"
#include "unit/unit.h"

/* splitmix64: well-spread stand-ins for the hashes of distinct keys. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * The crowd's distinct count (ratewall_crowd.h, the data path's code) over
 * 1 to 2 million keys, each seen three times: within 6 % (2.6 standard
 * errors at 2 048 registers), and within one key below 50.
 */
static void test_crowd_distinct_count(void)
{
	static const uint32_t counts[] = { 1, 7, 49, 300, 2000, 8192, 65536, 262144, 2000000 };
	uint32_t lc[RW_CROWD_REGS + 1];

	rw_crowd_lc_table(lc);
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		uint8_t reg[RW_CROWD_REGS] = { 0 };
		uint64_t zsum = 0;
		uint32_t zeros = 0, n = counts[c], est;
		double err;

		for (uint32_t seen = 0; seen < 3; seen++) {
			for (uint32_t i = 0; i < n; i++) {
				uint64_t h = mix64((uint64_t)c << 40 | i);
				uint32_t j = rw_crowd_reg(h);
				uint8_t r = rw_crowd_rank(h);

				if (reg[j] < r)
					reg[j] = r;
			}
		}
		for (uint32_t j = 0; j < RW_CROWD_REGS; j++) {
			zsum += rw_crowd_weight(reg[j]);
			zeros += !reg[j];
		}
		est = rw_crowd_estimate(zsum, zeros, lc[zeros]);
		err = ((double)est - n) / n;
		printf("     %u distinct keys: estimated %u (%+.2f %%)\n", n, est, 100 * err);
		if (n < 50)
			CHECK(est + 1 >= n && est <= n + 1);
		else
			CHECK(err < 0.06 && err > -0.06);
	}
}

/* Merging registers eight at a time is a bytewise maximum for every pair of ranks. */
static void test_crowd_register_merge(void)
{
	uint32_t wrong = 0;

	for (uint32_t a = 0; a <= RW_CROWD_RANK_MAX; a++) {
		for (uint32_t b = 0; b <= RW_CROWD_RANK_MAX; b++) {
			uint64_t x = 0, y = 0, m;

			/* a and b in every lane, beside lanes of other values */
			for (uint32_t lane = 0; lane < 8; lane++) {
				x |= (uint64_t)(lane & 1 ? a : (a + lane) % 34) << (8 * lane);
				y |= (uint64_t)(lane & 1 ? b : (b * 3 + lane) % 34) << (8 * lane);
			}
			m = rw_crowd_max8(x, y);
			for (uint32_t lane = 0; lane < 8; lane++) {
				uint8_t xa = (uint8_t)(x >> (8 * lane)), yb = (uint8_t)(y >> (8 * lane));

				wrong += (uint8_t)(m >> (8 * lane)) != (xa > yb ? xa : yb);
			}
		}
	}
	CHECK_EQ(wrong, 0);
}

void run_crowd_tests(void)
{
	RUN(test_crowd_distinct_count);
	RUN(test_crowd_register_merge);
}
