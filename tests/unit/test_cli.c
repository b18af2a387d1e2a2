// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Userspace unit tests: parsing, window math, ranking against a brute force. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "svccli.h"
#include "rules.h"
#include "hhh.h"
#include "keyset.h"
#include "listen.h"
#include "key.h"
#include <arpa/inet.h>

#include "meminfo.h"
#include "ratewall_hash.h"
#include "memplan.h"
#include "thresholds.h"
#include "rank.h"
#include "testlib.h"
#include "units.h"
#include "window.h"

/* A refused input: -EINVAL, and a reason that says what it should. */
#define CHECK_REFUSED(ret, input, err, needle)                                               \
	do {                                                                               \
		CHECK_EQ((ret), -EINVAL);                                                  \
		if (!strstr((err), (needle))) {                                            \
			fprintf(stderr, "  '%s': error '%s' lacks '%s'\n", (input), (err),   \
				(needle));                                                 \
			CHECK(0);                                                          \
		}                                                                          \
	} while (0)

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
		{ true, "stop --name ../a", "not an instance name" },
		{ true, "stop --json eth0", "unknown option '--json'" },
		{ true, "stop eth0 eth0", "listed twice" },
		{ true, "stop --all --pin-dir x", "absolute path" },
		{ false, "status --all", "unknown option '--all'" },
		{ false, "status eth0", "unexpected argument 'eth0'" },
		{ false, "status --pin-dir", "needs a value" },
		{ false, "rule", "rule takes add RULE, del CIDR or list" },
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
		{ "run a --hhh-share 0", "--hhh-share" },
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
	uint64_t tick = 4000000ULL; /* HZ=250 */

	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, tick), RW_CLOCK_COARSE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 80000000ULL, tick), RW_CLOCK_COARSE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 79999999ULL, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 1000000ULL, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_AUTO, 100000000ULL, 0), RW_CLOCK_PRECISE); /* unknown tick */
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_PRECISE, 100000000ULL, tick), RW_CLOCK_PRECISE);
	CHECK_EQ(rw_clock_resolve(RW_CLOCK_COARSE, 1000000ULL, tick), RW_CLOCK_COARSE);
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

static void set_hist(struct rw_hist_slot *h, uint64_t epoch, uint32_t slots, uint64_t pk,
		     uint64_t drop)
{
	struct rw_hist_slot *s = &h[epoch % slots];

	s->epoch = epoch + 1;
	s->packets = (uint32_t)pk;
	s->bytes = pk * 100;
	s->drop_packets = (uint32_t)drop;
	s->drop_bytes = drop * 100;
}

static void test_window_sum_skips_stale_slots(void)
{
	uint32_t slots = 4;
	struct rw_hist_slot hist[4] = { 0 };
	struct rw_hot hot[4] = {
		/* now = epoch 100: live epochs are 97..100 (and 101, a CPU a slot ahead). */
		{ .epoch = 100, .packets = 10, .bytes = 1000, .drop_packets = 1, .drop_bytes = 100, .gen = 3 },
		{ .epoch = 96, .packets = 700, .bytes = 70000, .gen = 3 }, /* just out of the window */
		{ .epoch = 101, .packets = 3, .bytes = 300, .gen = 3 },    /* ahead of the reader */
		{ .epoch = 100, .packets = 40, .bytes = 4000, .gen = 2 },  /* an earlier generation's */
	};
	struct rw_flow_view fv = { .state = rw_st_make(101, 3, RW_ST_LIVE), .hot = hot, .ncpus = 4,
				   .hist = hist };
	struct rw_window_sum w;

	set_hist(hist, 99, slots, 20, 0);
	set_hist(hist, 97, slots, 5, 5);    /* oldest live slot */
	set_hist(hist, 94, slots, 1000, 0); /* slot 2: stale by a whole round */
	rw_flow_window(&fv, slots, 100, &w);
	CHECK_EQ(w.packets, 10 + 20 + 5 + 3);
	CHECK_EQ(w.bytes, (10 + 20 + 5 + 3) * 100ULL);
	CHECK_EQ(w.drop_packets, 6);
	CHECK_EQ(w.drop_bytes, 600);
	CHECK_EQ(w.cpus, 2); /* CPUs with live counts of this generation */
	CHECK_EQ(w.newest_epoch, 101);
	CHECK(!rw_window_idle(&w, 100, slots));

	/* Four slots later, nothing is live: idle, to be wiped. */
	rw_flow_window(&fv, slots, 105, &w);
	CHECK_EQ(w.packets, 0);
	CHECK_EQ(w.cpus, 0);
	CHECK(rw_window_idle(&w, 105, slots));
	/* A slot being restarted is no round's: not counted, not newest. */
	hist[99 % 4].epoch = RW_HIST_BUSY;
	rw_flow_window(&fv, slots, 100, &w);
	CHECK_EQ(w.packets, 10 + 5 + 3);
	/* A flow with no history yet is summed from its records alone. */
	fv.hist = NULL;
	fv.ncpus = 1;
	rw_flow_window(&fv, slots, 100, &w);
	CHECK_EQ(w.packets, 10);
}

