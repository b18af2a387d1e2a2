// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/usage.h"
#include "model/clock.h"
#include "model/errmsg.h"
#include "model/instance.h"
#include "model/key.h"
#include "model/lines.h"
#include "ratewall.h"

/* Every parse error is EINVAL. */
#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Index of arg in names, or -1. */
static int choice(const char *arg, const char *const names[], int n)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0)
			return i;
	}
	return -1;
}

/* --interval and --sort for top: the run rows' parse, into top's own fields. */
int rw_cli_interval(const char *arg, uint64_t *ns, char *err, size_t errlen)
{
	struct rw_cli_args a;
	int ret = rw_opt_apply(rw_opt_find("interval"), arg, &a, err, errlen);

	if (!ret)
		*ns = a.cfg.interval_ns;
	return ret;
}

const char *rw_sort_name(enum rw_sort sort)
{
	return (unsigned int)sort <= RW_SORT_DROPS ? rw_sort_names[sort] : "?";
}

int rw_cli_sort(const char *arg, enum rw_sort *sort, char *err, size_t errlen)
{
	struct rw_cli_args a;
	int ret = rw_opt_apply(rw_opt_find("sort"), arg, &a, err, errlen);

	if (!ret)
		*sort = a.cfg.sort;
	return ret;
}

/*
 * --clock coarse where it cannot keep time: slots shorter than a jiffy, or a
 * burst under half of one (config.h says why). The jiffy is this kernel's.
 */
static int check_coarse(const struct rw_config *cfg, char *err, size_t errlen)
{
	uint64_t tick = rw_coarse_tick_ns(), slot = rw_slot_ns(cfg);

	if (cfg->clock != RW_CLOCK_COARSE || !tick)
		return 0;
	if (slot < tick)
		return fail(err, errlen, "--clock coarse: each slot would last %.3f ms, shorter than "
			    "a jiffy (%.3f ms): the clock would skip slots; use --clock precise or "
			    "slots of %.3f ms or more", slot / 1e6, tick / 1e6, tick / 1e6);
	if (!rw_coarse_burst_fits(cfg->burst_ns, tick))
		return fail(err, errlen, "--clock coarse: a --burst of %.6g ms is less than half a "
			    "jiffy (%.6g ms): a key would get less than its rate; give --burst "
			    "%.6gms or more, or --clock precise", cfg->burst_ns / 1e6, tick / 2e6,
			    tick / 2e6);
	return 0;
}

/*
 * --on-event-* and --bgp-* shape --on-event and --bgp: given without them
 * they would do nothing, so they are refused (a default is the table's own).
 */
static int validate_act(const struct rw_config *cfg, char *err, size_t errlen)
{
	struct rw_cli_args d;
	struct rw_bgp_config bgp = cfg->bgp;

	rw_opt_defaults(&d);
	if (!cfg->hook.command[0] && memcmp(&cfg->hook, &d.cfg.hook, sizeof(cfg->hook)))
		return fail(err, errlen, "--on-event-kinds, -timeout, -running and -rate shape "
			    "--on-event: give --on-event CMD too");
	if ((cfg->hook.kinds & (RW_EV_BIT(RW_EV_HEAVY) | RW_EV_BIT(RW_EV_LIGHT))) &&
	    !cfg->levels.n[0] && !cfg->levels.n[1])
		return fail(err, errlen, "--on-event-kinds heavy and light are of the prefixes "
			    "--levels ranks: give --levels too");
	if (cfg->on_event_user[0] && !cfg->hook.command[0] && !cfg->bgp.api[0])
		return fail(err, errlen, "--on-event-user is who --on-event's commands and --bgp's "
			    "helpers run as: give --on-event or --bgp too");
	strcpy(bgp.api, d.cfg.bgp.api);
	if (!cfg->bgp.api[0] && memcmp(&bgp, &d.cfg.bgp, sizeof(bgp)))
		return fail(err, errlen, "the --bgp-* options shape --bgp: give --bgp [HOST:]PORT too");
	if (cfg->bgp.prefixes && !cfg->levels.n[0] && !cfg->levels.n[1])
		return fail(err, errlen, "--bgp-prefixes announces the heavy prefixes of --levels: "
			    "give --levels too");
	if (cfg->bgp.api[0] && !cfg->bgp.nown)
		return fail(err, errlen, "--bgp needs --bgp-own CIDR[,CIDR]: your prefixes, the only "
			    "destinations its routes may name");
	if (cfg->bgp.victim_floor && cfg->key_kind != RW_KIND_DST &&
	    !(cfg->rank_mask & (1u << RW_KIND_DST)))
		return fail(err, errlen, "--bgp-victim-floor blackholes a destination: give --key dst "
			    "or --rank dst too");
	if (cfg->bgp.flowspec_rate && !cfg->bps)
		return fail(err, errlen, "--bgp-flowspec-rate holds a source to --bps upstream (a "
			    "FlowSpec rate counts bytes): give --bps too");
	if (cfg->bgp.api[0] && !cfg->ban_ns && !cfg->bgp.prefixes)
		return fail(err, errlen, "--bgp announces banned keys: give --ban DURATION (or "
			    "--bgp-prefixes with --levels)");
	return 0;
}

