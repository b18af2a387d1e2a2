// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --on-event's and --bgp's options as typed: words, routes, communities, their cross-checks. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "cli/actconf.h"
#include "cli/cli.h"
#include "model/actcounts.h"
#include "unit.h"

static void test_split_words(void)
{
	char buf[128], err[128], *argv[8];
	int n = rw_split_words("  ./x 'b c' d\\ e \"f 'g'\" h\\\"", buf, argv, 8, err, sizeof(err));

	CHECK_EQ(n, 5);
	if (n == 5) {
		CHECK_STR(argv[0], "./x");
		CHECK_STR(argv[1], "b c");
		CHECK_STR(argv[2], "d e");
		CHECK_STR(argv[3], "f 'g'");
		CHECK_STR(argv[4], "h\"");
		CHECK(argv[5] == NULL);
	}
	CHECK_REFUSED(rw_split_words("a 'b", buf, argv, 8, err, sizeof(err)), "a 'b", err,
		      "not closed");
	CHECK_REFUSED(rw_split_words(" \t ", buf, argv, 8, err, sizeof(err)), "blanks", err,
		      "no command");
	CHECK_REFUSED(rw_split_words("1 2 3 4 5 6 7 8", buf, argv, 8, err, sizeof(err)), "8 words",
		      err, "more than 7");
}

static void test_routes(void)
{
	struct rw_route r, s;
	char err[160], text[64];

	CHECK_REFUSED(rw_route_parse("198.18.7.9/24", &r, err, sizeof(err)), "host bits", err,
		      "bits set beyond /24");
	CHECK_EQ(rw_route_parse("198.18.7.0/24", &r, err, sizeof(err)), 0);
	rw_route_format(&r, text, sizeof(text));
	CHECK_STR(text, "198.18.7.0/24");
	CHECK_EQ(rw_route_parse("2001:db8::1", &s, err, sizeof(err)), 0);
	rw_route_format(&s, text, sizeof(text));
	CHECK_STR(text, "2001:db8::1/128");
	CHECK(!rw_route_overlaps(&r, &s));
	CHECK_EQ(rw_route_parse("198.18.7.200", &s, err, sizeof(err)), 0);
	CHECK(rw_route_overlaps(&r, &s) && rw_route_overlaps(&s, &r));
	CHECK_EQ(rw_route_parse("198.18.8.1", &s, err, sizeof(err)), 0);
	CHECK(!rw_route_overlaps(&r, &s));
	CHECK_EQ(rw_route_parse("0.0.0.0/0", &s, err, sizeof(err)), 0);
	CHECK(rw_route_overlaps(&r, &s));
	CHECK_REFUSED(rw_route_parse("198.18.0.1/33", &r, err, sizeof(err)), "/33", err, "0 to 32");
	CHECK_REFUSED(rw_route_parse("198.18.0.1/", &r, err, sizeof(err)), "/", err, "0 to 32");
	CHECK_EQ(rw_route_parse("0.0.0.0/0", &r, err, sizeof(err)), 0);
	CHECK_EQ(r.len, 0);
	CHECK_REFUSED(rw_route_parse("2001:db8::/129", &r, err, sizeof(err)), "/129", err,
		      "0 to 128");
	CHECK_REFUSED(rw_route_parse("example.com", &r, err, sizeof(err)), "name", err,
		      "not an IPv4 or IPv6 address");
}

