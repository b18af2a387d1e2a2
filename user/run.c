// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "run.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clock.h"
#include "cli/exit.h"
#include "cli/key.h"
#include "cli/units.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "kernel/meminfo.h"
#include "kernel/memplan.h"
#include "kernel/rules_maps.h"
#include "kernel/window.h"
#include "rank/rank.h"
#include "rank/thresholds.h"
#include "ratewall.skel.h"
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

/* Refuses maps that would take more than their share of free memory. */
static bool plan_fits(const struct rw_memplan *plan, uint32_t max_flows, uint32_t ncpus)
{
	uint64_t avail = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	char a[32], b[32];

	if (f) {
		avail = rw_meminfo_available(f);
		fclose(f);
	}
	if (!avail || plan->total <= avail / 100 * RW_MAX_TABLE_SHARE_PERCENT)
		return true;
	rw_format_bytes((double)plan->total, a, sizeof(a));
	rw_format_bytes((double)avail, b, sizeof(b));
	fprintf(stderr, "ratewall: %u tracked flows on %u CPUs take %s of kernel memory, more than "
		"%d%% of the %s available; lower --max-flows or set --max-memory "
		"(see: ratewall memory)\n",
		max_flows, ncpus, a, RW_MAX_TABLE_SHARE_PERCENT, b);
	return false;
}

static void describe_start(const struct rw_session *s, const struct rw_memplan *plan,
			   enum rw_clock clock)
{
	const struct rw_config *cfg = s->cfg;
	char pps[32] = "none", bps[32] = "none", mem[32], ranked[32], burst[48] = "the window alone";

	if (cfg->pps)
		rw_format_si((double)cfg->pps, pps, sizeof(pps));
	if (cfg->bps)
		rw_format_si((double)cfg->bps, bps, sizeof(bps));
	rw_format_bytes((double)plan->total, mem, sizeof(mem));
	if (cfg->burst_ns != RW_BURST_WINDOW)
		snprintf(burst, sizeof(burst), "paced, burst %.3g ms", cfg->burst_ns / 1e6);
	for (uint32_t i = 0; i < s->nat; i++)
		fprintf(stderr, "ratewall: attached to %s (%s XDP)\n", cfg->ifnames[i],
			s->at[i].mode == RW_XDP_NATIVE ? "native" : "generic");
	rw_key_kinds_text(cfg->rank_mask, ranked, sizeof(ranked));
	fprintf(stderr, "ratewall: keys: %s (IPv6 addresses by /%u); also ranked: %s\n",
		rw_key_kind_name(cfg->key_kind), cfg->v6_prefix, ranked);
	fprintf(stderr,
		"ratewall: %slimit per key: %s pps, %s bps%s (%s); window %.3gs in %u slots; %s clock; "
		"malformed frames %s\n"
		"ratewall: up to %u tracked sources, sketch %ux%u per CPU, %u CPUs: %s of kernel memory\n",
		cfg->dry_run ? "DRY RUN, nothing dropped; " : "", pps, bps,
		s->nat > 1 ? " (across the interfaces combined)" : "", burst,
		cfg->window_ns / 1e9, cfg->slots, clock == RW_CLOCK_COARSE ? "coarse" : "precise",
		cfg->malformed_drop ? "dropped" : "passed",
		s->max_flows, RW_SKETCH_ROWS, RW_SKETCH_COLS, s->ncpus, mem);
}

/*
 * Whether --levels counts a key: its own address is on the main key's side
 * (sources; destinations under --key dst). A rule's `per dst` budget under
 * --key src holds a destination: it is ranked, never counted as a source prefix.
 */
static bool levels_side(const struct rw_session *s, const struct rw_key *key)
{
	return (rw_kind_of(key) == RW_KIND_DST) == (s->cfg->key_kind == RW_KIND_DST);
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
	if (s->hhh && levels_side(s, key))
		rw_hhh_exact(s->hhh, key, sum->packets);
	if (rw_events_on(&s->events))
		rw_events_flow(&s->events, key, sum);
	return s->feed ? rw_view_feed_offer(s->feed, key, sum, fv) : 0;
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
		out->n = rw_ranker_merge(&r->ranker, r->top);
		next = rw_next_thresholds(r->top, out->n, cfg->top, cfg->sort, s->ncpus, r->tracked,
					  s->max_flows, rep->tick.sketch_peak_cpu,
					  rep->tick.sketch_peak_cpu_bytes);
		r->tracked = 0;
		err = rw_thresholds_write(s->maps.thresholds, k, &next);
		if (err)
			return err;
	}
	return 0;
}

