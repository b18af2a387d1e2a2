// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ratewall run`: its ticks (one read of the flow table for every view), the
 * wait between them, what it says, and the order of its life; the start and
 * the end themselves are in run_start.c.
 */
#include "run.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/clock.h"
#include "cli/exit.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "kernel/rules_maps.h"
#include "kernel/window.h"
#include "rank/rank.h"
#include "rank/thresholds.h"
#include "run_parts.h"
#include "service/actpins.h"
#include "service/persist.h"
#include "service/session.h"
#include "views/report.h"

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	/* SIGHUP re-reads the rules file; SIGINT and SIGTERM end the run. */
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

static int install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the sleep between ticks must wake up. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	/* A closed stdout (| head) ends the run through a write error instead. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static uint64_t mono_ns(void)
{
	return rw_clock_ns(CLOCK_MONOTONIC);
}

static void sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ULL),
		.tv_nsec = (long)(deadline_ns % 1000000000ULL),
	};

	/* EINTR from a signal returns early; the loop checks stop_requested. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

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

	if (key->kind & RW_KIND_RANKED) { /* --rank: its kind's ranking, and the view */
		struct rw_ranking *r = &s->ranked[rw_kind_of(key)];

		r->tracked++;
		if (r->top)
			rw_ranker_offer(&r->ranker, &e);
		return s->feed ? rw_view_feed_offer(s->feed, key, sum, fv) : 0;
	}
	rw_ranker_offer(&s->ranker, &e);
	/*
	 * --bgp announces a banned key on the main key's side only: a rule's `per
	 * dst` budget under --key src holds a destination of ours, the victim, and
	 * a blackhole for it would finish the attacker's work.
	 */
	if (rw_act_on(&s->act))
		rw_act_flow(&s->act, key, sum, e.banned && rw_run_main_side(s, key));
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

