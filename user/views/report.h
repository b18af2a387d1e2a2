/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One interval's report, printed as a table or as one JSON line. */
#ifndef RW_REPORT_H
#define RW_REPORT_H

#include <stdio.h>
#include "cli/config.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "kernel/window.h"
#include "model/actcounts.h"
#include "model/rules.h"
#include "rank/hhh.h"
#include "rank/rank.h"
#include "views/events.h"

/* --samples: what became of the data path's frames, ever (act/pcap.h). */
struct rw_samples_health {
	uint64_t copied;      /* the data path's: frames it put in its ring */
	uint64_t frames;      /* written into DIR's files */
	uint64_t files;       /* made */
	uint64_t bytes;       /* DIR's samples now, under --samples-max */
	uint64_t removed;     /* files removed to stay under it */
	uint64_t not_written; /* over a tick's budget or the bound, or refused by a file */
	uint64_t lost;        /* the data path's: its ring was full (copied and lost: 0 when adopted) */
};

/* --history: how its writes go, for /metrics. */
struct rw_history_health {
	uint64_t written; /* windows written */
	uint64_t errors;  /* writes that failed: the window lost, or the trimming after it */
	bool up;          /* the last write went in (or its window was there already) */
};

/* --rank: one other kind's top-N. */
struct rw_report_ranking {
	uint8_t kind; /* enum rw_key_kind */
	const struct rw_rank_entry *top;
	uint32_t n;
	uint32_t nover; /* --metrics-min-share: top[n .. n + nover) are over the share too */
};

struct rw_report {
	const struct rw_config *cfg;
	double ts;        /* wall clock, seconds since the epoch */
	uint64_t epoch;   /* the slot the window ends in (the program's clock): its --history key */
	uint64_t span_ns; /* time the window covers, for rates */
	uint64_t tick_ns; /* what reading, wiping and ranking took this interval */
	struct rw_stats stats;
	struct rw_tick tick;
	const struct rw_rank_entry *top;
	uint32_t ntop;
	uint32_t nover; /* --metrics-min-share: top[ntop .. ntop + nover) are over the share too */
	uint64_t share_bar; /* --metrics-min-share: the --sort count a key needs to go out (0: none) */
	const struct rw_attachment *at; /* per interface, in cfg->ifnames order */
	uint32_t nifaces;
	struct rw_stats iface[RW_MAX_IFACES]; /* each interface's own totals */
	const struct rw_hhh_item *hhh; /* heavy prefixes (--levels), most specific first */
	uint32_t nhhh;
	const struct rw_hhh_item *prefixes_over; /* --metrics-min-share: every prefix over it */
	uint32_t nprefixes_over;
	uint64_t events_not_written; /* --events: over the budget, ever */
	struct rw_report_ranking rankings[RW_KIND_COUNT]; /* --rank kinds, in kind order */
	uint32_t nrankings;
	uint64_t ranked_flows; /* tracked keys of the --rank kinds (in tick.flows too) */
	const struct rw_event_rec *events; /* --history: the events of this interval */
	uint32_t nevents;
	const struct rw_ruleset *rules; /* in force, with their counts (NULL: not read) */
	const struct rw_act_counts *act; /* --on-event, --bgp: what they did (NULL: neither) */
	const struct rw_history_health *history; /* --history (NULL without) */
	const struct rw_samples_health *samples; /* --samples (NULL without) */
};

void rw_report_table(FILE *out, const struct rw_report *r);
void rw_report_json(FILE *out, const struct rw_report *r);

#endif
