// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/clock.h"
#include "cli/errmsg.h"
#include "cli/key.h"
#include "cli/lines.h"
#include "cli/listen.h"
#include "cli/units.h"
#include "ratewall.h"

void rw_cli_usage(FILE *out)
{
	fprintf(out,
		"usage: ratewall run IFACE... [options]\n"
		"\n"
		"Attach to each IFACE (up to %d, sharing one flow table: a key's limit\n"
		"holds across them combined), cap every source address (or destination,\n"
		"conversation or flow: --key) and show the top talkers.\n"
		"\n"
		"  --pps RATE          packets per second per key (k, M, G suffixes)\n"
		"  --bps RATE          bits per second per key (k, M, G suffixes)\n"
		"  --key src|dst|pair|flow  what limits, rankings, events and bans are keyed\n"
		"                      by: source, destination, source -> destination, or\n"
		"                      protocol and both ends with ports (default src)\n"
		"  --v6-prefix LEN     leading bits of an IPv6 address a src, dst or pair key\n"
		"                      keeps, 1..128 (default %d: one host's /64 is one key)\n"
		"  --rank KIND[,KIND]  also rank these other kinds (src, dst, pair, flow) in\n"
		"                      the same run: counted and ranked, never limited\n"
		"  --window DURATION   sliding window length (default 1s)\n"
		"  --slots N           slots per window, %d..%d (default 10)\n"
		"  --max-flows N       most sources tracked exactly at once (default %d);\n"
		"                      every other source is counted in the sketch\n"
		"  --max-memory SIZE   size the tracked-flow tables to a kernel memory budget\n"
		"                      instead (K, M, G; see: ratewall memory)\n"
		"  --top N             sources shown each interval (default 10)\n"
		"  --interval DURATION time between reports (default 1s)\n"
		"  --duration DURATION exit after this long (default: until Ctrl-C)\n"
		"  --sort pps|bps|drops  ranking order (default pps)\n"
		"  --xdp-mode native|generic|auto  (default auto: native, else generic)\n"
		"  --clock auto|precise|coarse  kernel clock for slots (default auto: coarse\n"
		"                      when a slot lasts 20 of its ticks or more and --burst\n"
		"                      half a tick or more; coarse needs slots of a tick and\n"
		"                      --burst of half a tick or more)\n"
		"  --json              one JSON object per interval instead of a table\n"
		"  --tui               a live full-screen view instead of the table (keys as\n"
		"                      in ratewall top; ? shows them)\n"
		"  --no-color          with --tui: no colours (also when NO_COLOR is set)\n"
		"  --rules FILE        rules, one a line: CIDR [PROTO [sport P] [dport P]\n"
		"                      [flags F] [type T]] allow | deny | limit RATE[pps]\n"
		"                      [RATEbps] [per src|dst|pair|/LEN]; longest prefix\n"
		"                      wins; SIGHUP reads the file again (man ratewall)\n"
		"  --max-rules N       most rules in force at once, 1..65536 (default 4096;\n"
		"                      each one's counts take 16 B a CPU)\n"
		"  --levels SPEC       also rank prefixes, e.g. 'v4:32,24,16 v6:128,64,48': the\n"
		"                      hierarchical heavy hitters of the window\n"
		"  --hhh-share PCT     a prefix is heavy at this share of the window's traffic,\n"
		"                      net of its heavy more-specific prefixes (default 5)\n"
		"  --burst DURATION|window  how much of its rate a key may save up and send\n"
		"                      at once (default 100ms, at most the window): over its\n"
		"                      rate a key is admitted evenly, at the rate, which TCP\n"
		"                      can follow; window: no schedule, a key may take its\n"
		"                      window's whole budget at once\n"
		"  --ban DURATION      a tracked source that goes over its limit is dropped\n"
		"                      entirely this long, then released\n"
		"  --events FILE|-     limited, released, banned, unbanned as JSON lines\n"
		"                      (at most 1000 a second; the rest counted)\n"
		"  --history FILE      keep every report (totals, top-N, heavy prefixes,\n"
		"                      events) in an SQLite database, once per window; read\n"
		"                      it with: ratewall history FILE\n"
		"  --history-keep DURATION  delete windows older than this (default 7d)\n"
		"  --history-max SIZE  delete the oldest windows to stay under SIZE (default\n"
		"                      256M, at least 1M)\n"
		"  --metrics [ADDR:]PORT  serve /metrics for Prometheus (address default\n"
		"                      127.0.0.1; IPv6 as [::1]:PORT)\n"
		"  --dry-run           drop nothing: count and report what would be dropped\n"
		"  --malformed pass|drop  frames whose IPv4/IPv6 headers do not hold together\n"
		"                      (truncated, bad lengths): pass them unkeyed (default)\n"
		"                      or drop them\n"
		"  --config FILE       options from FILE, one per line ('pps 10k' or\n"
		"                      'pps = 10k', '#' comments); flags given here win\n"
		"  --persist           pin the program, maps and a status record: the kernel\n"
		"                      keeps enforcing after ratewall exits, and the next\n"
		"                      run --persist on the same interfaces adopts them\n"
		"  --replace           with --persist: options that differ from the pinned\n"
		"                      instance's swap its program atomically (else refused)\n"
		"  --name NAME         instance name (default: the interfaces joined by '+')\n"
		"  --pin-dir DIR       root of the pinned instances, on a BPF filesystem\n"
		"                      (default %s)\n"
		"  -v, --verbose       libbpf and loader diagnostics on stderr\n"
		"\n"
		"Durations: 250us, 500ms, 2s, 1m, 1h, 7d. Exit status: 0 done, 1 runtime\n"
		"failure, 2 bad usage.\n"
		"\n"
		"usage: ratewall memory [--cpus N] [run options]\n"
		"\n"
		"Print the kernel memory each map takes for N possible CPUs (default: this\n"
		"machine) with those options, ending with a line 'total SIZE'.\n"
		"\n"
		"usage: ratewall status [--json] [--pin-dir DIR]\n"
		"       ratewall stop IFACE... | --name NAME | --all [--pin-dir DIR]\n"
		"       ratewall rule add RULE | del CIDR [MATCH] | list [--name NAME] [--pin-dir DIR]\n"
		"       ratewall top [IFACE] [--name NAME] [--pin-dir DIR] [--interval DURATION]\n"
		"                    [--sort pps|bps|drops] [--levels SPEC] [--no-color]\n"
		"\n"
		"status lists the pinned instances; stop detaches one and removes its pins;\n"
		"rule edits the rules of one (--name, or the only one), in force at once;\n"
		"top watches one (IFACE, --name, or the only one) live, full screen: keys\n"
		"s sort, p pause, / filter by prefix, l limited only, v prefix levels,\n"
		"? help, q quit.\n",
		RW_MAX_IFACES, RW_DEFAULT_V6_PREFIX, RW_MIN_SLOTS, RW_MAX_SLOTS, RW_DEFAULT_MAX_FLOWS, RW_DEFAULT_PIN_ROOT);
}

