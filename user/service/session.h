/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One `ratewall run`: what it attached, the maps it reads, the pinned record. */
#ifndef RW_SESSION_H
#define RW_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "act/act.h"
#include "act/pcap.h"
#include "kernel/pcapnets.h"
#include "cli/config.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "kernel/memplan.h"
#include "kernel/rules_maps.h"
#include "model/rules.h"
#include "rank/hhh.h"
#include "rank/rank.h"
#include "service/pins.h"
#include "views/events.h"
#include "views/history.h"
#include "views/metrics.h"
#include "views/watch.h"

/* --rank: the ranking of one kind counted beside the main one. */
struct rw_ranking {
	struct rw_ranker ranker;
	struct rw_rank_entry *top; /* NULL: the kind is not ranked */
	uint64_t tracked;          /* its keys tracked this tick */
};

struct rw_session {
	const struct rw_config *cfg;
	struct rw_load_params lp;  /* what the program must enforce */
	struct ratewall_bpf *skel; /* loaded here; NULL when the program was adopted */
	struct rw_maps maps;       /* the skeleton's or the pinned maps' fds */
	/* its globals: the skeleton's, or an adopted program's mapped (rw_prog_bss_map); NULL: unreachable */
	struct ratewall_bpf__bss *bss;
	int prog_fd;               /* the XDP program (pinned: opened from its pin) */
	uint32_t nat;
	struct rw_attachment at[RW_MAX_IFACES]; /* in cfg->ifnames order */
	bool gone[RW_MAX_IFACES];  /* interface went away, said once */
	struct rw_flowtab flowtab;
	struct rw_ranker ranker;
	struct rw_rank_entry *top;
	struct rw_ranking ranked[RW_KIND_COUNT]; /* --rank kinds; index: the kind */
	uint32_t ncpus;
	uint32_t max_flows;
	clockid_t clock;   /* what the kernel program reads: slots and rates follow it */
	uint64_t start_ns; /* when the flow state began, on that clock */
	bool inherited;    /* --persist: the flow state is an earlier loader's (adopted, or kept by --replace) */
	uint64_t tick0_ns; /* this loader's start on CLOCK_MONOTONIC, which schedules ticks */
	struct rw_instance inst; /* --persist only: dir_fd >= 0 */
	struct rw_ruleset rules; /* --rules: what the file held when last read */
	struct rw_ruleset tick_rules; /* the rules in force at the last tick, with their counts */
	struct rw_hhh *hhh;      /* --levels: prefix counts; NULL without */
	struct ring_buffer *samples; /* the data path's sampled sources */
	struct rw_hhh_item *hhh_items;
	struct rw_events_out events;  /* --events: the output; f NULL without */
	struct ring_buffer *event_rb; /* the data path's events */
	struct rw_pcap_out *pcap;     /* --samples: the frames' writer, NULL without */
	struct ring_buffer *pcap_rb;  /* ... and the data path's frames for it */
	struct rw_samples_health pcap_health; /* ... its counts, for the report */
	struct rw_pcap_nets *pnets;   /* --samples --levels: the heavy prefixes sampling, NULL without */
	struct rw_metrics metrics;    /* --metrics: daemon NULL without */
	struct rw_watch *watch;       /* --tui: the terminal view; NULL without */
	struct rw_view_feed *feed;    /* --tui: this tick's feed of the view, NULL while paused */
	uint64_t scan_now;            /* the run's clock when this tick's scan began, ns */
	int heavy_fd;                 /* --persist --levels: the pinned heavy-prefix record, else -1 */
	struct rw_act act;            /* --on-event, --bgp (and heavy/light events) */
	int act_fd;                   /* --persist with either: the pinned act record, else -1 */
	int bgp_journal_fd;           /* --persist --bgp: the pinned journal, else -1 */
	struct rw_history history;    /* --history: path "" without */
	char history_said[256];       /* the last history error said ("" after a good write) */
	struct rw_history_health history_health; /* what /metrics says of the writes */
	bool first_tick_now;          /* report at once, not an interval after the start */
	char said[1024];              /* --tui: what the loader said, printed after the view */
};

#define RW_HHH_REPORT_MAX 64

/*
 * Loads the program with s->lp and takes its maps, program and hash seed into
 * the session. -1 when loaded, else the exit status (the reason said).
 */
int rw_session_load(struct rw_session *s, const struct rw_memplan *plan);
/* Writes the thresholds a fresh flow state starts with; negative errno (said) on failure. */
int rw_first_thresholds(const struct rw_session *s);
/*
 * Puts --rules' rules in the kernel (none given: leaves what is there, but
 * recomputes their per-window limits when recompute says the window changed).
 * Negative errno (said) on failure.
 */
int rw_session_rules(struct rw_session *s, bool recompute);
/* After interface i is attached: says what the operator should know of how (a generic fallback). */
void rw_session_say_attached(const struct rw_session *s, uint32_t i);
/* The rules maps of the session's program, and what a rule's limits need. */
struct rw_rule_env rw_session_rule_env(const struct rw_session *s);

#endif