static int validate(struct rw_config *cfg, char *err, size_t errlen)
{
	uint64_t slot_ns = rw_slot_ns(cfg);
	struct rw_cli_args defaults;

	rw_opt_defaults(&defaults);

	if (slot_ns < RW_MIN_SLOT_NS || slot_ns > RW_MAX_SLOT_NS)
		return fail(err, errlen,
			    "--window/--slots: each slot would last %.3f ms; it must be 1 ms to 60 s "
			    "(use more slots for a longer window)", slot_ns / 1e6);
	if (cfg->burst_ns != RW_BURST_WINDOW && cfg->burst_ns > rw_slot_ns(cfg) * cfg->slots)
		return fail(err, errlen, "--burst: %.6g s is more than the window (%.6g s): a key "
			    "never holds more than a window's budget", cfg->burst_ns / 1e9,
			    rw_slot_ns(cfg) * cfg->slots / 1e9);
	if (check_coarse(cfg, err, errlen))
		return -EINVAL;
	if (cfg->max_flows && cfg->max_memory)
		return fail(err, errlen, "--max-flows and --max-memory both size the flow table; give one");
	if (cfg->tui && cfg->json)
		return fail(err, errlen, "--tui and --json both want stdout; give one");
	if (cfg->tui && strcmp(cfg->events_path, "-") == 0)
		return fail(err, errlen, "--tui and --events - both want stdout; give --events a file");
	if (cfg->no_color && !cfg->tui)
		return fail(err, errlen, "--no-color is for the terminal view: it needs --tui");
	if (cfg->replace && !cfg->persist)
		return fail(err, errlen, "--replace swaps a pinned instance: it needs --persist");
	if (!cfg->history_path[0] &&
	    (cfg->history_keep_ns != RW_HISTORY_KEEP_NS || cfg->history_max != RW_HISTORY_MAX))
		return fail(err, errlen, "--history-keep and --history-max shape --history: give "
			    "--history FILE too");
	if (!cfg->metrics[0] && cfg->metrics_min_share_ppm != defaults.cfg.metrics_min_share_ppm)
		return fail(err, errlen, "--metrics-min-share shapes what /metrics carries: give "
			    "--metrics [ADDR:]PORT too");
	if (!cfg->metrics[0]) /* no page to carry them: rank the top-N only */
		cfg->metrics_min_share_ppm = 0;
	if (cfg->rank_mask & (1u << cfg->key_kind))
		return fail(err, errlen, "--rank %s: that is the --key kind, ranked already",
			    rw_key_kind_name(cfg->key_kind));
	return validate_act(cfg, err, errlen);
}

#define RW_CONFIG_LINE_MAX 1024

