// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of user/act/'s BGP driver, the parts without a kernel: the
 * command lines given to GoBGP's client, the reading of its answers (the
 * fixtures in tests/unit/gobgp/ are its real answers, captured from gobgpd
 * 3.10 peered with BIRD 2), the program runner, and the sets of routes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/capture.h"
#include "bgp/gobgp.h"
#include "bgp/routes.h"
#include "bgp/session.h"
#include "model/clock.h"
#include "unit.h"

#define FIXTURES "tests/unit/gobgp/"

/* A captured answer (run from the top of the tree, as make does). */
static char *fixture(const char *name)
{
	char path[256], *s = NULL;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "  %s: %s (run from the top of the tree)\n", path, strerror(errno));
		return NULL;
	}
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (s = malloc((size_t)n + 1))) {
		s[fread(s, 1, (size_t)n, f)] = '\0';
	}
	fclose(f);
	return s;
}

static struct rw_route route(const char *s)
{
	struct rw_route r;
	char err[128];

	CHECK_EQ(rw_route_parse(s, &r, err, sizeof(err)), 0);
	return r;
}

/* A flow rule: from source src to destination dst. */
static struct rw_route flow(const char *src, const char *dst)
{
	struct rw_route r = route(src), d = route(dst);

	r.kind = RW_ROUTE_FLOW;
	r.dst_len = d.len;
	memcpy(r.dst, d.addr, sizeof(r.dst));
	return r;
}

/* The words of a command line, joined by spaces. */
static const char *joined(const struct rw_gobgp_argv *a)
{
	static char buf[1024];

	buf[0] = '\0';
	for (int i = 0; a->argv[i]; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 a->argv[i]);
	return buf;
}

static void config(struct rw_bgp_config *c, const char *api, const char *communities,
		   const char *next_hops)
{
	char err[128];

	memset(c, 0, sizeof(*c));
	snprintf(c->api, sizeof(c->api), "%s", api);
	snprintf(c->command, sizeof(c->command), "gobgp");
	CHECK_EQ(rw_parse_communities(communities, c, err, sizeof(err)), 0);
	if (next_hops)
		CHECK_EQ(rw_parse_next_hops(next_hops, c, err, sizeof(err)), 0);
	c->max = 1000;
}

