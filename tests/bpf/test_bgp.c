// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BGP driver's thread against a fake speaker (tests/harness/fake_gobgp.sh
 * standing in for gobgp, fake_gobgp_helper.sh for the session helper, their
 * "speaker" a few files), with its real journal
 * (a BPF hash map, hence here and not in the unit tests): wanted sets in,
 * the right announcements and withdrawals out, --bgp-max, a speaker down
 * and back, one that restarted and lost its routes, the end's withdrawals,
 * `ratewall stop`'s, and a dry run that runs nothing.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bgp/bgp.h"
#include "act/record.h"
#include "bgp/journal.h"
#include "bpfenv.h"
#include "model/clock.h"
#include "testlib.h"

#define FAKE "tests/harness/fake_gobgp.sh"
#define FAKE_HELPER "tests/harness/fake_gobgp_helper.sh"

static char dir[64];

static void fake_file(const char *name, bool present)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (present) {
		FILE *f = fopen(path, "w");

		if (f)
			fclose(f);
	} else {
		unlink(path);
	}
}

/* What the fake speaker's file holds ("" when none). */
static char *fake_read(const char *name)
{
	static char buf[16384];
	char path[128];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void fresh_speaker(void)
{
	char cmd[160];

	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CHECK_EQ(system(cmd), 0);
	}
	snprintf(dir, sizeof(dir), "/tmp/rw-fake-gobgp-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	setenv("FAKE_GOBGP_DIR", dir, 1);
}

static void bgp_config(struct rw_bgp_config *c, uint32_t max)
{
	char err[128], cwd[200];

	memset(c, 0, sizeof(*c));
	snprintf(c->api, sizeof(c->api), "50051");
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(c->command, sizeof(c->command), "%s/" FAKE, cwd);
	snprintf(c->helper, sizeof(c->helper), "%s/" FAKE_HELPER, cwd);
	CHECK_EQ(rw_parse_communities("65535:666", c, err, sizeof(err)), 0);
	c->max = max;
}

static struct rw_route route(const char *s)
{
	struct rw_route r;
	char err[128];

	CHECK_EQ(rw_route_parse(s, &r, err, sizeof(err)), 0);
	return r;
}

/* Everything the thread said so far, appended to all. */
static void collect(struct rw_bgp *b, char *all, size_t len)
{
	char lines[32][RW_BGP_MSG_LEN];
	size_t n;

	while ((n = rw_bgp_messages(b, lines, 32)))
		for (size_t i = 0; i < n; i++)
			snprintf(all + strlen(all), len - strlen(all), "%s\n", lines[i]);
}

/* Until cond holds of the counts (up to ms); whether it did. */
#define WAIT_FOR(b, c, cond, ms)                                                               \
	({                                                                                     \
		bool ok_ = false;                                                              \
		for (int t_ = 0; t_ < (ms) / 20 && !ok_; t_++) {                               \
			rw_bgp_counts((b), &(c));                                              \
			ok_ = (cond);                                                          \
			if (!ok_)                                                              \
				usleep(20000);                                                 \
		}                                                                              \
		ok_;                                                                           \
	})

static uint32_t journal_size(int fd)
{
	struct rw_route k, next;
	const void *prev = NULL;
	uint32_t n = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		n++;
	}
	return n;
}

static bool journal_has(int fd, const char *prefix)
{
	struct rw_route r = route(prefix);
	uint64_t when;

	return bpf_map_lookup_elem(fd, &r, &when) == 0 && when > 0;
}

