// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/rank/: Rankings against a brute force, prefix heavy hitters, key sets, promotion thresholds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/key.h"
#include "rank/hhh.h"
#include "rank/keyset.h"
#include "rank/rank.h"
#include "rank/thresholds.h"
#include "unit.h"

static void test_next_thresholds(void)
{
	struct rw_rank_entry top[3] = { 0 };
	struct rw_thresholds t;

	/* Few flows tracked: the rest of the free budget, and the sketch's noise floor. */
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 100, 32768, 0, 0, 0);
	CHECK_EQ(t.free_promotions, RW_FREE_TRACKED - 100);
	CHECK_EQ(t.promote_packets, 2);
	CHECK_EQ(t.promote_bytes, 0);
	/* A small table keeps a quarter of itself for free promotions. */
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 10, 64, 0, 0, 0);
	CHECK_EQ(t.free_promotions, 16 - 10);
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 5000, 32768, 0, 0, 0);
	CHECK_EQ(t.free_promotions, 0);
	/* A busy sketch (more packets on a CPU than buckets): no free promotions. */
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 100, 32768, RW_SKETCH_COLS, 0, 0);
	CHECK_EQ(t.free_promotions, RW_FREE_TRACKED - 100);
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 100, 32768, RW_SKETCH_COLS + 1, 0, 0);
	CHECK_EQ(t.free_promotions, 0);
	/* A full top-3 whose third has 9000 packets: 4500 on some CPU of two. */
	top[2].sum.packets = 9000;
	top[2].sum.bytes = 900000;
	t = rw_next_thresholds(top, 3, 3, RW_SORT_PPS, 2, 5000, 32768, 0, 0, 0);
	CHECK_EQ(t.promote_packets, 4500);
	t = rw_next_thresholds(top, 3, 3, RW_SORT_BPS, 2, 5000, 32768, 0, 0, 0);
	CHECK_EQ(t.promote_packets, 0);
	CHECK_EQ(t.promote_bytes, 450000);
	/*
	 * A spoofed flood of 40 M packets on one CPU: never below the noise
	 * again over a source's own estimate (its buckets less the noise).
	 */
	t = rw_next_thresholds(top, 3, 3, RW_SORT_PPS, 2, 5000, 32768, 40000000, 0, 0);
	CHECK_EQ(t.promote_packets, 40000000 / RW_SKETCH_COLS + 2);
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmp_entries(const void *a, const void *b)
{
	if (rw_rank_before(a, b))
		return -1;
	return rw_rank_before(b, a) ? 1 : 0;
}

static void random_entry(struct rw_rank_entry *e, uint32_t i, uint64_t metric_range)
{
	memset(e, 0, sizeof(*e));
	e->key.family = (i & 1) ? RW_FAMILY_IPV6 : RW_FAMILY_IPV4;
	e->key.addr[0] = 198;
	e->key.addr[1] = 18;
	memcpy(&e->key.addr[12], &i, sizeof(i)); /* unique key per i */
	e->metric = rng() % metric_range;       /* small ranges force many ties */
	e->sum.packets = e->metric;
}

static void test_ranking_matches_brute_force(void)
{
	static const uint32_t ns[] = { 0, 1, 5, 100, 5000 };
	static const uint32_t ks[] = { 1, 3, 10, 64 };
	static const uint32_t parts[] = { 1, 2, 7 };
	static const uint64_t ranges[] = { 3, 1000, UINT64_MAX };

	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
	for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++)
	for (size_t c = 0; c < sizeof(parts) / sizeof(parts[0]); c++)
	for (size_t d = 0; d < sizeof(ranges) / sizeof(ranges[0]); d++) {
		uint32_t n = ns[a], k = ks[b], want = n < k ? n : k, got;
		struct rw_rank_entry *all = calloc(n + 1, sizeof(*all));
		struct rw_rank_entry *out = calloc(k, sizeof(*out));
		struct rw_ranker r;

		CHECK_EQ(rw_ranker_init(&r, parts[c], k), 0);
		for (uint32_t i = 0; i < n; i++) {
			random_entry(&all[i], i, ranges[d]);
			rw_ranker_offer(&r, &all[i]);
		}
		qsort(all, n, sizeof(*all), cmp_entries);
		/* Twice: the ranker must come back empty for the next tick. */
		for (int round = 0; round < 2; round++) {
			got = rw_ranker_merge(&r, out);
			CHECK_EQ(got, round ? 0 : want);
			for (uint32_t i = 0; i < got; i++)
				CHECK(memcmp(&out[i], &all[i], sizeof(*out)) == 0);
		}
		rw_ranker_free(&r);
		free(all);
		free(out);
	}
}