/*
 * The age rules both sides share: a record's 32-bit epoch read against the
 * entry's 48-bit one across the wrap, the entry state's fields, and idleness
 * with its one spare slot.
 */
static void test_age_rules(void)
{
	uint64_t bases[] = { 0, 5, (1ULL << 32) - 2, (1ULL << 32) + 3, 123456789012ULL };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		uint64_t e = bases[i], s = rw_st_make(e, 200, RW_ST_LIVE | RW_ST_OVERFLOW);
		struct rw_hot f = { .epoch = (uint32_t)e };

		CHECK_EQ(rw_hot_epoch(&f, e), e);
		CHECK_EQ(rw_hot_epoch(&f, e + 9), e);          /* the entry moved on since */
		CHECK_EQ(rw_hot_epoch(&f, e + 2000000000ULL), e);
		if (e >= 3)
			CHECK_EQ(rw_hot_epoch(&f, e - 3), e); /* a saturated record ahead of the state */
		CHECK_EQ(rw_st_epoch(s), e);
		CHECK_EQ(rw_st_gen(s), 200);
		CHECK(rw_st_live(s));
		CHECK(!rw_st_live(s | RW_ST_BUSY));
		/* 4 slots, carried counts up to 3 slots past the state, one spare slot */
		CHECK(!rw_st_quiet(s, e + 7, 4));
		CHECK(rw_st_quiet(s, e + 8, 4));
		CHECK(!rw_st_idle(s, e + 8, 4));
		CHECK(rw_st_idle(s, e + 9, 4));
		CHECK(!rw_st_idle(s | RW_ST_BUSY, e + 50, 4));
	}
	CHECK_EQ(rw_st_gen(rw_st_make(7, (uint8_t)(255 + 1), RW_ST_LIVE)), 0);
	CHECK_EQ(rw_st_epoch(rw_st_make(RW_ST_EPOCH_MASK + 5, 1, 0)), 4); /* 48 bits kept */
	CHECK(!rw_hist_held(0));
	CHECK(!rw_hist_held(RW_HIST_BUSY));
	CHECK(rw_hist_held(1));
	CHECK_EQ(rw_hist_round(1), 0);
}

/* The promotion threshold a limit needs: ncpus x (threshold - 1) never reaches the limit. */
static void test_limit_threshold_bound(void)
{
	static const uint64_t limits[] = { 1, 2, 3, 7, 100, 999, 1000, 10000, 123456789, 1ULL << 40 };
	static const uint32_t cpus[] = { 1, 2, 3, 16, 64, 192, 1024 };

	CHECK_EQ(rw_limit_threshold(0, 4, 0), 0);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		for (size_t j = 0; j < sizeof(cpus) / sizeof(cpus[0]); j++) {
			uint64_t t = rw_limit_threshold(limits[i], cpus[j], RW_MAX_THRESHOLD);

			CHECK(t >= 1 && t <= RW_MAX_THRESHOLD);
			CHECK((t - 1) * cpus[j] < limits[i]);
		}
	}
}