static void test_bgp_announce_withdraw(void)
{
	struct rw_route want[] = { route("198.18.0.1"), route("198.18.7.0/24"), route("2001:db8::5") };
	struct rw_bgp_config c;
	struct rw_bgp_counts n;
	struct rw_bgp *b;
	char err[256], said[8192] = "";
	int fds = tl_open_fds(), journal = rw_bgp_journal_create(100);

	fresh_speaker();
	bgp_config(&c, 100);
	CHECK(journal >= 0);
	b = rw_bgp_start(&c, journal, err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	rw_bgp_want(b, want, 3, 4);
	CHECK(WAIT_FOR(b, n, n.announced == 3, 3000));
	CHECK_EQ(n.state, RW_BGP_UP);
	CHECK_EQ(n.peers, 1);
	CHECK_EQ(n.established, 1);
	CHECK_EQ(n.wanted, 3);
	CHECK_EQ(n.never, 4);
	CHECK_STR(fake_read("rib"), "198.18.0.1/32\n198.18.7.0/24\n2001:db8::5/128\n");
	CHECK_EQ(lines_with(fake_read("log"), "global rib add -a ipv4 198.18.0.1/32 community 65535:666\n"), 1);
	CHECK_EQ(lines_with(fake_read("log"), "global rib add -a ipv6 2001:db8::5/128 community 65535:666\n"), 1);
	CHECK_EQ(journal_size(journal), 3);
	CHECK(journal_has(journal, "198.18.7.0/24"));

	/* The same set again asks nothing; one gone is withdrawn, in the journal too. */
	rw_bgp_want(b, want, 3, 4);
	rw_bgp_want(b, want + 1, 2, 4);
	CHECK(WAIT_FOR(b, n, n.announced == 2 && n.withdraws == 1, 3000));
	CHECK_STR(fake_read("rib"), "198.18.7.0/24\n2001:db8::5/128\n");
	CHECK_EQ(lines_with(fake_read("log"), "global rib del -a ipv4 198.18.0.1/32\n"), 1);
	CHECK_EQ(lines_with(fake_read("log"), " add "), 3);
	CHECK_EQ(journal_size(journal), 2);
	CHECK(!journal_has(journal, "198.18.0.1/32"));
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: the speaker at 127.0.0.1:50051 answers; 1 of 1 BGP sessions established\n"));
	CHECK(strstr(said, "bgp: announced 198.18.7.0/24 community 65535:666\n"));
	CHECK(strstr(said, "bgp: withdrew 198.18.0.1/32\n"));

	/* The end of a run that ends its enforcement withdraws every route. */
	rw_bgp_end(b, true);
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: withdrew every route at the end (2)\n"));
	CHECK_STR(fake_read("rib"), "");
	CHECK_EQ(journal_size(journal), 0);
	rw_bgp_stop(b, true);
	close(journal);
	CHECK_EQ(tl_open_fds(), fds);
	CHECK_EQ(waitpid(-1, NULL, WNOHANG), -1); /* every client reaped */
}

static void test_bgp_max(void)
{
	struct rw_route want[] = { route("198.18.0.3"), route("198.18.0.1"), route("198.18.0.2"),
				   route("198.18.0.4") };
	struct rw_bgp_config c;
	struct rw_bgp_counts n;
	struct rw_bgp *b;
	char err[256], said[8192] = "";

	fresh_speaker();
	bgp_config(&c, 2);
	b = rw_bgp_start(&c, -1, err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	rw_bgp_want(b, want, 3, 0);
	CHECK(WAIT_FOR(b, n, n.announced == 2, 3000));
	CHECK_EQ(n.over_max, 1);
	CHECK_EQ(n.wanted, 2);
	/* The first two as given, the most wanted. */
	CHECK_STR(fake_read("rib"), "198.18.0.3/32\n198.18.0.1/32\n");
	rw_bgp_want(b, want, 4, 0);
	CHECK(WAIT_FOR(b, n, n.over_max == 2, 3000));
	/* A more wanted route takes the place of a less wanted one. */
	rw_bgp_want(b, want + 2, 2, 0);
	CHECK(WAIT_FOR(b, n, n.over_max == 0 && n.withdraws == 2 && n.announced == 2, 3000));
	CHECK_STR(fake_read("rib"), "198.18.0.2/32\n198.18.0.4/32\n");
	collect(b, said, sizeof(said));
	CHECK_EQ(lines_with(said, "beyond --bgp-max 2 are not announced"), 1); /* said when it started */
	CHECK_EQ(lines_with(said, "bgp: every wanted route fits --bgp-max 2 again"), 1);
	/* Not asked to withdraw (a pinned instance enforces on): they stay. */
	rw_bgp_stop(b, false);
	CHECK_STR(fake_read("rib"), "198.18.0.2/32\n198.18.0.4/32\n");
}

static void test_bgp_down_and_back(void)
{
	struct rw_route want[] = { route("198.18.0.1"), route("198.18.0.2") };
	struct rw_bgp_config c;
	struct rw_bgp_counts n;
	struct rw_bgp *b;
	char err[256], said[8192] = "";
	uint64_t t0;

	fresh_speaker();
	fake_file("down", true);
	bgp_config(&c, 100);
	b = rw_bgp_start(&c, -1, err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	rw_bgp_want(b, want, 2, 0);
	CHECK(WAIT_FOR(b, n, n.state == RW_BGP_DOWN, 3000));
	CHECK(n.failures >= 1);
	CHECK_STR(n.last_error, "context deadline exceeded");
	CHECK_EQ(n.announced, 0);
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: the speaker at 127.0.0.1:50051 does not answer: context deadline "
			   "exceeded\n"));
	/* Back: announced within the retry (a second), and said once. */
	fake_file("down", false);
	t0 = rw_clock_ns(CLOCK_MONOTONIC);
	CHECK(WAIT_FOR(b, n, n.announced == 2, 3000));
	printf("     announced %.2f s after the speaker came back (retry every %.0f s)\n",
	       (double)(rw_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9, (double)RW_BGP_RETRY_NS / 1e9);
	CHECK_EQ(n.state, RW_BGP_UP);
	collect(b, said, sizeof(said));
	CHECK_EQ(lines_with(said, "does not answer"), 1);
	CHECK(strstr(said, "bgp: the speaker at 127.0.0.1:50051 is back; 1 of 1 BGP sessions "
			   "established: every route is announced again\n"));

	/* It restarts between two checks and comes back empty: the next check sees a route gone. */
	fake_file("rib", false);
	CHECK(WAIT_FOR(b, n, n.announces == 4, 4000));
	CHECK_STR(fake_read("rib"), "198.18.0.1/32\n198.18.0.2/32\n");
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "(it restarted?): every route is announced again\n"));

	/* Down at the end: the withdrawals give up at once, the routes stay in the journal. */
	fake_file("down", true);
	t0 = rw_clock_ns(CLOCK_MONOTONIC);
	rw_bgp_end(b, true);
	CHECK(rw_clock_ns(CLOCK_MONOTONIC) - t0 < RW_BGP_TIMEOUT_NS); /* a command or two, no more */
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: 2 of 2 routes are left announced (in the journal): the speaker at "
			   "127.0.0.1:50051: context deadline exceeded\n"));
	rw_bgp_stop(b, true);
}

