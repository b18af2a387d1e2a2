// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/cli/: The command line, the config and rules files, units, keys, levels, listen addresses. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/historycli.h"
#include "cli/listen.h"
#include "cli/options.h"
#include "cli/svccli.h"
#include "cli/usage.h"
#include "model/clock.h"
#include "model/key.h"
#include "model/levels.h"
#include "model/rule_match.h"
#include "model/rules.h"
#include "model/units.h"
#include "unit/unit.h"

static void test_parse_rate_valid(void)
{
	static const struct { const char *in; uint64_t want; } cases[] = {
		{ "1000", 1000 }, { "10k", 10000 }, { "10K", 10000 }, { "1.5M", 1500000 },
		{ "100m", 100000000 }, { "2G", 2000000000 }, { "0.5k", 500 }, { "1", 1 },
		{ "007", 7 }, { "1.", 1 }, { ".5k", 500 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;

		CHECK_EQ(rw_parse_rate(cases[i].in, &v), 0);
		CHECK_EQ(v, cases[i].want);
	}
}

static void test_parse_rate_invalid(void)
{
	static const char *bad[] = {
		"", "k", "-5", "+5", "1e3", "0x10", "10kb", "1.2.3", "inf", "nan", "0", "0k",
		" 5", "5 ", "0.0001", "99999999999999999999G", "10 k", "10T", ".", "1..5",
	};
	uint64_t v = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rw_parse_rate(bad[i], &v) == 0)
			fprintf(stderr, "  accepted bad rate '%s'\n", bad[i]);
		CHECK(rw_parse_rate(bad[i], &v) != 0);
	}
	CHECK(rw_parse_rate(NULL, &v) != 0);
	CHECK_EQ(v, 42); /* untouched on failure */
}

static void test_parse_duration(void)
{
	static const struct { const char *in; uint64_t want; } good[] = {
		{ "500ms", 500000000ULL }, { "2s", 2000000000ULL }, { "1.5m", 90000000000ULL },
		{ "1h", 3600000000000ULL }, { "250us", 250000ULL }, { "100ns", 100ULL },
		{ "3", 3000000000ULL }, { "0.1s", 100000000ULL },
	};
	static const char *bad[] = { "", "ms", "5x", "-1s", "0s", "1sec", "1 s", "1S", "1e9ns", "0" };
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK_EQ(rw_parse_duration(good[i].in, &v), 0);
		CHECK_EQ(v, good[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(rw_parse_duration(bad[i], &v) != 0);
}

static void test_parse_size_and_uint(void)
{
	uint64_t v;

	CHECK_EQ(rw_parse_size("4096", &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(rw_parse_size("64K", &v), 0);
	CHECK_EQ(v, 65536);
	CHECK_EQ(rw_parse_size("256MiB", &v), 0);
	CHECK_EQ(v, 256ULL << 20);
	CHECK_EQ(rw_parse_size("1GB", &v), 0);
	CHECK_EQ(v, 1ULL << 30);
	CHECK(rw_parse_size("1T", &v) != 0);
	CHECK(rw_parse_size("5KiBs", &v) != 0);
	CHECK(rw_parse_size("M", &v) != 0);

	CHECK_EQ(rw_parse_uint("10", 2, 32, &v), 0);
	CHECK_EQ(v, 10);
	CHECK_EQ(rw_parse_uint("1", 2, 32, &v), -ERANGE);
	CHECK_EQ(rw_parse_uint("33", 2, 32, &v), -ERANGE);
	CHECK(rw_parse_uint("-1", 0, 32, &v) != 0);
	CHECK(rw_parse_uint("1x", 0, 32, &v) != 0);
	CHECK(rw_parse_uint("", 0, 32, &v) != 0);
	CHECK(rw_parse_uint("99999999999999999999999", 0, UINT64_MAX, &v) != 0);
}

static void test_format(void)
{
	/* Rounding never shows a fourth digit or a unit's worth of the one below. */
	static const struct { double v; const char *want; } si[] = {
		{ 999, "999" },       { 1234567, "1.23M" }, { 45600, "45.6k" },
		{ 9999.6, "10.0k" },  { 99960, "100k" },    { 999.7, "1.00k" },
		{ 999700, "1.00M" },  { 9994, "9.99k" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++) {
		rw_format_si(si[i].v, buf, sizeof(buf));
		CHECK_STR(buf, si[i].want);
	}
	rw_format_bytes(1536, buf, sizeof(buf));
	CHECK_STR(buf, "1.5 KiB");
	rw_format_bytes(100, buf, sizeof(buf));
	CHECK_STR(buf, "100 B");
}

/* A command line split at blanks into argv (pointing into copy); returns argc. */
static int split_args(const char *line, char copy[512], char *argv[32])
{
	int argc = 0;

	snprintf(copy, 512, "%s", line);
	for (char *tok = strtok(copy, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return argc;
}

static int parse(struct rw_config *cfg, char *err, const char *line)
{
	char copy[512], *argv[32];
	int argc = split_args(line, copy, argv);

	return rw_cli_parse_run(argc, argv, cfg, err, 256);
}

static void test_parse_count(void)
{
	static const struct { const char *in; uint64_t want; } good[] = {
		{ "0", 0 }, { "10", 10 }, { "007", 7 }, { "10k", 10000 }, { "10K", 10000 },
		{ "1M", 1000000 }, { "1.5M", 1500000 }, { "2G", 2000000000ULL }, { "100m", 100000000 },
		{ "64Ki", 65536 }, { "1Mi", 1048576 }, { "1.5Ki", 1536 }, { "1Gi", 1ULL << 30 },
		{ ".5k", 500 }, { "1.", 1 }, { "18446744073709551615", UINT64_MAX },
	};
	/* not whole, not a number, a size's or a rate's spelling it does not share */
	static const char *const bad[] = {
		"", "k", "-1", "+1", "1.5", "1.0001k", "0.1Ki", "1e3", "0x10", "10KB", "10KiB", "1ki",
		"1T", " 5", "5 ", ".", "1..5", "18446744073709551616", "99999999999G",
		"1.0000000000000000001k",
	};
	uint64_t v = 42;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 42;
		CHECK_EQ(rw_parse_count(good[i].in, &v), 0);
		CHECK_EQ(v, good[i].want);
	}
	v = 42;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rw_parse_count(bad[i], &v) == 0)
			fprintf(stderr, "  accepted bad count '%s'\n", bad[i]);
		CHECK(rw_parse_count(bad[i], &v) != 0);
	}
	CHECK(rw_parse_count(NULL, &v) != 0);
	CHECK_EQ(v, 42);
}

/* The table itself: names once, fields inside the struct, defaults its parse takes. */
static void test_options_table(void)
{
	struct rw_cli_args a;
	char err[256];

	CHECK(rw_options_count <= RW_OPTIONS_MAX);
	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];

		CHECK(rw_opt_find(o->name) == o);
		CHECK(o->help && o->help[0]);
		CHECK(o->offset + o->size <= sizeof(struct rw_cli_args));
		CHECK((o->type == RW_OPT_META) == (o->size == 0));
		CHECK((o->type == RW_OPT_CHOICE) <= (o->choices != NULL));
		CHECK((o->type == RW_OPT_CUSTOM) == (o->parse != NULL));
		CHECK(!(o->flags & RW_OPT_PINNED) || (o->flags & RW_OPT_KEY));
		if (o->def) {
			rw_opt_defaults(&a);
			if (rw_opt_apply(o, o->def, &a, err, sizeof(err)))
				fprintf(stderr, "  --%s: its default '%s' is refused: %s\n", o->name,
					o->def, err);
			CHECK_EQ(rw_opt_apply(o, o->def, &a, err, sizeof(err)), 0);
		}
	}
	/* The defaults others read as macros are the table's. */
	rw_opt_defaults(&a);
	CHECK_EQ(a.cfg.history_keep_ns, RW_HISTORY_KEEP_NS);
	CHECK_EQ(a.cfg.history_max, RW_HISTORY_MAX);
	CHECK_EQ(a.cfg.burst_ns, RW_DEFAULT_BURST_NS);
	CHECK_EQ(a.cfg.slots, RW_DEFAULT_SLOTS);
	CHECK_EQ(a.cfg.max_rules, RW_DEFAULT_MAX_RULES);
	CHECK_EQ(a.cfg.max_flows, 0); /* resolved later: from --max-memory or the default */
	CHECK_EQ(a.cpus, 0);
	CHECK_STR(a.cfg.pin_root, RW_DEFAULT_PIN_ROOT);
	/* Config keys: every run option but these three, and stop's --all. */
	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];
		bool not_key = !strcmp(o->name, "config") || !strcmp(o->name, "help") ||
			       !strcmp(o->name, "cpus") || !strcmp(o->name, "all");

		CHECK_EQ(!(o->flags & RW_OPT_KEY), not_key);
	}
}

