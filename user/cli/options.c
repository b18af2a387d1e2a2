// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The table of every subcommand's options but history's: one row per option. A new option is a
 * row here (and its field in config.h); the parse, defaults, config key,
 * --help and completion follow from it. Rows with a syntax of their own name a
 * parse function below; every other row is parsed by its type (optparse.c).
 */
#include "cli/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/actconf.h"
#include "cli/listen.h"
#include "model/errmsg.h"
#include "model/instance.h"
#include "model/key.h"
#include "model/levels.h"
#include "model/units.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

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

static int parse_burst(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		       size_t errlen)
{
	(void)o;
	if (strcmp(arg, "window") == 0)
		a->cfg.burst_ns = RW_BURST_WINDOW;
	else if (is_zero_duration(arg))
		a->cfg.burst_ns = 0;
	else if (rw_parse_duration(arg, &a->cfg.burst_ns))
		return fail(err, errlen, "--burst: '%s' is not a duration (e.g. 0, 20ms, 100ms) or 'window'",
			    arg);
	return 0;
}

static int parse_metrics(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
			 size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;

	(void)o;
	if (strlen(arg) >= sizeof(a->cfg.metrics))
		return fail(err, errlen, "--metrics: '%s' is too long", arg);
	if (rw_parse_listen(arg, &ss, &len, err, errlen))
		return -EINVAL;
	strcpy(a->cfg.metrics, arg);
	return 0;
}

static int parse_min_share(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			   char *err, size_t errlen)
{
	uint64_t ppm;

	(void)o;
	/* 0 turns it off: the top-N only, and no bound on a fleet sum. */
	if (strcmp(arg, "0") == 0 || strcmp(arg, "0%") == 0) {
		a->cfg.metrics_min_share_ppm = 0;
		return 0;
	}
	if (rw_parse_share_ppm(arg, &ppm) || ppm < RW_MIN_SHARE_PPM_MIN || ppm > RW_MIN_SHARE_PPM_MAX)
		return fail(err, errlen, "--metrics-min-share: '%s' must be a share from 0.1%% to "
			    "50%% (e.g. 0.5%%), or 0 for none", arg);
	a->cfg.metrics_min_share_ppm = (uint32_t)ppm;
	return 0;
}

static int parse_levels(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
			size_t errlen)
{
	(void)o;
	return rw_parse_levels(arg, &a->cfg.levels, err, errlen);
}

static int parse_rank(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		      size_t errlen)
{
	char why[96];
	unsigned int mask;

	(void)o;
	if (rw_key_kinds_parse(arg, &mask, why, sizeof(why)))
		return fail(err, errlen, "--rank: %s", why);
	a->cfg.rank_mask = (uint8_t)mask;
	return 0;
}

/* A length, or /LEN as rules write it. */
static int parse_v6_prefix(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			   char *err, size_t errlen)
{
	uint64_t v;

	(void)o;
	if (rw_parse_uint(arg[0] == '/' ? arg + 1 : arg, 1, 128, &v))
		return fail(err, errlen, "--v6-prefix: '%s' must be a prefix length from 1 to 128", arg);
	a->cfg.v6_prefix = (uint8_t)v;
	return 0;
}

static int parse_name(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		      size_t errlen)
{
	(void)o;
	if (!rw_valid_instance_name(arg))
		return fail(err, errlen, "--name: '%s' must be 1 to %d bytes without '/', blanks or "
			    "control characters, and not . or ..", arg, RW_NAME_MAX - 1);
	strcpy(a->cfg.name, arg);
	return 0;
}

static int parse_on_event(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			  char *err, size_t errlen)
{
	char buf[RW_CMD_MAX], *argv[RW_CMD_WORDS], why[96];

	(void)o;
	if (strlen(arg) >= sizeof(a->cfg.hook.command))
		return fail(err, errlen, "--on-event: the command is longer than %d bytes",
			    RW_CMD_MAX - 1);
	if (rw_split_words(arg, buf, argv, RW_CMD_WORDS, why, sizeof(why)) < 0)
		return fail(err, errlen, "--on-event: '%s': %s", arg, why);
	strcpy(a->cfg.hook.command, arg);
	return 0;
}

