// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The start of `ratewall run`: the checks said before anything is attached,
 * the load parameters, loading and attaching (unless pinned:
 * service/persist.c), and the parts the options add.
 */
#include "run_start.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/exit.h"
#include "kernel/meminfo.h"
#include "model/clock.h"
#include "model/units.h"
#include "proc/spawn.h"
#include "ratewall.skel.h"
#include "run_say.h"
#include "run_tick.h"
#include "service/actpins.h"
#include "service/persist.h"

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

/* Each interface's index (into the load parameters); false once one is said not to exist. */
static bool find_interfaces(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;

	for (uint32_t i = 0; i < cfg->nifaces; i++) {
		s->lp.ifindex[i] = if_nametoindex(cfg->ifnames[i]);
		if (!s->lp.ifindex[i]) {
			fprintf(stderr, "ratewall: no interface named '%s' (list them with: ip link)\n",
				cfg->ifnames[i]);
			return false;
		}
		s->at[i].link_fd = -1;
	}
	return true;
}

int rw_run_check(struct rw_session *s, struct rw_memplan *plan)
{
	const struct rw_config *cfg = s->cfg;

	if (!find_interfaces(s))
		return RW_EXIT_USAGE;
	/* Said before anything is attached: a view without a terminal is bad usage. */
	if (cfg->tui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "ratewall: --tui needs a terminal on stdin and stdout\n");
		return RW_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ratewall: must run as root (it loads BPF and attaches XDP)\n");
		return RW_EXIT_RUNTIME;
	}
	s->ncpus = rw_possible_cpus();
	s->max_flows = rw_memplan_max_flows(cfg, s->ncpus);
	if (s->max_flows == 0) {
		fprintf(stderr, "ratewall: --max-memory is too small for the sketch and one tracked "
			"flow on %u CPUs (see: ratewall memory)\n", s->ncpus);
		return RW_EXIT_USAGE;
	}
	/* --samples to what is no writable directory is bad usage, said before anything is loaded. */
	if (cfg->samples_dir[0]) {
		char err[4400];

		if (rw_pcap_dir_check(cfg->samples_dir, err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			return RW_EXIT_USAGE;
		}
	}
	rw_memplan(s->ncpus, s->max_flows, cfg->slots, cfg->max_rules, cfg->samples_dir[0] != 0,
		   plan);
	if (!plan_fits(plan, s->max_flows, s->ncpus))
		return RW_EXIT_RUNTIME;
	/* A bad rules file is bad usage: said before anything is loaded. */
	if (cfg->rules_path[0]) {
		const struct rw_rule_scope scope = rw_config_rule_scope(cfg);
		char err[512];

		if (rw_rules_parse_file(cfg->rules_path, &scope, &s->rules, err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			return RW_EXIT_USAGE;
		}
	}
	/* Who the commands and helpers run as: a user not there is bad usage, said now. */
	if (cfg->on_event_user[0]) {
		char err[256];

		if (rw_spawn_run_as(cfg->on_event_user, err, sizeof(err))) {
			fprintf(stderr, "ratewall: --on-event-user: %s\n", err);
			return RW_EXIT_USAGE;
		}
	}
	return -1;
}

int rw_run_open_outputs(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	char err[256];
	int e;

	/* An events file that cannot be written is said before anything is attached. */
	if (cfg->events_path[0] || cfg->history_path[0]) {
		e = rw_events_open(&s->events, cfg->events_path, cfg->history_path[0] != '\0');
		if (e) {
			fprintf(stderr, "ratewall: --events %s: %s\n", cfg->events_path, strerror(-e));
			return -1;
		}
	}
	/* A busy metrics port is said before anything is attached, too. */
	if (cfg->metrics[0] && rw_metrics_start(&s->metrics, cfg->metrics, err, sizeof(err))) {
		fprintf(stderr, "ratewall: %s\n", err);
		return -1;
	}
	return 0;
}

/* --verbose: libbpf's own messages (the verifier's log on a refused load). */
static int libbpf_to_stderr(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void rw_run_load_params(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	enum rw_clock clock = rw_clock_resolve(cfg->clock, rw_slot_ns(cfg), cfg->burst_ns,
					       rw_coarse_tick_ns());

	s->clock = clock == RW_CLOCK_COARSE ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC;
	s->lp.enforced = rw_enforced_of_config(cfg, s->max_flows, clock);
	s->lp.max_rules = cfg->max_rules;
	s->lp.libbpf_log = cfg->verbose ? libbpf_to_stderr : NULL;
	s->lp.nifaces = cfg->nifaces; /* their indexes: rw_run_check */
}

/* Attaches prog_fd to every interface of the run, or to none. */
static int attach_all(struct rw_session *s)
{
	char err[256];

	for (s->nat = 0; s->nat < s->cfg->nifaces; s->nat++) {
		uint32_t i = s->nat;

		if (rw_xdp_attach_as(s->prog_fd, (int)s->lp.ifindex[i], s->cfg->ifnames[i],
				     s->cfg->xdp_mode, s->lp.multi, &s->at[i],
				     err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			while (s->nat)
				rw_xdp_detach(&s->at[--s->nat]);
			return -1;
		}
		rw_session_say_attached(s, i);
	}
	return 0;
}

int rw_run_start_unpinned(struct rw_session *s, const struct rw_memplan *plan)
{
	int e = rw_session_load(s, plan);

	if (e >= 0)
		return e;
	if (rw_first_thresholds(s) || rw_session_rules(s, false) || attach_all(s))
		return RW_EXIT_RUNTIME;
	s->start_ns = rw_clock_ns(s->clock);
	return -1;
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

	if (size >= sizeof(*smp) && rw_run_main_side(s, &smp->key))
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

static int on_pcap_frame(void *ctx, void *data, size_t size)
{
	rw_pcap_frame(ctx, data, size);
	return 0;
}

/* --samples: the frames' writer; the events name their files as it does. 0 or -errno. */
static int start_pcap(struct rw_session *s)
{
	int64_t offset = (int64_t)rw_clock_ns(CLOCK_REALTIME) - (int64_t)rw_clock_ns(s->clock);

	int e;

	s->pcap = malloc(sizeof(*s->pcap));
	if (!s->pcap)
		return -ENOMEM;
	e = rw_pcap_start(s->pcap, s->cfg->samples_dir, s->cfg->samples_max, offset);
	if (e)
		return e;
	s->events.samples = true;
	s->events.sample_offset = offset;
	s->pcap_rb = ring_buffer__new(s->maps.pcap_ring, on_pcap_frame, s->pcap, NULL);
	return s->pcap_rb ? 0 : -errno;
}

/* --samples --levels: a heavy prefix's frames armed with its heavy event, disarmed with light. */
static void on_prefix(void *arg, uint32_t type, const struct rw_key *prefix, uint64_t now)
{
	struct rw_session *s = arg;

	if (type == RW_EV_HEAVY)
		rw_pcap_nets_arm(s->pnets, prefix, now);
	else if (type == RW_EV_LIGHT)
		rw_pcap_nets_disarm(s->pnets, prefix);
}

/* --samples --levels: the heavy prefixes' frames (the program's count of them reached). 0, or -1 once said. */
static int start_pnets(struct rw_session *s)
{
	char err[256];

	s->pnets = malloc(sizeof(*s->pnets));
	if (!s->pnets) {
		fprintf(stderr, "ratewall: out of memory\n");
		return -1;
	}
	if (rw_pcap_nets_start(s->pnets, s->maps.pcap_nets, s->bss ? &s->bss->pcap_nets_armed : NULL,
			       err, sizeof(err))) {
		fprintf(stderr, "ratewall: --samples: %s\n", err);
		free(s->pnets);
		s->pnets = NULL;
		return -1;
	}
	s->events.prefix_samples = true;
	s->act.on_prefix = on_prefix;
	s->act.on_prefix_arg = s;
	return 0;
}

/* --levels: counts and the sample reader. 0 or -ENOMEM/-errno. */
static int start_hhh(struct rw_session *s)
{
	s->hhh = rw_hhh_new(&s->cfg->levels, s->cfg->slots, RW_SAMPLE_EVERY);
	s->hhh_items = calloc(RW_HHH_REPORT_MAX, sizeof(*s->hhh_items));
	if (!s->hhh || !s->hhh_items || rw_hhh_keep_over(s->hhh, s->cfg->metrics_min_share_ppm))
		return -ENOMEM;
	s->samples = ring_buffer__new(s->maps.samples, on_sample, s, NULL);
	return s->samples ? 0 : -errno;
}

/* --on-event, --bgp: their record and journal (--persist), the runner and the BGP thread. 0, or -1 once said. */
static int start_act(struct rw_session *s)
{
	char err[512];

	if (rw_persist_act_start(s, err, sizeof(err)) ||
	    rw_act_start(&s->act, s->cfg, s->bgp_journal_fd, rw_run_act_say, s, err, sizeof(err))) {
		fprintf(stderr, "ratewall: %s\n", err);
		return -1;
	}
	if (rw_act_on(&s->act)) {
		s->events.on_event = rw_act_event;
		s->events.on_event_arg = &s->act;
	}
	return 0;
}

/* The main kind's ranking, and each --rank kind's. 0, or -1 once said. */
static int start_rankers(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;

	uint32_t keep = rw_ranked_keys(cfg);

	if (rw_ranker_init(&s->ranker, s->ncpus, keep) || !(s->top = calloc(keep, sizeof(*s->top))))
		goto oom;
	for (uint32_t k = 0; k < RW_KIND_COUNT; k++) {
		struct rw_ranking *r = &s->ranked[k];

		if (!(cfg->rank_mask & (1u << k)))
			continue;
		if (rw_ranker_init(&r->ranker, s->ncpus, keep) ||
		    !(r->top = calloc(keep, sizeof(*r->top))))
			goto oom;
	}
	return 0;
oom:
	fprintf(stderr, "ratewall: out of memory\n");
	return -1;
}

int rw_run_start_parts(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	int e;

	e = rw_flowtab_init(&s->flowtab, &s->maps.table, s->maps.window, s->lp.hash_seed, s->ncpus,
			    cfg->slots, true);
	if (e) {
		fprintf(stderr, "ratewall: cannot map the tracked-flow table: %s\n", strerror(-e));
		return -1;
	}
	if (start_rankers(s))
		return -1;
	if (s->lp.sample && (e = start_hhh(s))) {
		fprintf(stderr, "ratewall: cannot read the prefix samples: %s\n", strerror(-e));
		return -1;
	}
	if ((e = rw_persist_heavy_start(s, s->hhh != NULL))) {
		fprintf(stderr, "ratewall: cannot pin the heavy-prefix record: %s\n", strerror(-e));
		return -1;
	}
	if (cfg->samples_dir[0] && (e = start_pcap(s))) {
		fprintf(stderr, "ratewall: --samples %s: %s\n", cfg->samples_dir, strerror(-e));
		return -1;
	}
	if (s->lp.events && (e = start_events(s))) {
		fprintf(stderr, "ratewall: --events %s: %s\n", cfg->events_path, strerror(-e));
		return -1;
	}
	if (s->lp.events && cfg->ban_ns) {
		s->flowtab.on_unban = on_unban;
		s->flowtab.on_unban_arg = s;
	}
	if (start_act(s))
		return -1;
	return s->pcap && s->hhh ? start_pnets(s) : 0;
}

/*
 * --history: the database, and when this loader took over flow state an
 * older loader counted (--persist), a report at once: the window it writes
 * holds every slot the kernel still has, the ones the old loader did not
 * live to report included. A database that cannot be used is said, and
 * tried again as the run goes on: enforcement never waits for it.
 */
void rw_run_start_history(struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	char err[sizeof(s->history_said)];

	if (rw_history_open(&s->history, cfg->history_path, cfg->name, cfg->history_keep_ns,
			    cfg->history_max, err, sizeof(err))) {
		snprintf(s->history_said, sizeof(s->history_said), "%s", err);
		rw_run_say_error(s, "%s", err);
		rw_run_tell(s, "history: enforcement and reports go on; the file is tried again");
	}
	s->first_tick_now = s->inherited;
}

/*
 * --ban holds the source that went over: a key standing for a destination
 * (--key dst, a `per dst` rule, a /LEN of destinations) is the victim's budget,
 * limited and never banned (bpf/policy.h). Said at start where such keys exist.
 */
static void say_ban_scope(const struct rw_session *s)
{
	const struct rw_config *cfg = s->cfg;
	size_t per_dst = 0;

	if (!cfg->ban_ns)
		return;
	for (size_t i = 0; i < s->rules.n; i++)
		per_dst += s->rules.rule[i].per == RW_PER_DST;
	if (cfg->key_kind == RW_KIND_DST)
		fprintf(stderr, "ratewall: --ban with --key dst: a destination over its limit is "
			"limited, never banned (a ban holds a source, never a victim)\n");
	else if (per_dst)
		fprintf(stderr, "ratewall: --ban: the %zu `per dst` rule%s limit%s a destination's "
			"budget and never ban%s it (a ban holds a source, never a victim)\n", per_dst,
			per_dst > 1 ? "s" : "", per_dst > 1 ? "" : "s", per_dst > 1 ? "" : "s");
}

void rw_run_describe(const struct rw_session *s, const struct rw_memplan *plan)
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
			rw_xdp_mode_name(rw_xdp_stored_mode(&s->at[i])));
	rw_key_kinds_text(cfg->rank_mask, ranked, sizeof(ranked));
	fprintf(stderr, "ratewall: keys: %s (IPv6 addresses by /%u); also ranked: %s\n",
		rw_key_kind_name(cfg->key_kind), cfg->v6_prefix, ranked);
	fprintf(stderr,
		"ratewall: %slimit per key: %s pps, %s bps%s (%s); window %.3gs in %u slots; %s clock; "
		"malformed frames %s\n"
		"ratewall: up to %u tracked sources, sketch %ux%u per CPU, %u CPUs: %s of kernel memory\n",
		cfg->dry_run ? "DRY RUN, nothing dropped; " : "", pps, bps,
		s->nat > 1 ? " (across the interfaces combined)" : "", burst,
		cfg->window_ns / 1e9, cfg->slots, s->lp.coarse_clock ? "coarse" : "precise",
		cfg->malformed_drop ? "dropped" : "passed",
		s->max_flows, RW_SKETCH_ROWS, RW_SKETCH_COLS, s->ncpus, mem);
	say_ban_scope(s);
	if (cfg->samples_dir[0]) {
		rw_format_bytes((double)cfg->samples_max, mem, sizeof(mem));
		fprintf(stderr, "ratewall: samples: the first %u dropped frames (%u bytes of each) of "
			"each limited or banned key%s as pcap in %s, at most %s\n", RW_PCAP_FRAMES,
			RW_PCAP_SNAP, s->pnets ? ", the next frames of each heavy prefix," : "",
			cfg->samples_dir, mem);
	}
}

int rw_run_start_watch(struct rw_session *s)
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
