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
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "bpfenv.h"
#include "kernel/rules_maps.h"
#include "model/key.h"
#include "ratewall_hash.h"
#include "testlib.h"

/* HIDDEN: keyed, its L4 header hiding from the rules (a tiny first fragment, a long chain). */
enum expect { KEYED, MALFORMED, NON_IP, HIDDEN };

struct frame_case {
	const char *name;
	struct fb f;
	enum expect expect;
	struct rw_key key;
};


/* Runs one frame and checks verdict, the counter that must move, and the flow map. */
static void check_case(struct env *e, const struct frame_case *c, uint64_t now_epoch,
		       bool malformed_drop)
{
	struct rw_stats before, after;
	struct rw_window_sum w0 = { 0 }, w1 = { 0 };
	bool drop = malformed_drop && (c->expect == MALFORMED || c->expect == HIDDEN);
	bool keyed = c->expect == KEYED || (c->expect == HIDDEN && !drop);
	bool had = keyed && flow_window(e, &c->key, now_epoch, &w0);
	uint32_t verdict;
	int failed = tl_failed_checks;

	read_stats(e, &before);
	verdict = run_frame(e, &c->f);
	read_stats(e, &after);
	CHECK_EQ(verdict, drop ? XDP_DROP : XDP_PASS);
	CHECK_EQ(after.rx_packets - before.rx_packets, 1);
	CHECK_EQ(after.rx_bytes - before.rx_bytes, c->f.len);
	CHECK_EQ(rw_stats_passed(&after) - rw_stats_passed(&before), !drop);
	CHECK_EQ(after.dropped - before.dropped, drop);
	CHECK_EQ(after.dropped_bytes - before.dropped_bytes, drop ? c->f.len : 0);
	CHECK_EQ(after.malformed - before.malformed, c->expect == MALFORMED);
	CHECK_EQ(after.non_ip - before.non_ip, c->expect == NON_IP);
	CHECK_EQ(after.tiny_frags + after.long_chains - before.tiny_frags - before.long_chains,
		 c->expect == HIDDEN);
	if (keyed) {
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

/*
 * Every class of frame, valid and broken, through the program: keyed, passed
 * unkeyed, or (malformed_drop) dropped as malformed. Test runs need at least an
 * Ethernet header (the kernel refuses shorter input), so a cut Ethernet header
 * is the one class not here.
 */
static void frame_table(bool malformed_drop)
{
	struct frame_case *cases = calloc(256, sizeof(*cases)), *c;
	struct rw_key none = { 0 };
	struct env e;
	int n = 0;

	if (!env_open_mode(&e, 10, 100 * MS, 0, 0, 1024,
			   (struct env_mode){ .malformed_drop = malformed_drop }))
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
	/* A TCP first fragment of 8 bytes: no flags (byte 13) to read. Of 16 bytes (hping3 -f): whole. */
	c = add(cases, &n, "ipv4 tiny tcp first fragment", HIDDEN, key4(SRC4 + 7));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 7, 5, -1, 0x2000, 8), c->f.b[23] = 6;
	c = add(cases, &n, "ipv4 tcp first fragment of 16 bytes", KEYED, key4(SRC4 + 7));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 7, 5, -1, 0x2000, 16), c->f.b[23] = 6;
	c = add(cases, &n, "ipv4 tcp, not a fragment, of 8 bytes: cut short, not hidden", KEYED,
		key4(SRC4 + 7));
	fb_l2(&c->f, 0, 0x0800), fb_ipv4(&c->f, SRC4 + 7, 5, -1, 0, 8), c->f.b[23] = 6;
	c = add(cases, &n, "ipv6 chain of 8 destination options: followed", KEYED, key6(11));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 11, 60, -1, 8 * 8 + 20);
	for (int h = 0; h < 8; h++)
		c->f.b[54 + 8 * h] = h < 7 ? 60 : 6;
	c = add(cases, &n, "ipv6 chain of 9 destination options: too long", HIDDEN, key6(11));
	fb_l2(&c->f, 0, 0x86dd), fb_ipv6(&c->f, 11, 60, -1, 9 * 8 + 20);
	for (int h = 0; h < 9; h++)
		c->f.b[54 + 8 * h] = h < 8 ? 60 : 6;
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
		check_case(&e, &cases[i], 10, malformed_drop);
	free(cases);
	env_close(&e);
}

static void test_frame_table(void)
{
	frame_table(false);
}

static void test_frame_table_malformed_drop(void)
{
	frame_table(true);
}