/* A name as the user database spells one; looked up at the start (run_start.c). */
static int parse_on_event_user(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			       char *err, size_t errlen)
{
	(void)o;
	if (!arg[0] || strlen(arg) >= sizeof(a->cfg.on_event_user) || arg[0] == '-' ||
	    strpbrk(arg, "/: \t\n\r"))
		return fail(err, errlen, "--on-event-user: '%s' is not a user name (1 to %d bytes, "
			    "no '/', ':' or blank, not starting with '-')", arg, RW_USER_MAX - 1);
	strcpy(a->cfg.on_event_user, arg);
	return 0;
}

static int parse_on_event_kinds(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
				char *err, size_t errlen)
{
	(void)o;
	return rw_parse_event_kinds(arg, &a->cfg.hook.kinds, err, errlen);
}

static int parse_bgp(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		     size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;

	(void)o;
	if (strlen(arg) >= sizeof(a->cfg.bgp.api))
		return fail(err, errlen, "--bgp: '%s' is too long", arg);
	if (rw_parse_listen(arg, &ss, &len, err, errlen))
		return fail(err, errlen, "--bgp: '%s' is not [HOST:]PORT of gobgpd's API", arg);
	strcpy(a->cfg.bgp.api, arg);
	return 0;
}

static int parse_bgp_next_hop(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			      char *err, size_t errlen)
{
	(void)o;
	return rw_parse_next_hops(arg, &a->cfg.bgp, err, errlen);
}

static int parse_bgp_community(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			       char *err, size_t errlen)
{
	(void)o;
	return rw_parse_communities(arg, &a->cfg.bgp, err, errlen);
}

static int parse_bgp_never(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			   char *err, size_t errlen)
{
	(void)o;
	return rw_parse_never(arg, &a->cfg.bgp, err, errlen);
}

static int parse_bgp_owner(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			   char *err, size_t errlen)
{
	(void)o;
	return rw_parse_owner(arg, &a->cfg.bgp, err, errlen);
}

static int parse_bgp_own(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			 char *err, size_t errlen)
{
	(void)o;
	return rw_parse_own(arg, &a->cfg.bgp, err, errlen);
}

const char *const rw_sort_names[] = { "pps", "bps", "drops", NULL };         /* enum rw_sort */
static const char *const mode_names[] = { "auto", "native", "generic", "multi", NULL }; /* enum rw_xdp_mode */
static const char *const clock_names[] = { "auto", "precise", "coarse", NULL }; /* enum rw_clock */
static const char *const malformed_names[] = { "pass", "drop", NULL };         /* malformed_drop */

#define FIELD(f) .offset = offsetof(struct rw_cli_args, f), .size = sizeof(((struct rw_cli_args *)0)->f)
#define CFG(f) FIELD(cfg.f)
#define STR_(x) #x
#define STR(x) STR_(x)
#define KEY (RW_OPT_BOTH | RW_OPT_KEY)
#define PINNED (KEY | RW_OPT_PINNED)