/* Every count takes the same spellings, run's and memory's and history's alike. */
static void test_count_spellings(void)
{
	struct rw_config c;
	struct rw_history_args h;
	uint32_t cpus = 0;
	char err[256], copy[512], *argv[32];
	int argc;

	CHECK_EQ(parse(&c, err, "run eth0 --max-flows 1M --top 1k --max-rules 64Ki"), 0);
	CHECK_EQ(c.max_flows, 1000000);
	CHECK_EQ(c.top, 1000);
	CHECK_EQ(c.max_rules, 65536);
	CHECK_EQ(parse(&c, err, "run eth0 --metrics 9100 --metrics-min-share 0.5%"), 0);
	CHECK_EQ(c.metrics_min_share_ppm, 5000);
	CHECK_EQ(parse(&c, err, "run eth0 --metrics 9100 --metrics-min-share 2"), 0);
	CHECK_EQ(c.metrics_min_share_ppm, 20000);
	/* 1 % by default: the fleet's sums are bounded unless asked otherwise; 0 turns it off */
	CHECK_EQ(parse(&c, err, "run eth0 --metrics 9100"), 0);
	CHECK_EQ(c.metrics_min_share_ppm, 10000);
	CHECK_EQ(parse(&c, err, "run eth0 --metrics 9100 --metrics-min-share 0"), 0);
	CHECK_EQ(c.metrics_min_share_ppm, 0);
	CHECK_EQ(parse(&c, err, "run eth0 --metrics 9100 --metrics-min-share 0%"), 0);
	CHECK_EQ(c.metrics_min_share_ppm, 0);
	/* without a page to carry them, the top-N only (nothing ranked beyond it) */
	CHECK_EQ(parse(&c, err, "run eth0"), 0);
	CHECK_EQ(c.metrics_min_share_ppm, 0);
	CHECK_EQ(parse(&c, err, "run eth0 --max-flows 1.5Mi --hhh-share 5"), 0);
	CHECK_EQ(c.max_flows, 1572864);
	CHECK_REFUSED(parse(&c, err, "run eth0 --max-flows 1.5"), "--max-flows 1.5", err,
		      "--max-flows: '1.5' must be a whole number from 1 to 67108864");
	CHECK_REFUSED(parse(&c, err, "run eth0 --max-rules 65537"), "--max-rules 65537", err,
		      "from 1 to 65536");
	argc = split_args("memory --cpus 1Ki --max-flows 2M", copy, argv);
	CHECK_EQ(rw_cli_parse_memory(argc, argv, &c, &cpus, err, sizeof(err)), 0);
	CHECK_EQ(cpus, 1024);
	CHECK_EQ(c.max_flows, 2000000);
	argc = split_args("memory --cpus 2k", copy, argv);
	CHECK_REFUSED(rw_cli_parse_memory(argc, argv, &c, &cpus, err, sizeof(err)), "--cpus 2k",
		      err, "--cpus: '2k' must be a whole number from 1 to 1024");
	argc = split_args("run eth0 --cpus 4", copy, argv);
	CHECK_REFUSED(rw_cli_parse_run(argc, argv, &c, err, sizeof(err)), "run --cpus", err,
		      "unknown option '--cpus'");
	argc = split_args("history --top 1k f.db", copy, argv);
	CHECK_EQ(rw_cli_parse_history(argc, argv, 0, &h, err, sizeof(err)), 0);
	CHECK_EQ(h.top, 1000);
}

/*
 * The options a --help lists: the first --word of each option line ("* --x",
 * "  --x", "  -h, --x"), each once, blank-separated and blank-ended.
 */
static void listed_options(char *text, char *out, size_t len)
{
	char *line, *save;
	size_t n = 0;

	out[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *o = line + 2;

		if (strlen(line) > 86) /* the usage lines are a little wider */
			fprintf(stderr, "  --help line too long: '%s'\n", line);
		CHECK(strlen(line) <= 86);
		if ((line[0] != '*' && line[0] != ' ') || line[1] != ' ' || o[0] != '-')
			continue;
		CHECK(strlen(line) <= 79);
		if (o[1] != '-')
			o += 4; /* "-h, " */
		n += (size_t)snprintf(out + n, len - n, "%.*s ", (int)strcspn(o + 2, " "), o + 2);
	}
}

/*
 * Each command's --help: its usage and its own options, every one of them
 * (memory: its own beside run's), within 79 columns; run's says the spellings.
 */
static void test_options_help(void)
{
	static const char *const cmds[] = { "run", "memory", "status", "stop", "rule", "top" };

	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		unsigned int bit = rw_opt_command(cmds[c]);
		char *text = NULL, got[1024], want[1024] = "", head[32];
		size_t len = 0, n = 0;
		FILE *f = open_memstream(&text, &len);

		CHECK(f != NULL && bit != 0);
		if (!f)
			return;
		CHECK_EQ(rw_cli_usage(f, cmds[c]), 0);
		fclose(f);
		snprintf(head, sizeof(head), "usage: ratewall %s ", cmds[c]);
		CHECK(strncmp(text, head, strlen(head)) == 0);
		if (c == 0)
			CHECK(strstr(text, "Ki, Mi, Gi") != NULL);
		for (size_t i = 0; i < rw_options_count; i++) {
			unsigned int fl = rw_options[i].flags;

			if ((fl & bit) && !(bit == RW_OPT_MEMORY && (fl & RW_OPT_RUN)))
				n += (size_t)snprintf(want + n, sizeof(want) - n, "%s ",
						      rw_options[i].name);
		}
		listed_options(text, got, sizeof(got));
		if (strcmp(got, want) != 0)
			fprintf(stderr, "  %s --help lists '%s', its options are '%s'\n", cmds[c], got,
				want);
		CHECK_STR(got, want);
		free(text);
	}
	CHECK_EQ(rw_cli_usage(stdout, "history"), -1); /* its own, historycli.c */
	CHECK_EQ(rw_opt_command("history"), 0);
}

/* The options both test_cli_defaults_and_options and the config file test set. */
static void check_shared_options(const struct rw_config *c)
{
	CHECK_STR(c->ifnames[0], "eth1");
	CHECK_EQ(c->pps, 10000);
	CHECK_EQ(c->bps, 1000000000ULL);
	CHECK_EQ(c->window_ns, 500000000ULL);
	CHECK_EQ(c->slots, 5);
	CHECK_EQ(c->max_flows, 1000);
	CHECK_EQ(c->sort, RW_SORT_DROPS);
}