/* --dry-run: the same decisions and counts as enforcing, and every frame passes. */
static void test_dry_run_counts_and_passes(void)
{
	struct env_mode modes[] = { { .dry_run = false }, { .dry_run = true } };
	struct rw_stats st[2];
	uint32_t p[2] = { 0 }, d[2] = { 0 };

	for (int m = 0; m < 2; m++) {
		struct env e;
		struct fb f;

		if (!env_open_mode(&e, 10, 100 * MS, 10, 0, 1024, modes[m]))
			return;
		set_time(&e, 5 * MS);
		send4(&e, SRC4, 25, 30, &p[m], &d[m]);
		/* a malformed frame (ihl 4) is passed either way without --malformed drop */
		fb_l2(&f, 0, 0x0800), fb_ipv4(&f, SRC4, 4, -1, 0, 30);
		CHECK_EQ(run_frame(&e, &f), XDP_PASS);
		read_stats(&e, &st[m]);
		env_close(&e);
	}
	CHECK_EQ(p[0], 10);
	CHECK_EQ(d[0], 15);
	CHECK_EQ(p[1], 25); /* nothing dropped ... */
	CHECK_EQ(d[1], 0);
	CHECK_EQ(st[1].dropped, st[0].dropped); /* ... and what would have been, counted */
	CHECK_EQ(st[1].dropped, 15);
	CHECK_EQ(st[1].dropped_bytes, st[0].dropped_bytes);
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
		/* The window at round 4 is rounds 1 to 4: round 0's 3 packets are in none of them. */
		struct rw_key k0 = key4(SRC4);
		struct rw_flow_view fv;
		uint64_t live[4], state;
		int64_t i = rw_table_find(&e.t, &k0, &state);

		CHECK(i >= 0);
		if (i >= 0) {
			rw_table_flow(&e.t, (uint32_t)i, state, e.recs, &fv);
			rw_flow_slot_counts(&fv, e.slots, RW_H_PACKETS, 1, 4, live);
			CHECK_EQ(live[0], 2);
			CHECK_EQ(live[1] + live[2], 0);
			CHECK_EQ(live[3], 1);
		}
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
 * Few cross-CPU sums for many packets: each refill takes 1/C of what is
 * left, so the budget runs down in about ln(L) / ln(C / (C - 1)) refills
 * (C ln L for many CPUs: 10 on 2 CPUs, 107 on 16, 440 on 64 for L = 1000),
 * plus one per CPU's last lease and the saturating check.
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
	CHECK(st.cross_cpu_checks <=
	      (uint64_t)(log(1000.0) / log((double)e.ncpus / (e.ncpus - 1))) + e.ncpus + 2);
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

/*
 * A CPU that saw one stray packet of a source, and then none for a whole
 * slot, gives its lease back: the CPU with the traffic gets the whole budget
 * of the window, and not one packet more (the stray CPU, back later, finds
 * nothing left).
 */
static void test_idle_cpu_gives_its_lease_back(void)
{
	uint32_t p = 0, d = 0, sp = 0, sd = 0, held;
	cpu_set_t orig;
	struct env e;

	sched_getaffinity(0, sizeof(orig), &orig);
	if (!env_open(&e, 10, 100 * MS, 1000, 0))
		return;
	if (e.ncpus < 2 || !pin_cpu(1) || !pin_cpu(0)) {
		fprintf(stderr, "  note: one CPU online, leases across CPUs not exercised\n");
		env_close(&e);
		return;
	}
	pin_cpu(1);
	set_time(&e, 5 * MS);
	send4(&e, SRC4, 1, 30, &sp, &sd); /* a lease of 1/ncpus of what is left */
	CHECK_EQ(sp, 1);
	held = (1000 - 1) / e.ncpus;
	pin_cpu(0);
	set_time(&e, 10 * MS); /* the same slot: CPU 1's lease is live and counted */
	send4(&e, SRC4, 1000, 30, &p, &d);
	CHECK_EQ(p, 1000 - 1 - held);
	set_time(&e, 205 * MS); /* CPU 1 idle one slot (its own to give back): still counted */
	send4(&e, SRC4, 10, 30, &p, &d);
	CHECK_EQ(p, 1000 - 1 - held);
	set_time(&e, 305 * MS); /* idle longer: the others stop counting it */
	send4(&e, SRC4, 1000, 30, &p, &d);
	CHECK_EQ(p, 1000 - 1);
	pin_cpu(1);
	set_time(&e, 405 * MS); /* back: its lease was given back, the window is full */
	send4(&e, SRC4, 10, 30, &sp, &sd);
	CHECK_EQ(sp, 1);
	CHECK_EQ(sd, 10);
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

/* --- Two tiers: the sketch, promotion and its exactness rules ------------------ */

/* Entries of the table that hold a key. */
static uint64_t tracked(struct env *e)
{
	return rw_table_count(&e->t);
}

/*
 * The sketch's tests hold limits of 50 a CPU a window: the threshold (limit /
 * CPUs) is then 50 on any machine, never a degenerate 1.
 */
#define SKETCH_LIMIT(e) (50ULL * (e)->ncpus)

/* A limited program where only the limit's own threshold promotes (no loader policy). */
struct sketch_env {
	struct env e;
	cpu_set_t orig;
	uint64_t limit; /* SKETCH_LIMIT */
	uint64_t t;     /* rw_limit_threshold of the limit */
};

static bool sketch_open(struct sketch_env *c, uint32_t slots, uint32_t max_flows, bool on_cpu0)
{
	uint64_t limit = 50ULL * rw_possible_cpus();

	sched_getaffinity(0, sizeof(c->orig), &c->orig);
	if (on_cpu0)
		pin_cpu(0);
	if (!env_open_sized(&c->e, slots, 100 * MS, limit, 0, max_flows))
		return false;
	set_thresholds(&c->e, 0, 0);
	c->limit = limit;
	c->t = rw_limit_threshold(limit, c->e.ncpus, RW_MAX_THRESHOLD);
	return true;
}

static void sketch_close(struct sketch_env *c)
{
	sched_setaffinity(0, sizeof(c->orig), &c->orig);
	env_close(&c->e);
}

/*
 * Threshold bound: a source below limit / CPUs on every CPU stays in the sketch,
 * and once promoted it inherits every CPU's count, so across all CPUs it is
 * admitted exactly its limit, never more.
 */
static void test_unpromoted_sources_stay_below_limit(void)
{
	uint32_t p = 0, d = 0, cpus = 0;
	struct sketch_env c;
	struct env *e = &c.e;
	uint64_t limit;

	if (!sketch_open(&c, 10, 1024, false))
		return;
	limit = c.limit;
	set_time(e, 5 * MS);
	CHECK((c.t - 1) * e->ncpus < limit);
	for (uint32_t cpu = 0; cpu < e->ncpus; cpu++) {
		if (!pin_cpu((int)cpu))
			continue;
		cpus++;
		send4(e, SRC4, (int)(c.t - 1), 30, &p, &d);
	}
	CHECK_EQ(p, cpus * (c.t - 1));
	CHECK_EQ(d, 0);
	CHECK_EQ(new_flows(e), 0); /* all of it counted in the sketch only */
	/* Now over the threshold on some CPU: promoted, and held to the limit in total. */
	for (int round = 0; round < 50; round++) {
		for (uint32_t cpu = 0; cpu < e->ncpus; cpu++) {
			if (pin_cpu((int)cpu))
				send4(e, SRC4, 2, 30, &p, &d);
		}
	}
	if (cpus == e->ncpus)
		CHECK_EQ(p, limit);
	else
		CHECK(p <= limit);
	CHECK_EQ(new_flows(e), 1);
	printf("     threshold %llu on %u CPUs: %u admitted for a limit of %llu\n",
	       (unsigned long long)c.t, e->ncpus, p, (unsigned long long)limit);
	sketch_close(&c);
}

/*
 * Inheritance is per slot: counts from before the promotion leave the window
 * in the slot they were made in, so budget frees up exactly then.
 */
static void test_promotion_inherits_per_slot(void)
{
	uint32_t p = 0, d = 0;
	struct sketch_env c;
	struct env *e = &c.e;
	uint64_t limit;

	if (!sketch_open(&c, 4, 1024, true))
		return;
	limit = c.limit;
	set_time(e, 10 * MS); /* epoch 0: below the threshold, sketch only */
	send4(e, SRC4, (int)(c.t - 1), 30, &p, &d);
	CHECK_EQ(new_flows(e), 0);
	set_time(e, 110 * MS); /* epoch 1: promoted; the window holds t - 1 already */
	p = d = 0;
	send4(e, SRC4, (int)(3 * limit), 30, &p, &d);
	CHECK_EQ(p, limit - (c.t - 1));
	CHECK_EQ(new_flows(e), 1);
	set_time(e, 310 * MS); /* epoch 3: epoch 0 still in the window: nothing */
	p = d = 0;
	send4(e, SRC4, 50, 30, &p, &d);
	CHECK_EQ(p, 0);
	set_time(e, 410 * MS); /* epoch 4: epoch 0's inherited t - 1 leave, exactly that frees */
	p = d = 0;
	send4(e, SRC4, (int)(3 * limit), 30, &p, &d);
	CHECK_EQ(p, c.t - 1);
	sketch_close(&c);
}

/* A saturated flow stays saturated across slot edges until its oldest admitted slot leaves. */
static void test_saturation_holds_across_slot_edges(void)
{
	struct rw_stats before, after;
	uint32_t p = 0, d = 0;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 10, 0))
		return;
	set_time(&e, 5 * MS);
	send4(&e, SRC4, 15, 30, &p, &d);
	CHECK_EQ(p, 10);
	read_stats(&e, &before);
	p = d = 0;
	for (int ep = 1; ep <= 9; ep++) {
		set_time(&e, (uint64_t)ep * 100 * MS + 5 * MS);
		send4(&e, SRC4, 5, 30, &p, &d);
	}
	read_stats(&e, &after);
	CHECK_EQ(p, 0);
	CHECK_EQ(d, 45);
	/* The drop path took no cross-CPU sum at any of the nine slot edges. */
	CHECK_EQ(after.cross_cpu_checks - before.cross_cpu_checks, 0);
	/*
	 * Saturated, it carried its drops across slot edges and wrote its history
	 * at most every rw_lazy_slots slots; the window holds every packet still.
	 */
	CHECK(after.hist_flushes - before.hist_flushes <= 9 / rw_lazy_slots(10) + 1);
	{
		struct rw_key k = key4(SRC4);
		struct rw_window_sum w;

		CHECK(flow_window(&e, &k, 9, &w));
		CHECK_EQ(w.packets, 15 + 45);
		CHECK_EQ(w.drop_packets, 5 + 45);
	}
	set_time(&e, 1005 * MS); /* epoch 10: epoch 0 left: its 10 are free again */
	p = d = 0;
	send4(&e, SRC4, 15, 30, &p, &d);
	CHECK_EQ(p, 10);
	env_close(&e);
}