static void test_next_thresholds(void)
{
	struct rw_rank_entry top[3] = { 0 };
	struct rw_thresholds t;

	/* Few flows tracked: the rest of the free budget, and the sketch's noise floor. */
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 100, 32768, 0, 0);
	CHECK_EQ(t.free_promotions, RW_FREE_TRACKED - 100);
	CHECK_EQ(t.promote_packets, 2);
	CHECK_EQ(t.promote_bytes, 0);
	/* A small table keeps a quarter of itself for free promotions. */
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 10, 64, 0, 0);
	CHECK_EQ(t.free_promotions, 16 - 10);
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 5000, 32768, 0, 0);
	CHECK_EQ(t.free_promotions, 0);
	/* A busy sketch (more packets on a CPU than buckets): no free promotions. */
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 100, 32768, RW_SKETCH_COLS, 0);
	CHECK_EQ(t.free_promotions, RW_FREE_TRACKED - 100);
	t = rw_next_thresholds(top, 0, 3, RW_SORT_PPS, 2, 100, 32768, RW_SKETCH_COLS + 1, 0);
	CHECK_EQ(t.free_promotions, 0);
	/* A full top-3 whose third has 9000 packets: 4500 on some CPU of two. */
	top[2].sum.packets = 9000;
	top[2].sum.bytes = 900000;
	t = rw_next_thresholds(top, 3, 3, RW_SORT_PPS, 2, 5000, 32768, 0, 0);
	CHECK_EQ(t.promote_packets, 4500);
	t = rw_next_thresholds(top, 3, 3, RW_SORT_BPS, 2, 5000, 32768, 0, 0);
	CHECK_EQ(t.promote_packets, 0);
	CHECK_EQ(t.promote_bytes, 450000);
	/* A spoofed flood of 40 M packets on one CPU: never below its count-min noise. */
	t = rw_next_thresholds(top, 3, 3, RW_SORT_PPS, 2, 5000, 32768, 40000000, 0);
	CHECK_EQ(t.promote_packets, 2 * 40000000 / RW_SKETCH_COLS + 2);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Count-min needs its two rows to collide independently: over 65 536
 * sequential sources (how real ranges look), pairs that share both buckets
 * stay near what independent rows give (n^2 / 2 / columns^2), and each row's
 * load is as even as chance makes it.
 */
static void test_hash_rows_independent(void)
{
	const uint32_t n = 65536;
	const uint64_t expect = (uint64_t)n * n / 2 / ((uint64_t)RW_SKETCH_COLS * RW_SKETCH_COLS);
	uint32_t *pairs = calloc(n, sizeof(*pairs)), *row0 = calloc(RW_SKETCH_COLS, sizeof(*row0));

	for (int fam = RW_FAMILY_IPV4; fam <= RW_FAMILY_IPV6; fam += 2) {
		uint64_t both = 0, run = 0;
		double chi = 0, mean = (double)n / RW_SKETCH_COLS;

		memset(row0, 0, RW_SKETCH_COLS * sizeof(*row0));
		for (uint32_t i = 0; i < n; i++) {
			struct rw_key k = { .family = (uint8_t)fam };
			uint32_t v = htonl((fam == RW_FAMILY_IPV4 ? 0xc6120000u : 0) + i);
			uint64_t h;

			if (fam == RW_FAMILY_IPV6) {
				k.addr[0] = 0x20, k.addr[1] = 0x01, k.addr[2] = 0x0d, k.addr[3] = 0xb8;
				memcpy(k.addr + 12, &v, 4);
			} else {
				memcpy(k.addr, &v, 4);
			}
			h = rw_hash(&k, 0x243f6a8885a308d3ULL);
			pairs[i] = rw_sketch_col(h, 0) << 16 | rw_sketch_col(h, 1);
			row0[rw_sketch_col(h, 0)]++;
		}
		qsort(pairs, n, sizeof(*pairs), cmp_u32);
		for (uint32_t i = 1; i < n; i++) {
			run = pairs[i] == pairs[i - 1] ? run + 1 : 0;
			both += run;
		}
		for (uint32_t i = 0; i < RW_SKETCH_COLS; i++)
			chi += (row0[i] - mean) * (row0[i] - mean) / mean;
		chi /= RW_SKETCH_COLS - 1;
		if (both > 3 * expect || chi < 0.5 || chi > 1.5)
			fprintf(stderr, "  IPv%d: %llu pairs share both rows, row 0 chi2/df %.3f\n", fam,
				(unsigned long long)both, chi);
		CHECK(both <= 3 * expect);
		CHECK(chi > 0.5 && chi < 1.5);
	}
	free(pairs);
	free(row0);
}

