// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of --samples' names and bound (user/model/samples.c): a name
 * carries the event's UTC time and its key, fit for a file and sorting by
 * time; the bound removes the oldest files first, never an open one, and a
 * file removed for it is not made again; a heavy prefix's event names its
 * file when prefixes sample.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/key.h"
#include "model/samples.h"
#include "views/events.h"
#include "unit.h"

static void test_sample_names(void)
{
	/* 2026-11-28 15:08:53.123456789 UTC */
	const int64_t t = 1795878533123456789LL;
	struct rw_key k4 = v4("198.18.0.7"), k6 = v6("2001:db8::1"), flow = v4("198.18.0.1");
	char name[RW_SAMPLE_NAMELEN], later[RW_SAMPLE_NAMELEN];

	rw_sample_name(name, sizeof(name), t, &k4);
	CHECK_STR(name, "20261128T150853.123456Z-198.18.0.7.pcap");
	CHECK(rw_sample_name_ok(name));
	/* IPv6 colons, a /LEN and a flow's arrow and ports: one '_' a run, nothing else. */
	k6.prefix_len = 64;
	k6.kind = RW_KIND_SRC;
	rw_sample_name(name, sizeof(name), t, &k6);
	CHECK(strchr(name, ':') == NULL && strchr(name, '/') == NULL && strchr(name, ' ') == NULL);
	CHECK(strncmp(name, "20261128T150853.123456Z-2001_db8_", 33) == 0);
	CHECK(rw_sample_name_ok(name));
	flow.kind = RW_KIND_FLOW;
	flow.proto = 17;
	flow.sport = htons(5353);
	flow.dport = htons(53);
	inet_pton(AF_INET, "198.19.0.9", flow.addr2);
	rw_sample_name(name, sizeof(name), t, &flow);
	CHECK_STR(name, "20261128T150853.123456Z-udp_198.18.0.1_5353_-_198.19.0.9_53.pcap");
	/* Later sorts after, across a second and a day. */
	rw_sample_name(later, sizeof(later), t + 900000000LL, &k4);
	rw_sample_name(name, sizeof(name), t, &k4);
	CHECK(strcmp(name, later) < 0);
	rw_sample_name(later, sizeof(later), t + 86400000000000LL, &k4);
	CHECK(strcmp(name, later) < 0);
	/* A short buffer is cut, never overrun. */
	memset(later, 'x', sizeof(later));
	rw_sample_name(later, 12, t, &k4);
	CHECK(strlen(later) < 12 && later[12] == 'x');
	/* What the bound counts: its own names only. */
	CHECK(!rw_sample_name_ok("notes.txt"));
	CHECK(!rw_sample_name_ok("other.pcap"));
	CHECK(!rw_sample_name_ok(".ratewall-samples-probe.1"));
}

/* What an --on-event command would be handed: the event's sample ("" none). */
struct handed {
	char sample[RW_SAMPLE_NAMELEN];
};

static void hand(void *arg, uint32_t type, const struct rw_key *key, double ts, int cpu,
		 double until, const char *sample)
{
	struct handed *h = arg;

	(void)type, (void)key, (void)ts, (void)cpu, (void)until;
	snprintf(h->sample, sizeof(h->sample), "%s", sample ? sample : "");
}

/*
 * --samples --levels: a heavy event names its prefix's file, from the event's
 * time (the arm's) as the writer names it; light never; nor heavy while
 * prefixes do not sample.
 */
static void test_sample_heavy_prefix_named(void)
{
	const int64_t t = 1795878533123456789LL; /* 2026-11-28 15:08:53.123456789 UTC */
	const uint64_t now = 5000000000ULL;     /* the program's clock then */
	struct rw_key k = v4("198.18.0.7"), p;
	struct handed h = { "x" };
	struct rw_events_out o;

	k.prefix_len = 32;
	CHECK(rw_key_cut(&k, 24, &p));
	CHECK_EQ(rw_events_open(&o, NULL, false), 0);
	o.on_event = hand;
	o.on_event_arg = &h;
	o.samples = true;
	o.sample_offset = t - (int64_t)now;
	rw_events_prefix(&o, RW_EV_HEAVY, &p, now);
	CHECK_STR(h.sample, "");
	o.prefix_samples = true;
	rw_events_prefix(&o, RW_EV_HEAVY, &p, now);
	CHECK_STR(h.sample, "20261128T150853.123456Z-198.18.0.0_24.pcap");
	rw_events_prefix(&o, RW_EV_LIGHT, &p, now);
	CHECK_STR(h.sample, "");
	rw_events_close(&o);
}

struct removed {
	char names[8][RW_SAMPLE_NAMELEN];
	int n;
	int fail_at; /* the removal that fails, -1 none */
};

static int remove_cb(void *arg, const char *name)
{
	struct removed *r = arg;

	if (r->n == r->fail_at)
		return -EACCES;
	snprintf(r->names[r->n++], RW_SAMPLE_NAMELEN, "%s", name);
	return 0;
}

static void test_sample_bound(void)
{
	struct rw_sample_dir d = { .max = 1000 };
	struct removed r = { .fail_at = -1 };

	/* Found in any order, kept oldest first. */
	CHECK_EQ(rw_sample_dir_add(&d, "20260101T000003.000000Z-c.pcap", 300, false), 0);
	CHECK_EQ(rw_sample_dir_add(&d, "20260101T000001.000000Z-a.pcap", 300, false), 0);
	CHECK_EQ(rw_sample_dir_add(&d, "20260101T000002.000000Z-b.pcap", 300, true), 1);
	CHECK_EQ(d.total, 900);
	CHECK(rw_sample_dir_room(&d, 100, remove_cb, &r));
	CHECK_EQ(r.n, 0);
	/* 500 more: the oldest goes, then b is open, so c goes. */
	CHECK(rw_sample_dir_room(&d, 500, remove_cb, &r));
	CHECK_EQ(r.n, 2);
	CHECK_STR(r.names[0], "20260101T000001.000000Z-a.pcap");
	CHECK_STR(r.names[1], "20260101T000003.000000Z-c.pcap");
	CHECK_EQ(d.total, 300);
	CHECK_EQ(d.removed, 2);
	CHECK(d.total + 500 <= d.max);
	/* Only the open one left: no room beyond it. */
	CHECK(!rw_sample_dir_room(&d, 800, remove_cb, &r));
	CHECK_EQ(d.n, 1);
	/* A file up to the newest removed is not made again; a newer one is. */
	CHECK(!rw_sample_dir_may_make(&d, "20260101T000001.000000Z-a.pcap"));
	CHECK(!rw_sample_dir_may_make(&d, "20260101T000003.000000Z-c.pcap"));
	CHECK(rw_sample_dir_may_make(&d, "20260101T000004.000000Z-d.pcap"));
	/* A removal that fails: no room said, the file still counted. */
	d.f[0].open = false;
	r.fail_at = r.n;
	CHECK(!rw_sample_dir_room(&d, 800, remove_cb, &r));
	CHECK_EQ(d.total, 300);
	CHECK_EQ(rw_sample_dir_find(&d, "20260101T000002.000000Z-b.pcap"), 0);
	CHECK_EQ(rw_sample_dir_find(&d, "nothing"), -1);
	rw_sample_dir_free(&d);
}

void run_samples_tests(void)
{
	RUN(test_sample_names);
	RUN(test_sample_bound);
	RUN(test_sample_heavy_prefix_named);
}
