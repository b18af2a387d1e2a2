// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF unit tests: the real XDP program, loaded the way `ratewall run` loads
 * it, fed crafted frames through bpf_prog_test_run_opts. Verdicts and the
 * counters read back from the maps are checked; time is driven through the
 * program's test clock so window behaviour is exact and instant.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "flowtab.h"
#include "frames.h"
#include "loader.h"
#include "ratewall.skel.h"
#include "testlib.h"
#include "window.h"

#define MS 1000000ULL

struct env {
	struct ratewall_bpf *skel;
	int prog, flows, stats;
	uint32_t ncpus, slots, stride;
	uint64_t slot_ns;
};

static bool env_open(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
		     uint64_t limit_bytes)
{
	struct rw_load_params p = {
		.slot_ns = slot_ns, .slots = slots, .limit_packets = limit_packets,
		.limit_bytes = limit_bytes, .max_flows = 1024, .test_clock = true,
	};
	int err;

	memset(e, 0, sizeof(*e));
	err = rw_bpf_load(&p, &e->skel);
	if (err) {
		fprintf(stderr, "  cannot load the program: %s\n", strerror(-err));
		CHECK(err == 0);
		return false;
	}
	e->prog = bpf_program__fd(e->skel->progs.ratewall_xdp);
	e->flows = bpf_map__fd(e->skel->maps.flows);
	e->stats = bpf_map__fd(e->skel->maps.stats);
	e->ncpus = rw_possible_cpus();
	e->slots = slots;
	e->slot_ns = slot_ns;
	e->stride = rw_flow_stride(slots);
	return true;
}

static void env_close(struct env *e)
{
	ratewall_bpf__destroy(e->skel);
}

static void set_time(struct env *e, uint64_t ns)
{
	e->skel->bss->test_clock_ns = ns;
}

static uint32_t run_frame(struct env *e, const struct fb *f)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = (__u32)f->len, .repeat = 1);
	int err = bpf_prog_test_run_opts(e->prog, &o);

	if (err)
		fprintf(stderr, "  test run of a %zu-byte frame failed: %s\n", f->len, strerror(-err));
	CHECK_EQ(err, 0);
	return err ? 0xdead : o.retval;
}

static void read_stats(struct env *e, struct rw_stats *s)
{
	CHECK_EQ(rw_stats_read(e->stats, e->ncpus, s), 0);
}

/* Sums one flow's window at now_epoch; false if the flow is not in the map. */
static bool flow_window(struct env *e, const struct rw_key *k, uint64_t now_epoch,
			struct rw_window_sum *w)
{
	void *vals = calloc(e->ncpus, e->stride);
	bool found = bpf_map_lookup_elem(e->flows, k, vals) == 0;

	if (found)
		rw_window_sum(vals, e->ncpus, e->stride, e->slots, now_epoch, w);
	free(vals);
	return found;
}

static struct rw_key key4(uint32_t saddr)
{
	struct rw_key k = { .family = RW_FAMILY_IPV4 };
	uint32_t be = htonl(saddr);

	memcpy(k.addr, &be, 4);
	return k;
}

static struct rw_key key6(uint32_t low)
{
	struct rw_key k = { .family = RW_FAMILY_IPV6, .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
	uint32_t be = htonl(low);

