// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "run.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "flowtab.h"
#include "loader.h"
#include "meminfo.h"
#include "memplan.h"
#include "rank.h"
#include "ratewall.skel.h"
#include "report.h"
#include "window.h"
#include "units.h"

#define RW_EXIT_OK 0
#define RW_EXIT_RUNTIME 1
#define RW_EXIT_USAGE 2

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
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

static uint64_t coarse_tick_ns(void)
{
	struct timespec res;

	return clock_getres(CLOCK_MONOTONIC_COARSE, &res) ? 0 : rw_timespec_ns(&res);
}

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

static void describe_start(const struct rw_config *cfg, const struct rw_attachment *at,
			   uint32_t max_flows, uint32_t ncpus, const struct rw_memplan *plan,
			   enum rw_clock clock)
{
	char pps[32] = "none", bps[32] = "none", mem[32];

	if (cfg->pps)
		rw_format_si((double)cfg->pps, pps, sizeof(pps));
	if (cfg->bps)
		rw_format_si((double)cfg->bps, bps, sizeof(bps));
	rw_format_bytes((double)plan->total, mem, sizeof(mem));
	fprintf(stderr,
		"ratewall: attached to %s (%s XDP); limit per source: %s pps, %s bps; "
		"window %.3gs in %u slots; %s clock\n"
		"ratewall: up to %u tracked sources, sketch %ux%u per CPU, %u CPUs: %s of kernel memory\n",
		cfg->ifname, at->mode == RW_XDP_NATIVE ? "native" : "generic", pps, bps,
		cfg->window_ns / 1e9, cfg->slots, clock == RW_CLOCK_COARSE ? "coarse" : "precise",
		max_flows, RW_SKETCH_ROWS, RW_SKETCH_COLS, ncpus, mem);
}

struct rw_session {
	const struct rw_config *cfg;
	struct ratewall_bpf *skel;
	struct rw_attachment at;
	struct rw_flowtab flowtab;
	struct rw_ranker ranker;
	struct rw_rank_entry *top;
	uint32_t ncpus;
	uint32_t max_flows;
	uint32_t *marks;   /* the tracked-source filter, counted down when flows are deleted */
	clockid_t clock;   /* what the kernel program reads: slots and rates follow it */
	uint64_t start_ns; /* attach time on that clock */
	uint64_t tick0_ns; /* attach time on CLOCK_MONOTONIC, which schedules ticks */
};

/* One interval: read, wipe, rank, set thresholds, print. Returns 0, or negative errno. */
static int tick(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	uint64_t now = rw_clock_ns(s->clock), slot_ns = rw_slot_ns(cfg), t0 = mono_ns();
	struct rw_report rep = { .cfg = cfg, .top = s->top };
	int err;

	err = rw_flowtab_scan(&s->flowtab, now / slot_ns, cfg->sort, &s->ranker, &rep.tick);
	if (err)
		return err;
	rep.ntop = rw_ranker_merge(&s->ranker, s->top);
	rep.tick.next = rw_next_thresholds(s->top, rep.ntop, cfg->top, cfg->sort, s->ncpus,
					   rep.tick.flows, s->max_flows, rep.tick.sketch_peak_cpu,
					   rep.tick.sketch_peak_cpu_bytes);
	err = rw_thresholds_write(bpf_map__fd(s->skel->maps.thresholds), &rep.tick.next);
	if (!err)
		err = rw_stats_read(bpf_map__fd(s->skel->maps.stats), s->ncpus, &rep.stats);
	if (err)
		return err;
	rep.span_ns = rw_window_span_ns(now, s->start_ns, slot_ns, cfg->slots);
	rep.tick_ns = mono_ns() - t0;
	rep.ts = wall_seconds();
	if (cfg->json)
		rw_report_json(stdout, &rep);
	else
		rw_report_table(stdout, &rep);
	return ferror(stdout) ? -EPIPE : 0;
}