static void test_bgp_values(void)
{
	struct rw_bgp_config b = { 0 };
	char err[160];

	CHECK_EQ(rw_parse_communities("65535:666,64512:1", &b, err, sizeof(err)), 0);
	CHECK_EQ(b.ncommunities, 2u);
	CHECK_EQ(b.community[0], 0xffff029au);
	CHECK_EQ(b.community[1], (64512u << 16) | 1);
	CHECK_REFUSED(rw_parse_communities("65536:1", &b, err, sizeof(err)), "65536:1", err,
		      "ASN:VALUE");
	CHECK_REFUSED(rw_parse_communities("1:2:3", &b, err, sizeof(err)), "1:2:3", err,
		      "ASN:VALUE");
	CHECK_REFUSED(rw_parse_communities("1:1,1:2,1:3,1:4,1:5,1:6,1:7,1:8,1:9", &b, err,
					   sizeof(err)), "nine", err, "at most 8");
	CHECK_REFUSED(rw_parse_communities(",", &b, err, sizeof(err)), ",", err, "at least one");
	CHECK_EQ(rw_parse_next_hops("2001:db8::1,198.19.255.1", &b, err, sizeof(err)), 0);
	CHECK_STR(b.next_hop4, "198.19.255.1");
	CHECK_STR(b.next_hop6, "2001:db8::1");
	CHECK_REFUSED(rw_parse_next_hops("198.19.255.1,198.19.255.2", &b, err, sizeof(err)),
		      "two IPv4", err, "one IPv4 and one IPv6 at most");
	CHECK_EQ(rw_parse_never("198.18.0.0/24,2001:db8:1::/48", &b, err, sizeof(err)), 0);
	CHECK_EQ(b.nnever, 2u);
	CHECK_REFUSED(rw_parse_never("198.18.0.0/24,nope", &b, err, sizeof(err)), "nope", err,
		      "--bgp-never: 'nope'");
	CHECK_EQ(rw_parse_own("203.0.113.0/24,2001:db8:1::/48", &b, err, sizeof(err)), 0);
	CHECK_EQ(b.nown, 2u);
	CHECK_REFUSED(rw_parse_own("0.0.0.0/0", &b, err, sizeof(err)), "everything", err,
		      "is every address");
	CHECK_REFUSED(rw_parse_own("203.0.113.0/24,nope", &b, err, sizeof(err)), "nope", err,
		      "--bgp-own: 'nope'");
}

static void test_event_kinds(void)
{
	uint32_t k;
	char err[160];

	CHECK_EQ(rw_parse_event_kinds("banned,heavy,light", &k, err, sizeof(err)), 0);
	CHECK_EQ(k, RW_EV_BIT(RW_EV_BANNED) | RW_EV_BIT(RW_EV_HEAVY) | RW_EV_BIT(RW_EV_LIGHT));
	CHECK_REFUSED(rw_parse_event_kinds("banned,hook", &k, err, sizeof(err)), "hook", err,
		      "'hook' is not one of");
	CHECK_REFUSED(rw_parse_event_kinds("", &k, err, sizeof(err)), "empty", err, "at least one");
	CHECK_STR(rw_bgp_state_name(RW_BGP_NO_SESSION), "no session");
}