static void test_gobgp_command_lines(void)
{
	struct rw_bgp_config c;
	struct rw_gobgp g;
	struct rw_gobgp_argv a;
	char line[RW_SESSION_LINE];
	struct rw_route r4 = route("198.18.0.5"), r24 = route("198.18.7.0/24"),
			r6 = route("2001:db8::5"), r48 = route("2001:db8:7::/48");
	char err[128];

	config(&c, "50051", "65535:666", NULL);
	CHECK_EQ(rw_gobgp_init(&g, &c, err, sizeof(err)), 0);
	CHECK_STR(g.api, "127.0.0.1:50051");
	rw_gobgp_line(&g, true, &r4, line, sizeof(line));
	CHECK_STR(line, "add -a ipv4 198.18.0.5/32 community 65535:666");
	rw_gobgp_line(&g, false, &r4, line, sizeof(line));
	CHECK_STR(line, "del -a ipv4 198.18.0.5/32");
	rw_gobgp_line(&g, true, &r6, line, sizeof(line));
	CHECK_STR(line, "add -a ipv6 2001:db8::5/128 community 65535:666");
	rw_gobgp_line(&g, false, &r48, line, sizeof(line));
	CHECK_STR(line, "del -a ipv6 2001:db8:7::/48");
	rw_gobgp_neighbors(&g, &a);
	CHECK_STR(joined(&a), "gobgp -u 127.0.0.1 -p 50051 neighbor -j");

	/* Flow rules: the family before the verb, no next hop nor community, discard. */
	struct rw_route f4 = flow("198.18.0.5", "203.0.113.0/24"),
			f6 = flow("2001:db8:2::/64", "2001:db8:1::/48");
	char text[128];

	rw_gobgp_line(&g, true, &f4, line, sizeof(line));
	CHECK_STR(line, "-a ipv4-flowspec add match destination 203.0.113.0/24 source "
			"198.18.0.5/32 then discard");
	rw_gobgp_line(&g, false, &f6, line, sizeof(line));
	CHECK_STR(line, "-a ipv6-flowspec del match destination 2001:db8:1::/48 source "
			"2001:db8:2::/64");
	rw_route_format(&f4, text, sizeof(text));
	CHECK_STR(text, "flow 198.18.0.5/32 > 203.0.113.0/24");

	/* The owner community on every route, after a blackhole's own. */
	c.owner = 64512u << 16 | 4242;
	CHECK_EQ(rw_gobgp_init(&g, &c, err, sizeof(err)), 0);
	rw_gobgp_line(&g, true, &r4, line, sizeof(line));
	CHECK_STR(line, "add -a ipv4 198.18.0.5/32 community 65535:666,64512:4242");
	rw_gobgp_line(&g, true, &f4, line, sizeof(line));
	CHECK_STR(line, "-a ipv4-flowspec add match destination 203.0.113.0/24 source "
			"198.18.0.5/32 then discard community 64512:4242");
	/* --bgp-flowspec-rate: traffic-rate in bytes a second instead of discard. */
	f4.rate = 125000;
	rw_gobgp_line(&g, true, &f4, line, sizeof(line));
	CHECK_STR(line, "-a ipv4-flowspec add match destination 203.0.113.0/24 source "
			"198.18.0.5/32 then rate-limit 125000 community 64512:4242");
	rw_route_format(&f4, text, sizeof(text));
	CHECK_STR(text, "flow 198.18.0.5/32 > 203.0.113.0/24 rate 125000");
	f4.rate = 0;
	/* A flow key's (or a rule's) protocol and ports, numbers, in the rule and its withdrawal. */
	f4.proto = 17;
	f4.sport = 5353;
	f4.dport = 53;
	rw_gobgp_line(&g, true, &f4, line, sizeof(line));
	CHECK_STR(line, "-a ipv4-flowspec add match destination 203.0.113.0/24 source "
			"198.18.0.5/32 protocol 17 source-port 5353 destination-port 53 then "
			"discard community 64512:4242");
	rw_gobgp_line(&g, false, &f4, line, sizeof(line));
	CHECK_STR(line, "-a ipv4-flowspec del match destination 203.0.113.0/24 source "
			"198.18.0.5/32 protocol 17 source-port 5353 destination-port 53");
	rw_route_format(&f4, text, sizeof(text));
	CHECK_STR(text, "flow 198.18.0.5/32 > 203.0.113.0/24 proto 17 sport 5353 dport 53");
	/* Ports are TCP's and UDP's: another protocol's are none; a blackhole has neither. */
	f4.proto = 1;
	CHECK(rw_route_normalize(&f4));
	CHECK(f4.sport == 0 && f4.dport == 0 && f4.proto == 1);
	r4.proto = 6;
	r4.dport = 80;
	CHECK(rw_route_normalize(&r4));
	CHECK(r4.proto == 0 && r4.dport == 0);
	f4.proto = 0;
	c.owner = 0;

	/* Next hops by family, several communities, another host. */
	config(&c, "198.19.255.1:50052", "65535:666,64512:1", "198.19.255.1,2001:db8:ffff::1");
	snprintf(c.command, sizeof(c.command), "/opt/gobgp/bin/gobgp");
	CHECK_EQ(rw_gobgp_init(&g, &c, err, sizeof(err)), 0);
	rw_gobgp_line(&g, true, &r24, line, sizeof(line));
	CHECK_STR(line, "add -a ipv4 198.18.7.0/24 nexthop 198.19.255.1 community "
				"65535:666,64512:1");
	rw_gobgp_line(&g, true, &r48, line, sizeof(line));
	CHECK_STR(line, "add -a ipv6 2001:db8:7::/48 nexthop 2001:db8:ffff::1 "
				"community 65535:666,64512:1");
	/* An IPv4 next hop only: IPv6 routes go with the speaker's own. */
	config(&c, "[::1]:50051", "65535:666", "198.19.255.1");
	CHECK_EQ(rw_gobgp_init(&g, &c, err, sizeof(err)), 0);
	CHECK_STR(g.api, "[::1]:50051");
	rw_gobgp_line(&g, true, &r6, line, sizeof(line));
	CHECK_STR(line, "add -a ipv6 2001:db8::5/128 community 65535:666");
	config(&c, "10.0.0.1:", "65535:666", NULL);
	CHECK_EQ(rw_gobgp_init(&g, &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "no port") != NULL);
}

