// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rank/thresholds.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct rw_thresholds rw_next_thresholds(const struct rw_rank_entry *top, uint32_t ntop, uint32_t k,
					enum rw_sort sort, uint32_t ncpus, uint64_t tracked,
					uint32_t max_flows, uint64_t sketch_peak_cpu,
					uint64_t sketch_peak_cpu_bytes, uint64_t share_bar)
{
	struct rw_thresholds t = { 0 };
	uint64_t free_cap = max_flows / 4 < RW_FREE_TRACKED ? max_flows / 4 : RW_FREE_TRACKED;
	/*
	 * The program promotes by a source's own estimate, its buckets less the
	 * noise (rw_sketch_noise), and only once that stands the noise again
	 * clear of it; the threshold never asks less of the busiest CPU.
	 */
	uint64_t noise = rw_sketch_noise(sketch_peak_cpu) + 2;
	uint64_t noise_bytes = rw_sketch_noise(sketch_peak_cpu_bytes) + 2 * 1500;
	bool bytes = sort == RW_SORT_BPS;
	uint64_t kth = 0;

	if (ncpus == 0)
		ncpus = 1;
	/*
	 * Free promotions keep small source sets exact. Once a CPU's sketch holds
	 * more packets in a window than it has buckets, the sources are many (a
	 * flood, often spoofed): tracking newcomers then only churns the table.
	 */
	if (tracked < free_cap && sketch_peak_cpu <= RW_SKETCH_COLS)
		t.free_promotions = (int64_t)(free_cap - tracked);
	/* Until the top-k is full, any source could enter it: only the noise bounds it. */
	if (ntop >= k && k > 0)
		kth = bytes ? top[k - 1].sum.bytes : top[k - 1].sum.packets;
	/* A key over the share may be anywhere under the k-th: it too must be counted exactly. */
	if (share_bar && share_bar < kth)
		kth = share_bar;
	/* A sketch bucket cannot show a source past its counters' range: promote there at the latest. */
	if (bytes)
		t.promote_bytes = min_u64(max_u64(kth / ncpus, noise_bytes), RW_MAX_THRESHOLD_BYTES);
	else
		t.promote_packets = min_u64(max_u64(kth / ncpus, noise), RW_MAX_THRESHOLD);
	return t;
}