/*
 * --metrics-min-share: a ranking kept at rw_ranked_keys goes out as its top-N
 * and every key beyond it over the share, which is exactly the brute force's
 * top-N plus every key at the bar, whatever the spread of the counts; and no
 * more keys reach the bar than 1/share.
 */
static void test_share_export_matches_brute_force(void)
{
	static const uint32_t ppms[] = { 1000, 5000, 20000, 250000, 500000 };
	static const uint32_t tops[] = { 1, 3, 10 };
	static const uint32_t ns[] = { 0, 2, 50, 3000 };

	for (size_t a = 0; a < sizeof(ppms) / sizeof(ppms[0]); a++)
	for (size_t b = 0; b < sizeof(tops) / sizeof(tops[0]); b++)
	for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		struct rw_config cfg = { .top = tops[b], .metrics_min_share_ppm = ppms[a] };
		uint32_t n = ns[c], keep = rw_ranked_keys(&cfg), got, ntop, nover, want = 0;
		struct rw_rank_entry *all = calloc(n + 1, sizeof(*all));
		struct rw_rank_entry *out = calloc(keep, sizeof(*out));
		struct rw_window_sum total = { 0 };
		struct rw_ranker r;
		uint64_t bar;

		CHECK_EQ(keep, 1000000 / ppms[a] > tops[b] ? 1000000 / ppms[a] : tops[b]);
		CHECK_EQ(rw_ranker_init(&r, 3, keep), 0);
		for (uint32_t i = 0; i < n; i++) {
			/* Heavy-tailed: a few keys hold most of the traffic. */
			random_entry(&all[i], i, (rng() % 8 == 0) ? 100000 : 300);
			total.packets += all[i].sum.packets;
			rw_ranker_offer(&r, &all[i]);
		}
		total.packets += rng() % 1000; /* untracked packets count in the total too */
		bar = rw_share_bar(&total, RW_SORT_PPS, ppms[a]);
		got = rw_ranker_merge(&r, out);
		ntop = got < cfg.top ? got : cfg.top;
		nover = rw_rank_over(out, got, ntop, bar);
		qsort(all, n, sizeof(*all), cmp_entries);
		for (uint32_t i = 0; i < n; i++)
			want += i < cfg.top || all[i].metric >= bar;
		CHECK_EQ(ntop + nover, want);
		CHECK(nover <= 1000000 / ppms[a]);
		for (uint32_t i = 0; i < ntop + nover && i < n; i++)
			CHECK(memcmp(&out[i], &all[i], sizeof(*out)) == 0);
		rw_ranker_free(&r);
		free(all);
		free(out);
	}
}

/* The bar: rounded up, at least one packet, none without a share; what the tracking asks. */
static void test_share_bar(void)
{
	struct rw_window_sum w = { .packets = 1000, .bytes = 64000, .drop_packets = 7 };
	struct rw_rank_entry top[3] = { 0 };
	struct rw_thresholds t;

	CHECK_EQ(rw_share_bar(&w, RW_SORT_PPS, 0), 0);
	CHECK_EQ(rw_share_bar(&w, RW_SORT_PPS, 5000), 5);    /* 0.5 % of 1000 */
	CHECK_EQ(rw_share_bar(&w, RW_SORT_PPS, 1500), 2);    /* 1.5 packets: 2 */
	CHECK_EQ(rw_share_bar(&w, RW_SORT_BPS, 10000), 640);
	CHECK_EQ(rw_share_bar(&w, RW_SORT_DROPS, 500000), 4); /* 3.5 drops: 4 */
	CHECK_EQ(rw_share_bar(&(struct rw_window_sum){ 0 }, RW_SORT_PPS, 5000), 1);
	CHECK_EQ(rw_rank_over(top, 3, 1, 0), 0);
	top[0].metric = 9, top[1].metric = 5, top[2].metric = 4;
	CHECK_EQ(rw_rank_over(top, 3, 1, 5), 1);
	CHECK_EQ(rw_rank_over(top, 3, 1, 4), 2);
	CHECK_EQ(rw_rank_over(top, 3, 3, 1), 0);
	/* A key over the share below the k-th must be tracked: the bar lowers the threshold. */
	top[2].sum.packets = 9000;
	t = rw_next_thresholds(top, 3, 3, RW_SORT_PPS, 2, 5000, 32768, 0, 0, 1000);
	CHECK_EQ(t.promote_packets, 500);
	t = rw_next_thresholds(top, 3, 3, RW_SORT_PPS, 2, 5000, 32768, 0, 0, 20000);
	CHECK_EQ(t.promote_packets, 4500); /* over the k-th: the k-th's bar stands */
}

