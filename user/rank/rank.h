/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Top-N ranking in two stages: a bounded min-heap per partition of the key
 * space (intermediate rankings), then one merge of their lists into the
 * global top-N (total ranking). O(n log k) per tick, no full sort.
 */
#ifndef RW_RANK_H
#define RW_RANK_H

#include <stdbool.h>
#include <stdint.h>
#include "cli/config.h"
#include "ratewall.h"
#include "ratewall_window.h"

struct rw_rank_entry {
	struct rw_key key;
	struct rw_window_sum sum;
	uint64_t metric; /* rw_sort_metric(&sum, sort): what the ranking orders by */
	bool banned;     /* --ban: serving a ban when the tick read it */
};

/* The count a --sort order ranks by. */
uint64_t rw_sort_metric(const struct rw_window_sum *w, enum rw_sort sort);

/*
 * --metrics-min-share: the count (of the --sort order) a key needs to carry
 * ppm parts per million of the window's total; 0 without a share.
 */
uint64_t rw_share_bar(const struct rw_window_sum *total, enum rw_sort sort, uint32_t ppm);
/* Of top[k..n) (best first), how many reach bar: they go out beside the top k (0: bar 0). */
uint32_t rw_rank_over(const struct rw_rank_entry *top, uint32_t n, uint32_t k, uint64_t bar);

/* Strict "a ranks above b": larger metric, then the smaller key. */
bool rw_rank_before(const struct rw_rank_entry *a, const struct rw_rank_entry *b);

struct rw_topk {
	uint32_t k;
	uint32_t n;
	struct rw_rank_entry *heap; /* min-heap: heap[0] is the weakest kept */
};

int rw_topk_init(struct rw_topk *t, uint32_t k);
void rw_topk_free(struct rw_topk *t);
void rw_topk_clear(struct rw_topk *t);
void rw_topk_offer(struct rw_topk *t, const struct rw_rank_entry *e);
/* Moves the kept entries into out, best first; returns how many. Empties t. */
uint32_t rw_topk_drain(struct rw_topk *t, struct rw_rank_entry *out);

struct rw_ranker {
	uint32_t parts;
	struct rw_topk *part;
	struct rw_topk total;
	struct rw_rank_entry *scratch;
};

int rw_ranker_init(struct rw_ranker *r, uint32_t parts, uint32_t k);
void rw_ranker_free(struct rw_ranker *r);
uint32_t rw_ranker_partition(const struct rw_ranker *r, const struct rw_key *key);
void rw_ranker_offer(struct rw_ranker *r, const struct rw_rank_entry *e);
/* Merges the partitions into out (room for k), best first; resets for the next tick. */
uint32_t rw_ranker_merge(struct rw_ranker *r, struct rw_rank_entry *out);

#endif