/* The row a config file key names (a long option, without "--"), or NULL. */
static const struct rw_opt *config_key(const char *key)
{
	const struct rw_opt *o = rw_opt_find(key);

	return o && (o->flags & RW_OPT_KEY) ? o : NULL;
}

/* A switch's value in a file: empty (on), or one of the usual words. 1 on, 0 off, -1 neither. */
static int config_switch(const char *v)
{
	static const char *const on[] = { "", "yes", "true", "on", "1" };
	static const char *const off[] = { "no", "false", "off", "0" };

	if (choice(v, on, ARRAY_LEN(on)) >= 0)
		return 1;
	return choice(v, off, ARRAY_LEN(off)) >= 0 ? 0 : -1;
}

/* One line's key and value, applied; "already set" is the caller's. */
static int config_line(const struct rw_opt *o, const char *key, const char *val,
		       struct rw_cli_args *a, char *why, size_t whylen)
{
	if (o->type == RW_OPT_SWITCH) {
		int on = config_switch(val);

		if (on < 0)
			return fail(why, whylen, "'%s' takes yes or no, not '%s'", key, val);
		return on ? rw_opt_apply(o, NULL, a, why, whylen) : 0;
	}
	if (!*val)
		return fail(why, whylen, "'%s' needs a value", key);
	return rw_opt_apply(o, val, a, why, whylen);
}

static int apply_stream(FILE *f, const char *path, struct rw_cli_args *a, char *err, size_t errlen)
{
	char buf[RW_CONFIG_LINE_MAX + 2], why[256], *line;
	unsigned int seen[RW_OPTIONS_MAX] = { 0 }, lineno = 0;
	int ret = 0, got;

	while (!ret && (got = rw_next_line(f, buf, sizeof(buf), &lineno, &line, path, err,
					  errlen)) == 1) {
		const struct rw_opt *o;
		char *key = line, *val;
		size_t klen = strcspn(line, " \t="), row;

		val = line + klen;
		val += strspn(val, " \t");
		if (*val == '=')
			val += 1 + strspn(val + 1, " \t");
		key[klen] = '\0';
		o = config_key(key);
		if (!o)
			return fail(err, errlen, "%s:%u: unknown key '%s' (keys are the options of "
				    "ratewall run, without --)", path, lineno, key);
		row = (size_t)(o - rw_options);
		if (seen[row])
			return fail(err, errlen, "%s:%u: '%s' is already set on line %u", path, lineno,
				    key, seen[row]);
		seen[row] = lineno;
		if (config_line(o, key, val, a, why, sizeof(why)))
			ret = fail(err, errlen, "%s:%u: %s", path, lineno, why);
	}
	if (!ret && got < 0)
		ret = got; /* an overlong line, said by rw_next_line */
	if (!ret && ferror(f))
		ret = fail(err, errlen, "--config: cannot read '%s': %s", path, strerror(errno));
	return ret;
}

int rw_config_apply_stream(FILE *f, const char *path, struct rw_config *cfg, char *err,
			   size_t errlen)
{
	struct rw_cli_args a = { .cfg = *cfg };
	int ret = apply_stream(f, path, &a, err, errlen);

	*cfg = a.cfg;
	return ret;
}

/* Applies the config file at path; every error names the file (and line). */
static int apply_config(const char *path, struct rw_cli_args *a, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return fail(err, errlen, "--config: cannot read '%s': %s", path, strerror(errno));
	ret = apply_stream(f, path, a, err, errlen);
	fclose(f);
	return ret;
}

/*
 * The --config FILE among the arguments (NULL: none), found before the flags
 * apply. It scans a copy: getopt reorders what it scans, and the real pass
 * must see the arguments as they were given.
 */
static int find_config(int argc, char **argv, const struct option *options, const char **path,
		       char *err, size_t errlen)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	const struct rw_opt *config = rw_opt_find("config");
	int opt, ret = 0;

	*path = NULL;
	if (!copy)
		return fail(err, errlen, "out of memory");
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	optind = 0;
	opterr = 0;
	while (!ret && (opt = getopt_long(argc, copy, ":vh", options, NULL)) != -1) {
		if (rw_opt_of_val(opt) != config)
			continue;
		if (*path)
			ret = fail(err, errlen, "--config given twice");
		*path = optarg;
	}
	free(copy);
	return ret;
}