static void test_ranking_ties_break_by_key(void)
{
	struct rw_rank_entry a = { .metric = 5 }, b = { .metric = 5 }, out[2];
	struct rw_topk t;

	a.key.addr[3] = 2;
	b.key.addr[3] = 1;
	CHECK(rw_rank_before(&b, &a));
	CHECK(!rw_rank_before(&a, &b));
	CHECK(!rw_rank_before(&a, &a));
	CHECK_EQ(rw_topk_init(&t, 1), 0);
	rw_topk_offer(&t, &a);
	rw_topk_offer(&t, &b);
	CHECK_EQ(rw_topk_drain(&t, out), 1);
	CHECK_EQ(out[0].key.addr[3], 1);
	rw_topk_free(&t);
}

static struct rw_key v4key(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct rw_key k = { .family = RW_FAMILY_IPV4, .addr = { a, b, c, d } };

	return k;
}

/* Finds a reported prefix by text ("198.18.0.0/16"); NULL if it was not reported. */
static const struct rw_hhh_item *reported(const struct rw_hhh_item *it, size_t n, const char *text)
{
	char buf[RW_KEY_STRLEN];

	for (size_t i = 0; i < n; i++) {
		rw_key_format(&it[i].prefix, buf, sizeof(buf));
		if (strcmp(buf, text) == 0)
			return &it[i];
	}
	return NULL;
}

/*
 * A spoofed flood over one /16 (sampled 1 in 64), a heavy tracked source in
 * another, and a /24 of many tracked sources with a rest around it: each shows
 * at the level where it is heavy, and no prefix counts its reported
 * descendants' traffic again.
 */
static void test_hhh_report(void)
{
	struct rw_levels lv;
	struct rw_hhh_item out[64];
	const struct rw_hhh_item *it;
	struct rw_hhh *h;
	char err[256];
	size_t n;
	uint32_t x = 1;

	CHECK_EQ(rw_parse_levels("v4:32,24,16", &lv, err, sizeof(err)), 0);
	h = rw_hhh_new(&lv, 10, 64);
	CHECK(h != NULL);
	if (!h)
		return;
	for (int i = 0; i < 1000; i++) { /* 64 000 packets over 198.18.0.0/16, epochs 95..99 */
		x = x * 1103515245u + 12345u;
		struct rw_key k = v4key(198, 18, (uint8_t)(x >> 16), (uint8_t)(x >> 24));

		rw_hhh_sample(h, &k, 95 + (uint64_t)(i % 5));
	}
	{
		struct rw_key old = v4key(203, 0, 113, 1);

		rw_hhh_sample(h, &old, 80); /* a slot out of the window: never counted */
		rw_hhh_sample(h, &old, 90);
	}
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 19, 0, 1 } }, 20000);
	for (int i = 0; i < 15; i++) /* 15 000 in 198.20.1.0/24, 8 000 elsewhere in 198.20/16 */
		rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4,
						  .addr = { 198, 20, 1, (uint8_t)i } }, 1000);
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 20, 7, 1 } }, 8000);
	n = rw_hhh_report(h, 99, 107000, 0.05, out, 64);
	CHECK((it = reported(out, n, "198.19.0.1/32")) && it->residual == 20000);
	CHECK((it = reported(out, n, "198.18.0.0/16")) && it->packets == 64000);
	CHECK((it = reported(out, n, "198.20.1.0/24")) && it->residual == 15000);
	CHECK((it = reported(out, n, "198.20.7.1/32")) && it->residual == 8000);
	/* 198.20.0.0/16 holds 23 000, all of it in reported descendants. */
	CHECK(reported(out, n, "198.20.0.0/16") == NULL);
	CHECK(reported(out, n, "198.19.0.0/16") == NULL); /* all of it is 198.19.0.1 */
	CHECK(reported(out, n, "198.18.7.0/24") == NULL); /* a /24 of the flood: 1/256 */
	CHECK(reported(out, n, "203.0.113.0/24") == NULL);
	CHECK_EQ(n, 4);
	/* The order: most specific level first. */
	CHECK_EQ(RW_KEY_PREFIX_LEN(&out[0].prefix), 32);
	CHECK_EQ(RW_KEY_PREFIX_LEN(&out[n - 1].prefix), 16);
	/* Exact counts are this tick's only: the next report has the samples alone. */
	n = rw_hhh_report(h, 99, 64000, 0.05, out, 64);
	CHECK_EQ(n, 1);
	/* Five slots later the flood's first slot has left the window. */
	n = rw_hhh_report(h, 105, 64000, 0.05, out, 64);
	CHECK((it = reported(out, n, "198.18.0.0/16")) && it->packets == 64000 - 200 * 64);
	rw_hhh_free(h);
}