static int loop(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	uint64_t next = s->tick0_ns + cfg->interval_ns;
	uint64_t end = cfg->duration_ns ? s->tick0_ns + cfg->duration_ns : UINT64_MAX;
	int err;

	while (!stop_requested) {
		uint64_t wake = next < end ? next : end;

		sleep_until(wake);
		if (stop_requested)
			break;
		if (mono_ns() < wake)
			continue; /* woken early by a signal we ignore */
		if (!rw_xdp_still_attached(&s->at)) {
			fprintf(stderr, "ratewall: %s went away; nothing is attached any more\n",
				cfg->ifname);
			return -ENODEV;
		}
		err = tick(s);
		if (err == -EPIPE)
			return 0; /* the reader went away: nothing left to report to */
		if (err) {
			fprintf(stderr, "ratewall: reading the flow table failed: %s\n", strerror(-err));
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
	struct rw_session s = { .cfg = cfg, .at = { .link_fd = -1 } };
	struct rw_load_params lp;
	struct rw_thresholds first;
	struct rw_memplan plan;
	char err[256];
	int ifindex, ret = RW_EXIT_RUNTIME, e;
	enum rw_clock clock;
	uint32_t max_flows;

	ifindex = (int)if_nametoindex(cfg->ifname);
	if (!ifindex) {
		fprintf(stderr, "ratewall: no interface named '%s' (list them with: ip link)\n",
			cfg->ifname);
		return RW_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ratewall: must run as root (it loads BPF and attaches XDP)\n");
		return RW_EXIT_RUNTIME;
	}
	s.ncpus = rw_possible_cpus();
	max_flows = rw_memplan_max_flows(cfg, s.ncpus);
	if (max_flows == 0) {
		fprintf(stderr, "ratewall: --max-memory is too small for the sketch and one tracked "
			"flow on %u CPUs (see: ratewall memory)\n", s.ncpus);
		return RW_EXIT_USAGE;
	}
	rw_memplan(s.ncpus, max_flows, cfg->slots, &plan);
	if (!plan_fits(&plan, max_flows, s.ncpus))
		return RW_EXIT_RUNTIME;
	if (install_signals()) {
		fprintf(stderr, "ratewall: cannot install signal handlers: %s\n", strerror(errno));
		return RW_EXIT_RUNTIME;
	}

	clock = rw_clock_resolve(cfg->clock, rw_slot_ns(cfg), coarse_tick_ns());
	s.clock = clock == RW_CLOCK_COARSE ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC;
	lp = (struct rw_load_params){
		.slot_ns = rw_slot_ns(cfg),
		.slots = cfg->slots,
		.limit_packets = rw_limit_per_window(cfg->pps, rw_slot_ns(cfg) * cfg->slots, 1),
		.limit_bytes = rw_limit_per_window(cfg->bps, rw_slot_ns(cfg) * cfg->slots, 8),
		.max_flows = max_flows,
		.coarse_clock = clock == RW_CLOCK_COARSE,
		.verbose = cfg->verbose,
	};
	e = rw_bpf_load(&lp, &s.skel);
	if (e == -ENOMEM || e == -E2BIG) {
		char mem[32];

		rw_format_bytes((double)plan.total, mem, sizeof(mem));
		fprintf(stderr, "ratewall: cannot allocate the maps (%u tracked flows, %s): %s; "
			"lower --max-flows or --max-memory\n", max_flows, mem, strerror(-e));
		return RW_EXIT_RUNTIME;
	}
	if (e) {
		fprintf(stderr, "ratewall: cannot load the BPF program: %s%s\n", strerror(-e),
			cfg->verbose ? "" : " (run with -v for the kernel's log)");
		return RW_EXIT_RUNTIME;
	}
	s.max_flows = max_flows;
	/* Until the first tick, sources are tracked from their first packet, within the budget. */
	first = rw_next_thresholds(NULL, 0, cfg->top, cfg->sort, s.ncpus, 0, max_flows, 0, 0);
	e = rw_thresholds_write(bpf_map__fd(s.skel->maps.thresholds), &first);
	if (e) {
		fprintf(stderr, "ratewall: cannot set the promotion thresholds: %s\n", strerror(-e));
		goto out;
	}
	s.marks = rw_marks_map(s.skel);
	if (!s.marks) {
		fprintf(stderr, "ratewall: cannot map the tracked-source filter: %s\n", strerror(errno));
		goto out;
	}
	if (rw_flowtab_init(&s.flowtab, bpf_map__fd(s.skel->maps.flows),
			    bpf_map__fd(s.skel->maps.window), s.marks, s.skel->rodata->cfg_hash_seed,
			    s.ncpus, cfg->slots) ||
	    rw_ranker_init(&s.ranker, s.ncpus, cfg->top) ||
	    !(s.top = calloc(cfg->top, sizeof(*s.top)))) {
		fprintf(stderr, "ratewall: out of memory\n");
		goto out;
	}
	e = rw_xdp_attach(bpf_program__fd(s.skel->progs.ratewall_xdp), ifindex, cfg->ifname,
			  cfg->xdp_mode, &s.at, err, sizeof(err));
	if (e) {
		fprintf(stderr, "ratewall: %s\n", err);
		goto out;
	}
	s.start_ns = rw_clock_ns(s.clock);
	s.tick0_ns = mono_ns();
	describe_start(cfg, &s.at, max_flows, s.ncpus, &plan, clock);
	ret = loop(&s) ? RW_EXIT_RUNTIME : RW_EXIT_OK;
out:
	rw_xdp_detach(&s.at);
	free(s.top);
	rw_ranker_free(&s.ranker);
	rw_flowtab_free(&s.flowtab);
	rw_marks_unmap(s.marks);
	ratewall_bpf__destroy(s.skel);
	return ret;
}
