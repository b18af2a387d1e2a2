// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ratewall run`: the order of its life (start, the ticks and the waits
 * between them, the end), the signals that steer it, and what it watches
 * between ticks (its interfaces, a SIGHUP's rules). The phases themselves are
 * in run_start.c, run_tick.c and run_end.c; what a run says, in run_say.c.
 */
#include "run.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "kernel/loader.h"
#include "kernel/rules_maps.h"
#include "model/clock.h"
#include "model/rules.h"
#include "run_end.h"
#include "run_say.h"
#include "run_start.h"
#include "run_tick.h"
#include "service/persist.h"
#include "service/session.h"

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
		err = rw_run_tick(s);
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
	int ret = rw_cli_outcome(rw_cli_parse_run(argc, argv, &cfg, err, sizeof(err)),
				 argv[0], err);

	return ret >= 0 ? ret : rw_run(&cfg);
}