/* Monitor mode: promotion at the loader's threshold, with the count before it kept. */
static void test_monitor_promotion_keeps_counts(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_stats st;
	uint32_t p = 0, d = 0;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 0, 0))
		return;
	set_thresholds(&e, 5, 0);
	set_time(&e, 5 * MS);
	send4(&e, SRC4, 4, 30, &p, &d);
	CHECK(!flow_window(&e, &k, 0, &w));
	read_stats(&e, &st);
	CHECK_EQ(st.sketch_packets, 4);
	send4(&e, SRC4, 1, 30, &p, &d); /* the fifth reaches the threshold */
	CHECK(flow_window(&e, &k, 0, &w));
	CHECK_EQ(w.packets, 5);
	CHECK_EQ(w.bytes, 5 * (14 + 20 + 30));
	set_time(&e, 105 * MS);
	send4(&e, SRC4, 10, 30, &p, &d);
	CHECK(flow_window(&e, &k, 1, &w));
	CHECK_EQ(w.packets, 15);
	CHECK_EQ(p, 15);
	env_close(&e);
}

/* No room to track a source: it is capped at its threshold, so still below its limit. */
static void test_full_table_caps_at_threshold(void)
{
	struct rw_stats st;
	uint32_t p = 0, d = 0, n;
	struct sketch_env c;
	struct env *e = &c.e;

	/* The smallest table: one bucket, every key's home and overflow. */
	if (!sketch_open(&c, 10, 2, true))
		return;
	n = e->t.entries;
	CHECK_EQ(n, RW_WAYS);
	set_thresholds(e, 0, n);
	set_time(e, 5 * MS);
	for (uint32_t i = 1; i <= n; i++)
		send4(e, SRC4 + i, 1, 30, &p, &d); /* free promotions fill the table */
	CHECK_EQ(new_flows(e), n);
	p = d = 0;
	send4(e, SRC4, (int)(3 * c.limit), 30, &p, &d);
	read_stats(e, &st);
	CHECK_EQ(p, c.t - 1);
	CHECK_EQ(st.capped_drops, 3 * c.limit - (c.t - 1));
	/* One refused insert per slot, not one per packet; it took no entry. */
	CHECK_EQ(st.failed_inserts, 1);
	CHECK_EQ(tracked(e), n);
	/*
	 * Still no room, and nobody to make any (no loader): the sketch keeps what
	 * was admitted, so the source gets t - 1 again once epoch 0 leaves the
	 * window, not nothing for as long as it floods. (The fillers are busy:
	 * they send again every slot, so none of them is idle and taken over.)
	 */
	p = d = 0;
	set_time(e, 505 * MS);
	for (uint32_t i = 1; i <= n; i++)
		send4(e, SRC4 + i, 1, 30, &p, &d);
	p = d = 0;
	send4(e, SRC4, (int)(3 * c.limit), 30, &p, &d);
	CHECK_EQ(p, 0);
	set_time(e, 1005 * MS);
	for (uint32_t i = 1; i <= n; i++)
		send4(e, SRC4 + i, 1, 30, &p, &d);
	p = d = 0;
	send4(e, SRC4, (int)(3 * c.limit), 30, &p, &d);
	CHECK_EQ(p, c.t - 1);
	read_stats(e, &st);
	CHECK_EQ(st.evicted, 0);
	sketch_close(&c);
}