/* One interval: read, wipe, rank, set thresholds, print. Returns 0, or negative errno. */
static int tick(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	uint64_t now = rw_clock_ns(s->clock), slot_ns = rw_slot_ns(cfg), t0 = mono_ns();
	struct rw_report rep = { .cfg = cfg, .top = s->top, .at = s->at, .nifaces = s->nat };
	int err;

	if (s->samples)
		ring_buffer__consume(s->samples); /* every sample up to now, before the flows */
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
	rw_persist_act(s);
	if (s->event_rb) {
		rw_events_tick_end(&s->events, now);
		rep.events_not_written = s->events.not_written;
	}
	rep.span_ns = rw_window_span_ns(now, s->start_ns, slot_ns, cfg->slots);
	rep.tick_ns = mono_ns() - t0;
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

/*
 * A line for the operator: on stderr, or under the terminal view's table
 * (and on stderr once the view is closed).
 */
void rw_run_tell(struct rw_session *s, const char *msg)
{
	size_t n = strlen(s->said);

	if (!s->watch) {
		fprintf(stderr, "ratewall: %s\n", msg);
		return;
	}
	rw_watch_note(s->watch, msg);
	snprintf(s->said + n, sizeof(s->said) - n, "ratewall: %s\n", msg);
}

/*
 * Says an error and, for a pinned instance, keeps it where `status` shows it
 * (its first RW_META_ERROR_LEN - 1 bytes: stderr has the whole line).
 */
void rw_run_say_error(struct rw_session *s, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rw_run_tell(s, msg);
	rw_persist_error(s, msg);
}

/* What the act room says: a line, or an error kept in a pinned instance's record too. */
void rw_run_act_say(void *arg, bool error, const char *msg)
{
	if (error)
		rw_run_say_error(arg, "%s", msg);
	else
		rw_run_tell(arg, msg);
}

/* Says once when an interface goes away (the kernel detaches its link); false when none is left. */
static bool still_attached(struct rw_session *s)
{
	uint32_t left = 0;

	for (uint32_t i = 0; i < s->nat; i++) {
		if (!s->gone[i] && !rw_xdp_still_attached(&s->at[i])) {
			s->gone[i] = true;
			rw_run_say_error(s, "%s went away; nothing is attached to it any more",
				  s->cfg->ifnames[i]);
		}
		left += !s->gone[i];
	}
	return left > 0;
}

/* SIGHUP: the rules file again; a bad one leaves the rules in force as they are. */
static void reload_rules(struct rw_session *s)
{
	const struct rw_rule_scope scope = rw_config_rule_scope(s->cfg);
	struct rw_rule_env env = rw_session_rule_env(s);
	struct rw_ruleset next = { 0 };
	char err[512];
	int e;

	if (!s->cfg->rules_path[0]) {
		rw_run_tell(s, "SIGHUP: no --rules file to read again");
		return;
	}
	if (rw_rules_parse_file(s->cfg->rules_path, &scope, &next, err, sizeof(err))) {
		rw_run_say_error(s, "rules not reloaded, the old ones stay: %s", err);
		return;
	}
	e = rw_rules_install(&env, &next);
	if (e) {
		rw_run_say_error(s, "rules reload failed: %s", strerror(-e));
		rw_ruleset_free(&next);
		return;
	}
	rw_ruleset_free(&s->rules);
	s->rules = next;
	snprintf(err, sizeof(err), "%zu rules in force from %s (reloaded)", s->rules.n,
		 s->cfg->rules_path);
	rw_run_tell(s, err);
}

/*
 * Waits until wake, or a signal (the terminal view: for keys; 1 when q was
 * pressed, negative errno if it failed), draining the prefix samples every
 * RW_SAMPLE_DRAIN_NS on the way: the ring holds about 18 000 of them, a
 * third of a second of a 3 Mpps flood sampled one in 64, and a sample that
 * does not fit is lost to the prefix counts (they then read low: at 3 Mpps,
 * 57 % of the flood's /16 once a tick of 1 s had been drained at its end).
 */
#define RW_SAMPLE_DRAIN_NS 50000000ULL
static int wait_draining(struct rw_session *s, uint64_t wake)
{
	uint64_t now = mono_ns(), step;
	int err = 0;

	do {
		step = s->samples && now + RW_SAMPLE_DRAIN_NS < wake ? now + RW_SAMPLE_DRAIN_NS : wake;
		/* The terminal view waits for keys meanwhile; the others sleep. */
		if (s->watch)
			err = rw_watch_wait(s->watch, step, &stop_requested);
		else
			sleep_until(step);
		if (s->samples)
			ring_buffer__consume(s->samples);
		now = mono_ns();
	} while (!err && !stop_requested && !reload_requested && step < wake && now < wake);
	return err;
}

static int loop(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	uint64_t next = s->tick0_ns + (s->first_tick_now ? 0 : cfg->interval_ns);
	uint64_t end = cfg->duration_ns ? s->tick0_ns + cfg->duration_ns : UINT64_MAX;
	int err;

	while (!stop_requested) {
		uint64_t wake = next < end ? next : end;

		err = wait_draining(s, wake);
		if (err > 0)
			break; /* q */
		if (err < 0) {
			rw_run_say_error(s, "reading the flow table failed: %s", strerror(-err));
			return err;
		}
		if (stop_requested)
			break;
		if (reload_requested) {
			reload_requested = 0;
			reload_rules(s);
		}
		if (mono_ns() < wake)
			continue; /* woken early by a signal */
		if (!still_attached(s))
			return -ENODEV;
		err = tick(s);
		if (err == -EPIPE)
			return 0; /* the reader went away: nothing left to report to */
		if (err) {
			rw_run_say_error(s, "reading the flow table failed: %s", strerror(-err));
			return err;
		}
		if (wake >= end)
			break;
		next += cfg->interval_ns;
		/* After a stall (suspend, a slow tick) skip missed ticks instead of bursting. */
		while (next <= mono_ns())
			next += cfg->interval_ns;
	}
	return 0;
}

int rw_run(const struct rw_config *cfg)
{
	struct rw_session s = { .cfg = cfg, .prog_fd = -1, .heavy_fd = -1, .act_fd = -1,
				.bgp_journal_fd = -1,
				.maps = { { -1, -1, -1, -1 }, -1, -1, -1, -1, -1, -1, -1 },
				.inst = { .dir_fd = -1, .meta_fd = -1 } };
	struct rw_memplan plan;
	int ret, e;

	ret = rw_run_check(&s, &plan);
	if (ret >= 0)
		return ret; /* nothing to undo yet */
	ret = RW_EXIT_RUNTIME;
	if (rw_run_open_outputs(&s))
		goto out;
	if (install_signals()) {
		fprintf(stderr, "ratewall: cannot install signal handlers: %s\n", strerror(errno));
		goto out; /* nothing loaded yet: out only frees */
	}
	rw_run_load_params(&s);
	e = cfg->persist ? rw_persist_start(&s, &plan) : rw_run_start_unpinned(&s, &plan);
	if (e >= 0) {
		ret = e;
		goto out;
	}
	if (rw_run_start_parts(&s))
		goto out;
	/*
	 * Each tick's end reads the rules for the next tick's events: read them
	 * once before the first, so its events (a ban in the first interval)
	 * name their rule too. A failed read names none, as at a tick.
	 */
	{
		struct rw_rule_env env = rw_session_rule_env(&s);

		rw_rules_read(&env, &s.tick_rules);
	}
	s.tick0_ns = mono_ns();
	rw_run_describe(&s, &plan);
	if (cfg->history_path[0])
		rw_run_start_history(&s);
	if (cfg->tui && rw_run_start_watch(&s))
		goto out;
	ret = loop(&s) ? RW_EXIT_RUNTIME : RW_EXIT_OK;
out:
	rw_run_end(&s, ret);
	return ret;
}

int rw_run_command(int argc, char **argv)
{
	struct rw_config cfg;
	char err[256];
	int ret = rw_cli_outcome(rw_cli_parse_run(argc, argv, &cfg, err, sizeof(err)), err);

	return ret >= 0 ? ret : rw_run(&cfg);
}