/* Every parse error is EINVAL. */
#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

enum {
	OPT_PPS = 256, OPT_BPS, OPT_WINDOW, OPT_SLOTS, OPT_MAX_FLOWS, OPT_MAX_MEMORY, OPT_MAX_RULES,
	OPT_TOP, OPT_INTERVAL, OPT_DURATION, OPT_SORT, OPT_XDP_MODE, OPT_JSON, OPT_CLOCK, OPT_CPUS,
	OPT_CONFIG, OPT_PERSIST, OPT_REPLACE, OPT_NAME, OPT_PIN_DIR, OPT_DRY_RUN, OPT_MALFORMED,
	OPT_RULES, OPT_LEVELS, OPT_HHH_SHARE, OPT_BAN, OPT_EVENTS, OPT_METRICS, OPT_TUI,
	OPT_NO_COLOR, OPT_KEY, OPT_V6_PREFIX, OPT_RANK, OPT_HISTORY, OPT_HISTORY_KEEP,
	OPT_HISTORY_MAX, OPT_BURST,
};

static const struct option run_options[] = {
	{ "pps", required_argument, NULL, OPT_PPS },
	{ "bps", required_argument, NULL, OPT_BPS },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "v6-prefix", required_argument, NULL, OPT_V6_PREFIX },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "slots", required_argument, NULL, OPT_SLOTS },
	{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "max-rules", required_argument, NULL, OPT_MAX_RULES },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "xdp-mode", required_argument, NULL, OPT_XDP_MODE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "tui", no_argument, NULL, OPT_TUI },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "levels", required_argument, NULL, OPT_LEVELS },
	{ "hhh-share", required_argument, NULL, OPT_HHH_SHARE },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "ban", required_argument, NULL, OPT_BAN },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "history-keep", required_argument, NULL, OPT_HISTORY_KEEP },
	{ "history-max", required_argument, NULL, OPT_HISTORY_MAX },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "malformed", required_argument, NULL, OPT_MALFORMED },
	{ "persist", no_argument, NULL, OPT_PERSIST },
	{ "replace", no_argument, NULL, OPT_REPLACE },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "pin-dir", required_argument, NULL, OPT_PIN_DIR },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Index of arg in names (the enum's order), or -1. */
static int choice(const char *arg, const char *const names[], int n)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0)
			return i;
	}
	return -1;
}