static void test_memplan(void)
{
	struct rw_memplan a, b;
	uint64_t sum = 0;

	rw_memplan(2, 32768, 10, &a);
	for (uint32_t i = 0; i < a.n; i++)
		sum += a.map[i].bytes;
	CHECK_EQ(sum, a.total);
	CHECK_EQ(strcmp(a.map[2].name, "hot"), 0);
	/*
	 * The record is 32 B: from 2 to 64 CPUs the table grows by that per CPU
	 * and entry (entries: 5/4 of the flows, in whole buckets), no more.
	 */
	rw_memplan(64, 32768, 10, &b);
	CHECK(b.map[2].bytes - a.map[2].bytes + 4096 >=
	      62ULL * sizeof(struct rw_hot) * rw_table_buckets(32768) * RW_WAYS);
	CHECK(b.map[2].bytes - a.map[2].bytes <=
	      62ULL * sizeof(struct rw_hot) * rw_table_buckets(32768) * RW_WAYS + 4096);
	CHECK_EQ(b.map[3].bytes, a.map[3].bytes); /* the history does not depend on the CPUs */
	/* Defaults on 64 CPUs stay within 128 MiB. */
	CHECK(b.total <= 128ULL << 20);
	/* One more flow costs about what rw_memplan_per_flow says (whole buckets and pages). */
	rw_memplan(64, 30000, 10, &a);
	rw_memplan(64, 30000 + 12 * RW_WAYS, 10, &b);
	CHECK(b.total - a.total <= 12 * RW_WAYS * rw_memplan_per_flow(64, 10) + 4 * 4096);
	CHECK(b.total - a.total + 4 * 4096 >= 12 * RW_WAYS * rw_memplan_per_flow(64, 10) * 9 / 10);
}