	memcpy(k.addr + 12, &be, 4);
	return k;
}

static bool pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

enum expect { KEYED, MALFORMED, NON_IP };

struct frame_case {
	const char *name;
	struct fb f;
	enum expect expect;
	struct rw_key key;
};

#define SRC4 0xc6120001u /* 198.18.0.1 */

/* Runs one frame and checks verdict, the counter that must move, and the flow map. */
static void check_case(struct env *e, const struct frame_case *c, uint64_t now_epoch)
{
	struct rw_stats before, after;
	struct rw_window_sum w0 = { 0 }, w1 = { 0 };
	bool had = c->expect == KEYED && flow_window(e, &c->key, now_epoch, &w0);
	uint32_t verdict;
	int failed = tl_failed_checks;

	read_stats(e, &before);
	verdict = run_frame(e, &c->f);
	read_stats(e, &after);
	CHECK_EQ(verdict, XDP_PASS);
	CHECK_EQ(after.rx_packets - before.rx_packets, 1);
	CHECK_EQ(after.rx_bytes - before.rx_bytes, c->f.len);
	CHECK_EQ(rw_stats_passed(&after) - rw_stats_passed(&before), 1);
	CHECK_EQ(after.malformed - before.malformed, c->expect == MALFORMED);
	CHECK_EQ(after.non_ip - before.non_ip, c->expect == NON_IP);
	if (c->expect == KEYED) {
		CHECK(flow_window(e, &c->key, now_epoch, &w1));
		CHECK_EQ(w1.packets - w0.packets, 1);
		CHECK_EQ(w1.bytes - w0.bytes, c->f.len);
		CHECK_EQ(after.new_flows - before.new_flows, had ? 0 : 1);
	} else {
		CHECK_EQ(after.new_flows - before.new_flows, 0);
	}
	if (tl_failed_checks != failed)
		fprintf(stderr, "  ^ in frame case '%s' (%zu bytes)\n", c->name, c->f.len);
}

static struct frame_case *add(struct frame_case *cases, int *n, const char *name, enum expect x,
			      struct rw_key key)
{
	struct frame_case *c = &cases[(*n)++];