/*
 * Nobody wiped the sketch (no loader): a bucket slot holding an older round is
 * recognised and restarted, never added to.
 */
static void test_sketch_stale_slot_not_counted(void)
{
	uint32_t p = 0, d = 0;
	struct sketch_env c;
	struct env *e = &c.e;

	if (!sketch_open(&c, 4, 1024, true))
		return;
	set_time(e, 10 * MS); /* epoch 0, slot 0 */
	send4(e, SRC4, (int)(c.t - 1), 30, &p, &d);
	set_time(e, 410 * MS); /* epoch 4, slot 0 again: round 0 left the window */
	send4(e, SRC4, (int)(c.t - 1), 30, &p, &d);
	set_time(e, 100000 * MS + 10 * MS); /* a jump of many rounds, same slot */
	send4(e, SRC4, (int)(c.t - 1), 30, &p, &d);
	CHECK_EQ(p, 3 * (c.t - 1));
	CHECK_EQ(new_flows(e), 0);
	/* Two live rounds do add up: epochs 1000 and 1001 hold 2t - 2 >= t. */
	set_time(e, 100100 * MS + 10 * MS);
	p = d = 0;
	send4(e, SRC4, (int)(c.t - 1), 30, &p, &d);
	CHECK_EQ(new_flows(e), c.t > 1 ? 1 : 0);
	sketch_close(&c);
}