static void test_window_span(void)
{
	uint64_t slot = 100000000ULL;

	/* 10 slots of 100 ms at 30 ms into a slot: 9 full slots + 30 ms. */
	CHECK_EQ(rw_window_span_ns(50 * slot + 30000000ULL, 0, slot, 10), 930000000ULL);
	/* Counting began 200 ms ago: the window covers only that. */
	CHECK_EQ(rw_window_span_ns(50 * slot, 50 * slot - 200000000ULL, slot, 10), 200000000ULL);
	CHECK_EQ(rw_window_span_ns(50 * slot, 50 * slot, slot, 10), 1); /* never zero */
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmp_entries(const void *a, const void *b)
{
	if (rw_rank_before(a, b))
		return -1;
	return rw_rank_before(b, a) ? 1 : 0;
}

static void random_entry(struct rw_rank_entry *e, uint32_t i, uint64_t metric_range)
{
	memset(e, 0, sizeof(*e));
	e->key.family = (i & 1) ? RW_FAMILY_IPV6 : RW_FAMILY_IPV4;
	e->key.addr[0] = 198;
	e->key.addr[1] = 18;
	memcpy(&e->key.addr[12], &i, sizeof(i)); /* unique key per i */
	e->metric = rng() % metric_range;       /* small ranges force many ties */
	e->sum.packets = e->metric;
}

static void test_ranking_matches_brute_force(void)
{
	static const uint32_t ns[] = { 0, 1, 5, 100, 5000 };
	static const uint32_t ks[] = { 1, 3, 10, 64 };
	static const uint32_t parts[] = { 1, 2, 7 };
	static const uint64_t ranges[] = { 3, 1000, UINT64_MAX };

	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
	for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++)
	for (size_t c = 0; c < sizeof(parts) / sizeof(parts[0]); c++)
	for (size_t d = 0; d < sizeof(ranges) / sizeof(ranges[0]); d++) {
		uint32_t n = ns[a], k = ks[b], want = n < k ? n : k, got;
		struct rw_rank_entry *all = calloc(n + 1, sizeof(*all));
		struct rw_rank_entry *out = calloc(k, sizeof(*out));
		struct rw_ranker r;

		CHECK_EQ(rw_ranker_init(&r, parts[c], k), 0);
		for (uint32_t i = 0; i < n; i++) {
			random_entry(&all[i], i, ranges[d]);
			rw_ranker_offer(&r, &all[i]);
		}
		qsort(all, n, sizeof(*all), cmp_entries);
		/* Twice: the ranker must come back empty for the next tick. */
		for (int round = 0; round < 2; round++) {
			got = rw_ranker_merge(&r, out);
			CHECK_EQ(got, round ? 0 : want);
			for (uint32_t i = 0; i < got; i++)
				CHECK(memcmp(&out[i], &all[i], sizeof(*out)) == 0);
		}
		rw_ranker_free(&r);
		free(all);
		free(out);
	}
}

static void test_ranking_ties_break_by_key(void)
{
	struct rw_rank_entry a = { .metric = 5 }, b = { .metric = 5 }, out[2];
	struct rw_topk t;

	a.key.addr[3] = 2;
	b.key.addr[3] = 1;
	CHECK(rw_rank_before(&b, &a));
	CHECK(!rw_rank_before(&a, &b));
	CHECK(!rw_rank_before(&a, &a));
	CHECK_EQ(rw_topk_init(&t, 1), 0);
	rw_topk_offer(&t, &a);
	rw_topk_offer(&t, &b);
	CHECK_EQ(rw_topk_drain(&t, out), 1);
	CHECK_EQ(out[0].key.addr[3], 1);
	rw_topk_free(&t);
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
}

static void test_meminfo_available(void)
{
	static char text[] = "MemTotal:       24683584 kB\nMemFree:        24430000 kB\n"
			     "MemAvailable:   24232292 kB\nBuffers:            1234 kB\n";
	static char missing[] = "MemTotal: 100 kB\n";
	FILE *f = fmemopen(text, sizeof(text) - 1, "r");

	CHECK_EQ(rw_meminfo_available(f), 24232292ULL * 1024);
	fclose(f);
	f = fmemopen(missing, sizeof(missing) - 1, "r");
	CHECK_EQ(rw_meminfo_available(f), 0);
	fclose(f);
}

/* Parses one rule, expecting success; the spec in *r. */
static void rule_ok(const char *text, struct rw_rule_spec *r)
{
	char err[256] = "";

	if (rw_rule_parse(text, r, err, sizeof(err))) {
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
		{ "198.18.0.0/16 limit 5k per", "per: give a prefix length" },
		{ "198.18.0.0/16 limit 5k per 24", "per: give a prefix length" },
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
		CHECK_REFUSED(rw_rule_parse(bad[i].text, &r, err, sizeof(err)), bad[i].text, err,
			      bad[i].needle);
	}
}