static void test_gobgp_neighbours(void)
{
	struct rw_gobgp_peers p;
	char *s;

	s = fixture("neighbor_established.json");
	CHECK_EQ(rw_gobgp_parse_peers(s, &p), 0);
	CHECK_EQ(p.peers, 1);
	CHECK_EQ(p.established, 1);
	CHECK_STR(p.down, "");
	free(s);

	s = fixture("neighbor_two.json"); /* BIRD up, a second neighbour that never came */
	CHECK_EQ(rw_gobgp_parse_peers(s, &p), 0);
	CHECK_EQ(p.peers, 2);
	CHECK_EQ(p.established, 1);
	CHECK_STR(p.down, "198.19.255.6: Active");
	free(s);

	s = fixture("neighbor_idle.json"); /* BIRD just shut down */
	CHECK_EQ(rw_gobgp_parse_peers(s, &p), 0);
	CHECK_EQ(p.peers, 1);
	CHECK_EQ(p.established, 0);
	CHECK_STR(p.down, "198.19.255.2: Idle");
	free(s);

	s = fixture("neighbor_none.json");
	CHECK_EQ(rw_gobgp_parse_peers(s, &p), 0);
	CHECK_EQ(p.peers, 0);
	free(s);

	/* Its answer when gobgpd does not run, and what is no answer at all. */
	s = fixture("down.json");
	CHECK_EQ(rw_gobgp_parse_peers(s, &p), -EINVAL);
	free(s);
	CHECK_EQ(rw_gobgp_parse_peers("", &p), -EINVAL);
	CHECK_EQ(rw_gobgp_parse_peers(NULL, &p), -EINVAL);
	CHECK_EQ(rw_gobgp_parse_peers("[{\"conf\":{\"neighbor_address\":\"198.19.255.2\"", &p), -EINVAL);
	CHECK_EQ(rw_gobgp_parse_peers("[{\"state\":{\"session_state\":6}}", &p), -EINVAL);
	/* session_state left out (0 is not written): Unknown, not established. */
	CHECK_EQ(rw_gobgp_parse_peers("[{\"conf\":{\"neighbor_address\":\"a\\\"b\"},\"state\":{}}]", &p), 0);
	CHECK_EQ(p.established, 0);
	CHECK_STR(p.down, "a\\\"b: Unknown");
	/* A key inside a string is not a key. */
	CHECK_EQ(rw_gobgp_parse_peers("[{\"description\":\"\\\"session_state\\\":6\",\"state\":{}}]", &p), 0);
	CHECK_EQ(p.established, 0);
	CHECK_STR(rw_gobgp_state_name(6), "Established");
	CHECK_STR(rw_gobgp_state_name(3), "Active");
	CHECK_STR(rw_gobgp_state_name(99), "?");
}

