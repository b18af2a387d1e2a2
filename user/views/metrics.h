/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --metrics [ADDR:]PORT: /metrics in the Prometheus text format, served by
 * libmicrohttpd from its own thread. Each tick renders the report's snapshot
 * into a page (a renderer like the table and JSON: it never reads maps); a
 * scrape copies the latest page. Cardinality is bounded: sources and prefixes
 * appear only while they are in the top-N.
 */
#ifndef RW_METRICS_H
#define RW_METRICS_H

#include <pthread.h>
#include <stddef.h>
#include "views/metrics_page.h"

struct rw_metrics {
	struct MHD_Daemon *daemon;
	pthread_mutex_t lock;
	char *page;   /* the latest rendering, under lock */
	size_t len;
	struct rw_tick_histogram ticks;
};

/* Listens (a busy or bad address: -errno with the reason in err) and serves. */
int rw_metrics_start(struct rw_metrics *m, const char *listen, char *err, size_t errlen);
/* Renders this tick's report for the next scrapes. */
void rw_metrics_publish(struct rw_metrics *m, const struct rw_report *r);
void rw_metrics_stop(struct rw_metrics *m);

#endif