static int rules_from_text(const char *text, struct rw_ruleset *rs, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	CHECK(f != NULL);
	if (!f)
		return -1;
	ret = rw_rules_parse_stream(f, "r.rules", rs, err, 256);
	fclose(f);
	return ret;
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
	CHECK_STR(err, "r.rules:3: this prefix already has a rule on line 1");
	CHECK_EQ(rs.n, 0);
	CHECK_EQ(rules_from_text("198.18.0.0/16 deny\n198.18.0.0/16 dny\n", &rs, err), -EINVAL);
	CHECK_STR(err, "r.rules:2: 'dny' is not an action (allow, deny, limit)");
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

static struct rw_key v4key(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct rw_key k = { .family = RW_FAMILY_IPV4, .addr = { a, b, c, d } };

	return k;
}

/* Finds a reported prefix by text ("198.18.0.0/16"); NULL if it was not reported. */
static const struct rw_hhh_item *reported(const struct rw_hhh_item *it, size_t n, const char *text)
{
	char buf[RW_KEY_STRLEN];

	for (size_t i = 0; i < n; i++) {
		rw_key_format(&it[i].prefix, buf, sizeof(buf));
		if (strcmp(buf, text) == 0)
			return &it[i];
	}
	return NULL;
}

/*
 * A spoofed flood over one /16 (sampled 1 in 64), a heavy tracked source in
 * another, and a /24 of many tracked sources with a rest around it: each shows
 * at the level where it is heavy, and no prefix counts its reported
 * descendants' traffic again.
 */
static void test_hhh_report(void)
{
	struct rw_levels lv;
	struct rw_hhh_item out[64];
	const struct rw_hhh_item *it;
	struct rw_hhh *h;
	char err[256];
	size_t n;
	uint32_t x = 1;

	CHECK_EQ(rw_parse_levels("v4:32,24,16", &lv, err, sizeof(err)), 0);
	h = rw_hhh_new(&lv, 10, 64);
	CHECK(h != NULL);
	if (!h)
		return;
	for (int i = 0; i < 1000; i++) { /* 64 000 packets over 198.18.0.0/16, epochs 95..99 */
		x = x * 1103515245u + 12345u;
		struct rw_key k = v4key(198, 18, (uint8_t)(x >> 16), (uint8_t)(x >> 24));

		rw_hhh_sample(h, &k, 95 + (uint64_t)(i % 5));
	}
	{
		struct rw_key old = v4key(203, 0, 113, 1);

		rw_hhh_sample(h, &old, 80); /* a slot out of the window: never counted */
		rw_hhh_sample(h, &old, 90);
	}
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 19, 0, 1 } }, 20000);
	for (int i = 0; i < 15; i++) /* 15 000 in 198.20.1.0/24, 8 000 elsewhere in 198.20/16 */
		rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4,
						  .addr = { 198, 20, 1, (uint8_t)i } }, 1000);
	rw_hhh_exact(h, &(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 20, 7, 1 } }, 8000);
	n = rw_hhh_report(h, 99, 107000, 0.05, out, 64);
	CHECK((it = reported(out, n, "198.19.0.1/32")) && it->residual == 20000);
	CHECK((it = reported(out, n, "198.18.0.0/16")) && it->packets == 64000);
	CHECK((it = reported(out, n, "198.20.1.0/24")) && it->residual == 15000);
	CHECK((it = reported(out, n, "198.20.7.1/32")) && it->residual == 8000);
	/* 198.20.0.0/16 holds 23 000, all of it in reported descendants. */
	CHECK(reported(out, n, "198.20.0.0/16") == NULL);
	CHECK(reported(out, n, "198.19.0.0/16") == NULL); /* all of it is 198.19.0.1 */
	CHECK(reported(out, n, "198.18.7.0/24") == NULL); /* a /24 of the flood: 1/256 */
	CHECK(reported(out, n, "203.0.113.0/24") == NULL);
	CHECK_EQ(n, 4);
	/* The order: most specific level first. */
	CHECK_EQ(RW_KEY_PREFIX_LEN(&out[0].prefix), 32);
	CHECK_EQ(RW_KEY_PREFIX_LEN(&out[n - 1].prefix), 16);
	/* Exact counts are this tick's only: the next report has the samples alone. */
	n = rw_hhh_report(h, 99, 64000, 0.05, out, 64);
	CHECK_EQ(n, 1);
	/* Five slots later the flood's first slot has left the window. */
	n = rw_hhh_report(h, 105, 64000, 0.05, out, 64);
	CHECK((it = reported(out, n, "198.18.0.0/16")) && it->packets == 64000 - 200 * 64);
	rw_hhh_free(h);
}