/*
 * --metrics-min-share on prefixes: every prefix of every level with its own
 * window traffic at the share, not net of anything (sums over hosts add up).
 */
static void test_hhh_over_share(void)
{
	struct rw_levels lv;
	struct rw_hhh_item out[64];
	const struct rw_hhh_item *over, *it;
	struct rw_hhh *h;
	char err[256];
	uint32_t n;

	CHECK_EQ(rw_parse_levels("v4:32,24 v6:64", &lv, err, sizeof(err)), 0);
	h = rw_hhh_new(&lv, 10, 64);
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_EQ(rw_hhh_keep_over(h, 100000), 0); /* 10 % */
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 18, 1, 1 } }, 500);
	for (int i = 0; i < 50; i++) /* 50 keys of 198.18.2.0/24, 10 each: the /24 only */
		rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4,
						  .addr = { 198, 18, 2, (uint8_t)i } }, 10);
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 18, 1, 2 } }, 99);
	rw_hhh_report(h, 99, 1000, 0.6, out, 64); /* heavy at 60 %: none is */
	over = rw_hhh_over(h, &n);
	CHECK((it = reported(over, n, "198.18.1.1/32")) && it->packets == 500);
	CHECK((it = reported(over, n, "198.18.1.0/24")) && it->packets == 599);
	CHECK((it = reported(over, n, "198.18.2.0/24")) && it->packets == 500);
	CHECK(reported(over, n, "198.18.1.2/32") == NULL); /* 99 of 1000: under 10 % */
	CHECK_EQ(n, 3);
	/* The next report has no exact counts: nothing over; off again with 0. */
	rw_hhh_report(h, 99, 1000, 0.6, out, 64);
	rw_hhh_over(h, &n);
	CHECK_EQ(n, 0);
	CHECK_EQ(rw_hhh_keep_over(h, 0), 0);
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 18, 1, 1 } }, 500);
	rw_hhh_report(h, 99, 1000, 0.6, out, 64);
	rw_hhh_over(h, &n);
	CHECK_EQ(n, 0);
	rw_hhh_free(h);
}

static void count_swept(void *arg, const struct rw_key *k)
{
	(void)k;
	(*(int *)arg)++;
}

/* The loader's set of limited sources: add, mark, sweep what was not marked. */
static void test_keyset(void)
{
	struct rw_keyset s = { 0 };
	int swept = 0;

	for (uint8_t i = 0; i < 200; i++)
		CHECK_EQ(rw_keyset_add(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, i } }), 0);
	CHECK_EQ(rw_keyset_add(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, 7 } }), 0);
	CHECK_EQ(s.n, 200);
	CHECK(rw_keyset_has(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, 199 } }));
	CHECK(!rw_keyset_has(&s, &(struct rw_key){ .family = 6, .addr = { 198, 18, 0, 199 } }));
	for (uint8_t i = 0; i < 50; i++)
		rw_keyset_mark(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, i } });
	rw_keyset_sweep_unmarked(&s, count_swept, &swept);
	CHECK_EQ(swept, 150);
	CHECK_EQ(s.n, 50);
	/* The marks are cleared: the next sweep takes the rest. */
	swept = 0;
	rw_keyset_sweep_unmarked(&s, count_swept, &swept);
	CHECK_EQ(swept, 50);
	CHECK_EQ(s.n, 0);
	/* Deleted slots are reused, and the set still finds what it holds. */
	for (int round = 0; round < 20; round++) {
		for (uint8_t i = 0; i < 100; i++)
			CHECK_EQ(rw_keyset_add(&s, &(struct rw_key){ .family = 4,
								   .addr = { 10, (uint8_t)round, 0, i } }), 0);
		for (uint8_t i = 0; i < 100; i++)
			rw_keyset_del(&s, &(struct rw_key){ .family = 4, .addr = { 10, (uint8_t)round, 0, i } });
	}
	CHECK_EQ(s.n, 0);
	CHECK(s.cap <= 1024);
	rw_keyset_free(&s);
}

void run_rank_tests(void)
{
	RUN(test_hhh_report);
	RUN(test_hhh_over_share);
	RUN(test_share_bar);
	RUN(test_share_export_matches_brute_force);
	RUN(test_keyset);
	RUN(test_next_thresholds);
	RUN(test_ranking_matches_brute_force);
	RUN(test_ranking_ties_break_by_key);
}