/* The routes the session lists ("route WORDS"), read back as routes of a table. */
static void test_gobgp_route_words(void)
{
	struct rw_route r;
	char text[128];

	CHECK(rw_gobgp_route_of_words("198.18.7.0/24", AF_INET, false, &r));
	rw_route_format(&r, text, sizeof(text));
	CHECK_STR(text, "198.18.7.0/24");
	CHECK(rw_gobgp_route_of_words("2001:db8:7::/48", AF_INET6, false, &r));
	CHECK(!rw_gobgp_route_of_words("2001:db8:7::/48", AF_INET, false, &r)); /* another table's */
	CHECK(rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32", AF_INET, true, &r));
	CHECK(r.kind == RW_ROUTE_FLOW);
	rw_route_format(&r, text, sizeof(text));
	CHECK_STR(text, "flow 198.18.0.7/32 > 10.0.0.0/24");
	CHECK(rw_gobgp_route_of_words("2001:db8:1::/48 2001:db8:2::/64", AF_INET6, true, &r));
	rw_route_format(&r, text, sizeof(text));
	CHECK_STR(text, "flow 2001:db8:2::/64 > 2001:db8:1::/48");
	CHECK(rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 proto 17 dport 53 sport 5353", AF_INET,
				      true, &r));
	rw_route_format(&r, text, sizeof(text));
	CHECK_STR(text, "flow 198.18.0.7/32 > 10.0.0.0/24 proto 17 sport 5353 dport 53");
	/* Its traffic-rate (--bgp-flowspec-rate), or the rule adopted would be another, at 0. */
	CHECK(rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 rate 125000", AF_INET, true, &r));
	CHECK_EQ(r.rate, 125000);
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 rate -1", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 rate 4294967296", AF_INET, true,
				       &r));
	/* A protocol or port twice, 0, too big, not a number, a word of another rule: not ours. */
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 proto 17 proto 6", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 dport 0", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 proto 256", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 sport x", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 dscp 4", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 dport", AF_INET, true, &r));
	/* Not routes of ours: a flow rule in the unicast table's form, and the other way round;
	 * no length; the families mixed; a third word; an address that is none. */
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32", AF_INET, false, &r));
	CHECK(!rw_gobgp_route_of_words("198.18.7.0/24", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("198.18.7.0", AF_INET, false, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 2001:db8::/64", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("10.0.0.0/24 198.18.0.7/32 x", AF_INET, true, &r));
	CHECK(!rw_gobgp_route_of_words("198.18.0.300/32", AF_INET, false, &r));
	CHECK(!rw_gobgp_route_of_words("", AF_INET, false, &r));
	CHECK(!rw_gobgp_route_of_words(NULL, AF_INET, false, &r));
}

static void test_gobgp_reasons(void)
{
	struct rw_capture c = { .status = 1 };
	char why[128], *down = fixture("down.json");

	c.out = down; /* it says its errors on stdout */
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	CHECK_STR(why, "context deadline exceeded");
	c.out = "context deadline exceeded\n";
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	CHECK_STR(why, "context deadline exceeded");
	snprintf(c.err, sizeof(c.err), "\n  error: invalid CIDR address: 198.18.0.300/32  \nusage: ...\n");
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	CHECK_STR(why, "error: invalid CIDR address: 198.18.0.300/32");
	c.err[0] = '\0';
	c.out = "";
	c.status = 2;
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	CHECK_STR(why, "the client exited with status 2");
	/* What reaches a terminal is one line, without its control characters. */
	c.out = "{\"error\":\"one\033[31m\nand another\"}";
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	CHECK_STR(why, "one?[31m");
	c.out = "";
	c.timed_out = true;
	c.status = 128 + 9;
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	CHECK_STR(why, "no answer within 5.0 s (the client was killed)");
	free(down);
}

static void test_capture(void)
{
	char *echo[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *slow[] = { "sh", "-c", "sleep 5", NULL };
	char *left[] = { "sh", "-c", "sleep 5 & echo started", NULL };
	char *big[] = { "sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a", NULL };
	char *fds[] = { "ls", "/proc/self/fd", NULL };
	char *none[] = { "rw-no-such-program", NULL };
	struct rw_capture c;
	atomic_bool abort_now = true;
	int before = tl_open_fds(), stray = open("/dev/null", O_RDONLY); /* no O_CLOEXEC */
	uint64_t t0;

	CHECK_EQ(rw_capture_run(echo, 2000000000ULL, NULL, &c), 0);
	CHECK_STR(c.out, "out\n");
	CHECK_STR(c.err, "err\n");
	CHECK_EQ(c.status, 3);
	CHECK(!c.timed_out);
	rw_capture_free(&c);

	t0 = rw_clock_ns(CLOCK_MONOTONIC);
	CHECK_EQ(rw_capture_run(slow, 200000000ULL, NULL, &c), 0);
	CHECK(c.timed_out);
	CHECK_EQ(c.status, 128 + 9);
	CHECK(rw_clock_ns(CLOCK_MONOTONIC) - t0 < 1000000000ULL);
	rw_capture_free(&c);

	/* What it left behind holds the pipe: its end is the end, and its group goes too. */
	t0 = rw_clock_ns(CLOCK_MONOTONIC);
	CHECK_EQ(rw_capture_run(left, 3000000000ULL, NULL, &c), 0);
	CHECK_STR(c.out, "started\n");
	CHECK_EQ(c.status, 0);
	CHECK(rw_clock_ns(CLOCK_MONOTONIC) - t0 < 1000000000ULL);
	rw_capture_free(&c);

	t0 = rw_clock_ns(CLOCK_MONOTONIC);
	CHECK_EQ(rw_capture_run(slow, 3000000000ULL, &abort_now, &c), 0);
	CHECK(c.aborted);
	CHECK(!c.timed_out);
	CHECK(rw_clock_ns(CLOCK_MONOTONIC) - t0 < 1000000000ULL);
	rw_capture_free(&c);

	CHECK_EQ(rw_capture_run(big, 3000000000ULL, NULL, &c), 0);
	CHECK_EQ(c.out_len, 300000);
	CHECK_EQ(strlen(c.out), 300000);
	CHECK(!c.truncated);
	rw_capture_free(&c);

	/* stdin, stdout, stderr and ls's own directory: none of ours. */
	CHECK_EQ(rw_capture_run(fds, 2000000000ULL, NULL, &c), 0);
	CHECK_STR(c.out, "0\n1\n2\n3\n");
	rw_capture_free(&c);

	CHECK_EQ(rw_capture_run(none, 2000000000ULL, NULL, &c), -ENOENT);
	CHECK_EQ(c.status, -1);
	CHECK_STR(c.out, "");
	rw_capture_free(&c);

	close(stray);
	CHECK_EQ(tl_open_fds(), before);
	CHECK_EQ(waitpid(-1, NULL, WNOHANG), -1); /* every child reaped */
	CHECK_EQ(errno, ECHILD);
}

/* A fake helper: a shell script in dir, named name. */
static void fake_helper(const char *dir, const char *name, const char *body, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

/*
 * The session against fake helpers: answers in order across windows (600
 * commands), a refusal among them with its reason; a helper that ends in
 * the middle of a batch, one that stops answering, one that cannot start,
 * none at all, and the end asked while it waits. Every child reaped, no fd
 * left.
 */
static void collect(const char *words, void *arg)
{
	char *buf = arg;

	snprintf(buf + strlen(buf), 256 - strlen(buf), "%s|", words);
}

static void test_session(void)
{
	char dir[] = "/tmp/rwsessXXXXXX", path[256], why[256], answer[RW_SESSION_LINE],
	     listed[256] = "";
	static char lines[600][RW_SESSION_LINE];
	static bool done[600];
	struct rw_session s;
	atomic_bool abort_now = true;
	int before = tl_open_fds();
	uint64_t t0;
	size_t n = 0;

	if (!mkdtemp(dir)) {
		CHECK(false);
		return;
	}
	fake_helper(dir, "answers", "echo ready\nwhile read -r l; do case \"$l\" in "
		    "*refuse*) echo \"error no to $l\" ;; *quit*) exit 0 ;; *hang*) sleep 5 ;; "
		    "list*) printf 'route 198.18.0.1/32\\nroute 10.0.0.0/24 198.18.0.2/32\\nend 2\\n' ;; "
		    "count*) echo 'error no such table' ;; "
		    "*) echo ok ;; esac; done", path, sizeof(path));
	CHECK_EQ(rw_session_open(&s, path, "127.0.0.1:50051", NULL, why, sizeof(why)), 0);
	CHECK(rw_session_open_p(&s));
	for (size_t i = 0; i < 600; i++)
		snprintf(lines[i], sizeof(lines[i]), "%s %zu", i == 300 ? "refuse" : "add", i);
	CHECK_EQ(rw_session_batch(&s, (const char (*)[RW_SESSION_LINE])lines, 600, done,
				  2000000000ULL, NULL, why, sizeof(why)), 0);
	for (size_t i = 0; i < 600; i++)
		n += done[i];
	CHECK_EQ(n, 599);
	CHECK(!done[300]);
	CHECK_STR(why, "no to refuse 300");
	/* A question: its routes, then its last line; an error answer is -EIO with its reason. */
	CHECK_EQ(rw_session_ask(&s, "list ipv4 64512:1", collect, listed, answer, sizeof(answer),
				2000000000ULL, NULL, why, sizeof(why)), 0);
	CHECK_STR(listed, "198.18.0.1/32|10.0.0.0/24 198.18.0.2/32|");
	CHECK_STR(answer, "end 2");
	CHECK_EQ(rw_session_ask(&s, "count ipv4", NULL, NULL, answer, sizeof(answer),
				2000000000ULL, NULL, why, sizeof(why)), -EIO);
	CHECK_STR(why, "no such table");
	CHECK(rw_session_open_p(&s)); /* a refusal leaves the session up */
	/* It ends after 5 answers: those are done, the rest not, the session closed. */
	snprintf(lines[5], sizeof(lines[5]), "quit");
	CHECK_EQ(rw_session_batch(&s, (const char (*)[RW_SESSION_LINE])lines, 10, done,
				  2000000000ULL, NULL, why, sizeof(why)), -EPIPE);
	CHECK(done[4] && !done[5] && !done[9]);
	CHECK(!rw_session_open_p(&s));
	CHECK_EQ(rw_session_batch(&s, (const char (*)[RW_SESSION_LINE])lines, 1, done,
				  2000000000ULL, NULL, why, sizeof(why)), -ENOTCONN);
	/* One that stops answering: timed out, killed (with what it started), closed. */
	CHECK_EQ(rw_session_open(&s, path, "127.0.0.1:50051", NULL, why, sizeof(why)), 0);
	snprintf(lines[0], sizeof(lines[0]), "hang");
	t0 = rw_clock_ns(CLOCK_MONOTONIC);
	CHECK_EQ(rw_session_batch(&s, (const char (*)[RW_SESSION_LINE])lines, 1, done,
				  200000000ULL, NULL, why, sizeof(why)), -ETIMEDOUT);
	CHECK(rw_clock_ns(CLOCK_MONOTONIC) - t0 < 4000000000ULL);
	CHECK(!rw_session_open_p(&s));
	/* The end asked while it waits for an answer. */
	CHECK_EQ(rw_session_open(&s, path, "127.0.0.1:50051", NULL, why, sizeof(why)), 0);
	CHECK_EQ(rw_session_batch(&s, (const char (*)[RW_SESSION_LINE])lines, 1, done,
				  2000000000ULL, &abort_now, why, sizeof(why)), -ECANCELED);
	CHECK_STR(why, "stopped");
	/* A helper that cannot start says why; none at all is -ENOENT. */
	fake_helper(dir, "fatal", "echo 'fatal python3-grpcio and python3-protobuf are needed'",
		    path, sizeof(path));
	CHECK_EQ(rw_session_open(&s, path, "127.0.0.1:50051", NULL, why, sizeof(why)), -EPROTO);
	CHECK(strstr(why, ": python3-grpcio and python3-protobuf are needed") != NULL);
	CHECK(!rw_session_open_p(&s));
	snprintf(path, sizeof(path), "%s/none", dir);
	CHECK_EQ(rw_session_open(&s, path, "127.0.0.1:50051", NULL, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "cannot run") != NULL);
	rw_session_close(&s); /* closed already: nothing */
	CHECK_EQ(tl_open_fds(), before);
	CHECK_EQ(waitpid(-1, NULL, WNOHANG), -1); /* every child reaped */
	snprintf(path, sizeof(path), "%s/answers", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fatal", dir);
	unlink(path);
	rmdir(dir);
}

static void test_route_sets(void)
{
	struct rw_route want[] = { route("198.18.0.9"), route("198.18.0.1"), route("198.18.0.9"),
				   route("2001:db8::1"), route("198.18.0.1"), route("198.18.3.0/24") };
	struct rw_route_target t = { 0 };
	struct rw_held_set h = { 0 };
	struct rw_route odd = { .family = AF_INET, .len = 24, .addr = { 198, 18, 3, 77, 1 } };
	struct rw_route bad = { .family = 7, .len = 8 };
	char text[64];

	/* Host bits and the bytes past an IPv4 address are not part of the route. */
	CHECK(rw_route_normalize(&odd));
	CHECK_EQ(rw_route_cmp(&odd, &want[5]), 0);
	CHECK(!rw_route_normalize(&bad));
	bad = (struct rw_route){ .family = AF_INET, .len = 33 };
	CHECK(!rw_route_normalize(&bad));

	/* Distinct, most wanted first, the first max of them; the rest counted. */
	CHECK_EQ(rw_route_target_build(&t, want, 6, 3, NULL, 0), 0);
	CHECK_EQ(t.n, 3);
	CHECK_EQ(t.over_max, 1);
	rw_route_format(&t.order[0], text, sizeof(text));
	CHECK_STR(text, "198.18.0.9/32");
	rw_route_format(&t.order[1], text, sizeof(text));
	CHECK_STR(text, "198.18.0.1/32");
	rw_route_format(&t.order[2], text, sizeof(text));
	CHECK_STR(text, "2001:db8::1/128");
	CHECK(rw_route_target_has(&t, &want[1]));
	CHECK(!rw_route_target_has(&t, &want[5]));
	CHECK_EQ(rw_route_target_build(&t, want, 6, 1000, NULL, 0), 0);
	CHECK_EQ(t.n, 4);
	CHECK_EQ(t.over_max, 0);
	CHECK(rw_route_target_has(&t, &odd));
	CHECK_EQ(rw_route_target_build(&t, NULL, 0, 10, NULL, 0), 0);
	CHECK_EQ(t.n, 0);
	CHECK(!rw_route_target_has(&t, &want[0]));

	/* Held: sorted, once each; doubt makes every one unsure. */
	for (int i = 5; i >= 0; i--)
		CHECK_EQ(rw_held_add(&h, &want[i], true, 100), 0);
	CHECK_EQ(h.n, 4);
	for (size_t i = 1; i < h.n; i++)
		CHECK(rw_route_cmp(&h.e[i - 1].r, &h.e[i].r) < 0);
	CHECK(rw_held_find(&h, &want[3]) >= 0);
	CHECK_EQ(rw_held_sure(&h), 4);
	rw_held_doubt(&h);
	CHECK_EQ(rw_held_sure(&h), 0);
	CHECK_EQ(rw_held_add(&h, &want[0], true, 200), 0);
	CHECK_EQ(rw_held_sure(&h), 1);
	CHECK_EQ(h.e[rw_held_find(&h, &want[0])].since_ns, 100); /* held since it was added */

	/*
	 * --bgp-hold at --bgp-max: the /24 (wanted last) held since 150 or later
	 * keeps its place against 2001:db8::1, held since 100; the order wanted
	 * is kept within each part. Held earlier than keep_since, it does not.
	 */
	rw_held_remove(&h, (size_t)rw_held_find(&h, &want[5]));
	CHECK_EQ(rw_held_add(&h, &want[5], true, 160), 0);
	CHECK_EQ(rw_route_target_build(&t, want, 6, 3, &h, 150), 0);
	CHECK_EQ(t.over_max, 1);
	rw_route_format(&t.order[0], text, sizeof(text));
	CHECK_STR(text, "198.18.3.0/24");
	CHECK(rw_route_target_has(&t, &want[0]) && rw_route_target_has(&t, &want[1]));
	CHECK(!rw_route_target_has(&t, &want[3]));
	CHECK_EQ(rw_route_target_build(&t, want, 6, 3, &h, 170), 0);
	CHECK(!rw_route_target_has(&t, &want[5]));
	CHECK(rw_route_target_has(&t, &want[3]));
	CHECK_EQ(rw_route_target_build(&t, want, 6, 1000, &h, 150), 0); /* under max: as wanted */
	rw_route_format(&t.order[0], text, sizeof(text));
	CHECK_STR(text, "198.18.0.9/32");
	rw_held_remove(&h, (size_t)rw_held_find(&h, &want[0]));
	CHECK_EQ(rw_held_find(&h, &want[0]), -1);
	CHECK_EQ(h.n, 3);
	rw_held_free(&h);
	rw_route_target_free(&t);
}

void run_bgp_tests(void)
{
	tl_run("gobgp: command lines to announce, withdraw, look up, list neighbours",
	       test_gobgp_command_lines);
	tl_run("gobgp: neighbours and their sessions, from captured answers", test_gobgp_neighbours);
	tl_run("gobgp: the routes the session lists, read back", test_gobgp_route_words);
	tl_run("gobgp: why the client failed, in one line", test_gobgp_reasons);
	tl_run("capture: output, status, deadline, abort, no fd or child left", test_capture);
	tl_run("bgp routes: the most wanted distinct routes up to max; the held set", test_route_sets);
	tl_run("bgp session: answers in order, refusals, a helper that ends, hangs or cannot start",
	       test_session);
}