static const char *const sort_names[] = { "pps", "bps", "drops" };          /* enum rw_sort */
static const char *const mode_names[] = { "auto", "native", "generic" };    /* enum rw_xdp_mode */
static const char *const clock_names[] = { "auto", "precise", "coarse" };   /* enum rw_clock */
static const char *const malformed_names[] = { "pass", "drop" };            /* malformed_drop */

int rw_cli_interval(const char *arg, uint64_t *ns, char *err, size_t errlen)
{
	if (rw_parse_duration(arg, ns) || *ns < 10000000ULL)
		return fail(err, errlen, "--interval: '%s' must be a duration of at least 10ms", arg);
	return 0;
}

const char *rw_sort_name(enum rw_sort sort)
{
	return (unsigned int)sort < ARRAY_LEN(sort_names) ? sort_names[sort] : "?";
}

int rw_cli_sort(const char *arg, enum rw_sort *sort, char *err, size_t errlen)
{
	int i = choice(arg, sort_names, ARRAY_LEN(sort_names));

	if (i < 0)
		return fail(err, errlen, "--sort: '%s' is not one of pps, bps, drops", arg);
	*sort = (enum rw_sort)i;
	return 0;
}

/* "0", "0ms", "0.0s": durations take none of these, --burst does (no burst at all). */
static bool is_zero_duration(const char *arg)
{
	static const char *const units[] = { "", "ns", "us", "ms", "s" };
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || v != 0.0 || arg[0] == '-')
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i]) == 0)
			return true;
	return false;
}

