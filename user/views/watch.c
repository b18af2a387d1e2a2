// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/watch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/window.h"
#include "model/clock.h"

/* Longest wait for a key: a resize or a signal is seen within this. */
#define RW_WATCH_POLL_MS 100

int rw_watch_open(struct rw_watch *w, const struct rw_watch_params *p, char *err, size_t errlen)
{
	int e;

	w->p = *p;
	memset(&w->in, 0, sizeof(w->in));
	if (rw_view_init(&w->view, p->slots)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e = rw_flowtab_init(&w->ft, &p->table, p->window_fd, p->hash_seed, p->ncpus, p->slots, false);
	if (e) {
		snprintf(err, errlen, "cannot map the tracked-flow table: %s", strerror(-e));
		return e;
	}
	rw_view_opts_init(&w->view.o, p->sort, p->levels);
	w->view.o.key_kind = p->key_kind;
	w->view.o.shown = p->key_kind;
	w->view.o.rank_mask = p->rank_mask;
	w->head.slots = p->slots;
	w->head.window_s = (double)(p->slot_ns * p->slots) / 1e9;
	w->head.max_flows = p->max_flows;
	w->head.loader_alive = true;
	return rw_tui_open(&w->tui, p->no_color, err, errlen);
}

void rw_watch_close(struct rw_watch *w)
{
	rw_tui_close(&w->tui);
	rw_view_free(&w->view);
	rw_flowtab_free(&w->ft);
}

int rw_view_feed_offer(void *arg, const struct rw_key *key, const struct rw_window_sum *sum,
		       const struct rw_flow_view *fv)
{
	struct rw_view_feed *feed = arg;

	return rw_view_offer(feed->view, key, sum, fv);
}

void rw_view_feed_end(struct rw_view_feed *feed, struct rw_flowtab *ft, uint32_t rows)
{
	struct rw_view *v = feed->view;

	v->o.page = rows;
	rw_view_end(v);
	/* Source rows on screen: each one's slots from its flow (gone since: no sparkline). */
	for (uint32_t i = v->o.first; !v->o.level && i < v->nrows; i++) {
		struct rw_flow_view fv;

		if (rw_flowtab_lookup(ft, &v->rows[i].key, &fv) == 0)
			rw_view_source_spark(v, &v->rows[i], &fv);
	}
}

int rw_view_pass(struct rw_view *v, struct rw_flowtab *ft, uint64_t now_epoch, uint32_t rows,
		 struct rw_tick *t)
{
	struct rw_view_feed feed = { .view = v };
	int err;

	rw_view_begin(v, now_epoch);
	err = rw_flowtab_read(ft, now_epoch, t, rw_view_feed_offer, &feed);
	if (!err)
		rw_view_feed_end(&feed, ft, rows);
	return err;
}

/* The head from a pass's totals. */
static void head_from(struct rw_watch *w, uint64_t now_ns, const struct rw_tick *t)
{
	w->head.total = t->total;
	w->head.sketch_packets = t->sketch_packets;
	w->head.tracked = t->flows;
	w->head.span_ns = rw_window_span_ns(now_ns, w->p.start_ns, w->p.slot_ns, w->p.slots);
	w->head.ts = rw_wall_seconds();
}

/* One pass over the maps into the view and the head. */
static int read_pass(struct rw_watch *w)
{
	uint64_t now = rw_clock_ns(w->p.clock);
	struct rw_tick t;
	int err;

	err = rw_view_pass(&w->view, &w->ft, now / w->p.slot_ns,
			   rw_tui_rows(&w->tui, &w->head), &t);
	if (!err)
		err = rw_stats_read(w->p.stats_fd, w->p.ncpus, &w->head.stats, NULL, 0);
	if (!err)
		head_from(w, now, &t);
	return err;
}

struct rw_view_feed *rw_watch_feed_begin(struct rw_watch *w, uint64_t now_ns)
{
	if (w->view.o.paused)
		return NULL;
	w->feed = (struct rw_view_feed){ .view = &w->view };
	rw_view_begin(&w->view, now_ns / w->p.slot_ns);
	return &w->feed;
}

void rw_watch_feed_end(struct rw_watch *w, struct rw_view_feed *fed, struct rw_flowtab *ft,
		       uint64_t now_ns, const struct rw_tick *t, const struct rw_stats *stats)
{
	if (fed) {
		rw_view_feed_end(fed, ft, rw_tui_rows(&w->tui, &w->head));
		w->head.stats = *stats;
		head_from(w, now_ns, t);
	}
	rw_tui_draw(&w->tui, &w->view, &w->head, &w->in);
}

int rw_watch_refresh(struct rw_watch *w, bool force)
{
	int err = 0;

	if (force || !w->view.o.paused)
		err = read_pass(w);
	rw_tui_draw(&w->tui, &w->view, &w->head, &w->in);
	return err;
}

int rw_watch_wait(struct rw_watch *w, uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	while (!*stop) {
		uint64_t now = rw_clock_ns(CLOCK_MONOTONIC);
		int64_t left_ms = now < deadline_ns ? (int64_t)((deadline_ns - now) / 1000000) : 0;
		unsigned int what;
		int key, err;

		if (now >= deadline_ns)
			return 0;
		key = rw_tui_key(&w->tui, left_ms < RW_WATCH_POLL_MS ? (int)left_ms
								       : RW_WATCH_POLL_MS);
		if (key < 0)
			continue;
		if (key == RW_TUI_RESIZE) {
			/* As many rows as now fit (read again unless paused). */
			err = rw_watch_refresh(w, false);
			if (err)
				return err;
			continue;
		}
		what = rw_view_key(&w->view.o, &w->in, key);
		if (what & RW_VIEW_QUIT)
			return 1;
		/* A change of what is shown reads once even when paused: rows follow the keys. */
		if (what & RW_VIEW_RESCAN) {
			err = rw_watch_refresh(w, true);
			if (err)
				return err;
		} else if (what & RW_VIEW_REDRAW) {
			rw_tui_draw(&w->tui, &w->view, &w->head, &w->in);
		}
	}
	return 0;
}

void rw_watch_note(struct rw_watch *w, const char *msg)
{
	snprintf(w->in.msg, sizeof(w->in.msg), "%s", msg);
	rw_tui_draw(&w->tui, &w->view, &w->head, &w->in);
}