	c->name = name;
	c->expect = x;
	c->key = key;
	return c;
}

static void test_frame_table(void)
{
	struct frame_case *cases = calloc(256, sizeof(*cases)), *c;
	struct rw_key none = { 0 };
	struct env e;
	int n = 0;

	if (!env_open(&e, 10, 100 * MS, 0, 0))
		return;
	set_time(&e, 1000 * MS);

	c = add(cases, &n, "ipv4 udp", KEYED, key4(SRC4));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 5, -1, 0, 30);
	c = add(cases, &n, "ipv6 udp", KEYED, key6(7));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 7, 17, -1, 16);
	c = add(cases, &n, "802.1Q + ipv4", KEYED, key4(SRC4 + 1));
	fb_l2(&c->f, 1, 0x0800), fb_ipv4(&c->f, SRC4 + 1, 5, -1, 0, 30);
	c = add(cases, &n, "802.1ad + 802.1Q + ipv6", KEYED, key6(8));
	fb_l2(&c->f, 2, 0x86dd), fb_ipv6(&c->f, 8, 17, -1, 16);
	c = add(cases, &n, "three VLAN tags: beyond what is parsed", NON_IP, none);
	fb_l2(&c->f, 2, 0x8100), fb_be16(&c->f, 102), fb_be16(&c->f, 0x0800),
		fb_ipv4(&c->f, SRC4, 5, -1, 0, 30);
	c = add(cases, &n, "arp", NON_IP, none);
	fb_l2(&c->f, 0, 0x0806), memset(c->f.b + c->f.len, 0, 28), c->f.len += 28;
	c = add(cases, &n, "802.1Q + arp", NON_IP, none);
	fb_l2(&c->f, 1, 0x0806), memset(c->f.b + c->f.len, 0, 28), c->f.len += 28;
	c = add(cases, &n, "ipv4 options (ihl 6)", KEYED, key4(SRC4 + 2));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 2, 6, -1, 0, 8);
	c = add(cases, &n, "ipv4 options (ihl 15)", KEYED, key4(SRC4 + 2));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 2, 15, -1, 0, 8);
	c = add(cases, &n, "ipv4 ihl 4", MALFORMED, none);
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 4, -1, 0, 30);
	c = add(cases, &n, "ipv4 ihl 0", MALFORMED, none);
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 0, -1, 0, 30);
	c = add(cases, &n, "ipv4 options beyond the frame", MALFORMED, none);
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 15, 60, 0, 0), c->f.len -= 8;
	c = add(cases, &n, "ipv4 total length beyond the frame", MALFORMED, none);
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 5, 200, 0, 30);
	c = add(cases, &n, "ipv4 total length below the header", MALFORMED, none);
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 5, 19, 0, 30);
	c = add(cases, &n, "ipv4 version 6 in an ipv4 frame", MALFORMED, none);
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 5, -1, 0, 30), c->f.b[14] = 0x65;
	c = add(cases, &n, "ipv4 with ethernet padding", KEYED, key4(SRC4 + 3));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 3, 5, 28, 0, 18);
	c = add(cases, &n, "ipv4 zero-length payload", KEYED, key4(SRC4 + 4));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 4, 5, -1, 0, 0);
	c = add(cases, &n, "ipv4 first fragment", KEYED, key4(SRC4 + 5));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 5, 5, -1, 0x2000, 64);
	c = add(cases, &n, "ipv4 later fragment", KEYED, key4(SRC4 + 5));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 5, 5, -1, 0x0008, 64);
	c = add(cases, &n, "ipv4 last fragment", KEYED, key4(SRC4 + 5));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 5, 5, -1, 0x0010, 10);
	c = add(cases, &n, "ipv6 zero-length payload", KEYED, key6(9));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 9, 59, -1, 0);
	c = add(cases, &n, "ipv6 hop-by-hop + fragment chain", KEYED, key6(9));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 9, 0, -1, 8 + 8 + 8);
	c = add(cases, &n, "ipv6 later fragment", KEYED, key6(9));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 9, 44, -1, 8 + 100), c->f.b[54 + 2] = 0x01;
	c = add(cases, &n, "ipv6 payload length beyond the frame", MALFORMED, none);
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 9, 17, 100, 16);
	c = add(cases, &n, "ipv6 version 4 in an ipv6 frame", MALFORMED, none);
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 9, 17, -1, 16), c->f.b[14] = 0x40;
	c = add(cases, &n, "802.1Q tag cut short", MALFORMED, none);
	fb_l2(&c->f, 0, 0x8100), fb_be16(&c->f, 100);
	c = add(cases, &n, "jumbo ipv4 (9000 bytes, multi-buffer)", KEYED, key4(SRC4 + 6));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 6, 5, -1, 0, 9000 - 34);
	c = add(cases, &n, "jumbo ipv6 (9000 bytes, multi-buffer)", KEYED, key6(10));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 10, 17, -1, 9000 - 54);

	/* Cut a valid frame at every byte of each header: all malformed, never keyed. */
	for (size_t cut = 14; cut < 14 + 20; cut++) {
		c = add(cases, &n, "ipv4 truncated", MALFORMED, none);
		fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4, 5, -1, 0, 30), c->f.len = cut;
	}
	for (size_t cut = 14; cut < 14 + 40; cut++) {
		c = add(cases, &n, "ipv6 truncated", MALFORMED, none);
		fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 9, 17, -1, 16), c->f.len = cut;
	}
	for (size_t cut = 15; cut < 18; cut++) {
		c = add(cases, &n, "VLAN tag truncated", MALFORMED, none);
		fb_l2(&c->f, 1, 0x0800), fb_ipv4(&c->f, SRC4, 5, -1, 0, 30), c->f.len = cut;
	}
	for (size_t cut = 18; cut < 18 + 20; cut++) {
		c = add(cases, &n, "ipv4 after a VLAN tag truncated", MALFORMED, none);
		fb_l2(&c->f, 1, 0x0800), fb_ipv4(&c->f, SRC4, 5, -1, 0, 30), c->f.len = cut;
	}
	for (int i = 0; i < n; i++)
		check_case(&e, &cases[i], 10);
	free(cases);
	env_close(&e);
}

static void send4(struct env *e, uint32_t saddr, int count, size_t payload, uint32_t *passed,
		  uint32_t *dropped)
{
	struct fb f;

	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, saddr, 5, -1, 0, payload);
	for (int i = 0; i < count; i++) {
		uint32_t v = run_frame(e, &f);

		if (v == XDP_PASS)
			(*passed)++;
		else if (v == XDP_DROP)
			(*dropped)++;
	}
}