static int parse_one(int opt, const char *arg, struct rw_config *cfg, char *err, size_t errlen)
{
	uint64_t v;
	int i;

	switch (opt) {
	case OPT_PPS:
		if (rw_parse_rate(arg, &cfg->pps))
			return fail(err, errlen, "--pps: '%s' is not a rate (e.g. 1000, 10k, 1.5M)", arg);
		return 0;
	case OPT_BPS:
		if (rw_parse_rate(arg, &cfg->bps))
			return fail(err, errlen, "--bps: '%s' is not a rate in bits/s (e.g. 100M, 1G)", arg);
		return 0;
	case OPT_WINDOW:
		if (rw_parse_duration(arg, &cfg->window_ns))
			return fail(err, errlen, "--window: '%s' is not a duration (e.g. 500ms, 2s)", arg);
		return 0;
	case OPT_SLOTS:
		if (rw_parse_uint(arg, RW_MIN_SLOTS, RW_MAX_SLOTS, &v))
			return fail(err, errlen, "--slots: '%s' must be a whole number from %d to %d",
				    arg, RW_MIN_SLOTS, RW_MAX_SLOTS);
		cfg->slots = (uint32_t)v;
		return 0;
	case OPT_MAX_FLOWS:
		if (rw_parse_uint(arg, 1, RW_MAX_MAX_FLOWS, &v))
			return fail(err, errlen, "--max-flows: '%s' must be a whole number from 1 to %u",
				    arg, RW_MAX_MAX_FLOWS);
		cfg->max_flows = (uint32_t)v;
		return 0;
	case OPT_MAX_RULES:
		if (rw_parse_uint(arg, 1, RW_MAX_RULES, &v))
			return fail(err, errlen, "--max-rules: '%s' must be a whole number from 1 to %d",
				    arg, RW_MAX_RULES);
		cfg->max_rules = (uint32_t)v;
		return 0;
	case OPT_MAX_MEMORY:
		if (rw_parse_size(arg, &cfg->max_memory))
			return fail(err, errlen, "--max-memory: '%s' is not a size (e.g. 64M, 1G)", arg);
		return 0;
	case OPT_TOP:
		if (rw_parse_uint(arg, 1, RW_MAX_TOP, &v))
			return fail(err, errlen, "--top: '%s' must be a whole number from 1 to %d",
				    arg, RW_MAX_TOP);
		cfg->top = (uint32_t)v;
		return 0;
	case OPT_INTERVAL:
		return rw_cli_interval(arg, &cfg->interval_ns, err, errlen);
	case OPT_DURATION:
		if (rw_parse_duration(arg, &cfg->duration_ns))
			return fail(err, errlen, "--duration: '%s' is not a duration (e.g. 30s, 5m)", arg);
		return 0;
	case OPT_SORT:
		return rw_cli_sort(arg, &cfg->sort, err, errlen);
	case OPT_XDP_MODE:
		i = choice(arg, mode_names, ARRAY_LEN(mode_names));
		if (i < 0)
			return fail(err, errlen, "--xdp-mode: '%s' is not one of native, generic, auto", arg);
		cfg->xdp_mode = (enum rw_xdp_mode)i;
		return 0;
	case OPT_JSON:
		cfg->json = true;
		return 0;
	case OPT_CLOCK:
		i = choice(arg, clock_names, ARRAY_LEN(clock_names));
		if (i < 0)
			return fail(err, errlen, "--clock: '%s' is not one of auto, precise, coarse", arg);
		cfg->clock = (enum rw_clock)i;
		return 0;
	case OPT_DRY_RUN:
		cfg->dry_run = true;
		return 0;
	case OPT_LEVELS:
		return rw_parse_levels(arg, &cfg->levels, err, errlen);
	case OPT_HHH_SHARE:
		if (rw_parse_uint(arg, 1, 100, &v))
			return fail(err, errlen, "--hhh-share: '%s' must be a whole percentage, 1 to 100",
				    arg);
		cfg->hhh_share_pct = (uint32_t)v;
		return 0;
	case OPT_BURST:
		if (strcmp(arg, "window") == 0)
			cfg->burst_ns = RW_BURST_WINDOW;
		else if (is_zero_duration(arg))
			cfg->burst_ns = 0;
		else if (rw_parse_duration(arg, &cfg->burst_ns))
			return fail(err, errlen, "--burst: '%s' is not a duration (e.g. 0, 20ms, 100ms) or 'window'",
				    arg);
		return 0;
	case OPT_BAN:
		if (rw_parse_duration(arg, &cfg->ban_ns))
			return fail(err, errlen, "--ban: '%s' is not a duration (e.g. 30s, 10m)", arg);
		return 0;
	case OPT_METRICS: {
		struct sockaddr_storage ss;
		socklen_t len;

		if (strlen(arg) >= sizeof(cfg->metrics))
			return fail(err, errlen, "--metrics: '%s' is too long", arg);
		if (rw_parse_listen(arg, &ss, &len, err, errlen))
			return -EINVAL;
		strcpy(cfg->metrics, arg);
		return 0;
	}
	case OPT_EVENTS:
		if (!arg[0] || strlen(arg) >= RW_PATH_MAX)
			return fail(err, errlen, "--events: give a file path (or -) shorter than %d bytes",
				    RW_PATH_MAX);
		strcpy(cfg->events_path, arg);
		return 0;
	case OPT_HISTORY:
		if (!arg[0] || strlen(arg) >= RW_PATH_MAX || strcmp(arg, "-") == 0)
			return fail(err, errlen, "--history: give a file path shorter than %d bytes",
				    RW_PATH_MAX);
		strcpy(cfg->history_path, arg);
		return 0;
	case OPT_HISTORY_KEEP:
		if (rw_parse_duration(arg, &cfg->history_keep_ns) ||
		    cfg->history_keep_ns < 1000000000ULL)
			return fail(err, errlen, "--history-keep: '%s' must be a duration of at least "
				    "1s (e.g. 12h, 7d)", arg);
		return 0;
	case OPT_HISTORY_MAX:
		if (rw_parse_size(arg, &cfg->history_max) || cfg->history_max < RW_HISTORY_MAX_MIN)
			return fail(err, errlen, "--history-max: '%s' must be a size of at least 1M "
				    "(e.g. 64M, 1G)", arg);
		return 0;
	case OPT_RULES:
		if (!arg[0] || strlen(arg) >= RW_PATH_MAX)
			return fail(err, errlen, "--rules: give a file path shorter than %d bytes",
				    RW_PATH_MAX);
		strcpy(cfg->rules_path, arg);
		return 0;
	case OPT_KEY:
		i = rw_key_kind_parse(arg);
		if (i < 0)
			return fail(err, errlen, "--key: '%s' is not one of src, dst, pair, flow", arg);
		cfg->key_kind = (uint8_t)i;
		return 0;
	case OPT_RANK: {
		char why[96];
		unsigned int mask;

		if (rw_key_kinds_parse(arg, &mask, why, sizeof(why)))
			return fail(err, errlen, "--rank: %s", why);
		cfg->rank_mask = (uint8_t)mask;
		return 0;
	}
	case OPT_V6_PREFIX:
		if (rw_parse_uint(arg[0] == '/' ? arg + 1 : arg, 1, 128, &v))
			return fail(err, errlen, "--v6-prefix: '%s' must be a prefix length from 1 to 128",
				    arg);
		cfg->v6_prefix = (uint8_t)v;
		return 0;
	case OPT_MALFORMED:
		i = choice(arg, malformed_names, ARRAY_LEN(malformed_names));
		if (i < 0)
			return fail(err, errlen, "--malformed: '%s' is not one of pass, drop", arg);
		cfg->malformed_drop = i == 1;
		return 0;
	case OPT_PERSIST:
		cfg->persist = true;
		return 0;
	case OPT_TUI:
		cfg->tui = true;
		return 0;
	case OPT_NO_COLOR:
		cfg->no_color = true;
		return 0;
	case OPT_REPLACE:
		cfg->replace = true;
		return 0;
	case OPT_NAME:
		if (!rw_valid_instance_name(arg))
			return fail(err, errlen, "--name: '%s' must be 1 to %d bytes without '/', "
				    "blanks or control characters, and not . or ..", arg,
				    RW_NAME_MAX - 1);
		strcpy(cfg->name, arg);
		return 0;
	case OPT_PIN_DIR:
		if (arg[0] != '/' || strlen(arg) >= RW_PIN_ROOT_MAX)
			return fail(err, errlen, "--pin-dir: '%s' must be an absolute path shorter "
				    "than %d bytes", arg, RW_PIN_ROOT_MAX);
		strcpy(cfg->pin_root, arg);
		return 0;
	case 'v':
		cfg->verbose = true;
		return 0;
	}
	return fail(err, errlen, "internal: unhandled option %d", opt);
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

static int validate(struct rw_config *cfg, char *err, size_t errlen)
{
	uint64_t slot_ns = rw_slot_ns(cfg);

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
	if (cfg->rank_mask & (1u << cfg->key_kind))
		return fail(err, errlen, "--rank %s: that is the --key kind, ranked already",
			    rw_key_kind_name(cfg->key_kind));
	return 0;
}

#define RW_CONFIG_LINE_MAX 1024

/* The run option a config file key names (a long option, without "--"), or NULL. */
static const struct option *config_key(const char *key)
{
	for (const struct option *o = run_options; o->name; o++) {
		if (o->val == 'h' || o->val == OPT_CPUS || o->val == OPT_CONFIG)
			continue;
		if (strcmp(o->name, key) == 0)
			return o;
	}
	return NULL;
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

int rw_config_apply_stream(FILE *f, const char *path, struct rw_config *cfg, char *err,
			   size_t errlen)
{
	char buf[RW_CONFIG_LINE_MAX + 2], why[256], *line;
	unsigned int seen[64] = { 0 }, lineno = 0;
	int ret = 0, got;

	while (!ret && (got = rw_next_line(f, buf, sizeof(buf), &lineno, &line, path, err,
					  errlen)) == 1) {
		const struct option *o;
		char *key, *val;
		size_t klen;

		klen = strcspn(line, " \t=");
		key = line;
		val = line + klen;
		val += strspn(val, " \t");
		if (*val == '=')
			val += 1 + strspn(val + 1, " \t");
		key[klen] = '\0';
		o = config_key(key);
		if (!o) {
			ret = fail(err, errlen, "%s:%u: unknown key '%s' (keys are the options of "
				   "ratewall run, without --)", path, lineno, key);
			break;
		}
		if (seen[o->val & 63]) {
			ret = fail(err, errlen, "%s:%u: '%s' is already set on line %u", path, lineno,
				   key, seen[o->val & 63]);
			break;
		}
		seen[o->val & 63] = lineno;
		if (o->has_arg == no_argument) {
			int on = config_switch(val);

			if (on < 0)
				ret = fail(err, errlen, "%s:%u: '%s' takes yes or no, not '%s'", path,
					   lineno, key, val);
			else if (on && parse_one(o->val, NULL, cfg, why, sizeof(why)))
				ret = fail(err, errlen, "%s:%u: %s", path, lineno, why);
			continue;
		}
		if (!*val) {
			ret = fail(err, errlen, "%s:%u: '%s' needs a value", path, lineno, key);
			break;
		}
		if (parse_one(o->val, val, cfg, why, sizeof(why)))
			ret = fail(err, errlen, "%s:%u: %s", path, lineno, why);
	}
	if (!ret && got < 0)
		ret = got; /* an overlong line, said by rw_next_line */
	if (!ret && ferror(f))
		ret = fail(err, errlen, "--config: cannot read '%s': %s", path, strerror(errno));
	return ret;
}

/* Applies the config file at path; every error names the file (and line). */
static int apply_config(const char *path, struct rw_config *cfg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return fail(err, errlen, "--config: cannot read '%s': %s", path, strerror(errno));
	ret = rw_config_apply_stream(f, path, cfg, err, errlen);
	fclose(f);
	return ret;
}

/*
 * The --config FILE among the arguments (NULL: none), found before the flags
 * apply. It scans a copy: getopt reorders what it scans, and the real pass
 * must see the arguments as they were given.
 */
static int find_config(int argc, char **argv, const char **path, char *err, size_t errlen)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int opt, ret = 0;

	*path = NULL;
	if (!copy)
		return fail(err, errlen, "out of memory");
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	optind = 0;
	opterr = 0;
	while (!ret && (opt = getopt_long(argc, copy, ":vh", run_options, NULL)) != -1) {
		if (opt != OPT_CONFIG)
			continue;
		if (*path)
			ret = fail(err, errlen, "--config given twice");
		*path = optarg;
	}
	free(copy);
	return ret;
}

/* Both commands' parser; cpus is NULL for `run`, which takes no --cpus. */
static int parse_args(int argc, char **argv, struct rw_config *cfg, uint32_t *cpus, char *err,
		      size_t errlen)
{
	const char *config;
	int opt, ret;
	uint64_t v;

	*cfg = (struct rw_config){
		.window_ns = 1000000000ULL,
		.slots = RW_DEFAULT_SLOTS,
		.max_rules = RW_DEFAULT_MAX_RULES,
		.top = 10,
		.interval_ns = 1000000000ULL,
		.sort = RW_SORT_PPS,
		.xdp_mode = RW_XDP_AUTO,
		.clock = RW_CLOCK_AUTO,
		.pin_root = RW_DEFAULT_PIN_ROOT,
		.hhh_share_pct = 5,
		.history_keep_ns = RW_HISTORY_KEEP_NS,
		.history_max = RW_HISTORY_MAX,
		.key_kind = RW_KIND_SRC,
		.v6_prefix = RW_DEFAULT_V6_PREFIX,
		.burst_ns = RW_DEFAULT_BURST_NS,
	};
	err[0] = '\0';
	/* A config file first, so that flags override it. */
	ret = find_config(argc, argv, &config, err, errlen);
	if (!ret && config)
		ret = apply_config(config, cfg, err, errlen);
	if (ret)
		return ret;
	optind = 0; /* full getopt reset: the parser may run more than once (tests) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":vh", run_options, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == OPT_CONFIG)
			continue;
		if (opt == ':')
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		if (opt == '?' || (opt == OPT_CPUS && !cpus))
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		if (opt == OPT_CPUS) {
			if (rw_parse_uint(optarg, 1, RW_MAX_CPUS, &v))
				return fail(err, errlen, "--cpus: '%s' must be a whole number from 1 to %d",
					    optarg, RW_MAX_CPUS);
			*cpus = (uint32_t)v;
			continue;
		}
		ret = parse_one(opt, optarg, cfg, err, errlen);
		if (ret)
			return ret;
	}
	if (cpus) {
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
	return validate(cfg, err, errlen);
}

/*
 * Whether every byte is printable or beyond ASCII (interface names may be
 * UTF-8), and none is in reject. Whitespace and control bytes never are.
 */
static bool clean_bytes(const char *s, const char *reject)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= ' ' || *p == 0x7f || strchr(reject, *p))
			return false;
	}
	return true;
}

