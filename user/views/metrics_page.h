/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The /metrics page of a report, in the Prometheus text format 0.0.4: a
 * renderer like the table and JSON, which metrics.c serves and the unit
 * tests check without a server.
 */
#ifndef RW_METRICS_PAGE_H
#define RW_METRICS_PAGE_H

#include <stdint.h>
#include <stdio.h>
#include "views/report.h"

#define RW_TICK_BUCKETS 8

/* How long the ticks took, cumulative since the start: the page's histogram. */
struct rw_tick_histogram {
	uint64_t bucket[RW_TICK_BUCKETS];
	uint64_t count;
	double sum;
};

/* A tick's duration into the histogram. */
void rw_metrics_count_tick(struct rw_tick_histogram *h, uint64_t tick_ns);
/* The page for a report, with the ticks' histogram so far. */
void rw_metrics_render(FILE *out, const struct rw_tick_histogram *h, const struct rw_report *r);

#endif