static void test_slot_rotation_and_stale_reset(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	uint32_t p = 0, d = 0;
	struct env e;

	if (!env_open(&e, 4, 100 * MS, 0, 0))
		return;
	set_time(&e, 50 * MS); /* epoch 0, slot 0 */
	send4(&e, SRC4, 3, 30, &p, &d);
	set_time(&e, 150 * MS); /* epoch 1, slot 1 */
	send4(&e, SRC4, 2, 30, &p, &d);
	CHECK(flow_window(&e, &k, 1, &w));
	CHECK_EQ(w.packets, 5);
	CHECK_EQ(w.newest_epoch, 1);

	/* Epoch 4 lands in slot 0 again: its round-0 count must be reset, not added to. */
	set_time(&e, 450 * MS);
	send4(&e, SRC4, 1, 30, &p, &d);
	CHECK(flow_window(&e, &k, 4, &w));
	CHECK_EQ(w.packets, 2 + 1); /* epochs 1 and 4 live; epoch 0 overwritten */
	CHECK_EQ(p, 6);
	CHECK_EQ(d, 0);
	{
		void *vals = calloc(e.ncpus, e.stride);
		uint64_t sum = 0, epoch0 = 0;

		CHECK_EQ(bpf_map_lookup_elem(e.flows, &k, vals), 0);
		for (uint32_t cpu = 0; cpu < e.ncpus; cpu++) {
			struct rw_flow *fl = (void *)((char *)vals + cpu * e.stride);

			sum += fl->slot[0].packets;
			epoch0 |= fl->slot[0].packets ? fl->slot[0].epoch : 0;
		}
		CHECK_EQ(sum, 1);
		CHECK_EQ(epoch0, 4);
		free(vals);
	}
	/* Reading later than a whole window: nothing is live, the flow counts as idle. */
	CHECK(flow_window(&e, &k, 8, &w));
	CHECK_EQ(w.packets, 0);
	CHECK(rw_window_idle(&w, 8, 4));

	/* A jump of many rounds: the one slot written is fresh, every other is stale. */
	set_time(&e, 100000 * MS + 250 * MS);
	send4(&e, SRC4, 7, 30, &p, &d);
	CHECK(flow_window(&e, &k, 1002, &w));
	CHECK_EQ(w.packets, 7);
	env_close(&e);
}

static void test_packet_limit_crossing(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_stats st;
	uint32_t p = 0, d = 0;
	struct env e;

	/* 5 packets per window of 4 x 100 ms. */
	if (!env_open(&e, 4, 100 * MS, 5, 0))
		return;
	set_time(&e, 10 * MS);
	send4(&e, SRC4, 8, 30, &p, &d);
	CHECK_EQ(p, 5);
	CHECK_EQ(d, 3);
	/* Epochs 1..3: the window is full, everything drops. */
	for (int ep = 1; ep <= 3; ep++) {
		set_time(&e, ep * 100 * MS + 10 * MS);
		p = d = 0;
		send4(&e, SRC4, 4, 30, &p, &d);
		CHECK_EQ(p, 0);
		CHECK_EQ(d, 4);
	}
	CHECK(flow_window(&e, &k, 3, &w));
	CHECK_EQ(w.packets, 8 + 12);
	CHECK_EQ(w.drop_packets, 3 + 12);
	/*
	 * Epoch 4: epoch 0's 5 admitted packets leave the window. Dropped packets
	 * took no budget (admitted-only), so exactly 5 pass again.
	 */
	set_time(&e, 410 * MS);
	p = d = 0;
	send4(&e, SRC4, 9, 30, &p, &d);
	CHECK_EQ(p, 5);
	CHECK_EQ(d, 4);
	/* Another source has its own budget. */
	p = d = 0;
	send4(&e, SRC4 + 1, 6, 30, &p, &d);
	CHECK_EQ(p, 5);
	CHECK_EQ(d, 1);
	read_stats(&e, &st);
	CHECK_EQ(st.dropped, 3 + 12 + 4 + 1);
	CHECK_EQ(rw_stats_passed(&st), 5 + 5 + 5);
	CHECK_EQ(st.dropped_bytes, st.dropped * (14 + 20 + 30));
	env_close(&e);
}