/* The flags, over the defaults and the config file. 0, 1 for --help, or -EINVAL. */
static int parse_flags(int argc, char **argv, unsigned int cmd, struct rw_cli_args *a, char *err,
		       size_t errlen)
{
	struct option options[RW_OPTIONS_MAX + 1];
	const char *config;
	int opt, ret;

	rw_opt_getopt(cmd, options);
	rw_opt_defaults(a);
	err[0] = '\0';
	/* A config file first, so that flags override it. */
	ret = find_config(argc, argv, options, &config, err, errlen);
	if (!ret && config)
		ret = apply_config(config, a, err, errlen);
	if (ret)
		return ret;
	optind = 0; /* full getopt reset: the parser may run more than once (tests) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":vh", options, NULL)) != -1) {
		const struct rw_opt *o = rw_opt_of_val(opt);

		if (opt == ':')
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		if (!o || !(o->flags & cmd))
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		if (o->type == RW_OPT_META) {
			if (o->short_name == 'h')
				return 1;
			continue; /* --config, applied above */
		}
		ret = rw_opt_apply(o, optarg, a, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* Both commands' parser; cpus is NULL for `run`, which takes no --cpus. */
static int parse_args(int argc, char **argv, struct rw_config *cfg, uint32_t *cpus, char *err,
		      size_t errlen)
{
	struct rw_cli_args a;
	int ret = parse_flags(argc, argv, cpus ? RW_OPT_MEMORY : RW_OPT_RUN, &a, err, errlen);

	*cfg = a.cfg;
	if (ret)
		return ret;
	if (cpus) {
		if (a.cpus)
			*cpus = a.cpus;
		if (optind < argc)
			return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
		return validate(cfg, err, errlen);
	}
	if (optind >= argc)
		return fail(err, errlen, "missing IFACE: ratewall run IFACE... [options]");
	ret = rw_cli_ifaces(argc - optind, argv + optind, cfg->ifnames, &cfg->nifaces, err, errlen);
	if (ret)
		return ret;
	if (!cfg->name[0])
		rw_default_instance_name(cfg->ifnames, cfg->nifaces, cfg->name);
	if (cfg->bgp.api[0] && !cfg->bgp.owner)
		cfg->bgp.owner = rw_bgp_default_owner(cfg->name);
	return validate(cfg, err, errlen);
}

int rw_cli_ifaces(int argc, char **argv, char ifnames[][IF_NAMESIZE], uint32_t *n, char *err,
		  size_t errlen)
{
	if (argc > RW_MAX_IFACES)
		return fail(err, errlen, "at most %d interfaces per instance, not %d", RW_MAX_IFACES,
			    argc);
	for (int i = 0; i < argc; i++) {
		if (!rw_valid_ifname(argv[i]))
			return fail(err, errlen, "'%s' is not a valid interface name", argv[i]);
		for (int j = 0; j < i; j++) {
			if (strcmp(argv[i], argv[j]) == 0)
				return fail(err, errlen, "interface '%s' is listed twice", argv[i]);
		}
		strcpy(ifnames[i], argv[i]);
	}
	*n = (uint32_t)argc;
	return 0;
}

int rw_cli_parse_run(int argc, char **argv, struct rw_config *cfg, char *err, size_t errlen)
{
	return parse_args(argc, argv, cfg, NULL, err, errlen);
}

int rw_cli_parse_memory(int argc, char **argv, struct rw_config *cfg, uint32_t *cpus, char *err,
			size_t errlen)
{
	return parse_args(argc, argv, cfg, cpus, err, errlen);
}

int rw_cli_outcome(int ret, const char *cmd, const char *err)
{
	if (ret == 1) {
		rw_cli_usage(stdout, cmd);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "ratewall: %s\n", err);
		return 2;
	}
	return -1;
}