const struct rw_opt rw_options[] = {
	{ "pps", 0, RW_OPT_RATE, CFG(pps), .arg = "RATE", .flags = PINNED,
	  .help = "packets per second each key may send (default: no packet limit)" },
	{ "bps", 0, RW_OPT_RATE, CFG(bps), .arg = "RATE", .flags = PINNED,
	  .help = "bits per second each key may send (default: no byte limit); with neither "
		  "--pps nor --bps, ratewall only counts and ranks" },
	{ "key", 0, RW_OPT_CHOICE, CFG(key_kind), .choices = rw_key_kind_names, .def = "src",
	  .flags = PINNED,
	  .help = "what limits, rankings, events and bans are keyed by: source, destination, "
		  "source -> destination, or protocol and both ends with ports" },
	{ "v6-prefix", 0, RW_OPT_CUSTOM, CFG(v6_prefix), .parse = parse_v6_prefix,
	  .def = STR(RW_DEFAULT_V6_PREFIX), .arg = "LEN", .flags = PINNED,
	  .help = "leading bits of an IPv6 address a src, dst or pair key keeps, 1..128: "
		  "by default one host's /64 is one key" },
	{ "rank", 0, RW_OPT_CUSTOM, CFG(rank_mask), .parse = parse_rank, .choices = rw_key_kind_names,
	  .arg = "KIND[,KIND]", .flags = PINNED,
	  .help = "also rank these other kinds in the same run: counted and ranked, never limited" },
	{ "window", 0, RW_OPT_DURATION, CFG(window_ns), .def = "1s", .arg = "DURATION",
	  .flags = PINNED, .help = "length of the sliding window the limits hold over" },
	{ "slots", 0, RW_OPT_COUNT, CFG(slots), .min = RW_MIN_SLOTS, .max = RW_MAX_SLOTS,
	  .def = STR(RW_DEFAULT_SLOTS), .arg = "N", .flags = PINNED,
	  .help = "slots the window is divided into; each must last 1 ms to 60 s" },
	{ "max-flows", 0, RW_OPT_COUNT, CFG(max_flows), .min = 1, .max = RW_MAX_MAX_FLOWS,
	  .def = STR(RW_DEFAULT_MAX_FLOWS), .arg = "N", .flags = PINNED | RW_OPT_NO_DEFAULT,
	  .help = "most keys tracked exactly at once; every other one is counted in the sketch, "
		  "and one that reaches its limit's threshold with no room to track it is held "
		  "below its limit" },
	{ "max-memory", 0, RW_OPT_SIZE, CFG(max_memory), .arg = "SIZE", .flags = PINNED,
	  .help = "size the tracked-flow tables to a kernel memory budget instead (see: ratewall "
		  "memory)" },
	{ "max-rules", 0, RW_OPT_COUNT, CFG(max_rules), .min = 1, .max = RW_MAX_RULES,
	  .def = STR(RW_DEFAULT_MAX_RULES), .arg = "N", .flags = KEY,
	  .help = "most rules in force at once; each one's counts take 16 B a CPU, planned at "
		  "load; a rules file or a rule add beyond it is refused" },
	{ "top", 0, RW_OPT_COUNT, CFG(top), .min = 1, .max = RW_MAX_TOP, .def = "10", .arg = "N",
	  .flags = KEY, .help = "keys shown each interval" },
	{ "interval", 0, RW_OPT_DURATION, CFG(interval_ns), .min = 10000000ULL, .def = "1s",
	  .arg = "DURATION", .flags = KEY | RW_OPT_TOP, .help = "time between reports" },
	{ "duration", 0, RW_OPT_DURATION, CFG(duration_ns), .arg = "DURATION", .flags = KEY,
	  .help = "exit after this long (default: until SIGINT or SIGTERM)" },
	{ "sort", 0, RW_OPT_CHOICE, CFG(sort), .choices = rw_sort_names, .def = "pps",
	  .flags = KEY | RW_OPT_TOP, .help = "ranking order" },
	{ "xdp-mode", 0, RW_OPT_CHOICE, CFG(xdp_mode), .choices = mode_names, .def = "auto",
	  .flags = KEY,
	  .help = "native XDP, generic XDP, auto: native, else generic; or multi: a place in "
		  "libxdp's dispatcher beside other XDP programs (taken anyway when an interface "
		  "has one)" },
	{ "xdp-priority", 0, RW_OPT_COUNT, CFG(xdp_priority), .min = 0, .max = RW_XDP_MAX_PRIO,
	  .def = STR(RW_XDP_RUN_PRIO), .arg = "N", .flags = KEY,
	  .help = "in libxdp's dispatcher: lower runs first (xdp-filter's is 10: the default runs "
		  "after its deny rules)" },
	{ "clock", 0, RW_OPT_CHOICE, CFG(clock), .choices = clock_names, .def = "auto",
	  .flags = PINNED,
	  .help = "kernel clock for slots; auto: coarse when a slot lasts 20 of its ticks or more "
		  "and --burst half a tick or more; coarse needs slots of a tick and --burst of "
		  "half a tick or more" },
	{ "json", 0, RW_OPT_SWITCH, CFG(json), .flags = KEY | RW_OPT_STATUS,
	  .help = "one JSON object per interval instead of a table",
	  .other_help = "the instances as one JSON object instead of text" },
	{ "tui", 0, RW_OPT_SWITCH, CFG(tui), .flags = KEY,
	  .help = "a live full-screen view instead of the table (keys as in ratewall top; ? shows "
		  "them)" },
	{ "no-color", 0, RW_OPT_SWITCH, CFG(no_color), .flags = KEY | RW_OPT_TOP,
	  .help = "with --tui: no colours (also when NO_COLOR is set)",
	  .other_help = "no colours (also when NO_COLOR is set)" },
	{ "rules", 0, RW_OPT_PATH, CFG(rules_path), .arg = "FILE", .flags = KEY,
	  .help = "rules, one a line: CIDR [PROTO [sport P] [dport P] [flags F] [type T]] allow | "
		  "deny | limit RATE[pps] [RATEbps] [per src|dst|pair|/LEN]; longest prefix wins; "
		  "SIGHUP reads the file again (man ratewall)" },
	{ "levels", 0, RW_OPT_CUSTOM, CFG(levels), .parse = parse_levels, .arg = "SPEC",
	  .flags = PINNED | RW_OPT_TOP,
	  .help = "also rank prefixes, e.g. 'v4:32,24,16 v6:128,64,48': the hierarchical heavy "
		  "hitters of the window",
	  .other_help = "the prefix levels the v key cycles through, e.g. 'v4:32,24,16 "
			"v6:128,64,48'" },
	{ "hhh-share", 0, RW_OPT_COUNT, CFG(hhh_share_pct), .min = 1, .max = 100, .def = "5",
	  .arg = "PCT", .flags = KEY,
	  .help = "a prefix is heavy at this share of the window's traffic, net of its heavy "
		  "more-specific prefixes" },
	{ "burst", 0, RW_OPT_CUSTOM, CFG(burst_ns), .parse = parse_burst, .def = "100ms",
	  .arg = "DURATION|window", .flags = PINNED,
	  .help = "over its rate a key is admitted evenly, at the rate, which TCP can follow; "
		  "sending less it saves up to twice DURATION of its rate (at most the window), "
		  "to send at once or at up to twice its rate; 0: strictly at the rate; window: "
		  "no schedule, a key may take its window's whole budget at once" },
	{ "ban", 0, RW_OPT_DURATION, CFG(ban_ns), .arg = "DURATION", .flags = PINNED,
	  .help = "a tracked key that goes over its limit is dropped entirely this long, then "
		  "released" },
	{ "events", 0, RW_OPT_PATH, CFG(events_path), .arg = "FILE|-",
	  .flags = PINNED | RW_OPT_DASH,
	  .help = "limited, released, banned, unbanned as JSON lines (at most 1000 a second; the "
		  "rest counted)" },
	{ "history", 0, RW_OPT_PATH, CFG(history_path), .arg = "FILE", .flags = KEY,
	  .help = "keep every report (totals, top-N, heavy prefixes, events) in an SQLite "
		  "database, once per window; read it with: ratewall history FILE" },
	{ "history-keep", 0, RW_OPT_DURATION, CFG(history_keep_ns), .min = 1000000000ULL,
	  .def = "7d", .arg = "DURATION", .flags = KEY,
	  .help = "delete windows older than this as new ones are written" },
	{ "history-max", 0, RW_OPT_SIZE, CFG(history_max), .min = RW_HISTORY_MAX_MIN, .def = "256M",
	  .arg = "SIZE", .flags = KEY,
	  .help = "delete the oldest windows to keep the file and its log under SIZE" },
	{ "samples", 0, RW_OPT_PATH, CFG(samples_dir), .arg = "DIR", .flags = PINNED | RW_OPT_DIR,
	  .help = "write the first 64 dropped frames (256 bytes of each) of every limited or "
		  "banned key as DIR/<time>-<key>.pcap, for tcpdump or tshark" },
	{ "samples-max", 0, RW_OPT_SIZE, CFG(samples_max), .min = RW_SAMPLES_MAX_MIN, .def = "64M",
	  .arg = "SIZE", .flags = KEY,
	  .help = "delete the oldest samples to keep DIR's under SIZE" },
	{ "metrics", 0, RW_OPT_CUSTOM, CFG(metrics), .parse = parse_metrics, .arg = "[ADDR:]PORT",
	  .flags = KEY,
	  .help = "serve /metrics for Prometheus (address default 127.0.0.1; IPv6 as [::1]:PORT)" },
	{ "metrics-min-share", 0, RW_OPT_CUSTOM, CFG(metrics_min_share_ppm), .parse = parse_min_share,
	  .def = "1%", .arg = "PCT", .flags = KEY,
	  .help = "/metrics also carries every key of each ranked kind, and every --levels prefix, "
		  "with at least PCT of this host's window traffic (0.1% to 50%): summed over hosts "
		  "in Prometheus, a key's rate is then short by at most PCT of the fleet's; 0 turns "
		  "it off (the top-N only: a key spread over the hosts under each one's top-N is "
		  "missed)" },
	{ "on-event", 0, RW_OPT_CUSTOM, CFG(hook.command), .parse = parse_on_event, .arg = "CMD",
	  .flags = KEY,
	  .help = "run CMD for each event of --on-event-kinds, the event as one JSON object on "
		  "its stdin; CMD is split into words and run without a shell (write sh -c '...' "
		  "for one)" },
	{ "on-event-kinds", 0, RW_OPT_CUSTOM, CFG(hook.kinds), .parse = parse_on_event_kinds,
	  .choices = rw_event_kind_names, .def = "banned,unbanned", .arg = "KIND[,KIND]",
	  .flags = KEY, .help = "the events --on-event runs its command for" },
	{ "on-event-timeout", 0, RW_OPT_DURATION, CFG(hook.timeout_ns), .min = 10000000ULL,
	  .def = "10s", .arg = "DURATION", .flags = KEY,
	  .help = "a command still running this long is killed, with what it started" },
	{ "on-event-running", 0, RW_OPT_COUNT, CFG(hook.running), .min = 1, .max = 64, .def = "4",
	  .arg = "N", .flags = KEY, .help = "commands running at once, at most" },
	{ "on-event-rate", 0, RW_OPT_COUNT, CFG(hook.rate), .min = 1, .max = 10000, .def = "20",
	  .arg = "N", .flags = KEY,
	  .help = "commands started a second, at most; events beyond it are counted, not run" },
	{ "on-event-user", 0, RW_OPT_CUSTOM, CFG(on_event_user), .parse = parse_on_event_user,
	  .arg = "USER", .flags = KEY | RW_OPT_USER,
	  .help = "run --on-event's commands, and --bgp's GoBGP client and session helper, as "
		  "USER with USER's groups and no capability (default: as ratewall, root); a "
		  "USER the system does not know is refused at the start" },
	{ "bgp", 0, RW_OPT_CUSTOM, CFG(bgp.api), .parse = parse_bgp, .arg = "[HOST:]PORT",
	  .flags = KEY,
	  .help = "for each banned key, through the GoBGP daemon whose API listens here "
		  "(gobgpd --api-hosts; host default 127.0.0.1): a FlowSpec rule that discards a "
		  "source's traffic to --bgp-own, or for a destination of --bgp-own a blackhole "
		  "route (the victim is given up to save the link); withdrawn when the ban ends" },
	{ "bgp-own", 0, RW_OPT_CUSTOM, CFG(bgp), .parse = parse_bgp_own, .arg = "CIDR[,CIDR]",
	  .flags = KEY,
	  .help = "your prefixes (needed by --bgp): every route names a destination inside "
		  "them, none another's" },
	{ "bgp-command", 0, RW_OPT_PATH, CFG(bgp.command), .def = "gobgp", .arg = "PATH",
	  .flags = KEY,
	  .help = "GoBGP's client, found in PATH, that --bgp asks how gobgpd and its sessions "
		  "are" },
	{ "bgp-helper", 0, RW_OPT_PATH, CFG(bgp.helper), .arg = "PATH", .flags = KEY,
	  .help = "the helper that keeps --bgp's session to gobgpd's API (default: "
		  "ratewall-gobgp beside ratewall, else in " RW_LIBEXEC_DIR ")" },
	{ "bgp-next-hop", 0, RW_OPT_CUSTOM, CFG(bgp), .parse = parse_bgp_next_hop,
	  .arg = "ADDR[,ADDR6]", .flags = KEY,
	  .help = "next hop of the IPv4 and IPv6 routes (default: the speaker's own address)" },
	{ "bgp-community", 0, RW_OPT_CUSTOM, CFG(bgp), .parse = parse_bgp_community,
	  .def = "65535:666,65535:65281", .arg = "ASN:VALUE[,...]", .flags = KEY,
	  .help = "communities of the blackhole routes, at most 8 (BLACKHOLE, RFC 7999, and "
		  "NO_EXPORT: not beyond the upstream)" },
	{ "bgp-victim-floor", 0, RW_OPT_RATE, CFG(bgp.victim_floor), .arg = "PPS", .flags = KEY,
	  .help = "with --key dst or --rank dst: a destination of --bgp-own that receives this "
		  "many packets a second is blackholed while it does, and --bgp-hold after "
		  "(RTBH gives the victim up to save the link; default: never)" },
	{ "bgp-flowspec-rate", 0, RW_OPT_SWITCH, CFG(bgp.flowspec_rate), .flags = KEY,
	  .help = "a source's flow rule holds it to --bps upstream (FlowSpec's traffic-rate, in "
		  "bytes a second), not discard; needs --bps" },
	{ "bgp-owner", 0, RW_OPT_CUSTOM, CFG(bgp), .parse = parse_bgp_owner, .arg = "ASN:VALUE",
	  .flags = KEY,
	  .help = "the community every route carries: at start and at stop, the speaker's routes "
		  "with it that are not wanted are withdrawn (a run killed with its journal lost "
		  "leaves none); default 64512 and a hash of --name: give each instance that "
		  "shares a speaker its own" },
	{ "bgp-never", 0, RW_OPT_CUSTOM, CFG(bgp), .parse = parse_bgp_never,
	  .arg = "CIDR[,CIDR]", .flags = KEY,
	  .help = "never a blackhole of, nor a flow rule from, an address in these; nor of the "
		  "interfaces' addresses, nor of allow rules' prefixes" },
	{ "bgp-max", 0, RW_OPT_COUNT, CFG(bgp.max), .min = 1, .max = RW_BGP_MAX_ROUTES,
	  .def = "1000", .arg = "N", .flags = KEY,
	  .help = "routes announced at once, at most, banned keys first, heavy prefixes after; "
		  "the ones beyond are counted and said" },
	{ "bgp-prefixes", 0, RW_OPT_SWITCH, CFG(bgp.prefixes), .flags = KEY,
	  .help = "announce the heavy prefixes of --levels too, while they are heavy" },
	{ "bgp-prefix-floor", 0, RW_OPT_RATE, CFG(bgp.prefix_floor), .min = 1, .def = "10k",
	  .arg = "PPS", .flags = KEY,
	  .help = "--bgp-prefixes: a heavy prefix is announced only while it sends this many "
		  "packets a second (a busy server in a quiet hour is heavy too)" },
	{ "bgp-hold", 0, RW_OPT_DURATION, CFG(bgp.hold_ns), .def = "60s", .arg = "DURATION",
	  .flags = KEY,
	  .help = "an announced route stays this long at least: at --bgp-max it keeps its place "
		  "against a newcomer, and a heavy prefix that turns light stays announced (a ban "
		  "that ends is withdrawn at once)" },
	{ "bgp-dry-run", 0, RW_OPT_SWITCH, CFG(bgp.dry_run), .flags = KEY,
	  .help = "say what --bgp would announce and withdraw; announce nothing" },
	{ "dry-run", 0, RW_OPT_SWITCH, CFG(dry_run), .flags = PINNED,
	  .help = "drop nothing and announce nothing: count and report what would be dropped "
		  "(--bgp says what it would announce)" },
	{ "malformed", 0, RW_OPT_CHOICE, CFG(malformed_drop), .choices = malformed_names,
	  .def = "pass", .flags = PINNED,
	  .help = "frames whose IPv4/IPv6 headers do not hold together (truncated, bad lengths): "
		  "pass them unkeyed or drop them; drop also drops tiny first fragments and IPv6 "
		  "chains of over 8 extension headers" },
	{ "config", 0, RW_OPT_META, .arg = "FILE", .flags = RW_OPT_BOTH,
	  .help = "options from FILE, one per line ('pps 10k' or 'pps = 10k', '#' comments); "
		  "flags given here win" },
	{ "persist", 0, RW_OPT_SWITCH, CFG(persist), .flags = KEY,
	  .help = "pin the program, maps and a status record: the kernel keeps enforcing after "
		  "ratewall exits, and the next run --persist on the same interfaces adopts them" },
	{ "replace", 0, RW_OPT_SWITCH, CFG(replace), .flags = KEY,
	  .help = "with --persist: options marked * that differ from the pinned instance's swap "
		  "its program atomically (else refused)" },
	{ "name", 0, RW_OPT_CUSTOM, CFG(name), .parse = parse_name, .arg = "NAME",
	  .flags = KEY | RW_OPT_INSTANCE | RW_OPT_STOP | RW_OPT_RULE | RW_OPT_TOP,
	  .help = "instance name (default: the interfaces joined by '+')",
	  .other_help = "the pinned instance of this name" },
	{ "all", 0, RW_OPT_SWITCH, FIELD(all), .flags = RW_OPT_STOP,
	  .help = "every pinned instance under --pin-dir" },
	{ "pin-dir", 0, RW_OPT_PATH, CFG(pin_root), .def = RW_DEFAULT_PIN_ROOT, .arg = "DIR",
	  .flags = KEY | RW_OPT_ABSOLUTE | RW_OPT_DIR | RW_OPT_PINS,
	  .help = "root of the pinned instances, on a BPF filesystem" },
	{ "verbose", 'v', RW_OPT_SWITCH, CFG(verbose), .flags = KEY,
	  .help = "libbpf and loader diagnostics on stderr" },
	{ "help", 'h', RW_OPT_META, .flags = RW_OPT_COMMANDS, .help = "this help" },
	{ "cpus", 0, RW_OPT_COUNT, FIELD(cpus), .min = 1, .max = RW_MAX_CPUS, .arg = "N",
	  .flags = RW_OPT_MEMORY,
	  .help = "plan for N possible CPUs instead of this machine's" },
};
const size_t rw_options_count = sizeof(rw_options) / sizeof(rw_options[0]);

/* The subcommands the table serves, by their bit: one place for their names. */
static const struct {
	const char *name;
	unsigned int bit;
} commands[] = {
	{ "run", RW_OPT_RUN }, { "memory", RW_OPT_MEMORY }, { "status", RW_OPT_STATUS },
	{ "stop", RW_OPT_STOP }, { "rule", RW_OPT_RULE }, { "top", RW_OPT_TOP },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

unsigned int rw_opt_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(commands[i].name, name) == 0)
			return commands[i].bit;
	}
	return 0;
}

const char *rw_opt_commands_text(unsigned int flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NCOMMANDS && n < len; i++) {
		if (flags & commands[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", commands[i].name);
	}
	return buf;
}

const struct rw_opt *rw_opt_find(const char *name)
{
	for (size_t i = 0; i < rw_options_count; i++) {
		if (strcmp(rw_options[i].name, name) == 0)
			return &rw_options[i];
	}
	return NULL;
}