static void test_byte_limit(void)
{
	uint32_t p = 0, d = 0;
	struct env e;

	/* 1000 bytes per window; frames of 14 + 20 + 166 = 200 bytes. */
	if (!env_open(&e, 10, 100 * MS, 0, 1000))
		return;
	set_time(&e, 5 * MS);
	send4(&e, SRC4, 8, 166, &p, &d);
	CHECK_EQ(p, 5);
	CHECK_EQ(d, 3);
	/* Both limits: whichever runs out first decides. */
	env_close(&e);
	if (!env_open(&e, 10, 100 * MS, 3, 1000))
		return;
	set_time(&e, 5 * MS);
	p = d = 0;
	send4(&e, SRC4, 8, 166, &p, &d);
	CHECK_EQ(p, 3);
	CHECK_EQ(d, 5);
	env_close(&e);
}

/*
 * Few cross-CPU sums for many packets: each refill takes a share of what is
 * left, so a source far below its limit pays for the exact check rarely.
 */
static void test_lease_refills_are_logarithmic(void)
{
	struct rw_stats st;
	uint32_t p = 0, d = 0;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 1000, 0))
		return;
	set_time(&e, 5 * MS);
	send4(&e, SRC4, 1100, 0, &p, &d);
	CHECK_EQ(p, 1000);
	CHECK_EQ(d, 100);
	read_stats(&e, &st);
	/* log2(1000) halvings plus one per remaining CPU, plus the saturating check. */
	CHECK(st.cross_cpu_checks <= 2 * 10 + e.ncpus + 2);
	printf("     %llu cross-CPU sums for 1100 packets against a limit of 1000 (%u CPUs)\n",
	       (unsigned long long)st.cross_cpu_checks, e.ncpus);
	env_close(&e);
}

/* One source's packets on every CPU in turn still share a single budget. */
static void test_limit_shared_across_cpus(void)
{
	uint32_t p = 0, d = 0, cpus = 0;
	cpu_set_t orig;
	struct env e;

	sched_getaffinity(0, sizeof(orig), &orig);
	if (!env_open(&e, 10, 100 * MS, 10, 0))
		return;
	set_time(&e, 5 * MS);
	/* Interleave 3 packets per CPU, four rounds, over every online CPU. */
	for (int round = 0; round < 4; round++) {
		for (uint32_t cpu = 0; cpu < e.ncpus; cpu++) {
			if (!pin_cpu((int)cpu))
				continue;
			cpus += round == 0;
			send4(&e, SRC4, 3, 30, &p, &d);
		}
	}
	CHECK(cpus >= 1);
	CHECK_EQ(p, 10);
	CHECK_EQ(d, 4 * 3 * cpus - 10);
	if (cpus < 2)
		fprintf(stderr, "  note: one CPU online, cross-CPU sharing not exercised\n");

	/* A new slot frees nothing while the window still holds all 10: still dropping. */
	set_time(&e, 105 * MS);
	p = d = 0;
	for (uint32_t cpu = 0; cpu < e.ncpus; cpu++) {
		if (pin_cpu((int)cpu))
			send4(&e, SRC4, 2, 30, &p, &d);
	}
	CHECK_EQ(p, 0);
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/* No limit configured: nothing is ever dropped, however much is sent. */
static void test_no_limit_never_drops(void)
{
	uint32_t p = 0, d = 0;
	struct env e;

	if (!env_open(&e, 2, 1 * MS, 0, 0))
		return;
	set_time(&e, 0);
	send4(&e, SRC4, 500, 0, &p, &d);
	CHECK_EQ(p, 500);
	CHECK_EQ(d, 0);
	env_close(&e);
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_bpf: needs root to load BPF programs\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	RUN(test_frame_table);
	RUN(test_slot_rotation_and_stale_reset);
	RUN(test_packet_limit_crossing);
	RUN(test_byte_limit);
	RUN(test_lease_refills_are_logarithmic);
	RUN(test_limit_shared_across_cpus);
	RUN(test_no_limit_never_drops);
	return tl_finish();
}