static void test_cli_defaults_and_options(void)
{
	struct rw_config c;
	char err[256];

	CHECK_EQ(parse(&c, err, "run veth0"), 0);
	CHECK_STR(c.ifnames[0], "veth0");
	CHECK_EQ(c.pps, 0);
	CHECK_EQ(c.bps, 0);
	CHECK_EQ(c.window_ns, 1000000000ULL);
	CHECK_EQ(c.slots, 10);
	CHECK_EQ(c.top, 10);
	CHECK_EQ(c.interval_ns, 1000000000ULL);
	CHECK_EQ(c.duration_ns, 0);
	CHECK_EQ(c.sort, RW_SORT_PPS);
	CHECK_EQ(c.key_kind, RW_KIND_SRC);
	CHECK_EQ(c.v6_prefix, 64);
	CHECK_EQ(parse(&c, err, "run veth0 --key flow --v6-prefix /48"), 0);
	CHECK_EQ(c.key_kind, RW_KIND_FLOW);
	CHECK_EQ(c.v6_prefix, 48);
	CHECK_EQ(parse(&c, err, "run veth0 --key dst --v6-prefix 128"), 0);
	CHECK_EQ(c.key_kind, RW_KIND_DST);
	CHECK_EQ(c.v6_prefix, 128);
	CHECK_EQ(c.xdp_mode, RW_XDP_AUTO);
	CHECK_EQ(c.clock, RW_CLOCK_AUTO);
	CHECK(!c.json && !c.verbose);

	CHECK_EQ(parse(&c, err, "run --pps 10k --bps 1G --window 500ms --slots 5 --max-flows 1000 "
				"--top 3 --interval 250ms --duration 2s --sort drops --xdp-mode generic "
				"--json -v eth1"), 0);
	check_shared_options(&c);
	CHECK_EQ(c.top, 3);
	CHECK_EQ(c.interval_ns, 250000000ULL);
	CHECK_EQ(c.duration_ns, 2000000000ULL);
	CHECK_EQ(c.xdp_mode, RW_XDP_GENERIC);
	CHECK(c.json && c.verbose);

	/* Options may follow the interface, as operators type them. */
	CHECK_EQ(parse(&c, err, "run veth1 --pps 5 --sort bps --xdp-mode native"), 0);
	CHECK_STR(c.ifnames[0], "veth1");
	CHECK_EQ(c.pps, 5);
	CHECK_EQ(c.sort, RW_SORT_BPS);
	CHECK_EQ(c.xdp_mode, RW_XDP_NATIVE);
	CHECK_EQ(parse(&c, err, "run --clock coarse veth1"), 0);
	CHECK_EQ(c.clock, RW_CLOCK_COARSE);
	CHECK_EQ(parse(&c, err, "run --clock precise veth1"), 0);
	CHECK_EQ(c.clock, RW_CLOCK_PRECISE);
	CHECK_EQ(parse(&c, err, "run --max-memory 64M veth1"), 0);
	CHECK_EQ(c.max_memory, 64ULL << 20);
	CHECK_EQ(parse(&c, err, "run --help"), 1);

	/* Several interfaces: one instance, named after them unless --name says otherwise. */
	CHECK_EQ(parse(&c, err, "run veth0 veth1 --persist"), 0);
	CHECK_EQ(c.nifaces, 2);
	CHECK_STR(c.ifnames[1], "veth1");
	CHECK_STR(c.name, "veth0+veth1");
	CHECK_STR(c.pin_root, RW_DEFAULT_PIN_ROOT);
	CHECK(c.persist && !c.replace);
	/* Interface names may be UTF-8: so may the instance named after them. */
	CHECK_EQ(parse(&c, err, "run eth\xd2\x86x wlan0"), 0);
	CHECK_STR(c.name, "eth\xd2\x86x+wlan0");
	CHECK_EQ(parse(&c, err, "run eth0 --persist --replace --name edge-1 --pin-dir /sys/fs/bpf/t"),
		 0);
	CHECK(c.persist && c.replace);
	CHECK(!c.dry_run && !c.malformed_drop);
	CHECK_STR(c.name, "edge-1");
	CHECK_STR(c.pin_root, "/sys/fs/bpf/t");
	CHECK_EQ(parse(&c, err, "run eth0 --dry-run --malformed drop"), 0);
	CHECK(c.dry_run && c.malformed_drop);
	CHECK_EQ(parse(&c, err, "run eth0 --malformed pass"), 0);
	CHECK(!c.malformed_drop);
	CHECK_EQ(parse(&c, err, "run eth0 --ban 10m --events - --levels v4:24 --hhh-share 10"), 0);
	CHECK_EQ(c.ban_ns, 600000000000ULL);
	CHECK_STR(c.events_path, "-");
	CHECK(c.levels.n[0] == 1 && c.levels.len[0][0] == 24 && c.hhh_share_pct == 10);
	/* --burst: the default, a duration, none at all, the window alone */
	CHECK_EQ(c.burst_ns, RW_DEFAULT_BURST_NS);
	CHECK_EQ(parse(&c, err, "run eth0 --burst 40ms"), 0);
	CHECK_EQ(c.burst_ns, 40000000ULL);
	CHECK_EQ(parse(&c, err, "run eth0 --burst 0"), 0);
	CHECK_EQ(c.burst_ns, 0);
	CHECK_EQ(parse(&c, err, "run eth0 --burst 0ms"), 0);
	CHECK_EQ(c.burst_ns, 0);
	CHECK_EQ(parse(&c, err, "run eth0 --burst window"), 0);
	CHECK_EQ(c.burst_ns, RW_BURST_WINDOW);
	CHECK_EQ(parse(&c, err, "run eth0 --window 5s --burst 5s"), 0);
	CHECK_EQ(c.burst_ns, 5000000000ULL);
}

/* status, stop or rule, by the line's first word. */
static int parse_svc(bool stop, struct rw_svc_args *a, char *err, const char *line)
{
	char copy[512], *argv[32];
	int argc = split_args(line, copy, argv);

	if (strcmp(argv[0], "rule") == 0)
		return rw_cli_parse_rule(argc, argv, a, err, 256);
	if (strcmp(argv[0], "top") == 0)
		return rw_cli_parse_top(argc, argv, a, err, 256);
	return stop ? rw_cli_parse_stop(argc, argv, a, err, 256)
		    : rw_cli_parse_status(argc, argv, a, err, 256);
}

static void test_cli_status_stop(void)
{
	static const struct { bool stop; const char *line; const char *needle; } bad[] = {
		{ true, "stop", "one of them" },
		{ true, "stop eth0 --all", "one of them" },
		{ true, "stop --name a --all", "one of them" },
		{ true, "stop --name ../a", "--name: '../a' must be 1 to" },
		{ true, "stop --json eth0", "unknown option '--json'" },
		{ true, "stop eth0 eth0", "listed twice" },
		{ true, "stop --all --pin-dir x", "absolute path" },
		{ false, "status --all", "unknown option '--all'" },
		{ false, "status eth0", "unexpected argument 'eth0'" },
		{ false, "status --pin-dir", "needs a value" },
		{ false, "rule", "rule takes add RULE, del CIDR [MATCH] or list" },
		{ false, "rule drop 1.2.3.4 deny", "rule takes add RULE" },
		{ false, "rule add", "rule add needs a rule" },
		{ false, "rule del --name x", "rule del needs a CIDR" },
		{ false, "rule list 1.2.3.4", "rule list takes no rule" },
		{ false, "rule list --all", "unknown option '--all'" },
		{ false, "rule list --json", "unknown option '--json'" },
		{ false, "top eth0 eth1", "one IFACE, not 'eth1'" },
		{ false, "top eth0 --name x", "IFACE or --name, not both" },
		{ false, "top --interval 1ms", "at least 10ms" },
		{ false, "top --sort loud", "'loud' is not one of pps, bps, drops" },
		{ false, "top --levels v4:33", "levels" },
		{ false, "top --all", "unknown option '--all'" },
		{ false, "top a/b", "not a valid interface name" },
		{ false, "status --sort pps", "unknown option '--sort'" },
		{ true, "stop --no-color --all", "unknown option '--no-color'" },
	};
	struct rw_svc_args a;
	char err[256];

	CHECK_EQ(parse_svc(false, &a, err, "status"), 0);
	CHECK(!a.json);
	CHECK_STR(a.pin_root, RW_DEFAULT_PIN_ROOT);
	CHECK_EQ(parse_svc(false, &a, err, "status --json --pin-dir /sys/fs/bpf/x"), 0);
	CHECK(a.json);
	CHECK_STR(a.pin_root, "/sys/fs/bpf/x");
	CHECK_EQ(parse_svc(true, &a, err, "stop eth0 eth1"), 0);
	CHECK_EQ(a.nifaces, 2);
	CHECK_STR(a.ifnames[1], "eth1");
	CHECK_EQ(parse_svc(true, &a, err, "stop --name eth0+eth1"), 0);
	CHECK_STR(a.name, "eth0+eth1");
	CHECK_EQ(parse_svc(true, &a, err, "stop --all"), 0);
	CHECK(a.all);
	CHECK_EQ(parse_svc(true, &a, err, "stop --help"), 1);
	CHECK_EQ(parse_svc(false, &a, err, "rule add 198.18.0.0/16 limit 5k per /24 --name edge"), 0);
	CHECK_EQ(a.rule_op, RW_RULE_OP_ADD);
	CHECK_STR(a.rule_text, "198.18.0.0/16 limit 5k per /24");
	CHECK_STR(a.name, "edge");
	CHECK_EQ(parse_svc(false, &a, err, "rule del 198.18.0.0/16"), 0);
	CHECK_EQ(a.rule_op, RW_RULE_OP_DEL);
	CHECK_EQ(parse_svc(false, &a, err, "rule list --pin-dir /sys/fs/bpf/x"), 0);
	CHECK_EQ(a.rule_op, RW_RULE_OP_LIST);
	CHECK_EQ(parse_svc(false, &a, err, "top"), 0);
	CHECK_EQ(a.interval_ns, 1000000000ULL);
	CHECK_EQ(a.sort, RW_SORT_PPS);
	CHECK_EQ(a.nifaces, 0);
	CHECK_EQ(parse_svc(false, &a, err,
			   "top eth0 --sort drops --interval 250ms --levels v4:24 --no-color"), 0);
	CHECK_STR(a.ifnames[0], "eth0");
	CHECK_EQ(a.sort, RW_SORT_DROPS);
	CHECK_EQ(a.interval_ns, 250000000ULL);
	CHECK_EQ(a.levels.n[0], 1);
	CHECK(a.no_color);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_REFUSED(parse_svc(bad[i].stop, &a, err, bad[i].line), bad[i].line, err,
			      bad[i].needle);
	}
}