static void count_swept(void *arg, const struct rw_key *k)
{
	(void)k;
	(*(int *)arg)++;
}

/* The loader's set of limited sources: add, mark, sweep what was not marked. */
static void test_keyset(void)
{
	struct rw_keyset s = { 0 };
	int swept = 0;

	for (uint8_t i = 0; i < 200; i++)
		CHECK_EQ(rw_keyset_add(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, i } }), 0);
	CHECK_EQ(rw_keyset_add(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, 7 } }), 0);
	CHECK_EQ(s.n, 200);
	CHECK(rw_keyset_has(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, 199 } }));
	CHECK(!rw_keyset_has(&s, &(struct rw_key){ .family = 6, .addr = { 198, 18, 0, 199 } }));
	for (uint8_t i = 0; i < 50; i++)
		rw_keyset_mark(&s, &(struct rw_key){ .family = 4, .addr = { 198, 18, 0, i } });
	rw_keyset_sweep_unmarked(&s, count_swept, &swept);
	CHECK_EQ(swept, 150);
	CHECK_EQ(s.n, 50);
	/* The marks are cleared: the next sweep takes the rest. */
	swept = 0;
	rw_keyset_sweep_unmarked(&s, count_swept, &swept);
	CHECK_EQ(swept, 50);
	CHECK_EQ(s.n, 0);
	/* Deleted slots are reused, and the set still finds what it holds. */
	for (int round = 0; round < 20; round++) {
		for (uint8_t i = 0; i < 100; i++)
			CHECK_EQ(rw_keyset_add(&s, &(struct rw_key){ .family = 4,
								   .addr = { 10, (uint8_t)round, 0, i } }), 0);
		for (uint8_t i = 0; i < 100; i++)
			rw_keyset_del(&s, &(struct rw_key){ .family = 4, .addr = { 10, (uint8_t)round, 0, i } });
	}
	CHECK_EQ(s.n, 0);
	CHECK(s.cap <= 1024);
	rw_keyset_free(&s);
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

/* The terminal view's model (one translation unit: the runner's counters are static). */
#include "test_view.c"

int main(void)
{
	RUN(test_parse_rate_valid);
	RUN(test_parse_rate_invalid);
	RUN(test_parse_duration);
	RUN(test_parse_size_and_uint);
	RUN(test_format);
	RUN(test_cli_defaults_and_options);
	RUN(test_cli_errors);
	RUN(test_cli_config_file);
	RUN(test_cli_status_stop);
	RUN(test_rules_parse);
	RUN(test_rules_file);
	RUN(test_levels_parse);
	RUN(test_hhh_report);
	RUN(test_keyset);
	RUN(test_parse_listen);
	RUN(test_limit_per_window);
	RUN(test_clock_resolve);
	RUN(test_window_sum_skips_stale_slots);
	RUN(test_window_span);
	RUN(test_age_rules);
	RUN(test_limit_threshold_bound);
	RUN(test_next_thresholds);
	RUN(test_memplan);
	RUN(test_hash_rows_independent);
	RUN(test_ranking_matches_brute_force);
	RUN(test_ranking_ties_break_by_key);
	RUN(test_key_format);
	RUN(test_meminfo_available);
	RUN(test_flow_slot_counts);
	RUN(test_key_within);
	RUN(test_view_keys);
	RUN(test_view_filter_prompt);
	RUN(test_view_ranks_sources);
	RUN(test_view_prefix_levels);
	RUN(test_view_text_fits_80_columns);
	RUN(test_spark);
	return tl_finish();
}