bool rw_valid_instance_name(const char *name)
{
	size_t n = strlen(name);

	/* a directory name in bpffs: any clean bytes but '/', and not . or .. */
	return n > 0 && n < RW_NAME_MAX && strcmp(name, ".") && strcmp(name, "..") &&
	       clean_bytes(name, "/");
}

void rw_default_instance_name(const char ifnames[][IF_NAMESIZE], uint32_t n,
			      char name[RW_NAME_MAX])
{
	name[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			strcat(name, "+");
		strcat(name, ifnames[i]);
	}
}

int rw_cli_ifaces(int argc, char **argv, char ifnames[][IF_NAMESIZE], uint32_t *n, char *err,
		  size_t errlen)
{
	if (argc > RW_MAX_IFACES)
		return fail(err, errlen, "at most %d interfaces per instance, not %d", RW_MAX_IFACES,
			    argc);
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]);

		/*
		 * The kernel's rule (no '/', ':' or whitespace, not . or ..), and no
		 * '+', which joins names, nor a leading '-', which starts options.
		 */
		if (len == 0 || len >= IF_NAMESIZE || argv[i][0] == '-' || !strcmp(argv[i], ".") ||
		    !strcmp(argv[i], "..") || !clean_bytes(argv[i], "/:+"))
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

int rw_cli_outcome(int ret, const char *err)
{
	if (ret == 1) {
		rw_cli_usage(stdout);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "ratewall: %s\n", err);
		return 2;
	}
	return -1;
}
