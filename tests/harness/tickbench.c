// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tickbench: time of one loader tick (batch read, window sums across CPUs,
 * ranking into a top-10) over a flow table of N flows, and the process's peak
 * RSS. The table is the real map, loaded as `ratewall run` loads it, filled
 * with N flows whose slots are live on every CPU. Then the terminal view's
 * read-only pass over the same table (ratewall top: sources with their
 * sparklines, and the IPv4 /24 level). Then --history's cost: the tick
 * ranking into a top-10 and a top-1000, without and with writing each report
 * into an SQLite file (a new window every round). Prints one JSON object.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/config.h"
#include "flowfill.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "model/clock.h"
#include "model/units.h"
#include "rank/rank.h"
#include "ratewall.skel.h"
#include "views/history.h"
#include "views/watch.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The tick's visitor, as run's: rank every flow; feed the view when there is one. */
struct bench_pass {
	struct rw_ranker *rk;
	struct rw_view_feed *feed;
};

static int on_flow(void *arg, const struct rw_key *key, const struct rw_window_sum *sum,
		   const struct rw_flow_view *fv)
{
	struct bench_pass *b = arg;
	struct rw_rank_entry e = { .key = *key, .sum = *sum,
				   .metric = rw_sort_metric(sum, RW_SORT_PPS) };

	rw_ranker_offer(b->rk, &e);
	return b->feed ? rw_view_feed_offer(b->feed, key, sum, fv) : 0;
}

/* --history's price at a top-N: the tick (scan, rank) without and with the write, median ns. */
struct history_cost {
	uint64_t plain_ns, with_ns;
	uint64_t rows; /* rows a window wrote */
};

static int history_cost(struct rw_flowtab *ft, uint64_t epoch, uint32_t ncpus, uint32_t slots,
			uint32_t n, uint64_t rounds, struct history_cost *out)
{
	static struct rw_config cfg;
	struct rw_rank_entry *top = calloc(n, sizeof(*top));
	uint64_t plain[64], with[64];
	char path[] = "/tmp/rwtickbench.XXXXXX", err[512];
	struct rw_history h;
	struct rw_ranker rk;
	int fd = mkstemp(path), e = 0;

	if (fd < 0 || !top || rw_ranker_init(&rk, ncpus, n))
		return -ENOMEM;
	close(fd);
	cfg = (struct rw_config){ .nifaces = 1, .top = n, .slots = slots,
				  .window_ns = 1000000000ULL, .sort = RW_SORT_PPS };
	strcpy(cfg.ifnames[0], "bench0");
	if (rw_history_open(&h, path, "bench", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
			    sizeof(err))) {
		fprintf(stderr, "tickbench: %s\n", err);
		return -EIO;
	}
	for (int with_history = 0; with_history < 2 && !e; with_history++) {
		for (uint64_t r = 0; r < rounds && !e; r++) {
			struct bench_pass b = { .rk = &rk };
			struct rw_report rep = { .cfg = &cfg, .top = top, .nifaces = 1,
						 .epoch = epoch + r, .ts = 1e9 + (double)r,
						 .span_ns = 1000000000ULL };
			uint64_t t0 = rw_clock_ns(CLOCK_MONOTONIC), rows = h.rows;

			e = rw_flowtab_scan(ft, epoch, &rep.tick, on_flow, &b);
			rep.ntop = rw_ranker_merge(&rk, top);
			if (with_history && !e && rw_history_write(&h, &rep, err, sizeof(err)) != 1) {
				fprintf(stderr, "tickbench: %s\n", err);
				e = -EIO;
			}
			(with_history ? with : plain)[r] = rw_clock_ns(CLOCK_MONOTONIC) - t0;
			out->rows = h.rows - rows;
		}
	}
	qsort(plain, rounds, sizeof(plain[0]), cmp_u64);
	qsort(with, rounds, sizeof(with[0]), cmp_u64);
	out->plain_ns = plain[rounds / 2];
	out->with_ns = with[rounds / 2];
	rw_history_close(&h);
	rw_ranker_free(&rk);
	free(top);
	rw_history_remove(path);
	return e;
}