/*
 * A promoted source's entry is found by every later packet; the loader's tick
 * keeps it while it is live, deletes it once idle for a window (its tag goes
 * with it), and then the source is counted in the sketch again.
 */
static void test_table_follows_tracked_flows(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_flowtab ft;
	struct rw_tick tick;
	struct rw_where where;
	uint32_t p = 0, d = 0, tags = 0;
	uint64_t state;
	struct env e;

	if (!env_open(&e, 4, 100 * MS, 0, 0))
		return;
	CHECK_EQ(tracked(&e), 0);
	set_time(&e, 5 * MS);
	send4(&e, SRC4, 1, 30, &p, &d); /* a free promotion */
	CHECK_EQ(tracked(&e), 1);
	CHECK_EQ(entries_of(&e, &k), 1);
	send4(&e, SRC4, 9, 30, &p, &d);
	CHECK(flow_window(&e, &k, 0, &w));
	CHECK_EQ(w.packets, 10); /* every packet found its entry */
	where = rw_table_where(&e.t, &k);
	for (uint32_t i = 0; i < RW_WAYS; i++)
		tags += e.t.dir[where.home].tag[i] == where.tag;
	CHECK_EQ(tags, 1);

	CHECK_EQ(rw_flowtab_init(&ft, &e.fds, bpf_map__fd(e.skel->maps.window), e.t.seed, e.ncpus,
				 e.slots, true), 0);
	CHECK_EQ(rw_flowtab_scan(&ft, 2, &tick, NULL, NULL), 0); /* still live */
	CHECK_EQ(tick.flows, 1);
	CHECK_EQ(tick.deleted, 0);
	CHECK_EQ(rw_flowtab_scan(&ft, 20, &tick, NULL, NULL), 0); /* idle for a window */
	CHECK_EQ(tick.deleted, 1);
	CHECK_EQ(tick.flows, 0);
	CHECK(!flow_window(&e, &k, 20, &w));
	CHECK_EQ(tracked(&e), 0);
	CHECK_EQ(e.t.dir[where.home].tag[0] | e.t.dir[where.home].tag[RW_WAYS - 1], 0);
	CHECK(rw_table_find(&e.t, &k, &state) < 0);

	/* Untracked again: the sketch counts it, no entry is made. */
	set_thresholds(&e, 0, 0);
	set_time(&e, 2005 * MS);
	send4(&e, SRC4, 3, 30, &p, &d);
	CHECK(!flow_window(&e, &k, 20, &w));
	CHECK_EQ(tracked(&e), 0);
	rw_flowtab_free(&ft);
	env_close(&e);
}

/* allow, deny and a rule's own limit beside the command line's limit (10 a window). */
static void test_rules_actions(void)
{
	struct rw_stats st;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 10, 0))
		return;
	install_rules(&e, "198.18.0.2 allow\n198.18.0.3 deny\n198.18.0.4 limit 20\n");
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 30), 10);     /* no rule: the default */
	CHECK_EQ(passed_of(&e, SRC4 + 1, 30), 30); /* allow: never dropped */
	CHECK_EQ(passed_of(&e, SRC4 + 2, 30), 0);  /* deny: never passed */
	CHECK_EQ(passed_of(&e, SRC4 + 3, 30), 20); /* its own limit: 20 a 1 s window */
	read_stats(&e, &st);
	CHECK_EQ(st.dropped, 20 + 30 + 10);
	env_close(&e);
}

/* The longest prefix wins, in both directions, IPv4 and IPv6. */
static void test_rules_longest_prefix(void)
{
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 10, 0))
		return;
	install_rules(&e, "198.18.0.0/16 deny\n198.18.5.0/24 allow\n198.18.5.128/25 limit 3\n"
			  "0.0.0.0/0 limit 5\n");
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, 0xc6120509u, 30), 30); /* 198.18.5.9: the /24 allow */
	CHECK_EQ(passed_of(&e, 0xc6120581u, 30), 3);  /* 198.18.5.129: the /25 */
	CHECK_EQ(passed_of(&e, 0xc6120601u, 30), 0);  /* 198.18.6.1: the /16 deny */
	CHECK_EQ(passed_of(&e, 0xc6130001u, 30), 5);  /* 198.19.0.1: only 0.0.0.0/0 */
	env_close(&e);
}

