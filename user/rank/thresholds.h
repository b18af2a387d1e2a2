/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* When an untracked source is promoted out of the sketch: the loader's half. */
#ifndef RW_THRESHOLDS_H
#define RW_THRESHOLDS_H

#include <stdint.h>
#include "cli/config.h"
#include "rank/rank.h"

/* Most flows tracked from their first packet, whatever the table size. */
#define RW_FREE_TRACKED 4096

/*
 * Promotion thresholds for the next interval, from this tick's ranking: any
 * source that could reach the top-k has at least 1/ncpus of the k-th count on
 * some CPU, so that share (never below the sketch's noise) is the threshold;
 * while few flows are tracked and the sketch is quiet, every new source is
 * tracked from its first packet (free promotions). With --metrics-min-share
 * every key at share_bar (rw_share_bar) goes out too, so the bar is never
 * above it (0: no share). Pure: unit-tested.
 */
struct rw_thresholds rw_next_thresholds(const struct rw_rank_entry *top, uint32_t ntop, uint32_t k,
					enum rw_sort sort, uint32_t ncpus, uint64_t tracked,
					uint32_t max_flows, uint64_t sketch_peak_cpu,
					uint64_t sketch_peak_cpu_bytes, uint64_t share_bar);
#endif