static void test_cli_errors(void)
{
	static const struct { const char *line; const char *needle; } cases[] = {
		{ "run", "missing IFACE" },
		{ "run a a", "interface 'a' is listed twice" },
		{ "run a b c d e f g h i", "at most 8 interfaces" },
		{ "run a/b", "not a valid interface name" },
		{ "run a+b", "not a valid interface name" },
		{ "run a --replace", "needs --persist" },
		{ "run a --tui --json", "--tui and --json both want stdout" },
		{ "run a --tui --events -", "give --events a file" },
		{ "run a --no-color", "needs --tui" },
		{ "run a --malformed sideways", "--malformed: 'sideways' is not one of pass, drop" },
		{ "run a --malformed", "needs a value" },
		{ "run a --ban forever", "--ban: 'forever' is not a duration" },
		{ "run a --burst lots", "--burst: 'lots' is not a duration" },
		{ "run a --burst -1ms", "--burst: '-1ms' is not a duration" },
		{ "run a --burst 2s", "--burst: 2 s is more than the window (1 s)" },
		{ "run a --window 500ms --burst 600ms", "more than the window (0.5 s)" },
		{ "run a --burst", "needs a value" },
		{ "run a --key source", "--key: 'source' is not one of src, dst, pair, flow" },
		{ "run a --key", "needs a value" },
		{ "run a --v6-prefix 0", "--v6-prefix: '0' must be a prefix length from 1 to 128" },
		{ "run a --v6-prefix 129", "--v6-prefix" },
		{ "run a --v6-prefix 64x", "--v6-prefix" },
		{ "run a --hhh-share 0", "--hhh-share" },
		{ "run a --metrics-min-share 2%", "give --metrics [ADDR:]PORT too" },
		{ "run a --metrics-min-share 0", "give --metrics [ADDR:]PORT too" },
		{ "run a --metrics 1 --metrics-min-share 0.05%", "from 0.1% to 50%" },
		{ "run a --metrics 1 --metrics-min-share 51%", "from 0.1% to 50%" },
		{ "run a --metrics 1 --metrics-min-share -1%", "from 0.1% to 50%" },
		{ "run a --metrics 1 --metrics-min-share 1%%", "from 0.1% to 50%" },
		{ "run a --metrics 1 --metrics-min-share one", "'one' must be a share" },
		{ "run a --metrics 1 --metrics-min-share", "needs a value" },
		{ "run a --levels v4:40", "1 to 32" },
		{ "run a --persist --name ../x", "--name" },
		{ "run a --persist --name ..", "--name" },
		{ "run a --persist --name a\tb", "--name" },
		{ "run . ", "not a valid interface name" },
		{ "run a:1", "not a valid interface name" },
		{ "run a --persist --pin-dir relative/dir", "absolute path" },
		{ "run a --bogus", "unknown option '--bogus'" },
		{ "run a --pps", "needs a value" },
		{ "run a --pps fast", "--pps: 'fast'" },
		{ "run a --pps 0", "--pps" },
		{ "run a --bps -1", "--bps" },
		{ "run a --window 1x", "--window" },
		{ "run a --slots 1", "from 2 to 32" },
		{ "run a --slots 33", "from 2 to 32" },
		{ "run a --slots ten", "--slots" },
		{ "run a --window 10ms --slots 32", "1 ms to 60 s" },
		{ "run a --window 10m --slots 5", "1 ms to 60 s" },
		{ "run a --max-flows 0", "--max-flows" },
		{ "run a --max-flows 10 --max-memory 1M", "give one" },
		{ "run a --top 0", "--top" },
		{ "run a --interval 1ms", "at least 10ms" },
		{ "run a --sort size", "--sort" },
		{ "run a --xdp-mode offload", "--xdp-mode" },
		{ "run a --duration never", "--duration" },
		{ "run a --clock sundial", "--clock" },
		{ "run 0123456789abcdefXYZ", "not a valid interface name" },
	};
	struct rw_config c;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_REFUSED(parse(&c, err, cases[i].line), cases[i].line, err, cases[i].needle);
	}
}

/* Writes text to a fresh temporary file; returns its path (static buffer). */
static const char *config_file(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/rwconf.XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
	}
	return path;
}

static int parse_with_config(struct rw_config *c, char *err, const char *text, const char *args)
{
	const char *path = config_file(text);
	char line[512];
	int ret;

	snprintf(line, sizeof(line), "run --config %s %s", path, args);
	ret = parse(c, err, line);
	unlink(path);
	return ret;
}

static void test_cli_config_file(void)
{
	struct rw_config c;
	char err[256];

	CHECK_EQ(parse_with_config(&c, err,
				   "# ratewall for eth1\n"
				   "\n"
				   "pps 10k\n"
				   "bps = 1G   # a trailing comment\n"
				   "\twindow=500ms\n"
				   "slots 5\n"
				   "max-flows 1000\n"
				   "sort drops\n"
				   "json\n"
				   "verbose no\n",
				   "eth1"), 0);
	/* The same values as the same options given as flags. */
	check_shared_options(&c);
	CHECK(c.json && !c.verbose);
	/* Flags win over the file, wherever they stand. */
	CHECK_EQ(parse_with_config(&c, err, "pps 10k\nslots 5\n", "--pps 20k eth1"), 0);
	CHECK_EQ(c.pps, 20000);
	CHECK_EQ(c.slots, 5);
	CHECK_EQ(parse(&c, err, "run --pps 30k --config /dev/null eth1"), 0);
	CHECK_EQ(c.pps, 30000);
	/* An empty file, or one of comments only, changes nothing. */
	CHECK_EQ(parse_with_config(&c, err, "# nothing\n   \n", "eth1"), 0);
	CHECK_EQ(c.slots, 10);

	static const struct {
		const char *text, *needle;
	} bad[] = {
		{ "pps 10k\nfrobnicate 3\n", ":2: unknown key 'frobnicate'" },
		{ "pps fast\n", ":1: --pps: 'fast' is not a rate" },
		{ "\n\nslots 64\n", ":3: --slots: '64' must be" },
		{ "pps\n", ":1: 'pps' needs a value" },
		{ "pps 1k\npps 2k\n", ":2: 'pps' is already set on line 1" },
		{ "json maybe\n", ":1: 'json' takes yes or no" },
		{ "help\n", ":1: unknown key 'help'" },
		{ "config other.conf\n", ":1: unknown key 'config'" },
		{ "--pps 10k\n", ":1: unknown key '--pps'" },
		{ "window 1h\nslots 10\n", "each slot would last" }, /* checked as a whole */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(parse_with_config(&c, err, bad[i].text, "eth1"), -EINVAL);
		if (!strstr(err, bad[i].needle) || (strchr(bad[i].needle, ':') && !strstr(err, "/tmp/rwconf."))) {
			fprintf(stderr, "  config '%s': error '%s' lacks '%s' or the file name\n",
				bad[i].text, err, bad[i].needle);
			CHECK(0);
		}
	}
	CHECK_EQ(parse(&c, err, "run --config /nonexistent/ratewall.conf eth1"), -EINVAL);
	CHECK(strstr(err, "cannot read '/nonexistent/ratewall.conf'") != NULL);
	CHECK_EQ(parse(&c, err, "run --config /dev/null --config /dev/null eth1"), -EINVAL);
	CHECK(strstr(err, "--config given twice") != NULL);
	{
		/* A line longer than the parser reads is refused, never split in two. */
		char *text = malloc(3000);

		memset(text, 'x', 2999);
		text[0] = 'p', text[1] = 'p', text[2] = 's', text[3] = ' ';
		text[2999] = '\0';
		CHECK_EQ(parse_with_config(&c, err, text, "eth1"), -EINVAL);
		CHECK(strstr(err, ":1: line longer than") != NULL);
		free(text);
	}
}