/* limit ... per /24: each /24 one budget, shared by its sources, shown as the prefix. */
static void test_rules_per_prefix_budget(void)
{
	struct rw_key k = key4(0xc6120700u); /* 198.18.7.0 */
	struct rw_window_sum w;
	char text[RW_KEY_STRLEN];
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 10, 0))
		return;
	install_rules(&e, "198.18.0.0/16 limit 20 per /24\n");
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, 0xc6120701u, 15) + passed_of(&e, 0xc61207feu, 15), 20);
	CHECK_EQ(passed_of(&e, 0xc6120801u, 15), 15); /* another /24, its own budget */
	RW_KEY_PREFIX_LEN(&k) = 24;
	CHECK(flow_window(&e, &k, 0, &w));
	CHECK_EQ(w.packets, 30);
	CHECK_EQ(w.drop_packets, 10);
	rw_key_format(&k, text, sizeof(text));
	CHECK_STR(text, "198.18.7.0/24");
	env_close(&e);
}

static int hint_bits_set(const __u64 *bits)
{
	int n = 0;

	for (int i = 0; i < RW_HINT_WORDS; i++)
		n += __builtin_popcountll(bits[i]);
	return n;
}

/* Rules change under a running program: the next packet follows; hint bits follow too. */
static void test_rules_change_at_runtime(void)
{
	struct rw_rule_scope scope;
	struct rw_rule_spec r;
	struct rw_rule_env env;
	struct rw_rule_hint *hint = calloc(1, sizeof(*hint));
	char err[256];
	__u32 zero = 0;
	struct env e;

	if (!hint || !env_open(&e, 10, 100 * MS, 10, 0)) {
		free(hint);
		return;
	}
	env = rule_env_of(&e);
	set_time(&e, 5 * MS);
	install_rules(&e, "198.18.0.0/16 deny\n10.0.0.0/8 allow\n");
	CHECK_EQ(passed_of(&e, SRC4, 5), 0);
	scope = rule_scope_of(&e);
	CHECK_EQ(rw_rule_parse("198.18.0.0/16 allow", &scope, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rules_add(&env, &r), 0); /* replaces the deny */
	CHECK_EQ(passed_of(&e, SRC4, 30), 30);
	CHECK_EQ(rw_rules_del(&env, &r), 0);
	CHECK_EQ(rw_rules_del(&env, &r), -ENOENT);
	/* Gone: the default limit again (the 30 allowed ones were admitted, so none left). */
	CHECK_EQ(passed_of(&e, SRC4, 5), 0);
	set_time(&e, 1105 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 30), 10);
	/* The hint keeps 10.0.0.0/8's 256 /16s and no longer 198.18.0.0/16. */
	CHECK_EQ(bpf_map_lookup_elem(env.hint_fd, &zero, hint), 0);
	CHECK(!(hint->v4[0xc612 / 64] & (1ULL << (0xc612 % 64))));
	{
		int set = 0;

		for (int i = 0; i < 65536; i++)
			set += (hint->v4[i / 64] >> (i % 64)) & 1;
		CHECK_EQ(set, 256);
		CHECK(hint->v4[0x0a00 / 64] & (1ULL << (0x0a00 % 64)));
	}
	CHECK_EQ(hint->rules, 1);
	/* The last rule gone: the hint says none is in force, and packets skip its bits. */
	CHECK_EQ(rw_rule_parse("10.0.0.0/8 allow", &scope, &r, err, sizeof(err)), 0);
	CHECK_EQ(rw_rules_del(&env, &r), 0);
	CHECK_EQ(bpf_map_lookup_elem(env.hint_fd, &zero, hint), 0);
	CHECK_EQ(hint->rules, 0);
	CHECK_EQ(hint_bits_set(hint->v4), 0);
	set_time(&e, 2205 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 30), 10);
	free(hint);
	env_close(&e);
}

/* Sends count IPv6 frames from 2001:db8:0:SUBNET::LOW; returns how many passed. */
static uint32_t passed6_of(struct env *e, uint8_t subnet, uint32_t low, int count)
{
	uint32_t p = 0;
	struct fb f;

	fb_l2(&f, 0, 0x86dd);
	fb_ipv6(&f, low, 17, -1, 16);
	f.b[14 + 8 + 7] = subnet;
	for (int i = 0; i < count; i++)
		p += run_frame(e, &f) == XDP_PASS;
	return p;
}

/* IPv6 rules: the /32 hint, the longest prefix, a neighbour /32 untouched. */
static void test_rules_ipv6(void)
{
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 10, 0))
		return;
	install_rules(&e, "2001:db8::/32 limit 5\n2001:db8:0:1::/64 deny\n2001:db9::/32 allow\n");
	set_time(&e, 5 * MS);
	CHECK_EQ(passed6_of(&e, 0, 7, 30), 5);  /* the /32's own limit */
	CHECK_EQ(passed6_of(&e, 1, 9, 30), 0);  /* the /64 inside it: deny */
	CHECK_EQ(passed6_of(&e, 2, 9, 30), 5);
	env_close(&e);
}

