// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ratewall top [IFACE]`: the live view of a pinned instance. Its maps are
 * opened read-only (the kernel refuses a write through them), so watching can
 * never disturb enforcement, with or without a loader.
 */
#include "service/svccmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "cli/svccli.h"
#include "kernel/loader.h"
#include "kernel/rules_maps.h"
#include "model/clock.h"
#include "service/pick.h"
#include "service/pins.h"
#include "views/watch.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct top_maps {
	struct rw_table_fds table;
	int window, stats;
};

static void close_maps(struct top_maps *m)
{
	int fds[] = { m->table.dir, m->table.keys, m->table.hot, m->table.hist, m->window, m->stats };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The instance's record and maps; 0, or RW_EXIT_RUNTIME after saying why not. */
static int open_instance(const struct rw_svc_args *a, const char *name, struct rw_instance *in,
			 struct top_maps *m)
{
	char err[512];
	int e = rw_instance_open(a->pin_root, name, in, err, sizeof(err));

	if (e) {
		fprintf(stderr, "ratewall: instance %s cannot be used: %s\n", name,
			e == -EPROTO || e == -ENODATA ? err : strerror(-e));
		return RW_EXIT_RUNTIME;
	}
	if (in->meta.ncpus != rw_possible_cpus()) {
		fprintf(stderr, "ratewall: instance %s was made for %u CPUs, this system has %u\n",
			name, in->meta.ncpus, rw_possible_cpus());
		return RW_EXIT_RUNTIME;
	}
	/*
	 * The table is read through mappings, and the kernel maps a BPF map only
	 * through a writable fd: these four are opened for that, mapped read-only
	 * (never to be made writable: the kernel drops VM_MAYWRITE) and closed
	 * as soon as the watcher has mapped them.
	 */
	m->table.dir = rw_pin_open_map(in->dir, "dir");
	m->table.keys = rw_pin_open_map(in->dir, "keys");
	m->table.hot = rw_pin_open_map(in->dir, "hot");
	m->table.hist = rw_pin_open_map(in->dir, "hist");
	m->window = rw_pin_open_map_ro(in->dir, "window");
	m->stats = rw_pin_open_map_ro(in->dir, "stats");
	{
		int fds[] = { m->table.dir, m->table.keys, m->table.hot, m->table.hist, m->window,
			      m->stats };

		for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
			if (fds[i] < 0) {
				fprintf(stderr, "ratewall: instance %s: cannot open its maps: %s\n",
					name, strerror(-fds[i]));
				return RW_EXIT_RUNTIME;
			}
		}
	}
	return 0;
}

/*
 * The heavy prefixes the loader pinned last (--levels), read again each time:
 * a restarted loader pins a new record.
 */
static void heavy_from(struct rw_view_head *h, const char *dir, struct rw_heavy_record *r)
{
	h->levels = rw_heavy_read(dir, r) == 0;
	if (!h->levels)
		return;
	h->heavy = r->item;
	h->nheavy = r->n;
	h->heavy_share_pct = r->share_pct;
	h->heavy_total = r->total_packets;
	h->heavy_ts = (double)r->at_ns / 1e9;
}

/* The table's writable fds, once the watcher holds its read-only mappings. */
static void close_table_fds(struct top_maps *m)
{
	int *fds[] = { &m->table.dir, &m->table.keys, &m->table.hot, &m->table.hist };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static int watch(const struct rw_svc_args *a, struct rw_instance *in, struct top_maps *m)
{
	const struct rw_meta *meta = &in->meta;
	struct rw_watch_params p = {
		.table = m->table, .hash_seed = meta->hash_seed, .window_fd = m->window,
		.stats_fd = m->stats,
		.ncpus = meta->ncpus, .slots = meta->slots, .slot_ns = meta->slot_ns,
		.start_ns = meta->start_clock_ns,
		.clock = meta->coarse_clock ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC,
		.max_flows = meta->max_flows, .sort = a->sort, .levels = &a->levels,
		.key_kind = meta->key_kind, .rank_mask = meta->rank_mask,
		.no_color = a->no_color,
	};
	struct rw_watch w = { 0 };
	struct rw_heavy_record heavy;
	struct rw_rule_env env = { .window_ns = meta->slot_ns * meta->slots, .ncpus = meta->ncpus };
	struct rw_ruleset rules = { 0 };
	bool have_rules = rw_rule_env_open(&env, rw_pin_open_map_ro, in->dir) == 0;
	uint64_t next = rw_clock_ns(CLOCK_MONOTONIC);
	char err[256];
	int ret = 0;

	ret = rw_watch_open(&w, &p, err, sizeof(err));
	close_table_fds(m);
	if (ret) {
		rw_watch_close(&w);
		if (have_rules)
			rw_rule_env_close(&env);
		fprintf(stderr, "ratewall: %s\n", err);
		return RW_EXIT_RUNTIME;
	}
	w.head.what = "top";
	snprintf(w.head.name, sizeof(w.head.name), "%s", meta->name);
	w.head.pps = meta->pps;
	w.head.bps = meta->bps;
	w.head.dry_run = meta->dry_run;
	while (!stop_requested) {
		int e;

		w.head.loader_alive = rw_instance_loader_alive(in->dir_fd);
		if (!w.view.o.paused) {
			heavy_from(&w.head, in->dir, &heavy);
			/* The rules in force, to name each key's (a failed read names none). */
			rw_ruleset_free(&rules);
			w.view.o.rules = have_rules && !rw_rules_read(&env, &rules) ? &rules : NULL;
		}
		/* `ratewall stop` removes the record: the data on screen is the last there was. */
		w.head.gone = faccessat(in->dir_fd, "meta", F_OK, 0) != 0;
		e = rw_watch_refresh(&w, false);
		if (!e) {
			next += a->interval_ns;
			e = rw_watch_wait(&w, next, &stop_requested);
		}
		if (e) {
			ret = e > 0 ? 0 : 1;
			if (e < 0)
				snprintf(err, sizeof(err), "reading the maps failed: %s", strerror(-e));
			break;
		}
		while (next <= rw_clock_ns(CLOCK_MONOTONIC))
			next += a->interval_ns; /* a slow pass skips beats instead of bursting */
	}
	rw_watch_close(&w);
	rw_ruleset_free(&rules);
	if (have_rules)
		rw_rule_env_close(&env);
	if (ret)
		fprintf(stderr, "ratewall: %s\n", err);
	return ret;
}

int rw_top_command(int argc, char **argv)
{
	struct rw_svc_args args;
	struct rw_instance in = { .dir_fd = -1, .meta_fd = -1 };
	struct top_maps m = { { -1, -1, -1, -1 }, -1, -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	char err[256], name[RW_NAME_MAX];
	int ret = rw_cli_outcome(rw_cli_parse_top(argc, argv, &args, err, sizeof(err)),
				 argv[0], err);

	if (ret >= 0)
		return ret;
	if (rw_instance_pick(args.pin_root, args.name[0] ? args.name : NULL,
			     args.nifaces ? args.ifnames[0] : NULL, "top watches", name))
		return RW_EXIT_RUNTIME;
	ret = open_instance(&args, name, &in, &m);
	if (!ret) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		ret = watch(&args, &in, &m);
	}
	close_maps(&m);
	rw_instance_close(&in);
	return ret;
}
