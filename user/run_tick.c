// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A tick of `ratewall run`: one read of the flow table feeds the rankings,
 * the prefix counts, the events and the terminal view; then the thresholds,
 * the actions, the history and the report.
 */
#include "run_tick.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kernel/flowtab.h"
#include "kernel/rules_maps.h"
#include "kernel/window.h"
#include "model/clock.h"
#include "ratewall.skel.h"
#include "rank/rank.h"
#include "rank/thresholds.h"
#include "run_say.h"
#include "service/actpins.h"
#include "service/persist.h"
#include "views/report.h"

/*
 * Each live tracked flow of a tick: into the ranking, the prefix counts
 * (exact), who is still limited (events), and the terminal view.
 */
static int on_flow(void *arg, const struct rw_key *key, const struct rw_window_sum *sum,
		   const struct rw_flow_view *fv)
{
	struct rw_session *s = arg;
	struct rw_rank_entry e = { .key = *key, .sum = *sum,
				   .metric = rw_sort_metric(sum, s->cfg->sort),
				   .banned = fv->ban_until_ns > s->flowtab.ban_now_ns };

	if (rw_kind_of(key) == RW_KIND_DST && rw_act_on(&s->act))
		rw_act_victim(&s->act, key, sum, s->scan_now);
	if (key->kind & RW_KIND_RANKED) { /* --rank: its kind's ranking, and the view */
		struct rw_ranking *r = &s->ranked[rw_kind_of(key)];

		r->tracked++;
		if (r->top)
			rw_ranker_offer(&r->ranker, &e);
		return s->feed ? rw_view_feed_offer(s->feed, key, sum, fv) : 0;
	}
	rw_ranker_offer(&s->ranker, &e);
	/*
	 * --bgp announces every banned key: the main key, and a rule's budget.
	 * A destination's (--key dst, `per dst`) is never banned: limited under
	 * --ban, it is the victim, blackholed when inside --bgp-own (above).
	 */
	if (rw_act_on(&s->act))
		rw_act_flow(&s->act, key, sum, e.banned);
	if (s->hhh && rw_run_main_side(s, key))
		rw_hhh_exact(s->hhh, key, sum->packets);
	if (rw_events_on(&s->events))
		rw_events_flow(&s->events, key, sum);
	return s->feed ? rw_view_feed_offer(s->feed, key, sum, fv) : 0;
}

/* --metrics-min-share: the count a key needs to be over the share of this window. */
static uint64_t share_bar(const struct rw_session *s, const struct rw_tick *tick)
{
	return rw_share_bar(&tick->total, s->cfg->sort, s->cfg->metrics_min_share_ppm);
}

/* A merged ranking of n keys: the top-N the views show, and the keys beyond it over the share. */
static void keep_top(const struct rw_session *s, const struct rw_tick *tick,
		     const struct rw_rank_entry *top, uint32_t n, uint32_t *ntop, uint32_t *nover)
{
	*ntop = n < s->cfg->top ? n : s->cfg->top;
	*nover = rw_rank_over(top, n, *ntop, share_bar(s, tick));
}

/*
 * --rank: each other kind's top-N into the report, and its promotion
 * thresholds from its own top-N (the table is shared; each kind's bar is its
 * own). 0 or negative errno.
 */
static int rank_kinds(struct rw_session *s, struct rw_report *rep)
{
	const struct rw_config *cfg = s->cfg;

	for (uint32_t k = 0; k < RW_KIND_COUNT; k++) {
		struct rw_ranking *r = &s->ranked[k];
		struct rw_report_ranking *out;
		struct rw_thresholds next;
		int err;

		rep->ranked_flows += r->tracked;
		if (!r->top)
			continue;
		out = &rep->rankings[rep->nrankings++];
		out->kind = (uint8_t)k;
		out->top = r->top;
		keep_top(s, &rep->tick, r->top, rw_ranker_merge(&r->ranker, r->top), &out->n,
			 &out->nover);
		next = rw_next_thresholds(r->top, out->n, cfg->top, cfg->sort, s->ncpus, r->tracked,
					  s->max_flows, rep->tick.sketch_peak_cpu,
					  rep->tick.sketch_peak_cpu_bytes, share_bar(s, &rep->tick));
		r->tracked = 0;
		err = rw_thresholds_write(s->maps.thresholds, k, &next);
		if (err)
			return err;
	}
	return 0;
}

/*
 * --history: the report into the database, once for its window. An error is
 * said when it is new (not every tick while it lasts), and the recovery too;
 * enforcement and the other views go on either way. Every write, and every
 * tick that could not write (the file closed, waiting to be opened again),
 * counts on /metrics, whose "up" is the last one's outcome.
 */
static void keep_history(struct rw_session *s, struct rw_report *rep)
{
	char err[sizeof(s->history_said)];
	int ret;

	if (!s->cfg->history_path[0])
		return;
	ret = rw_history_write(&s->history, rep, err, sizeof(err));
	s->history_health.written = s->history.written;
	s->history_health.errors += ret < 0;
	s->history_health.up = ret >= 0;
	if (ret != 0)
		rw_events_tick_clear(&s->events); /* written, or lost with the window */
	if (ret >= 0 && s->history_said[0]) {
		s->history_said[0] = '\0';
		rw_run_tell(s, "history: writing again");
	} else if (ret < 0 && ret != -EAGAIN && strcmp(err, s->history_said)) {
		snprintf(s->history_said, sizeof(s->history_said), "%s", err);
		rw_run_say_error(s, "%s", err);
	}
	rep->history = &s->history_health;
}