static void test_clock_resolve(void)
{
	uint64_t tick = 4000000ULL, burst = RW_DEFAULT_BURST_NS; /* HZ=250 */

	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, burst, tick), RW_CLOCK_COARSE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 80000000ULL, burst, tick), RW_CLOCK_COARSE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 79999999ULL, burst, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 1000000ULL, burst, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, burst, 0), RW_CLOCK_PRECISE); /* unknown tick */
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_PRECISE, 100000000ULL, burst, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_COARSE, 1000000ULL, burst, tick), RW_CLOCK_COARSE);
	/*
	 * Auto never lands where --clock coarse is refused. A burst
	 * under half a jiffy takes the precise clock, whatever the slot.
	 */
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, 0, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, tick / 2 - 1, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, tick / 2, tick), RW_CLOCK_COARSE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, RW_BURST_WINDOW, tick), RW_CLOCK_COARSE);
}

/*
 * The coarse clock moves once a jiffy, so a burst under half a
 * jiffy under-admits (--burst 0: a packet a jiffy a key) and a slot shorter
 * than a jiffy is skipped: --clock coarse with either is bad usage.
 */
static void test_clock_coarse_refusals(void)
{
	uint64_t tick = rw_coarse_tick_ns();
	struct rw_config c;
	char err[256], line[160];

	CHECK(tick > 0);
	CHECK_REFUSED(parse(&c, err, "run veth0 --clock coarse --burst 0"), "--burst 0", err,
		      "--clock coarse: a --burst of 0 ms is less than half a jiffy");
	CHECK(strstr(err, "or --clock precise") != NULL);
	/* The bound itself is half a jiffy; a burst of the window has no schedule. */
	snprintf(line, sizeof(line), "run veth0 --clock coarse --burst %lluus",
		 (unsigned long long)(tick / 2000 - 1));
	CHECK_REFUSED(parse(&c, err, line), line, err, "less than half a jiffy");
	snprintf(line, sizeof(line), "run veth0 --clock coarse --burst %lluus",
		 (unsigned long long)(tick / 2000));
	CHECK_EQ(parse(&c, err, line), 0);
	CHECK_EQ(parse(&c, err, "run veth0 --clock coarse --burst window"), 0);
	CHECK_EQ(parse(&c, err, "run veth0 --clock coarse"), 0);
	CHECK_EQ(parse(&c, err, "run veth0 --burst 0"), 0); /* auto: the precise clock then */
	/* Slots of half a jiffy (at least the 1 ms slots may last: HZ <= 500). */
	if (tick >= 2000000ULL) {
		snprintf(line, sizeof(line), "run veth0 --clock coarse --burst window --slots 2 "
			 "--window %lluus", (unsigned long long)(tick / 1000));
		CHECK_REFUSED(parse(&c, err, line), line, err, "shorter than a jiffy");
		snprintf(line, sizeof(line), "run veth0 --clock coarse --burst window --slots 2 "
			 "--window %lluus", (unsigned long long)(2 * tick / 1000));
		CHECK_EQ(parse(&c, err, line), 0);
	}
}

static void test_limit_per_window(void)
{
	CHECK_EQ(rw_limit_per_window(10000, 1000000000ULL, 1), 10000);
	CHECK_EQ(rw_limit_per_window(10000, 500000000ULL, 1), 5000);
	CHECK_EQ(rw_limit_per_window(1000000, 1000000000ULL, 8), 125000);
	CHECK_EQ(rw_limit_per_window(1, 1000000ULL, 1), 1); /* never rounds down to "no limit" */
	CHECK_EQ(rw_limit_per_window(0, 1000000000ULL, 1), 0);
	CHECK_EQ(rw_limit_per_window(UINT64_MAX, 3600000000000ULL, 1), UINT64_MAX);
}

static void test_key_format(void)
{
	struct rw_key k = { .family = RW_FAMILY_IPV4, .addr = { 198, 18, 0, 7 } };
	char buf[RW_KEY_STRLEN];

	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "198.18.0.7");
	k = (struct rw_key){ .family = RW_FAMILY_IPV6, .addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 } };
	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "2001:db8::7");
	k.family = 9;
	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "?");
	/* A flow of a protocol without ports: by name, or by number when it has none. */
	k = (struct rw_key){ .family = RW_FAMILY_IPV4, .kind = RW_KIND_FLOW, .proto = 1,
			     .addr = { 198, 18, 0, 7 }, .addr2 = { 198, 19, 0, 1 } };
	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "icmp 198.18.0.7 → 198.19.0.1");
	k.proto = 200;
	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "proto 200 198.18.0.7 → 198.19.0.1");
	/* A port of 0 beside another is shown, not dropped. */
	k.proto = 17;
	k.dport = htons(53);
	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "udp 198.18.0.7:0 → 198.19.0.1:53");
	k.kind = 7;
	rw_key_format(&k, buf, sizeof(buf));
	CHECK_STR(buf, "?");
	CHECK_STR(rw_key_kind_name(RW_KIND_PAIR), "pair");
	CHECK_EQ(rw_key_kind_parse("flow"), RW_KIND_FLOW);
	CHECK_EQ(rw_key_kind_parse("Flow"), -1);
}

/* A key's text cut to a column count keeps both ends of a pair or a flow. */
static void test_key_fit(void)
{
	char t[RW_KEY_STRLEN];

	snprintf(t, sizeof(t), "198.18.0.7");
	rw_key_fit(t, 40);
	CHECK_STR(t, "198.18.0.7");
	rw_key_fit(t, 6);
	CHECK_STR(t, "198.1~");
	snprintf(t, sizeof(t), "udp [2001:db8:1234::77]:40000 → [2001:db8:ffff::1]:53");
	rw_key_fit(t, 40);
	CHECK_EQ((int)strlen(t) - rw_text_extra_bytes(t), 40);
	CHECK_STR(t, "udp [2001:db8:1~ → [2001:db8:ffff::1]:53");
	snprintf(t, sizeof(t), "2001:db8:aaaa:bbbb:cccc:dddd:eeee:1 → 2001:db8::1");
	rw_key_fit(t, 30);
	CHECK_EQ((int)strlen(t) - rw_text_extra_bytes(t), 30);
	CHECK_STR(t, "2001:db8:aaaa:b~ → 2001:db8::1");
	snprintf(t, sizeof(t), "a → b");
	rw_key_fit(t, 3);
	CHECK_STR(t, "a ~");
}

/* The key of `ratewall run` by default: sources, IPv6 by /64. */
static const struct rw_rule_scope default_scope = { RW_KIND_SRC, RW_DEFAULT_V6_PREFIX, 0 };

/* Parses one rule, expecting success; the spec in *r. */
static void rule_ok(const char *text, struct rw_rule_spec *r)
{
	char err[256] = "";

	if (rw_rule_parse(text, &default_scope, r, err, sizeof(err))) {
		fprintf(stderr, "  rule '%s' refused: %s\n", text, err);
		CHECK(0);
	}
}