/* How many hint bits a rule sets: IPv4 per /16, IPv6 per /32 folded. */
static void test_rule_hint_bits(void)
{
	static const struct { const char *rule; int v4, v6; } cases[] = {
		{ "198.18.0.0/24 deny", 1, 0 },  { "198.18.0.0/15 deny", 2, 0 },
		{ "10.0.0.0/8 deny", 256, 0 },   { "0.0.0.0/0 deny", 65536, 0 },
		{ "2001:db8:1::/48 deny", 0, 1 }, { "2001:db8::/32 deny", 0, 1 },
		{ "2001:d00::/24 deny", 0, 256 }, { "2001::/16 deny", 0, 65536 },
	};
	static const struct rw_rule_scope whole = { RW_KIND_SRC, 128, 0 };
	struct rw_rule_hint *hint = malloc(sizeof(*hint));
	struct rw_rule_spec r;
	char err[256];

	for (size_t i = 0; hint && i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(hint, 0, sizeof(*hint));
		CHECK_EQ(rw_rule_parse(cases[i].rule, &whole, &r, err, sizeof(err)), 0);
		rw_rule_hint_add(hint, &r);
		CHECK_EQ(hint->rules, 1);
		CHECK_EQ(hint_bits_set(hint->v4), cases[i].v4);
		CHECK_EQ(hint_bits_set(hint->v6), cases[i].v6);
		if (r.prefix.family == RW_FAMILY_IPV6 && r.plen >= 32) {
			__u32 idx = rw_hint_index(RW_FAMILY_IPV6, r.prefix.addr);

			CHECK(hint->v6[idx / 64] & (1ULL << (idx % 64)));
		}
	}
	/* A rule with a match sets the bits of its own half: prefix-only lookups skip it. */
	if (hint) {
		memset(hint, 0, sizeof(*hint));
		CHECK_EQ(rw_rule_parse("198.18.0.0/15 tcp flags syn deny", &whole, &r, err, sizeof(err)), 0);
		rw_rule_hint_add(hint, &r);
		CHECK_EQ(hint_bits_set(hint->v4), 0);
		CHECK_EQ(hint_bits_set(hint->q4), 2);
		CHECK_EQ(rw_rule_parse("::/0 icmpv6 deny", &whole, &r, err, sizeof(err)), 0);
		rw_rule_hint_add(hint, &r);
		CHECK_EQ(hint_bits_set(hint->v6), 0);
		CHECK_EQ(hint_bits_set(hint->q6), 65536);
	}
	free(hint);
}

static int count_sample(void *ctx, void *data, size_t size)
{
	const struct rw_sample *s = data;
	uint32_t *n = ctx;

	CHECK_EQ(size, sizeof(*s));
	CHECK_EQ(s->key.family, RW_FAMILY_IPV4);
	CHECK_EQ(s->key.addr[0], 198);
	CHECK_EQ(s->epoch, 0);
	(*n)++;
	return 0;
}

/* --levels: one in RW_SAMPLE_EVERY untracked packets reaches the loader; tracked ones never. */
static void test_samples_for_levels(void)
{
	struct ring_buffer *rb;
	uint32_t n = 0, p = 0, d = 0;
	struct env e;

	if (!env_open_mode(&e, 10, 100 * MS, 0, 0, 1024, (struct env_mode){ .sample = true }))
		return;
	set_thresholds(&e, 1000000, 0); /* nobody is promoted: every packet untracked */
	set_time(&e, 5 * MS);
	for (uint32_t i = 0; i < 10 * RW_SAMPLE_EVERY; i++)
		send4(&e, SRC4 + i, 1, 30, &p, &d);
	rb = ring_buffer__new(bpf_map__fd(e.skel->maps.samples), count_sample, &n, NULL);
	CHECK(rb != NULL);
	if (rb) {
		CHECK_EQ(ring_buffer__consume(rb), 10);
		ring_buffer__free(rb);
	}
	CHECK_EQ(n, 10);
	/* A tracked source is counted exactly instead: none of its packets is sampled. */
	set_thresholds(&e, 0, 1);
	n = 0;
	send4(&e, 0xc6130001u, 3 * RW_SAMPLE_EVERY, 30, &p, &d);
	rb = ring_buffer__new(bpf_map__fd(e.skel->maps.samples), count_sample, &n, NULL);
	if (rb) {
		CHECK_EQ(ring_buffer__consume(rb), 0);
		ring_buffer__free(rb);
	}
	env_close(&e);
}

struct event_log {
	uint32_t type[16];
	uint64_t until[16];
	int n;
};

static int log_event(void *ctx, void *data, size_t size)
{
	const struct rw_event *ev = data;
	struct event_log *l = ctx;

	CHECK_EQ(size, sizeof(*ev));
	CHECK_EQ(ev->key.addr[3], 1); /* 198.18.0.1 */
	if (l->n < 16) {
		l->type[l->n] = ev->type;
		l->until[l->n++] = ev->until_ns;
	}
	return 0;
}

/* The events so far, in order. */
static void read_events(struct env *e, struct event_log *l)
{
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(e->skel->maps.events), log_event, l,
						  NULL);

	CHECK(rb != NULL);
	if (rb) {
		ring_buffer__consume(rb);
		ring_buffer__free(rb);
	}
}