static int parse_line(struct rw_config *cfg, char *err, const char *line)
{
	char copy[512], *argv[32];
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *tok = strtok(copy, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return rw_cli_parse_run(argc, argv, cfg, err, 256);
}

static void test_act_options(void)
{
	static const struct { const char *line, *needle; } refused[] = {
		{ "run eth0 --bgp-max 5", "shape --bgp" },
		{ "run eth0 --bgp-dry-run", "shape --bgp" },
		{ "run eth0 --bgp 50051 --bgp-own 203.0.113.0/24", "give --ban" },
		{ "run eth0 --bgp 50051 --ban 1s", "--bgp needs --bgp-own" },
		{ "run eth0 --bgp-own 203.0.113.0/24", "shape --bgp" },
		{ "run eth0 --ban 1s --bgp 50051 --bgp-own 203.0.113.0/24 --bgp-owner 1:2,3:4", "one community" },
		{ "run eth0 --ban 1s --bgp 50051 --bgp-own 203.0.113.0/24 --bgp-owner 0:0", "0:0" },
		{ "run eth0 --ban 1s --pps 10 --bgp 50051 --bgp-own 203.0.113.0/24 --bgp-flowspec-rate",
		  "give --bps too" },
		{ "run eth0 --ban 1s --bgp 50051 --bgp-own 203.0.113.0/24 --bgp-victim-floor 1k",
		  "give --key dst or --rank dst" },
		{ "run eth0 --bgp 50051 --bgp-own 203.0.113.0/24 --bgp-prefixes --ban 1s", "give --levels" },
		{ "run eth0 --on-event-timeout 1s", "shape --on-event" },
		{ "run eth0 --on-event-rate 5", "shape --on-event" },
		{ "run eth0 --on-event ./x --on-event-kinds light", "give --levels" },
		{ "run eth0 --on-event-running 0 --on-event ./x", "on-event-running" },
		{ "run eth0 --bgp nope --ban 1s", "[HOST:]PORT" },
		{ "run eth0 --on-event-user nobody", "give --on-event or --bgp too" },
		{ "run eth0 --on-event ./x --on-event-user a/b", "'a/b' is not a user name" },
		{ "run eth0 --on-event ./x --on-event-user -x", "'-x' is not a user name" },
		{ "run eth0 --on-event ./x --on-event-user a:b", "'a:b' is not a user name" },
	};
	struct rw_config cfg;
	char err[256];

	CHECK_EQ(parse_line(&cfg, err, "run eth0 --on-event ./x --ban 2s --bgp 50051 "
			    "--bgp-own 203.0.113.0/24"), 0);
	CHECK_STR(cfg.hook.command, "./x");
	CHECK_EQ(cfg.hook.kinds, RW_HOOK_DEFAULT_KINDS);
	CHECK_EQ(cfg.hook.timeout_ns, 10000000000ULL);
	CHECK_EQ(cfg.hook.running, 4u);
	CHECK_EQ(cfg.hook.rate, 20u);
	CHECK_STR(cfg.bgp.api, "50051");
	CHECK_STR(cfg.bgp.command, "gobgp");
	CHECK_EQ(cfg.bgp.ncommunities, 2u); /* BLACKHOLE and NO_EXPORT */
	CHECK_EQ(cfg.bgp.community[0], (65535u << 16) | 666);
	CHECK_EQ(cfg.bgp.community[1], (65535u << 16) | 65281);
	CHECK_EQ(cfg.bgp.nown, 1u);
	/* The owner community: of the instance's name unless given, private-use AS 64512. */
	CHECK_EQ(cfg.bgp.owner, rw_bgp_default_owner(cfg.name));
	CHECK_EQ(cfg.bgp.owner >> 16, 64512u);
	CHECK(rw_bgp_default_owner("eth1") != rw_bgp_default_owner("eth2"));
	CHECK_EQ(cfg.bgp.max, 1000u);
	CHECK_EQ(parse_line(&cfg, err, "run eth0 --levels v4:24 --bgp 127.0.0.1:50052 "
			    "--bgp-prefixes --bgp-community 65535:666,64512:7 --bgp-max 3 "
			    "--bgp-own 203.0.113.0/24"), 0);
	CHECK(cfg.bgp.prefixes);
	CHECK_EQ(cfg.bgp.ncommunities, 2u);
	CHECK_EQ(cfg.bgp.max, 3u);
	CHECK_EQ(parse_line(&cfg, err, "run eth0 --ban 1s --bgp 50051 --bgp-own 203.0.113.0/24 "
			    "--bgp-owner 64512:7"), 0);
	CHECK_EQ(cfg.bgp.owner, 64512u << 16 | 7);
	/* Who the children run as: ratewall's own unless given; USER is looked up at the start. */
	CHECK_STR(cfg.on_event_user, "");
	CHECK_EQ(parse_line(&cfg, err, "run eth0 --on-event ./x --on-event-user no-such-user-here"), 0);
	CHECK_STR(cfg.on_event_user, "no-such-user-here");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		CHECK_REFUSED(parse_line(&cfg, err, refused[i].line), refused[i].line, err,
			      refused[i].needle);
}

void run_actconf_tests(void)
{
	RUN(test_split_words);
	RUN(test_routes);
	RUN(test_bgp_values);
	RUN(test_event_kinds);
	RUN(test_act_options);
}