int rw_run_tick(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	uint64_t now = rw_clock_ns(s->clock), slot_ns = rw_slot_ns(cfg), t0 = rw_clock_ns(CLOCK_MONOTONIC);
	struct rw_report rep = { .cfg = cfg, .top = s->top, .at = s->at, .nifaces = s->nat };
	int err;

	if (s->samples)
		ring_buffer__consume(s->samples); /* every sample up to now, before the flows */
	if (s->pcap) {
		/* Bounded: at most RW_PCAP_TICK_FRAMES written, the rest only counted (act/pcap.h). */
		rw_pcap_tick_begin(s->pcap, (int64_t)rw_clock_ns(CLOCK_REALTIME) - (int64_t)now);
		ring_buffer__consume(s->pcap_rb);
		rw_pcap_tick_end(s->pcap);
	}
	if (s->event_rb) {
		/* Events name their key's rule from the rules read at the last tick. */
		s->events.rules = &s->tick_rules;
		rw_events_clock(&s->events, (int64_t)rw_clock_ns(CLOCK_REALTIME) - (int64_t)now);
		ring_buffer__consume(s->event_rb);
	}
	if (cfg->ban_ns)
		s->flowtab.ban_now_ns = now;
	/* One read of the table feeds the ranking, the prefix counts, the events and the view. */
	s->feed = s->watch ? rw_watch_feed_begin(s->watch, now) : NULL;
	s->scan_now = now;
	err = rw_flowtab_scan(&s->flowtab, now / slot_ns, &rep.tick, on_flow, s);
	if (err)
		return err;
	if (s->hhh) {
		rep.hhh = s->hhh_items;
		rep.nhhh = (uint32_t)rw_hhh_report(s->hhh, now / slot_ns, rep.tick.total.packets,
						   cfg->hhh_share_pct / 100.0, s->hhh_items,
						   RW_HHH_REPORT_MAX);
		rep.prefixes_over = rw_hhh_over(s->hhh, &rep.nprefixes_over);
		rw_persist_heavy(s, rep.hhh, rep.nhhh, rep.tick.total.packets);
	}
	keep_top(s, &rep.tick, s->top, rw_ranker_merge(&s->ranker, s->top), &rep.ntop, &rep.nover);
	rep.share_bar = share_bar(s, &rep.tick);
	err = rank_kinds(s, &rep);
	rep.tick.next = rw_next_thresholds(s->top, rep.ntop, cfg->top, cfg->sort, s->ncpus,
					   rep.tick.flows - rep.ranked_flows, s->max_flows,
					   rep.tick.sketch_peak_cpu, rep.tick.sketch_peak_cpu_bytes,
					   share_bar(s, &rep.tick));
	if (!err)
		err = rw_thresholds_write(s->maps.thresholds, cfg->key_kind, &rep.tick.next);
	if (!err)
		err = rw_stats_read(s->maps.stats, s->ncpus, &rep.stats, rep.iface, s->nat);
	if (err)
		return err;
	rw_persist_heartbeat(s);
	/* The events of the tick (and heavy, light) to --on-event, the banned keys to --bgp. */
	s->act.rules = &s->tick_rules;
	rw_act_tick(&s->act, &s->events, rep.hhh, rep.nhhh, rep.tick.total.packets, now,
		    rw_run_act_say, s);
	rep.act = rw_act_on(&s->act) ? &s->act.counts : NULL;
	if (s->pnets)
		rw_pcap_nets_tick(s->pnets); /* the prefixes whose frames are spent: disarmed */
	if (s->pcap) {
		s->pcap_health = (struct rw_samples_health){
			.frames = s->pcap->frames, .files = s->pcap->made, .bytes = s->pcap->files.total,
			.removed = s->pcap->files.removed, .not_written = s->pcap->not_written,
			/* The data path's own counts, since its program was loaded (adopted or not). */
			.copied = s->bss ? s->bss->pcap_frames : 0,
			.lost = s->bss ? s->bss->pcap_lost : 0 };
		rep.samples = &s->pcap_health;
	}
	rw_persist_act(s);
	if (s->event_rb) {
		rw_events_tick_end(&s->events, now);
		rep.events_not_written = s->events.not_written;
	}
	rep.span_ns = rw_window_span_ns(now, s->start_ns, slot_ns, cfg->slots);
	rep.tick_ns = rw_clock_ns(CLOCK_MONOTONIC) - t0;
	rep.ts = rw_wall_seconds();
	rep.epoch = now / slot_ns;
	rep.events = s->events.tick;
	rep.nevents = s->events.ntick;
	/* The rules in force and their counts, for every view (a failed read shows none). */
	rw_ruleset_free(&s->tick_rules);
	if (!err) {
		struct rw_rule_env env = rw_session_rule_env(s);

		if (!rw_rules_read(&env, &s->tick_rules))
			rep.rules = &s->tick_rules;
	}
	keep_history(s, &rep);
	if (s->metrics.daemon)
		rw_metrics_publish(&s->metrics, &rep);
	if (s->watch) {
		s->watch->view.o.rules = rep.rules;
		s->watch->head.heavy = rep.hhh; /* the session's items: they live as long */
		s->watch->head.nheavy = rep.nhhh;
		rw_watch_feed_end(s->watch, s->feed, &s->flowtab, now, &rep.tick, &rep.stats);
		return 0;
	}
	if (cfg->json)
		rw_report_json(stdout, &rep);
	else
		rw_report_table(stdout, &rep);
	return ferror(stdout) ? -EPIPE : 0;
}