static void say_error(struct rw_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tell(struct rw_session *s, const char *msg);

/*
 * --history: the report into the database, once for its window. An error is
 * said when it is new (not every tick while it lasts), and the recovery too;
 * enforcement and the other views go on either way.
 */
static void keep_history(struct rw_session *s, const struct rw_report *rep)
{
	char err[sizeof(s->history_said)];
	int ret;

	if (!s->cfg->history_path[0])
		return;
	ret = rw_history_write(&s->history, rep, err, sizeof(err));
	if (ret != 0)
		rw_events_tick_clear(&s->events); /* written, or lost with the window */
	if (ret >= 0 && s->history_said[0]) {
		s->history_said[0] = '\0';
		tell(s, "history: writing again");
	} else if (ret < 0 && ret != -EAGAIN && strcmp(err, s->history_said)) {
		snprintf(s->history_said, sizeof(s->history_said), "%s", err);
		say_error(s, "%s", err);
	}
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
		rw_persist_heavy(s, rep.hhh, rep.nhhh, rep.tick.total.packets);
	}
	rep.ntop = rw_ranker_merge(&s->ranker, s->top);
	err = rank_kinds(s, &rep);
	rep.tick.next = rw_next_thresholds(s->top, rep.ntop, cfg->top, cfg->sort, s->ncpus,
					   rep.tick.flows - rep.ranked_flows, s->max_flows,
					   rep.tick.sketch_peak_cpu, rep.tick.sketch_peak_cpu_bytes);
	if (!err)
		err = rw_thresholds_write(s->maps.thresholds, cfg->key_kind, &rep.tick.next);
	if (!err)
		err = rw_stats_read(s->maps.stats, s->ncpus, &rep.stats, rep.iface, s->nat);
	if (err)
		return err;
	rw_persist_heartbeat(s);
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

/* --ban: a ban the loader's scan ended (the key was silent since it ran out). */
static void on_unban(void *arg, const struct rw_key *key, uint64_t until_ns)
{
	struct rw_session *s = arg;

	rw_events_unbanned(&s->events, key, s->flowtab.ban_now_ns, until_ns);
}

/* The data path's sampled sources, into the prefix counts. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct rw_session *s = ctx;
	const struct rw_sample *smp = data;

	if (size >= sizeof(*smp) && levels_side(s, &smp->key))
		rw_hhh_sample(s->hhh, &smp->key, smp->epoch);
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct rw_session *s = ctx;

	if (size >= sizeof(struct rw_event))
		rw_events_kernel(&s->events, data);
	return 0;
}

/* --events: the reader of the data path's events (the output is open already). 0 or -errno. */
static int start_events(struct rw_session *s)
{
	s->event_rb = ring_buffer__new(s->maps.events, on_event, s, NULL);
	return s->event_rb ? 0 : -errno;
}

/* --levels: counts and the sample reader. 0 or -ENOMEM/-errno. */
static int start_hhh(struct rw_session *s)
{
	s->hhh = rw_hhh_new(&s->cfg->levels, s->cfg->slots, RW_SAMPLE_EVERY);
	s->hhh_items = calloc(RW_HHH_REPORT_MAX, sizeof(*s->hhh_items));
	if (!s->hhh || !s->hhh_items)
		return -ENOMEM;
	s->samples = ring_buffer__new(s->maps.samples, on_sample, s, NULL);
	return s->samples ? 0 : -errno;
}

/* --verbose: libbpf's own messages (the verifier's log on a refused load). */
static int libbpf_to_stderr(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

/*
 * A line for the operator: on stderr, or under the terminal view's table
 * (and on stderr once the view is closed).
 */
static void tell(struct rw_session *s, const char *msg)
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
static void say_error(struct rw_session *s, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tell(s, msg);
	rw_persist_error(s, msg);
}

/* --tui: the view over this run's own maps. 0, or -1 after saying why not. */
static int start_watch(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	struct rw_watch_params p = {
		.table = s->maps.table, .window_fd = s->maps.window, .stats_fd = s->maps.stats,
		.hash_seed = s->lp.hash_seed,
		.ncpus = s->ncpus, .slots = cfg->slots, .slot_ns = rw_slot_ns(cfg),
		.start_ns = s->start_ns, .clock = s->clock, .max_flows = s->max_flows,
		.sort = cfg->sort, .levels = &cfg->levels, .no_color = cfg->no_color,
		.key_kind = cfg->key_kind, .rank_mask = cfg->rank_mask,
	};
	char err[256];

	s->watch = calloc(1, sizeof(*s->watch));
	if (!s->watch) {
		fprintf(stderr, "ratewall: out of memory\n");
		return -1;
	}
	if (rw_watch_open(s->watch, &p, err, sizeof(err))) {
		rw_watch_close(s->watch);
		free(s->watch);
		s->watch = NULL;
		fprintf(stderr, "ratewall: --tui: %s\n", err);
		return -1;
	}
	s->watch->head.what = "run";
	snprintf(s->watch->head.name, sizeof(s->watch->head.name), "%s", cfg->name);
	s->watch->head.pps = cfg->pps;
	s->watch->head.bps = cfg->bps;
	s->watch->head.dry_run = cfg->dry_run;
	s->watch->head.levels = s->hhh != NULL;
	s->watch->head.heavy_share_pct = cfg->hhh_share_pct;
	return rw_watch_refresh(s->watch, true) ? -1 : 0;
}

/* Says once when an interface goes away (the kernel detaches its link); false when none is left. */
static bool still_attached(struct rw_session *s)
{
	uint32_t left = 0;

	for (uint32_t i = 0; i < s->nat; i++) {
		if (!s->gone[i] && !rw_xdp_still_attached(&s->at[i])) {
			s->gone[i] = true;
			say_error(s, "%s went away; nothing is attached to it any more",
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
		tell(s, "SIGHUP: no --rules file to read again");
		return;
	}
	if (rw_rules_parse_file(s->cfg->rules_path, &scope, &next, err, sizeof(err))) {
		say_error(s, "rules not reloaded, the old ones stay: %s", err);
		return;
	}
	e = rw_rules_install(&env, &next);
	if (e) {
		say_error(s, "rules reload failed: %s", strerror(-e));
		rw_ruleset_free(&next);
		return;
	}
	rw_ruleset_free(&s->rules);
	s->rules = next;
	snprintf(err, sizeof(err), "%zu rules in force from %s (reloaded)", s->rules.n,
		 s->cfg->rules_path);
	tell(s, err);
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
			say_error(s, "reading the flow table failed: %s", strerror(-err));
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
			say_error(s, "reading the flow table failed: %s", strerror(-err));
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

/*
 * --history: the database, and when this loader took over flow state an
 * older loader counted (--persist), a report at once: the window it writes
 * holds every slot the kernel still has, the ones the old loader did not
 * live to report included. A database that cannot be used is said, and
 * tried again as the run goes on: enforcement never waits for it.
 */
static void start_history(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	char err[sizeof(s->history_said)];

	if (rw_history_open(&s->history, cfg->history_path, cfg->name, cfg->history_keep_ns,
			    cfg->history_max, err, sizeof(err))) {
		snprintf(s->history_said, sizeof(s->history_said), "%s", err);
		say_error(s, "%s", err);
		tell(s, "history: enforcement and reports go on; the file is tried again");
	}
	s->first_tick_now = s->inherited;
}

/* Attaches prog_fd to every interface of the run, or to none. */
static int attach_all(struct rw_session *s)
{
	char err[256];

	for (s->nat = 0; s->nat < s->cfg->nifaces; s->nat++) {
		uint32_t i = s->nat;

		if (rw_xdp_attach(s->prog_fd, (int)s->lp.ifindex[i], s->cfg->ifnames[i],
				  s->cfg->xdp_mode, &s->at[i], err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			while (s->nat)
				rw_xdp_detach(&s->at[--s->nat]);
			return -1;
		}
		rw_session_say_attached(s, i);
	}
	return 0;
}

/* Loads the program here, for a run that ends with the process. Returns an exit status or -1. */
static int start_unpinned(struct rw_session *s, const struct rw_memplan *plan)
{
	int e = rw_session_load(s, plan);

	if (e >= 0)
		return e;
	if (rw_first_thresholds(s) || rw_session_rules(s, false) || attach_all(s))
		return RW_EXIT_RUNTIME;
	s->start_ns = rw_clock_ns(s->clock);
	return -1;
}

int rw_run(const struct rw_config *cfg)
{
	struct rw_session s = { .cfg = cfg, .prog_fd = -1, .heavy_fd = -1,
				.maps = { { -1, -1, -1, -1 }, -1, -1, -1, -1, -1, -1, -1 },
				.inst = { .dir_fd = -1, .meta_fd = -1 } };
	struct rw_memplan plan;
	int ret = RW_EXIT_RUNTIME, e;
	enum rw_clock clock;

	for (uint32_t i = 0; i < cfg->nifaces; i++) {
		s.lp.ifindex[i] = if_nametoindex(cfg->ifnames[i]);
		if (!s.lp.ifindex[i]) {
			fprintf(stderr, "ratewall: no interface named '%s' (list them with: ip link)\n",
				cfg->ifnames[i]);
			return RW_EXIT_USAGE;
		}
		s.at[i].link_fd = -1;
	}
	/* Said before anything is attached: a view without a terminal is bad usage. */
	if (cfg->tui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "ratewall: --tui needs a terminal on stdin and stdout\n");
		return RW_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ratewall: must run as root (it loads BPF and attaches XDP)\n");
		return RW_EXIT_RUNTIME;
	}
	s.ncpus = rw_possible_cpus();
	s.max_flows = rw_memplan_max_flows(cfg, s.ncpus);
	if (s.max_flows == 0) {
		fprintf(stderr, "ratewall: --max-memory is too small for the sketch and one tracked "
			"flow on %u CPUs (see: ratewall memory)\n", s.ncpus);
		return RW_EXIT_USAGE;
	}
	rw_memplan(s.ncpus, s.max_flows, cfg->slots, cfg->max_rules, &plan);
	if (!plan_fits(&plan, s.max_flows, s.ncpus))
		return RW_EXIT_RUNTIME;
	/* A bad rules file is bad usage: said before anything is loaded. */
	if (cfg->rules_path[0]) {
		const struct rw_rule_scope scope = rw_config_rule_scope(cfg);
		char err[512];

		if (rw_rules_parse_file(cfg->rules_path, &scope, &s.rules, err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			return RW_EXIT_USAGE;
		}
	}
	/* An events file that cannot be written is said before anything is attached. */
	if (cfg->events_path[0] || cfg->history_path[0]) {
		e = rw_events_open(&s.events, cfg->events_path, cfg->history_path[0] != '\0');
		if (e) {
			fprintf(stderr, "ratewall: --events %s: %s\n", cfg->events_path, strerror(-e));
			goto out;
		}
	}
	/* A busy metrics port is said before anything is attached, too. */
	if (cfg->metrics[0]) {
		char err[256];

		if (rw_metrics_start(&s.metrics, cfg->metrics, err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			goto out;
		}
	}
	if (install_signals()) {
		fprintf(stderr, "ratewall: cannot install signal handlers: %s\n", strerror(errno));
		goto out; /* nothing loaded yet: out only frees */
	}

	clock = rw_clock_resolve(cfg->clock, rw_slot_ns(cfg), cfg->burst_ns, rw_coarse_tick_ns());
	s.clock = clock == RW_CLOCK_COARSE ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC;
	s.lp.slot_ns = rw_slot_ns(cfg);
	s.lp.slots = cfg->slots;
	s.lp.limit_packets = rw_limit_per_window(cfg->pps, rw_slot_ns(cfg) * cfg->slots, 1);
	s.lp.limit_bytes = rw_limit_per_window(cfg->bps, rw_slot_ns(cfg) * cfg->slots, 8);
	s.lp.max_flows = s.max_flows;
	s.lp.max_rules = cfg->max_rules;
	s.lp.coarse_clock = clock == RW_CLOCK_COARSE;
	s.lp.libbpf_log = cfg->verbose ? libbpf_to_stderr : NULL;
	s.lp.dry_run = cfg->dry_run;
	s.lp.malformed_drop = cfg->malformed_drop;
	s.lp.sample = cfg->levels.n[0] || cfg->levels.n[1];
	s.lp.events = cfg->events_path[0] || cfg->history_path[0]; /* history keeps them too */
	s.lp.ban_ns = cfg->ban_ns;
	s.lp.burst_ns = cfg->burst_ns;
	s.lp.key_kind = cfg->key_kind;
	s.lp.v6_prefix = cfg->v6_prefix;
	s.lp.rank_mask = cfg->rank_mask;
	s.lp.nifaces = cfg->nifaces;

	e = cfg->persist ? rw_persist_start(&s, &plan) : start_unpinned(&s, &plan);
	if (e >= 0) {
		ret = e;
		goto out;
	}
	e = rw_flowtab_init(&s.flowtab, &s.maps.table, s.maps.window, s.lp.hash_seed, s.ncpus,
			    cfg->slots, true);
	if (e) {
		fprintf(stderr, "ratewall: cannot map the tracked-flow table: %s\n", strerror(-e));
		goto out;
	}
	if (rw_ranker_init(&s.ranker, s.ncpus, cfg->top) ||
	    !(s.top = calloc(cfg->top, sizeof(*s.top)))) {
		fprintf(stderr, "ratewall: out of memory\n");
		goto out;
	}
	for (uint32_t k = 0; k < RW_KIND_COUNT; k++) {
		struct rw_ranking *r = &s.ranked[k];

		if (!(cfg->rank_mask & (1u << k)))
			continue;
		if (rw_ranker_init(&r->ranker, s.ncpus, cfg->top) ||
		    !(r->top = calloc(cfg->top, sizeof(*r->top)))) {
			fprintf(stderr, "ratewall: out of memory\n");
			goto out;
		}
	}
	if (s.lp.sample && (e = start_hhh(&s))) {
		fprintf(stderr, "ratewall: cannot read the prefix samples: %s\n", strerror(-e));
		goto out;
	}
	if ((e = rw_persist_heavy_start(&s, s.hhh != NULL))) {
		fprintf(stderr, "ratewall: cannot pin the heavy-prefix record: %s\n", strerror(-e));
		goto out;
	}
	if (s.lp.events && (e = start_events(&s))) {
		fprintf(stderr, "ratewall: --events %s: %s\n", cfg->events_path, strerror(-e));
		goto out;
	}
	if (s.lp.events && cfg->ban_ns) {
		s.flowtab.on_unban = on_unban;
		s.flowtab.on_unban_arg = &s;
	}
	s.tick0_ns = mono_ns();
	describe_start(&s, &plan, clock);
	if (cfg->history_path[0])
		start_history(&s);
	if (cfg->tui && start_watch(&s))
		goto out;
	ret = loop(&s) ? RW_EXIT_RUNTIME : RW_EXIT_OK;
out:
	if (s.watch) {
		rw_watch_close(s.watch);
		free(s.watch);
		fputs(s.said, stderr);
	}
	/* Closing a pinned link's fd leaves it attached: that is --persist. */
	for (uint32_t i = 0; i < s.nat; i++)
		rw_xdp_detach(&s.at[i]);
	rw_persist_leave(&s, ret);
	free(s.top);
	rw_ranker_free(&s.ranker);
	for (uint32_t k = 0; k < RW_KIND_COUNT; k++) {
		free(s.ranked[k].top);
		rw_ranker_free(&s.ranked[k].ranker);
	}
	rw_flowtab_free(&s.flowtab);
	if (s.skel)
		ratewall_bpf__destroy(s.skel);
	else
		rw_persist_close_maps(&s);
	if (s.heavy_fd >= 0)
		close(s.heavy_fd);
	rw_ruleset_free(&s.rules);
	rw_ruleset_free(&s.tick_rules);
	ring_buffer__free(s.samples);
	ring_buffer__free(s.event_rb);
	if (s.metrics.daemon)
		rw_metrics_stop(&s.metrics);
	rw_events_close(&s.events);
	rw_history_close(&s.history);
	rw_hhh_free(s.hhh);
	free(s.hhh_items);
	return ret;
}

int rw_run_command(int argc, char **argv)
{
	struct rw_config cfg;
	char err[256];
	int ret = rw_cli_outcome(rw_cli_parse_run(argc, argv, &cfg, err, sizeof(err)), err);

	return ret >= 0 ? ret : rw_run(&cfg);
}