static void test_bgp_no_session_and_refusals(void)
{
	struct rw_route want[] = { route("198.18.0.1") };
	struct rw_bgp_config c;
	struct rw_bgp_counts n;
	struct rw_bgp *b;
	char err[256], said[8192] = "";

	fresh_speaker();
	fake_file("nosession", true);
	fake_file("fail-add", true);
	bgp_config(&c, 100);
	b = rw_bgp_start(&c, -1, err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	rw_bgp_want(b, want, 1, 0);
	CHECK(WAIT_FOR(b, n, n.state == RW_BGP_NO_SESSION && n.failures >= 2, 4000));
	CHECK_STR(n.last_error, "announcing 198.18.0.1/32: error: the fake speaker refuses 198.18.0.1/32");
	/* The speaker keeps what it takes until a session comes: announcements go on. */
	fake_file("fail-add", false);
	CHECK(WAIT_FOR(b, n, n.announced == 1, 3000));
	fake_file("nosession", false);
	CHECK(WAIT_FOR(b, n, n.state == RW_BGP_UP, 3000));
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: the speaker answers but no BGP session is established "
			   "(198.19.255.2: Idle)\n"));
	CHECK_EQ(lines_with(said, "bgp: announcing 198.18.0.1/32 failed: error: the fake speaker "
				  "refuses 198.18.0.1/32\n"), 1); /* said once, tried again each second */
	CHECK(strstr(said, "bgp: a BGP session is up: 1 of 1 established\n"));
	/* Lost and established again: "back". */
	fake_file("nosession", true);
	CHECK(WAIT_FOR(b, n, n.state == RW_BGP_NO_SESSION, 3000));
	fake_file("nosession", false);
	CHECK(WAIT_FOR(b, n, n.state == RW_BGP_UP, 3000));
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: a BGP session is back: 1 of 1 established\n"));
	rw_bgp_stop(b, true);
	CHECK_STR(fake_read("rib"), "");
}