/* `limited` once a window per source, not once a packet. */
static void test_events_limited_once_a_window(void)
{
	struct event_log l = { 0 };
	struct env e;

	if (!env_open_mode(&e, 10, 100 * MS, 10, 0, 1024, (struct env_mode){ .events = true }))
		return;
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 30), 10);
	set_time(&e, 505 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 30), 0);
	read_events(&e, &l);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(l.type[0], RW_EV_LIMITED);
	set_time(&e, 1105 * MS); /* a window after the first one */
	CHECK_EQ(passed_of(&e, SRC4, 30), 10);
	read_events(&e, &l);
	CHECK_EQ(l.n, 2);
	CHECK_EQ(l.type[1], RW_EV_LIMITED);
	env_close(&e);
}

/* --ban: dropped entirely for the ban, even with budget free; then released, once. */
static void test_ban(void)
{
	struct event_log l = { 0 };
	struct env e;

	if (!env_open_mode(&e, 10, 100 * MS, 10, 0, 1024,
			   (struct env_mode){ .events = true, .ban_ns = 3000 * MS }))
		return;
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 30), 10); /* the 11th is the first drop: banned until 3.005 s */
	set_time(&e, 1505 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 10), 0);  /* the window has budget again: banned all the same */
	set_time(&e, 3000 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 10), 0);
	set_time(&e, 3105 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 10), 10); /* the ban ran out: the limit alone again */
	CHECK_EQ(passed_of(&e, SRC4, 1), 0);   /* over it again: a new ban */
	read_events(&e, &l);
	CHECK_EQ(l.n, 5);
	CHECK(l.type[0] == RW_EV_LIMITED && l.type[1] == RW_EV_BANNED && l.type[2] == RW_EV_UNBANNED &&
	      l.type[3] == RW_EV_LIMITED && l.type[4] == RW_EV_BANNED);
	CHECK_EQ(l.until[1], 3005 * MS);
	CHECK_EQ(l.until[4], 6105 * MS);
	env_close(&e);
}

/*
 * A saturated source carries its drops across up to 3 slots before it writes
 * its history (rw_lazy_slots): the window must still read about what was
 * offered in it. 20 packets a slot, limit 50, 10 slots: every window holds
 * 200. Read as of the middle of the slots they came in, carried drops put a
 * window at most two slots' 40 off, and 200 on average within 5 % (read as of
 * the last slot, as before, it was 200 to 260, 219 on average).
 */
static void test_saturated_window_reads_true(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	uint64_t lo = ~0ULL, hi = 0, total = 0, n = 0;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 50, 0))
		return;
	for (uint64_t s = 0; s < 40; s++) {
		set_time(&e, s * 100 * MS + 5 * MS);
		passed_of(&e, SRC4, 20);
		if (s < 12 || !flow_window(&e, &k, s, &w))
			continue;
		lo = w.packets < lo ? w.packets : lo;
		hi = w.packets > hi ? w.packets : hi;
		total += w.packets;
		n++;
	}
	printf("     window of a saturated source over 28 slots: %llu..%llu packets, mean %.1f (true 200)\n",
	       (unsigned long long)lo, (unsigned long long)hi, n ? (double)total / (double)n : 0.0);
	CHECK_EQ(n, 28);
	CHECK(lo >= 160 && hi <= 240);
	CHECK(n && total >= 190 * n && total <= 210 * n);
	env_close(&e);
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_bpf: needs root to load BPF programs\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	run_load_tests();
	RUN(test_frame_table);
	RUN(test_slot_rotation_and_stale_reset);
	RUN(test_packet_limit_crossing);
	RUN(test_byte_limit);
	RUN(test_lease_refills_are_logarithmic);
	RUN(test_limit_shared_across_cpus);
	RUN(test_idle_cpu_gives_its_lease_back);
	RUN(test_no_limit_never_drops);
	RUN(test_unpromoted_sources_stay_below_limit);
	RUN(test_promotion_inherits_per_slot);
	RUN(test_saturation_holds_across_slot_edges);
	RUN(test_saturated_window_reads_true);
	RUN(test_monitor_promotion_keeps_counts);
	RUN(test_full_table_caps_at_threshold);
	RUN(test_frame_table_malformed_drop);
	RUN(test_dry_run_counts_and_passes);
	RUN(test_rules_actions);
	RUN(test_rules_longest_prefix);
	RUN(test_rules_per_prefix_budget);
	RUN(test_rules_change_at_runtime);
	RUN(test_rules_ipv6);
	RUN(test_rule_hint_bits);
	RUN(test_samples_for_levels);
	RUN(test_events_limited_once_a_window);
	RUN(test_ban);
	RUN(test_sketch_stale_slot_not_counted);
	RUN(test_table_follows_tracked_flows);
	run_table_tests();
	run_key_tests();
	run_pace_tests();
	run_flood_tests();
	run_crowd_tests();
	run_rule_match_tests();
	run_pcap_tests();
	run_rwgen_tests();
	run_bgp_tests();
	return tl_finish();
}