int main(int argc, char **argv)
{
	uint64_t flows = 100000, rounds = 5, samples[64], slot_ns = 100000000ULL;
	uint32_t slots = 10, ncpus = rw_possible_cpus();
	struct rw_load_params p = { .slot_ns = slot_ns, .slots = 10, .burst_ns = RW_DEFAULT_BURST_NS };
	struct rw_rank_entry top[10];
	struct ratewall_bpf *skel;
	struct rw_flowtab ft;
	struct rw_ranker rk;
	struct rusage ru;
	uint64_t epoch, before_rss;
	struct rw_tick tick = { 0 };
	struct rw_maps maps;
	int64_t placed;
	cpu_set_t set;
	int err;

	if (argc > 1 && rw_parse_uint(argv[1], 1, 1u << 24, &flows))
		return fprintf(stderr, "usage: tickbench [FLOWS] [ROUNDS]\n"), 2;
	if (argc > 2 && rw_parse_uint(argv[2], 1, 64, &rounds))
		return fprintf(stderr, "usage: tickbench [FLOWS] [ROUNDS] [SLOTS]\n"), 2;
	if (argc > 3) {
		uint64_t v;

		if (rw_parse_uint(argv[3], RW_MIN_SLOTS, RW_MAX_SLOTS, &v))
			return fprintf(stderr, "usage: tickbench [FLOWS] [ROUNDS] [SLOTS]\n"), 2;
		slots = (uint32_t)v;
		p.slots = slots;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	p.max_flows = (uint32_t)(flows + flows / 4 + 64);
	err = rw_bpf_load(&p, &skel);
	if (err)
		return fprintf(stderr, "tickbench: load: %s\n", strerror(-err)), 1;
	epoch = rw_clock_ns(CLOCK_MONOTONIC) / slot_ns + 1000000; /* far from now: nothing goes idle meanwhile */
	rw_maps_of(skel, &maps);
	placed = rw_fill_flows(&maps.table, skel->rodata->cfg_hash_seed, (uint32_t)flows, ncpus,
			       slots, epoch);
	if (placed < 0)
		return fprintf(stderr, "tickbench: fill: %s\n", strerror((int)-placed)), 1;
	getrusage(RUSAGE_SELF, &ru);
	before_rss = (uint64_t)ru.ru_maxrss;
	if (rw_flowtab_init(&ft, &maps.table, maps.window, skel->rodata->cfg_hash_seed, ncpus, slots,
			    true) ||
	    rw_ranker_init(&rk, ncpus, 10))
		return fprintf(stderr, "tickbench: cannot map the table\n"), 1;
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t t0 = rw_clock_ns(CLOCK_MONOTONIC);

		struct bench_pass b = { .rk = &rk };

		err = rw_flowtab_scan(&ft, epoch, &tick, on_flow, &b);
		rw_ranker_merge(&rk, top);
		samples[r] = rw_clock_ns(CLOCK_MONOTONIC) - t0;
		if (err)
			return fprintf(stderr, "tickbench: scan: %s\n", strerror(-err)), 1;
	}
	qsort(samples, rounds, sizeof(samples[0]), cmp_u64);
	getrusage(RUSAGE_SELF, &ru);
	/* The view: a screenful of sources, then the /24s; its memory after the tick's. */
	uint64_t view_ms[3];
	struct rw_view view;

	if (rw_view_init(&view, slots))
		return fprintf(stderr, "tickbench: out of memory\n"), 1;
	rw_view_opts_init(&view.o, RW_SORT_PPS, NULL);
	for (int level = 0; level < 2; level++) {
		uint64_t vs[64];

		view.o.level = (uint32_t)level;
		for (uint64_t r = 0; r < rounds; r++) {
			uint64_t t0 = rw_clock_ns(CLOCK_MONOTONIC);
			struct rw_tick t;

			err = rw_view_pass(&view, &ft, epoch, 18, &t);
			vs[r] = rw_clock_ns(CLOCK_MONOTONIC) - t0;
			if (err)
				return fprintf(stderr, "tickbench: view: %s\n", strerror(-err)), 1;
		}
		qsort(vs, rounds, sizeof(vs[0]), cmp_u64);
		view_ms[level] = vs[rounds / 2];
	}
	/* run --tui: the tick's own scan feeds the view (sources), no second pass. */
	uint64_t plain[64];

	memcpy(plain, samples, sizeof(plain)); /* the plain tick's, printed below */
	view.o.level = 0;
	for (uint64_t r = 0; r < rounds; r++) {
		struct rw_view_feed feed = { .view = &view };
		struct bench_pass b = { .rk = &rk, .feed = &feed };
		uint64_t t0 = rw_clock_ns(CLOCK_MONOTONIC);

		rw_view_begin(&view, epoch);
		err = rw_flowtab_scan(&ft, epoch, &tick, on_flow, &b);
		rw_ranker_merge(&rk, top);
		rw_view_feed_end(&feed, &ft, 18);
		samples[r] = rw_clock_ns(CLOCK_MONOTONIC) - t0;
		if (err)
			return fprintf(stderr, "tickbench: scan: %s\n", strerror(-err)), 1;
	}
	qsort(samples, rounds, sizeof(samples[0]), cmp_u64);
	view_ms[2] = samples[rounds / 2];
	memcpy(samples, plain, sizeof(plain));
	rw_view_free(&view);
	/* --history at the default top-N and at --top 1000. */
	struct history_cost hc[2];

	if (history_cost(&ft, epoch, ncpus, slots, 10, rounds, &hc[0]) ||
	    history_cost(&ft, epoch, ncpus, slots, 1000, rounds, &hc[1]))
		return fprintf(stderr, "tickbench: history: failed\n"), 1;
	printf("{\"flows\": %llu, \"placed\": %lld, \"cpus\": %u, \"slots\": %u, \"seen\": %llu, "
	       "\"rounds\": %llu, "
	       "\"tick_ms_median\": %.2f, \"tick_ms_min\": %.2f, \"tick_ms_max\": %.2f, "
	       "\"peak_rss_kib\": %ld, \"rss_before_tick_kib\": %llu, \"top1_packets\": %llu, "
	       "\"view_sources_ms_median\": %.2f, \"view_v4_24_ms_median\": %.2f, "
	       "\"tick_fed_view_ms_median\": %.2f, \"history\": ["
	       "{\"top\": 10, \"tick_ms\": %.3f, \"tick_with_history_ms\": %.3f, \"rows\": %llu}, "
	       "{\"top\": 1000, \"tick_ms\": %.3f, \"tick_with_history_ms\": %.3f, \"rows\": %llu}]}\n",
	       (unsigned long long)flows, (long long)placed, ncpus, slots,
	       (unsigned long long)tick.flows,
	       (unsigned long long)rounds, samples[rounds / 2] / 1e6, samples[0] / 1e6,
	       samples[rounds - 1] / 1e6, ru.ru_maxrss, (unsigned long long)before_rss,
	       (unsigned long long)top[0].sum.packets, view_ms[0] / 1e6, view_ms[1] / 1e6, view_ms[2] / 1e6,
	       hc[0].plain_ns / 1e6, hc[0].with_ns / 1e6, (unsigned long long)hc[0].rows,
	       hc[1].plain_ns / 1e6, hc[1].with_ns / 1e6, (unsigned long long)hc[1].rows);
	rw_ranker_free(&rk);
	rw_flowtab_free(&ft);
	ratewall_bpf__destroy(skel);
	return 0;
}
