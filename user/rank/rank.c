// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rank/rank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t rw_sort_metric(const struct rw_window_sum *w, enum rw_sort sort)
{
	switch (sort) {
	case RW_SORT_BPS:
		return w->bytes;
	case RW_SORT_DROPS:
		return w->drop_packets;
	case RW_SORT_PPS:
		break;
	}
	return w->packets;
}

uint64_t rw_share_bar(const struct rw_window_sum *total, enum rw_sort sort, uint32_t ppm)
{
	unsigned __int128 part;

	if (!ppm)
		return 0;
	/* Rounded up, and at least 1: a key with nothing in the window is over no share. */
	part = ((unsigned __int128)rw_sort_metric(total, sort) * ppm + 999999) / 1000000;
	return part ? (uint64_t)part : 1;
}

uint32_t rw_rank_over(const struct rw_rank_entry *top, uint32_t n, uint32_t k, uint64_t bar)
{
	uint32_t i = k;

	while (bar && i < n && top[i].metric >= bar)
		i++;
	return i > k ? i - k : 0;
}

bool rw_rank_before(const struct rw_rank_entry *a, const struct rw_rank_entry *b)
{
	if (a->metric != b->metric)
		return a->metric > b->metric;
	return memcmp(&a->key, &b->key, sizeof(a->key)) < 0;
}

int rw_topk_init(struct rw_topk *t, uint32_t k)
{
	t->k = k;
	t->n = 0;
	t->heap = calloc(k ? k : 1, sizeof(*t->heap));
	return t->heap ? 0 : -ENOMEM;
}

void rw_topk_free(struct rw_topk *t)
{
	free(t->heap);
	t->heap = NULL;
	t->n = t->k = 0;
}

void rw_topk_clear(struct rw_topk *t)
{
	t->n = 0;
}

static void swap_entries(struct rw_rank_entry *a, struct rw_rank_entry *b)
{
	struct rw_rank_entry tmp = *a;

	*a = *b;
	*b = tmp;
}

/* The heap keeps its weakest entry at the root. */
static void sift_up(struct rw_rank_entry *h, uint32_t i)
{
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!rw_rank_before(&h[parent], &h[i]))
			break;
		swap_entries(&h[parent], &h[i]);
		i = parent;
	}
}

static void sift_down(struct rw_rank_entry *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, weakest = i;

		if (l < n && rw_rank_before(&h[weakest], &h[l]))
			weakest = l;
		if (r < n && rw_rank_before(&h[weakest], &h[r]))
			weakest = r;
		if (weakest == i)
			return;
		swap_entries(&h[i], &h[weakest]);
		i = weakest;
	}
}

void rw_topk_offer(struct rw_topk *t, const struct rw_rank_entry *e)
{
	if (t->k == 0)
		return;
	if (t->n < t->k) {
		t->heap[t->n] = *e;
		sift_up(t->heap, t->n++);
		return;
	}
	if (!rw_rank_before(e, &t->heap[0]))
		return;
	t->heap[0] = *e;
	sift_down(t->heap, t->n, 0);
}

uint32_t rw_topk_drain(struct rw_topk *t, struct rw_rank_entry *out)
{
	uint32_t n = t->n;

	/* Popping the weakest first fills out from the back. */
	for (uint32_t i = n; i > 0; i--) {
		out[i - 1] = t->heap[0];
		t->heap[0] = t->heap[--t->n];
		sift_down(t->heap, t->n, 0);
	}
	return n;
}

int rw_ranker_init(struct rw_ranker *r, uint32_t parts, uint32_t k)
{
	memset(r, 0, sizeof(*r));
	if (parts == 0)
		return -EINVAL;
	r->part = calloc(parts, sizeof(*r->part));
	r->scratch = calloc(k ? k : 1, sizeof(*r->scratch));
	if (!r->part || !r->scratch)
		goto nomem;
	r->parts = parts;
	for (uint32_t i = 0; i < parts; i++) {
		if (rw_topk_init(&r->part[i], k))
			goto nomem;
	}
	if (rw_topk_init(&r->total, k))
		goto nomem;
	return 0;
nomem:
	rw_ranker_free(r);
	return -ENOMEM;
}

void rw_ranker_free(struct rw_ranker *r)
{
	for (uint32_t i = 0; r->part && i < r->parts; i++)
		rw_topk_free(&r->part[i]);
	rw_topk_free(&r->total);
	free(r->part);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

/* FNV-1a: cheap, and spreads neighbouring addresses over partitions. */
uint32_t rw_ranker_partition(const struct rw_ranker *r, const struct rw_key *key)
{
	const unsigned char *p = (const unsigned char *)key;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 16777619u;
	return h % r->parts;
}

void rw_ranker_offer(struct rw_ranker *r, const struct rw_rank_entry *e)
{
	rw_topk_offer(&r->part[rw_ranker_partition(r, &e->key)], e);
}

uint32_t rw_ranker_merge(struct rw_ranker *r, struct rw_rank_entry *out)
{
	for (uint32_t i = 0; i < r->parts; i++) {
		uint32_t n = rw_topk_drain(&r->part[i], r->scratch);

		for (uint32_t j = 0; j < n; j++)
			rw_topk_offer(&r->total, &r->scratch[j]);
	}
	return rw_topk_drain(&r->total, out);
}