static void test_rules_parse(void)
{
	static const struct { const char *text, *needle; } bad[] = {
		{ "198.18.0.0/33 deny", "prefix length must be 0 to 32" },
		{ "2001:db8::/129 deny", "0 to 128" },
		{ "198.18.1.0/16 deny", "bits set beyond /16" },
		{ "198.18.0.256 deny", "not an IPv4 or IPv6 address" },
		{ "example.com allow", "not an IPv4 or IPv6" },
		{ "198.18.0.0/16", "a rule is" },
		{ "198.18.0.0/16 block", "'block' is not an action" },
		{ "198.18.0.0/16 allow now", "takes no options" },
		{ "198.18.0.0/16 limit", "limit needs a rate" },
		{ "198.18.0.0/16 limit fast", "'fast' is not a rate" },
		{ "198.18.0.0/16 limit 0", "not a rate" },
		{ "198.18.0.0/16 limit 5k 6k", "packet rate is given twice" },
		{ "198.18.0.0/16 limit 5k per", "per: give src, dst, pair or a prefix length" },
		{ "198.18.0.0/16 limit 5k per 24", "per: give src, dst, pair or a prefix length" },
		{ "198.18.0.0/16 limit 5k per /33", "at most /32" },
		{ "198.18.0.0/16 limit 5k per /8", "shorter than the rule's own /16" },
		{ "198.18.0.0/16 limit 5k per /24 per /24", "per is given twice" },
	};
	struct rw_rule_spec r;
	char err[256], text[RW_RULE_STRLEN];

	rule_ok("198.18.0.7 allow", &r);
	CHECK_EQ(r.plen, 32);
	CHECK_EQ(r.action, RW_RULE_ALLOW);
	CHECK_EQ(r.prefix.family, RW_FAMILY_IPV4);
	rule_ok("2001:db8:1::/48 deny", &r);
	CHECK_EQ(r.plen, 48);
	CHECK_EQ(r.action, RW_RULE_DENY);
	CHECK_EQ(r.prefix.family, RW_FAMILY_IPV6);
	rule_ok("0.0.0.0/0 limit 1M", &r);
	CHECK_EQ(r.plen, 0);
	CHECK_EQ(r.pps, 1000000);
	rule_ok("198.18.0.0/15 limit 10kpps 20Mbps per /24", &r);
	CHECK_EQ(r.pps, 10000);
	CHECK_EQ(r.bps, 20000000);
	CHECK_EQ(r.per_len, 24);
	rule_ok("198.18.0.0/15   limit 5k pps 1G bps", &r);
	CHECK_EQ(r.pps, 5000);
	CHECK_EQ(r.bps, 1000000000);
	/* What rule list prints reads back as the same rule. */
	rw_rule_format(&r, text, sizeof(text));
	CHECK_STR(text, "198.18.0.0/15 limit 5000pps 1000000000bps");
	{
		struct rw_rule_spec again;

		rule_ok(text, &again);
		CHECK(rw_rule_same_prefix(&r, &again) && again.pps == r.pps && again.bps == r.bps);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_REFUSED(rw_rule_parse(bad[i].text, &default_scope, &r, err, sizeof(err)),
			      bad[i].text, err,
			      bad[i].needle);
	}
}

/* Rules with a match: what each reads, how it is written back, what it refuses. */
static void test_rules_match(void)
{
	static const struct { const char *text, *needle; } bad[] = {
		{ "0.0.0.0/0 ftp limit 5", "'ftp' is not an action (allow, deny, limit), a protocol" },
		{ "0.0.0.0/0 256 deny", "'256' is not an action" },
		{ "0.0.0.0/0 tcp dport 65536 deny", "dport: '65536' is not a port (0 to 65535)" },
		{ "0.0.0.0/0 udp sport 53-x deny", "sport: '53-x' is not a port" },
		{ "0.0.0.0/0 udp dport 2000-1000 deny", "dport: the range 2000-1000 runs backwards" },
		{ "0.0.0.0/0 udp flags syn deny", "flags: only tcp has flags" },
		{ "0.0.0.0/0 icmp dport 1 deny", "dport: only tcp and udp have ports" },
		{ "0.0.0.0/0 tcp type 8 deny", "type: only icmp and icmpv6 have a type" },
		{ "0.0.0.0/0 tcp flags sin deny", "flags: 'sin' is not a TCP flag" },
		{ "0.0.0.0/0 tcp flags syn,syn deny", "flags: 'syn' is named twice" },
		{ "0.0.0.0/0 tcp flags deny", "flags: 'deny' is not a TCP flag" },
		{ "0.0.0.0/0 tcp flags syn flags ack deny", "flags is given twice" },
		{ "0.0.0.0/0 tcp dport 1 dport 2 deny", "dport is given twice" },
		{ "0.0.0.0/0 tcp dport 1,2,3,4,5,6,7,8,9 deny", "at most 8 ports or ranges" },
		{ "0.0.0.0/0 tcp dport", "dport: give a port" },
		{ "0.0.0.0/0 tcp", "the rule has no action" },
		{ "0.0.0.0/0 tcp dport 22 block", "'block' is not a match word (sport, dport, flags, type) or an action" },
		{ "::/0 icmp deny", "icmp is IPv4's: an IPv6 prefix takes icmpv6" },
		{ "0.0.0.0/0 icmpv6 deny", "icmpv6 is IPv6's" },
		{ "0.0.0.0/0 icmp type 256 deny", "type: '256' is not an ICMP type" },
		{ "0.0.0.0/0 udp limit 5 per host", "per: give src, dst, pair or a prefix length" },
		{ "0.0.0.0/0 udp limit 5 per dst per src", "per is given twice" },
		{ "0.0.0.0/0 long-chain deny", "long-chain is IPv6's" },
		{ "::/0 tcp long-chain deny", "long-chain names no protocol" },
		{ "0.0.0.0/0 gre tiny-frag deny", "tiny-frag: only tcp, udp, icmp and icmpv6" },
		{ "0.0.0.0/0 udp dport 53 frag deny", "frag: a class takes no ports, flags or type" },
		{ "0.0.0.0/0 udp frag dport 53 deny", "'dport' after frag: a class takes no other match word" },
		{ "0.0.0.0/0 frag tiny-frag deny", "'tiny-frag' after frag" },
		{ "0.0.0.0/0 frag udp deny", "'udp' after frag" },
		{ "0.0.0.0/0 fragment deny", "or a class (frag, tiny-frag, long-chain)" },
	};
	static const struct { const char *in, *out; } round[] = {
		{ "0.0.0.0/0 udp sport 53,123,11211 limit 20k per dst",
		  "0.0.0.0/0 udp sport 53,123,11211 limit 20000pps per dst" },
		{ "0.0.0.0/0 tcp flags syn limit 200", "0.0.0.0/0 tcp flags syn limit 200pps" },
		{ "::/0 tcp flags syn limit 50k per /48", "::/0 tcp flags syn limit 50000pps per /48" },
		{ "203.0.113.10 tcp dport 22 limit 10", "203.0.113.10/32 tcp dport 22 limit 10pps" },
		{ "0.0.0.0/0 udp dport 11211 deny", "0.0.0.0/0 udp dport 11211 deny" },
		{ "198.51.100.0/24 icmp allow", "198.51.100.0/24 icmp allow" },
		{ "0.0.0.0/0 tcp dport 1024-65535 flags syn,ack deny",
		  "0.0.0.0/0 tcp dport 1024-65535 flags syn,ack deny" },
		{ "0.0.0.0/0 tcp flags rst,!ack limit 5", "0.0.0.0/0 tcp flags rst,!ack limit 5pps" },
		{ "2001:db8::/32 icmpv6 type echo-request limit 100 per pair",
		  "2001:db8::/32 icmpv6 type 128 limit 100pps per pair" },
		{ "0.0.0.0/0 47 deny", "0.0.0.0/0 gre deny" },
		{ "0.0.0.0/0 limit 5 per dst", "0.0.0.0/0 limit 5pps per dst" },
		{ "0.0.0.0/0 udp frag limit 5k per dst", "0.0.0.0/0 udp frag limit 5000pps per dst" },
		{ "0.0.0.0/0 frag deny", "0.0.0.0/0 frag deny" },
		{ "0.0.0.0/0 tcp tiny-frag deny", "0.0.0.0/0 tcp tiny-frag deny" },
		{ "::/0 long-chain limit 10", "::/0 long-chain limit 10pps" },
	};
	struct rw_rule_spec r, again;
	char err[256], text[RW_RULE_STRLEN];

	for (size_t i = 0; i < sizeof(round) / sizeof(round[0]); i++) {
		rule_ok(round[i].in, &r);
		rw_rule_format(&r, text, sizeof(text));
		CHECK_STR(text, round[i].out);
		rule_ok(text, &again);
		CHECK(rw_rule_same_prefix(&r, &again) && again.per == r.per && again.pps == r.pps);
	}
	rule_ok("0.0.0.0/0 tcp flags syn limit 200", &r);
	CHECK_EQ(r.match.proto, 6);
	CHECK_EQ(r.match.flags_set, RW_TCP_SYN);
	CHECK_EQ(r.match.flags_clear, RW_TCP_ACK);
	/* What the data path's index says, modelled: SYN alone, not a SYN-ACK, not a bare ACK. */
	CHECK(rw_match_meets(&r.match, 6, 40000, 80, RW_TCP_SYN, 0));
	CHECK(!rw_match_meets(&r.match, 6, 40000, 80, RW_TCP_SYN | RW_TCP_ACK, 0));
	CHECK(!rw_match_meets(&r.match, 6, 40000, 80, RW_TCP_ACK, 0));
	CHECK(!rw_match_meets(&r.match, 17, 40000, 80, RW_TCP_SYN, 0));
	/* A class's match takes packets of its class only: no whole packet meets it. */
	rule_ok("0.0.0.0/0 udp frag limit 5", &r);
	CHECK_EQ(r.match.proto, 17);
	CHECK_EQ(r.match.cls, RW_L4_LATER);
	CHECK(rw_match_any(&r.match));
	CHECK(!rw_match_meets(&r.match, 17, 40000, 53, 0, 0));
	rule_ok("::/0 long-chain deny", &r);
	CHECK_EQ(r.match.proto, 0);
	CHECK_EQ(r.match.cls, RW_L4_DEEP);
	CHECK(rw_match_any(&r.match));
	rule_ok("0.0.0.0/0 udp sport 53,123,11000-11300 deny", &r);
	CHECK(rw_match_meets(&r.match, 17, 123, 9, 0, 0));
	CHECK(rw_match_meets(&r.match, 17, 11211, 9, 0, 0));
	CHECK(!rw_match_meets(&r.match, 17, 54, 9, 0, 0));
	CHECK(!rw_match_meets(&r.match, 6, 53, 9, 0, 0));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_REFUSED(rw_rule_parse(bad[i].text, &default_scope, &r, err, sizeof(err)),
			      bad[i].text, err, bad[i].needle);
	/* `rule del` takes the prefix and the match, nothing after. */
	CHECK_EQ(rw_rule_parse_selector("0.0.0.0/0 tcp flags syn", &r, err, sizeof(err)), 0);
	CHECK_EQ(r.match.flags_set, RW_TCP_SYN);
	CHECK_REFUSED(rw_rule_parse_selector("0.0.0.0/0 tcp flags syn deny", &r, err, sizeof(err)),
		      "selector with an action", err, "'deny': a rule is deleted by its CIDR and match alone");
}

