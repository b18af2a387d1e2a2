/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A watcher: the view, the terminal, and a read-only pass over an instance's
 * maps (mapped read-only; it deletes and sets nothing, so it can run
 * beside the loader, or with no loader at all). `ratewall top` runs one on a
 * pinned instance, `run --tui` on its own.
 */
#ifndef RW_WATCH_H
#define RW_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include "kernel/flowtab.h"
#include "views/tui.h"
#include "views/view.h"

/* What a pass over the flows offers to: a view. */
struct rw_view_feed {
	struct rw_view *view;
};
/* An rw_flow_visit: one flow into feed (arg) -> view. */
int rw_view_feed_offer(void *arg, const struct rw_key *key, const struct rw_window_sum *sum,
		       const struct rw_flow_view *fv);
/* After the pass: rank for a screen of rows rows; the shown source rows' sparklines from ft. */
void rw_view_feed_end(struct rw_view_feed *feed, struct rw_flowtab *ft, uint32_t rows);

struct rw_watch_params {
	struct rw_table_fds table;
	uint64_t hash_seed; /* the program's: where a key lives */
	int window_fd, stats_fd;
	uint32_t ncpus, slots;
	uint64_t slot_ns;
	uint64_t start_ns;  /* when counting began, on clock */
	clockid_t clock;    /* the program's clock */
	uint64_t max_flows;
	enum rw_sort sort;
	const struct rw_levels *levels;
	bool no_color;
	uint8_t key_kind;   /* enum rw_key_kind: what the rows are */
	uint8_t rank_mask;  /* --rank: other kinds the table holds, a bit each */
};

struct rw_watch {
	struct rw_watch_params p;
	struct rw_view view;
	struct rw_view_input in;
	struct rw_view_head head; /* what, name, limits set by the caller */
	struct rw_flowtab ft;
	struct rw_tui tui;
	struct rw_view_feed feed;
};

/*
 * One read-only pass of the view over a flow table: rank what it offers into
 * at most rows rows, sparklines included. The window's totals in t. 0 or -errno.
 */
int rw_view_pass(struct rw_view *v, struct rw_flowtab *ft, uint64_t now_epoch, uint32_t rows,
		 struct rw_tick *t);

/* 0, or a negative errno with the reason in err. */
int rw_watch_open(struct rw_watch *w, const struct rw_watch_params *p, char *err, size_t errlen);
void rw_watch_close(struct rw_watch *w);
/* Reads the flows again (unless paused and not forced) and draws. 0 or -errno. */
int rw_watch_refresh(struct rw_watch *w, bool force);
/*
 * Keys until deadline_ns (CLOCK_MONOTONIC) or *stop: redraws and reads again
 * as they ask. 1 when the watcher quit, 0 at the deadline, -errno.
 */
int rw_watch_wait(struct rw_watch *w, uint64_t deadline_ns, volatile sig_atomic_t *stop);
/*
 * run --tui: the loader's own scan (at now_ns) feeds the view, so the table
 * is read once a tick, not twice. Begin before the scan: the feed to offer
 * every live flow to (rw_view_feed_offer), NULL while paused; end after it
 * with that feed and what the tick read (ft for the sparklines); end draws.
 */
struct rw_view_feed *rw_watch_feed_begin(struct rw_watch *w, uint64_t now_ns);
void rw_watch_feed_end(struct rw_watch *w, struct rw_view_feed *fed, struct rw_flowtab *ft,
		       uint64_t now_ns, const struct rw_tick *t, const struct rw_stats *stats);
/* A line under the table (e.g. the loader's errors in `run --tui`). */
void rw_watch_note(struct rw_watch *w, const char *msg);

#endif