static void test_bgp_journal_of_an_earlier_run(void)
{
	struct rw_route want[] = { route("198.18.0.2") }, old[] = { route("198.18.0.1"), route("198.18.0.2") };
	struct rw_bgp_config c;
	struct rw_bgp_counts n;
	struct rw_bgp *b;
	char err[256], said[8192] = "";
	int journal = rw_bgp_journal_create(10);

	fresh_speaker();
	bgp_config(&c, 100);
	/* A loader killed with two routes announced; the speaker restarted since and lost them. */
	for (int i = 0; i < 2; i++)
		CHECK_EQ(bpf_map_update_elem(journal, &old[i], &(uint64_t){ 1 }, BPF_ANY), 0);
	b = rw_bgp_start(&c, journal, err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	/* The speaker answers, but nothing is done before the loader says what it wants. */
	CHECK(WAIT_FOR(b, n, n.state == RW_BGP_UP, 3000));
	CHECK_EQ(lines_with(fake_read("log"), "global rib del "), 0);
	CHECK_EQ(lines_with(fake_read("log"), "global rib add "), 0);
	rw_bgp_want(b, want, 1, 0);
	CHECK(WAIT_FOR(b, n, n.announced == 1 && n.withdraws == 1, 3000));
	CHECK_EQ(lines_with(fake_read("log"), "global rib del -a ipv4 198.18.0.1/32\n"), 1);
	CHECK_EQ(lines_with(fake_read("log"), "global rib add -a ipv4 198.18.0.2/32 "), 1);
	CHECK_EQ(journal_size(journal), 1);
	CHECK(journal_has(journal, "198.18.0.2/32"));
	/* A journal smaller than --bgp-max holds --bgp-max down, said. */
	collect(b, said, sizeof(said));
	CHECK(strstr(said, "bgp: the pinned journal holds at most 10 routes: --bgp-max 100 is cut to 10\n"));
	CHECK(strstr(said, "bgp: 2 routes of an earlier run are in the journal: withdrawn unless "
			   "wanted, announced again if wanted\n"));
	rw_bgp_stop(b, false);

	/* `ratewall stop`: no thread, the journal emptied through the speaker. */
	CHECK_EQ(rw_bgp_withdraw_journal(&c, journal, err, sizeof(err)), 0);
	CHECK_STR(fake_read("rib"), "");
	CHECK_EQ(journal_size(journal), 0);
	CHECK_EQ(bpf_map_update_elem(journal, &old[0], &(uint64_t){ 1 }, BPF_ANY), 0);
	fake_file("down", true);
	CHECK(rw_bgp_withdraw_journal(&c, journal, err, sizeof(err)) < 0);
	CHECK_STR(err, "bgp: 1 of 1 routes are left announced (in the journal): the speaker at "
		       "127.0.0.1:50051: context deadline exceeded");
	CHECK_EQ(journal_size(journal), 1);
	fake_file("down", false);
	CHECK_EQ(rw_bgp_withdraw_journal(&c, journal, err, sizeof(err)), 0);

	/* One route refused: the others are withdrawn all the same, it stays in the journal. */
	fresh_speaker();
	for (int i = 0; i < 2; i++)
		CHECK_EQ(bpf_map_update_elem(journal, &old[i], &(uint64_t){ 1 }, BPF_ANY), 0);
	CHECK_EQ(system("printf '198.18.0.1/32\\n198.18.0.2/32\\n' >\"$FAKE_GOBGP_DIR/rib\""), 0);
	CHECK_EQ(system("echo 198.18.0.2/32 >\"$FAKE_GOBGP_DIR/fail-del\""), 0);
	CHECK(rw_bgp_withdraw_journal(&c, journal, err, sizeof(err)) < 0);
	CHECK(strstr(err, "bgp: 1 of 2 routes are left announced (in the journal): ") != NULL);
	CHECK(strstr(err, "the speaker refused to withdraw them: ") != NULL);
	CHECK_EQ(journal_size(journal), 1);
	CHECK(journal_has(journal, "198.18.0.2/32"));
	CHECK_EQ(lines_with(fake_read("log"), "global rib del -a ipv4 198.18.0.1/32\n"), 1);
	/* A refused withdrawal of a route the speaker no longer holds (it lost it) is done. */
	CHECK_EQ(system(": >\"$FAKE_GOBGP_DIR/rib\""), 0);
	CHECK_EQ(rw_bgp_withdraw_journal(&c, journal, err, sizeof(err)), 0);
	CHECK_EQ(journal_size(journal), 0);
	close(journal);
}

/*
 * A journal pinned before flow rules (a prefix alone as its key) read as
 * today's: the same routes, blackholes; and one pinned before their protocol
 * and ports: the same flow rules, of any protocol and port.
 */
static void test_bgp_journal_upgrade(void)
{
	struct { uint8_t family, len, addr[16]; } old = { AF_INET, 32, { 198, 18, 0, 1 } };
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int v1 = bpf_map_create(BPF_MAP_TYPE_HASH, "rw_bgp_journal", sizeof(old), sizeof(uint64_t), 7,
				&opts), now;
	struct rw_route r;
	uint32_t max = 0;
	uint64_t when = 0;

	CHECK(v1 >= 0);
	if (v1 < 0)
		return;
	CHECK_EQ(bpf_map_update_elem(v1, &old, &(uint64_t){ 11 }, BPF_ANY), 0);
	old.len = 24;
	old.addr[3] = 0;
	CHECK_EQ(bpf_map_update_elem(v1, &old, &(uint64_t){ 22 }, BPF_ANY), 0);
	CHECK_EQ(rw_journal_capacity(v1, &max), -EINVAL); /* not today's */
	now = rw_journal_upgrade(v1);
	CHECK(now >= 0);
	if (now >= 0) {
		CHECK_EQ(rw_journal_capacity(now, &max), 0);
		CHECK_EQ(max, 7u);
		CHECK_EQ(rw_journal_count(now), 2u);
		r = route("198.18.0.1");
		CHECK(bpf_map_lookup_elem(now, &r, &when) == 0 && when == 11);
		r = route("198.18.0.0/24");
		CHECK(bpf_map_lookup_elem(now, &r, &when) == 0 && when == 22);
		CHECK_EQ(rw_journal_upgrade(now), -EINVAL); /* already today's */
		close(now);
	}
	close(v1);

	/* One pinned before flow rules had protocols and ports: its key today's up to the rate. */
	struct rw_route f = route("198.18.0.5");
	int v2;

	f.kind = RW_ROUTE_FLOW;
	f.dst_len = 25;
	memcpy(f.dst, (uint8_t[]){ 198, 19, 255, 128 }, 4);
	f.rate = 1250;
	v2 = bpf_map_create(BPF_MAP_TYPE_HASH, "rw_bgp_journal", offsetof(struct rw_route, proto),
			    sizeof(uint64_t), 3, &opts);
	CHECK(v2 >= 0);
	if (v2 < 0)
		return;
	CHECK_EQ(bpf_map_update_elem(v2, &f, &(uint64_t){ 33 }, BPF_ANY), 0); /* its first 40 bytes */
	now = rw_journal_upgrade(v2);
	CHECK(now >= 0);
	if (now >= 0) {
		CHECK_EQ(rw_journal_count(now), 1u);
		CHECK(bpf_map_lookup_elem(now, &f, &when) == 0 && when == 33); /* no protocol, no port */
		close(now);
	}
	close(v2);

	/* One pinned between: flow rules before their rate (36 bytes), each a discard. */
	f.rate = 0;
	v2 = bpf_map_create(BPF_MAP_TYPE_HASH, "rw_bgp_journal", offsetof(struct rw_route, rate),
			    sizeof(uint64_t), 3, &opts);
	CHECK(v2 >= 0);
	if (v2 < 0)
		return;
	CHECK_EQ(bpf_map_update_elem(v2, &f, &(uint64_t){ 44 }, BPF_ANY), 0); /* its first 36 bytes */
	now = rw_journal_upgrade(v2);
	CHECK(now >= 0);
	if (now >= 0) {
		CHECK_EQ(rw_journal_count(now), 1u);
		CHECK(bpf_map_lookup_elem(now, &f, &when) == 0 && when == 44);
		close(now);
	}
	close(v2);
}

/*
 * The act record an earlier ratewall pinned (before --bgp-helper: 4576
 * bytes) read as today's, so that `ratewall stop` withdraws its routes
 * through the speaker it names; a size no ratewall wrote is refused.
 */
static void test_bgp_act_record_older(void)
{
	uint8_t old[4576] = { 0 };
	const size_t bgp = offsetof(struct rw_act_record, bgp);
	uint32_t owner = (64512u << 16) | 7, community = (65535u << 16) | 666, ncomm = 1, zero = 0;
	struct rw_act_record r;
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rw_act", 4, sizeof(old), 1, NULL), bad, e;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	memcpy(old, &(uint64_t){ 123 }, 8); /* at_ns */
	strcpy((char *)old + offsetof(struct rw_act_record, hook_command), "logger banned");
	strcpy((char *)old + bgp, "127.0.0.1:50051");
	strcpy((char *)old + bgp + 64, "/usr/bin/gobgp");
	strcpy((char *)old + bgp + 320, "192.0.2.1");      /* next_hop4 */
	strcpy((char *)old + bgp + 336, "2001:db8::1");    /* next_hop6 */
	memcpy(old + bgp + 384, &community, 4);
	memcpy(old + bgp + 416, &ncomm, 4);
	memcpy(old + bgp + 3656, &owner, 4);
	CHECK_EQ(bpf_map_update_elem(fd, &zero, old, BPF_ANY), 0);
	memset(&r, 0xff, sizeof(r));
	e = rw_act_record_read(fd, &r);
	CHECK_EQ(e, 0);
	if (e) { /* what r holds is not a record to compare */
		close(fd);
		return;
	}
	CHECK_EQ(r.at_ns, 123u);
	CHECK_STR(r.hook_command, "logger banned");
	CHECK_STR(r.bgp.api, "127.0.0.1:50051");
	CHECK_STR(r.bgp.command, "/usr/bin/gobgp");
	CHECK_STR(r.bgp.helper, ""); /* the one found beside ratewall */
	CHECK_STR(r.bgp.next_hop4, "192.0.2.1");
	CHECK_STR(r.bgp.next_hop6, "2001:db8::1");
	CHECK_EQ(r.bgp.ncommunities, 1u);
	CHECK_EQ(r.bgp.community[0], community);
	CHECK_EQ(r.bgp.owner, owner);
	close(fd);
	bad = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rw_act", 4, 4000, 1, NULL);
	CHECK(bad >= 0);
	if (bad >= 0) {
		CHECK_EQ(rw_act_record_read(bad, &r), -EPROTO);
		close(bad);
	}
}

static void test_bgp_dry_run(void)
{
	struct rw_route want[] = { route("198.18.0.7"), route("198.18.0.8") };
	struct rw_bgp_config c;
	struct rw_bgp_counts n;
	struct rw_bgp *b;
	char err[256], said[8192] = "";

	fresh_speaker();
	bgp_config(&c, 100);
	c.dry_run = true;
	b = rw_bgp_start(&c, -1, err, sizeof(err));
	CHECK(b != NULL);
	if (!b)
		return;
	rw_bgp_want(b, want, 2, 0);
	CHECK(WAIT_FOR(b, n, n.announced == 2, 3000));
	rw_bgp_want(b, want + 1, 1, 0);
	CHECK(WAIT_FOR(b, n, n.announced == 1, 3000));
	CHECK_EQ(n.state, RW_BGP_DRY_RUN);
	rw_bgp_end(b, true);
	collect(b, said, sizeof(said));
	CHECK_STR(said, "bgp: would announce 198.18.0.7/32 community 65535:666\n"
			"bgp: would announce 198.18.0.8/32 community 65535:666\n"
			"bgp: would withdraw 198.18.0.7/32\n"
			"bgp: would withdraw 198.18.0.8/32\n");
	CHECK_STR(fake_read("log"), ""); /* the client never ran */
	rw_bgp_stop(b, true);
}

static void fake_missing(void)
{
	CHECK(0);
}

void run_bgp_tests(void)
{
	if (access(FAKE, X_OK)) {
		fprintf(stderr, "test_bgp: %s: %s (run from the top of the tree)\n", FAKE, strerror(errno));
		tl_run("bgp: the fake speaker is there", fake_missing);
		return;
	}
	tl_run("bgp: wanted routes announced, gone ones withdrawn, all at the end", test_bgp_announce_withdraw);
	tl_run("bgp: --bgp-max announces the most wanted, counts and says the rest", test_bgp_max);
	tl_run("bgp: a speaker down is said, retried, re-announced when back or restarted",
	       test_bgp_down_and_back);
	tl_run("bgp: no session said, refused announcements said once and retried",
	       test_bgp_no_session_and_refusals);
	tl_run("bgp: the journal of an earlier run; ratewall stop's withdrawals",
	       test_bgp_journal_of_an_earlier_run);
	tl_run("bgp: dry run says, runs nothing", test_bgp_dry_run);
	tl_run("bgp: a journal pinned before flow rules, read as today's", test_bgp_journal_upgrade);
	tl_run("bgp: an act record an earlier ratewall pinned, read as today's",
	       test_bgp_act_record_older);
	if (dir[0]) {
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CHECK_EQ(system(cmd), 0);
	}
}