/* Bad qualified rules in a file: the file and line, and nothing taken. */
static int rules_from_text(const char *text, struct rw_ruleset *rs, char *err);
static void test_rules_match_file(void)
{
	struct rw_ruleset rs = { 0 };
	char err[256], many[64 * 48 + 1];
	size_t k = 0;

	CHECK_EQ(rules_from_text("0.0.0.0/0 tcp flags syn limit 200\n"
				 "0.0.0.0/0 limit 1000\n"
				 "0.0.0.0/0 tcp dport 22 limit 10\n"
				 "0.0.0.0/0 udp dport 11211 deny\n", &rs, err), 0);
	CHECK_EQ(rs.n, 4);
	rw_ruleset_free(&rs);
	CHECK_EQ(rules_from_text("0.0.0.0/0 tcp flags syn limit 200\n# x\n"
				 "0.0.0.0/0 udp flags syn limit 5\n", &rs, err), -EINVAL);
	CHECK_STR(err, "r.rules:3: flags: only tcp has flags");
	CHECK_EQ(rs.n, 0);
	CHECK_EQ(rules_from_text("0.0.0.0/0 tcp flags syn limit 200\n"
				 "0.0.0.0/0 tcp flags syn deny\n", &rs, err), -EINVAL);
	CHECK_STR(err, "r.rules:2: this prefix and match already have a rule on line 1");
	/* 64 different matches: one more than the data path's 63. */
	for (int i = 0; i < 64; i++)
		k += (size_t)snprintf(many + k, sizeof(many) - k, "0.0.0.0/0 tcp dport %d deny\n", i + 1);
	CHECK_EQ(rules_from_text(many, &rs, err), -EINVAL);
	CHECK_STR(err, "r.rules:64: more than 63 different matches (protocol, ports, flags, type) in one rules file");
}

/* Which rule governs a key: a rule's budget by its id, any other key by its longest prefix-only rule. */
static void test_rule_of_key(void)
{
	struct rw_ruleset rs = { 0 };
	struct rw_key k = { .family = RW_FAMILY_IPV4, .addr = { 198, 18, 3, 4 } };
	char err[256];

	CHECK_EQ(rules_from_text("198.18.0.0/15 limit 100\n"
				 "198.18.3.0/24 deny\n"
				 "198.18.0.0/16 tcp flags syn limit 5\n", &rs, err), 0);
	for (size_t i = 0; i < rs.n; i++)
		rs.rule[i].id = (uint32_t)(10 + i);
	CHECK_EQ(rw_rule_of_key(&rs, &k)->id, 11);
	k.addr[2] = 9;
	CHECK_EQ(rw_rule_of_key(&rs, &k)->id, 10);
	k.addr[0] = 10;
	CHECK(rw_rule_of_key(&rs, &k) == NULL);
	k.kind = RW_KIND_SRC | RW_KIND_RULE;
	k.rule = 12;
	CHECK_EQ(rw_rule_of_key(&rs, &k)->id, 12);
	rw_ruleset_free(&rs);
}

static int rules_from_text_scoped(const char *text, const struct rw_rule_scope *scope,
				  struct rw_ruleset *rs, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	CHECK(f != NULL);
	if (!f)
		return -1;
	ret = rw_rules_parse_stream(f, "r.rules", scope, rs, err, 256);
	fclose(f);
	return ret;
}

static int rules_from_text(const char *text, struct rw_ruleset *rs, char *err)
{
	return rules_from_text_scoped(text, &default_scope, rs, err);
}

static void test_rules_file(void)
{
	struct rw_ruleset rs = { 0 };
	char err[256];

	CHECK_EQ(rules_from_text("# monitoring\n"
				 "198.51.100.7 allow   # our prober\n"
				 "\n"
				 "  203.0.113.0/24 deny\n"
				 "198.18.0.0/16 limit 50k per /24\n", &rs, err), 0);
	CHECK_EQ(rs.n, 3);
	CHECK_EQ(rs.rule[1].line, 4);
	CHECK_EQ(rs.rule[2].per_len, 24);
	rw_ruleset_free(&rs);
	CHECK_EQ(rules_from_text("198.18.0.0/16 deny\n10.0.0.0/8 allow\n198.18.0.0/16 allow\n", &rs,
				 err), -EINVAL);
	CHECK_STR(err, "r.rules:3: this prefix and match already have a rule on line 1");
	CHECK_EQ(rs.n, 0);
	CHECK_EQ(rules_from_text("198.18.0.0/16 deny\n198.18.0.0/16 dny\n", &rs, err), -EINVAL);
	CHECK_STR(err, "r.rules:2: 'dny' is not an action (allow, deny, limit), a protocol (tcp, udp, icmp, icmpv6, sctp, gre, esp, ah, or 1 to 255) or a class (frag, tiny-frag, long-chain)");
	{
		char big[700];

		memset(big, ' ', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		memcpy(big, "198.18.0.0/16 deny\n10.0.0.0/8 allow", 35);
		CHECK_EQ(rules_from_text(big, &rs, err), -EINVAL);
		CHECK_STR(err, "r.rules:2: line longer than 512 bytes");
	}
	/* The same address in two lengths is two rules: the longer one wins in the kernel. */
	CHECK_EQ(rules_from_text("198.18.0.0/16 deny\n198.18.0.0/24 allow\n", &rs, err), 0);
	CHECK_EQ(rs.n, 2);
	rw_ruleset_free(&rs);
}

/*
 * An IPv6 src, dst or pair key keeps --v6-prefix bits of its address: a rule
 * or a `per /LEN` finer than that would share the key, its record and its
 * leases with its neighbours, so it is refused, in every way rules
 * come in (a file, SIGHUP, `ratewall rule add`: all through rw_rule_parse).
 */
static void test_rules_v6_prefix(void)
{
	static const struct rw_rule_scope src64 = { RW_KIND_SRC, 64, 0 }, dst64 = { RW_KIND_DST, 64, 0 },
					  pair48 = { RW_KIND_PAIR, 48, 0 }, flow64 = { RW_KIND_FLOW, 64, 0 },
					  src128 = { RW_KIND_SRC, 128, 0 };
	struct rw_ruleset rs = { 0 };
	struct rw_rule_spec r;
	char err[256] = "";

	CHECK_REFUSED(rw_rule_parse("2001:db8::1/128 limit 1000", &src64, &r, err, sizeof(err)),
		      "/128 under /64", err,
		      "2001:db8::1/128: a /128 rule is longer than --v6-prefix 64");
	CHECK(strstr(err, "use --v6-prefix 128 or a rule of /64 or shorter") != NULL);
	CHECK_REFUSED(rw_rule_parse("2001:db8:0:1:8000::/65 deny", &dst64, &r, err, sizeof(err)),
		      "/65 under --key dst", err, "a /65 rule is longer than --v6-prefix 64");
	CHECK_REFUSED(rw_rule_parse("2001:db8:1::/56 allow", &pair48, &r, err, sizeof(err)),
		      "/56 under a pair key's /48", err, "use --v6-prefix 56 or a rule of /48");
	CHECK_REFUSED(rw_rule_parse("2001:db8::/48 limit 10k per /128", &src64, &r, err,
				    sizeof(err)), "per /128 under /64", err,
		      "per /128 is longer than --v6-prefix 64");
	CHECK(strstr(err, "use --v6-prefix 128 or per /64 or shorter") != NULL);
	/* What the key keeps whole, and IPv4, may be named to the bit. */
	CHECK_EQ(rw_rule_parse("2001:db8::1/128 limit 1000", &src128, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rule_parse("2001:db8::1/128 limit 1000", &flow64, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rule_parse("2001:db8::/48 limit 10k per /128", &flow64, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rule_parse("2001:db8:0:1::/64 deny", &src64, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rule_parse("2001:db8::/48 limit 10k per /64", &src64, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rule_parse("198.18.0.7 limit 10k", &src64, &r, err, sizeof(err)), 0);
	/* A file with one such rule is refused whole, naming its line: the rules in force stay. */
	CHECK_EQ(rules_from_text_scoped("198.18.0.0/16 deny\n2001:db8::7 allow\n", &src64, &rs,
					err), -EINVAL);
	CHECK_STR(err, "r.rules:2: 2001:db8::7/128: a /128 rule is longer than --v6-prefix 64: "
		  "it would share the key (record, leases) of its /64 with its neighbours; use "
		  "--v6-prefix 128 or a rule of /64 or shorter");
	CHECK_EQ(rs.n, 0);
}

static void test_levels_parse(void)
{
	static const struct { const char *text, *needle; } bad[] = {
		{ "", "give v4" }, { "v5:24", "not v4:LEN" }, { "v4:", "has no lengths" },
		{ "v4:33", "1 to 32" }, { "v6:0", "1 to 128" }, { "v4:24,24", "/24 is given twice" },
		{ "v4:24 v4:16", "v4 is given twice" }, { "v4:1,2,3,4,5,6,7", "at most 6" },
		{ "v4:24x", "not a prefix length" },
	};
	struct rw_levels lv;
	char err[256];

	CHECK_EQ(rw_parse_levels("v4:16,32,24 v6:48,128,64", &lv, err, sizeof(err)), 0);
	CHECK_EQ(lv.n[0], 3);
	CHECK(lv.len[0][0] == 32 && lv.len[0][1] == 24 && lv.len[0][2] == 16);
	CHECK(lv.len[1][0] == 128 && lv.len[1][2] == 48);
	CHECK_EQ(rw_parse_levels("v6:64;v4:24", &lv, err, sizeof(err)), 0);
	CHECK(lv.n[0] == 1 && lv.n[1] == 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_REFUSED(rw_parse_levels(bad[i].text, &lv, err, sizeof(err)), bad[i].text, err,
			      bad[i].needle);
	}
}

static void test_parse_listen(void)
{
	static const struct { const char *in, *out; } good[] = {
		{ "9100", "127.0.0.1:9100" }, { "0.0.0.0:80", "0.0.0.0:80" },
		{ "[::1]:9100", "[::1]:9100" }, { "[::]:1", "[::]:1" }, { "10.1.2.3:65535", "10.1.2.3:65535" },
	};
	static const char *const bad[] = { "", "0", "65536", "host:9100", ":9100", "[::1]9100",
					   "[::1:9100", "1.2.3.4:", "9100x", "::1:9100" };
	struct sockaddr_storage ss;
	char err[256], text[64];
	socklen_t len;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK_EQ(rw_parse_listen(good[i].in, &ss, &len, err, sizeof(err)), 0);
		rw_format_listen(&ss, text, sizeof(text));
		CHECK_STR(text, good[i].out);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(rw_parse_listen(bad[i], &ss, &len, err, sizeof(err)), -EINVAL);
		CHECK(strncmp(err, "--metrics:", 10) == 0);
	}
}

static void test_key_within(void)
{
	struct rw_key p = v4("198.18.1.0"), k = v4("198.18.1.77"), c;

	CHECK(rw_key_within(&k, &p, 24));
	CHECK(!rw_key_within(&k, &p, 32));
	CHECK(rw_key_within(&k, &(struct rw_key){ .family = RW_FAMILY_IPV4 }, 0));
	k = v4("198.18.2.1");
	CHECK(!rw_key_within(&k, &p, 24));
	CHECK(rw_key_within(&k, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 18 } },
			    22)); /* 198.18.0.0/22 holds 198.18.2.1 */
	k = v6("2001:db8::1");
	CHECK(!rw_key_within(&k, &p, 0)); /* another family is never inside */
	/* A shared budget (per /16) is inside a /8, not inside a /24 of it. */
	CHECK(rw_key_cut(&(struct rw_key){ .family = RW_FAMILY_IPV4,
					   .addr = { 198, 18, 9, 9 } }, 16, &c));
	CHECK_EQ(RW_KEY_PREFIX_LEN(&c), 16);
	CHECK_EQ(c.addr[2], 0);
	p = v4("198.0.0.0");
	CHECK(rw_key_within(&c, &p, 8));
	p = v4("198.18.9.0");
	CHECK(!rw_key_within(&c, &p, 24));
}

void run_cli_tests(void)
{
	RUN(test_parse_rate_valid);
	RUN(test_parse_rate_invalid);
	RUN(test_parse_duration);
	RUN(test_parse_size_and_uint);
	RUN(test_format);
	RUN(test_cli_defaults_and_options);
	RUN(test_cli_errors);
	RUN(test_parse_count);
	RUN(test_options_table);
	RUN(test_count_spellings);
	RUN(test_options_help);
	RUN(test_cli_config_file);
	RUN(test_cli_status_stop);
	RUN(test_rules_parse);
	RUN(test_rules_file);
	RUN(test_rules_match);
	RUN(test_rules_match_file);
	RUN(test_rule_of_key);
	RUN(test_rules_v6_prefix);
	RUN(test_levels_parse);
	RUN(test_parse_listen);
	RUN(test_limit_per_window);
	RUN(test_clock_resolve);
	RUN(test_clock_coarse_refusals);
	RUN(test_key_format);
	RUN(test_key_fit);
	RUN(test_key_within);
}
