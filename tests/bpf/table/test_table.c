// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tracked-flow table (bpf/table.h), through the real program: lookups and
 * inserts, keys whose hashes are made equal (never merged), a full set and
 * what it may evict, the loader's delete racing a packet, flushes that must
 * wait, the age rules at the wraps of their counters, and several CPUs at once.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bpfenv.h"
#include "ratewall_hash.h"
#include "testlib.h"

/*
 * The program keeps 11 bits of every hash: each key's home and overflow
 * bucket is bucket 0 and its tag is 1, while the sketch's first row still
 * tells keys apart (a fixed seed: the same columns every run).
 */
#define COLLIDE_CLEAR (~0x7ffULL)
#define ALL_COLLIDE ((struct env_mode){ .hash_clear = COLLIDE_CLEAR, .hash_seed = 7 })

static uint32_t admitted_in_window(struct env *e, const struct rw_key *k, uint64_t epoch)
{
	struct rw_window_sum w;

	if (!flow_window(e, k, epoch, &w))
		return 0;
	return (uint32_t)(w.packets - w.drop_packets);
}

/*
 * Thousands of sources in a table with room for them: each one found again by
 * every later packet, in one entry, counting its own packets only.
 */
static void test_table_many_keys(void)
{
	const uint32_t n = 2000;
	uint32_t p = 0, d = 0, wrong = 0, dup = 0, *before = calloc(n, sizeof(*before));
	struct env e;

	if (!before || !env_open_mode(&e, 10, 100 * MS, 0, 0, 2 * n,
				      (struct env_mode){ .hash_seed = 11 }))
		goto out;
	set_time(&e, 5 * MS);
	/* Promoted at the first packet, with what the sketch held for it (collisions: more). */
	for (uint32_t i = 0; i < n; i++) {
		struct rw_key k = i % 2 ? key4(SRC4 + i) : key6(i);
		struct rw_window_sum w;
		struct fb f;

		if (i % 2 == 0) {
			fb_l2(&f, 0, 0x86dd);
			fb_ipv6(&f, i, 17, -1, 30);
			run_frame(&e, &f);
		} else {
			send4(&e, SRC4 + i, 1, 30, &p, &d);
		}
		before[i] = flow_window(&e, &k, 0, &w) ? (uint32_t)w.packets : 0;
	}
	for (uint32_t i = 1; i < n; i += 2)
		send4(&e, SRC4 + i, (int)(i % 7 + 1), 30, &p, &d);
	for (uint32_t i = 0; i < n; i++) {
		struct rw_key k = i % 2 ? key4(SRC4 + i) : key6(i);
		struct rw_window_sum w;
		uint32_t sent = i % 2 ? i % 7 + 1 : 0;

		if (!before[i] || !flow_window(&e, &k, 0, &w) || w.packets != before[i] + sent)
			wrong++;
		dup += entries_of(&e, &k) != 1;
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(dup, 0);
	CHECK_EQ(rw_table_count(&e.t), n);
	printf("     %u sources in %u entries (%u buckets)\n", n, e.t.entries, e.t.nbuckets);
	env_close(&e);
out:
	free(before);
}

/*
 * Every key hashed to the same bucket and tag: the full key decides, so 15
 * sources sharing all hash bits keep 15 budgets, and the 16th (no way left)
 * is refused and counted in the sketch, never in another's entry.
 */
static void test_table_equal_hashes_never_merge(void)
{
	struct rw_where w0 = rw_where_of(rw_hash(&(struct rw_key){ 0 }, 7) & ~COLLIDE_CLEAR, 86);
	struct rw_stats st;
	struct env e;

	if (!env_open_mode(&e, 10, 100 * MS, 5, 0, 1024, ALL_COLLIDE))
		return;
	/* The premise: every key lands in bucket 0 with tag 1. */
	CHECK_EQ(e.t.nbuckets, 86);
	CHECK(w0.home == 0 && w0.overflow == 0 && w0.tag == 1);
	set_time(&e, 5 * MS);
	for (uint32_t i = 0; i < RW_WAYS; i++) {
		struct rw_key k = key4(SRC4 + i);
		struct rw_where w = rw_where_of(rw_hash(&k, 7) & ~COLLIDE_CLEAR, e.t.nbuckets);

		CHECK(w.home == 0 && w.overflow == 0 && w.tag == 1);
		CHECK_EQ(passed_of(&e, SRC4 + i, 8), 5);
	}
	for (uint32_t i = 0; i < RW_WAYS; i++) {
		struct rw_key k = key4(SRC4 + i);
		struct rw_window_sum w;

		CHECK(flow_window(&e, &k, 0, &w));
		CHECK_EQ(w.packets, 8);
		CHECK_EQ(w.drop_packets, 3);
		CHECK_EQ(entries_of(&e, &k), 1);
	}
	{
		struct rw_key k = key4(SRC4 + 100);
		struct rw_window_sum w;

		passed_of(&e, SRC4 + 100, 2);
		CHECK(!flow_window(&e, &k, 0, &w));
	}
	read_stats(&e, &st);
	CHECK_EQ(st.new_flows, RW_WAYS);
	CHECK_EQ(st.failed_inserts, 1);
	CHECK_EQ(rw_table_count(&e.t), RW_WAYS);
	env_close(&e);
}

/*
 * One full set (every key hashed alike), 15 sources in it, all silent after
 * the first slot but `keep` (sent to every slot, over its limit). Newcomers
 * a window later take the idle entries, one each; `keep` and `banned` stay.
 */
static void full_set_newcomers(struct env *e, uint32_t keep, uint32_t banned)
{
	struct rw_stats st;
	uint32_t newcomers = 0;

	set_time(e, 5 * MS);
	for (uint32_t i = 1; i <= RW_WAYS; i++)
		passed_of(e, SRC4 + i, i == banned ? 11 : 1); /* 11 is over the limit of 10 */
	CHECK_EQ(rw_table_count(&e->t), RW_WAYS);
	for (uint64_t ep = 0; keep && ep <= 12; ep++) {
		set_time(e, ep * 100 * MS + 5 * MS);
		CHECK(passed_of(e, SRC4 + keep, 30) < 30); /* over its limit in every slot */
	}
	set_time(e, 1205 * MS); /* epoch 12: the silent ones are idle for a whole window */
	for (uint32_t i = 0; i < RW_WAYS; i++) {
		struct rw_key k = key4(0xc6130000u + i);
		struct rw_window_sum w;

		passed_of(e, 0xc6130000u + i, 1);
		newcomers += flow_window(e, &k, 12, &w);
	}
	read_stats(e, &st);
	CHECK_EQ(newcomers, RW_WAYS - 1);
	CHECK_EQ(st.evicted, RW_WAYS - 1);
	CHECK_EQ(rw_table_count(&e->t), RW_WAYS);
}

/* A full set takes over idle entries only: never a source still over its limit. */
static void test_table_full_set_keeps_limited(void)
{
	struct rw_key limited = key4(SRC4 + 1);
	struct env e;

	if (!env_open_mode(&e, 4, 100 * MS, 10, 0, 1024, ALL_COLLIDE))
		return;
	full_set_newcomers(&e, 1, 0);
	CHECK_EQ(entries_of(&e, &limited), 1);
	env_close(&e);
}

/* ... and never a banned one, however silent: its ban holds when it comes back. */
static void test_table_full_set_keeps_banned(void)
{
	struct rw_key banned = key4(SRC4 + 2);
	struct env e;

	if (!env_open_mode(&e, 4, 100 * MS, 10, 0, 1024,
			   (struct env_mode){ .hash_clear = COLLIDE_CLEAR, .hash_seed = 7,
					      .ban_ns = 100000 * MS }))
		return;
	full_set_newcomers(&e, 0, 2);
	CHECK_EQ(entries_of(&e, &banned), 1);
	CHECK_EQ(passed_of(&e, SRC4 + 2, 1), 0); /* still banned */
	env_close(&e);
}

struct revive {
	struct env *e;
	uint32_t calls;
};

/* Between the tick's read of an idle flow and its delete: a packet of that flow. */
static void revive_before_delete(void *arg, uint32_t entry)
{
	struct revive *r = arg;

	(void)entry;
	r->calls++;
	passed_of(r->e, SRC4, 1);
}

/*
 * The tick deletes a flow it read as idle only if no packet revived it since:
 * a packet between the read and the delete keeps it, and its count with it.
 */
static void test_table_delete_races_a_packet(void)
{
	struct rw_key k = key4(SRC4);
	struct revive r;
	struct rw_flowtab ft;
	struct rw_tick tick;
	struct rw_window_sum w;
	struct env e;

	if (!env_open(&e, 4, 100 * MS, 0, 0))
		return;
	r = (struct revive){ .e = &e };
	set_time(&e, 5 * MS);
	passed_of(&e, SRC4, 5);
	CHECK_EQ(rw_flowtab_init(&ft, &e.fds, bpf_map__fd(e.skel->maps.window), e.t.seed, e.ncpus,
				 e.slots, true), 0);
	set_time(&e, 1005 * MS); /* epoch 10: idle for a whole window */
	ft.before_delete = revive_before_delete;
	ft.before_delete_arg = &r;
	CHECK_EQ(rw_flowtab_scan(&ft, 10, &tick, NULL, NULL), 0);
	CHECK_EQ(r.calls, 1);
	CHECK_EQ(tick.deleted, 0);
	CHECK(flow_window(&e, &k, 10, &w));
	CHECK_EQ(w.packets, 1);
	/* The next tick sees it live; once idle again and nobody sends, it goes. */
	ft.before_delete = NULL;
	CHECK_EQ(rw_flowtab_scan(&ft, 10, &tick, NULL, NULL), 0);
	CHECK_EQ(tick.flows, 1);
	CHECK_EQ(rw_flowtab_scan(&ft, 20, &tick, NULL, NULL), 0);
	CHECK_EQ(tick.deleted, 1);
	CHECK(!flow_window(&e, &k, 20, &w));
	rw_flowtab_free(&ft);
	env_close(&e);
}

/*
 * A flush that finds its history slot being restarted waits for the next
 * packet with the counts still in the record: none lost, the limit held.
 */
static void test_table_flush_waits_never_loses(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_hist_slot *h;
	struct rw_stats st;
	uint64_t state;
	size_t len;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!env_open(&e, 4, 100 * MS, 10, 0))
		return;
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 6), 6);
	i = rw_table_find(&e.t, &k, &state);
	h = hist_rw(&e, &len);
	CHECK(i >= 0 && h);
	if (i < 0 || !h)
		goto out;
	h[i * rw_hist_stride(e.slots) + 0].epoch = RW_HIST_BUSY; /* another CPU in the middle of a restart */
	set_time(&e, 105 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 10), 4);
	read_stats(&e, &st);
	CHECK(st.flush_retries >= 10);
	CHECK(flow_window(&e, &k, 1, &w));
	CHECK_EQ(w.packets, 16);
	CHECK_EQ(w.packets - w.drop_packets, 10);
	h[i * rw_hist_stride(e.slots) + 0].epoch = 0; /* the restart is over */
	CHECK_EQ(passed_of(&e, SRC4, 1), 0);
	CHECK(flow_window(&e, &k, 1, &w));
	CHECK_EQ(w.packets, 17);
	CHECK_EQ(w.packets - w.drop_packets, 10);
	CHECK(rw_hist_held(h[i * rw_hist_stride(e.slots) + 0].epoch));
	CHECK_EQ(h[i * rw_hist_stride(e.slots) + 0].packets, 16); /* flushed, all of it */
	munmap(h, len);
out:
	env_close(&e);
}

/*
 * A record's 32-bit byte count is flushed into the history before it can
 * wrap; a flush that finds its history slot being restarted by another CPU
 * must not let it wrap all the same. Past the flush mark (half the range)
 * every packet tries again, its bytes kept in the record meanwhile, and the
 * flush lands whole once the restart is over. A record that reaches the top
 * with the slot still busy (here planted there) stays at the top: its
 * window never loses 2^32 bytes.
 */
static void test_table_byte_flush_waits_never_wraps(void)
{
	const uint64_t top = 0xffffffffULL, mark = 1ULL << 31;
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_hist_slot *h;
	struct rw_stats before, after;
	struct rw_hot *hot;
	uint64_t state, busy_retries, held;
	struct fb f;
	size_t len;
	int64_t i;
	struct env e;

	pin_cpu(0);
	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, SRC4, 5, -1, 0, 30);
	for (int edge = 1; edge >= 0; edge--) {
		uint64_t planted = edge ? top - 100 : mark + 5;
		int n = edge ? 3 : 10;

		if (!env_open(&e, 4, 100 * MS, 0, 0))
			return;
		set_time(&e, 5 * MS);
		CHECK_EQ(run_frame(&e, &f), XDP_PASS);
		i = rw_table_find(&e.t, &k, &state);
		h = hist_rw(&e, &len);
		CHECK(i >= 0 && h);
		if (i < 0 || !h) {
			env_close(&e);
			return;
		}
		/* This CPU's (0) record, mapped writable (the table's own view is read-only). */
		hot = mmap(NULL, e.t.len[2], PROT_READ | PROT_WRITE, MAP_SHARED, e.fds.hot, 0);
		CHECK(hot != MAP_FAILED);
		if (hot == MAP_FAILED) {
			munmap(h, len);
			env_close(&e);
			return;
		}
		hot[i].bytes = (uint32_t)planted;
		h[i * rw_hist_stride(e.slots) + 0].epoch = RW_HIST_BUSY; /* another CPU restarting it */
		read_stats(&e, &before);
		for (int p = 0; p < n; p++)
			CHECK_EQ(run_frame(&e, &f), XDP_PASS);
		read_stats(&e, &after);
		busy_retries = after.flush_retries - before.flush_retries;
		CHECK(flow_window(&e, &k, 0, &w));
		if (edge) {
			/* At the top with the slot busy: it stays there, never wraps. */
			CHECK(busy_retries >= 1);
			CHECK_EQ(w.bytes, top);
		} else {
			CHECK_EQ(busy_retries, (uint64_t)n);
			CHECK_EQ(w.bytes, planted + n * f.len);
		}
		held = edge ? top : planted + n * f.len;
		h[i * rw_hist_stride(e.slots) + 0].epoch = 0; /* the restart is over */
		CHECK_EQ(run_frame(&e, &f), XDP_PASS);
		CHECK(rw_hist_held(h[i * rw_hist_stride(e.slots) + 0].epoch));
		CHECK_EQ(h[i * rw_hist_stride(e.slots) + 0].bytes, held); /* flushed, all of it */
		CHECK(flow_window(&e, &k, 0, &w));
		CHECK_EQ(w.bytes, held + f.len);
		CHECK_EQ(w.packets, (uint64_t)n + 2);
		munmap(hot, e.t.len[2]);
		munmap(h, len);
		env_close(&e);
	}
}

/*
 * A history slot sums every CPU's packets of its round: with 60 s slots a
 * source (a --key dst victim) at 72 Mpps puts more than 2^32 in one. Here
 * other CPUs' flushes already hold 2^32 - 5 offered and as many dropped in
 * the slot this CPU's record (12 offered, 10 admitted at its limit of 10, 2
 * dropped) flushes into: the sums go on past 2^32, the window still holds
 * the 10 admitted, and the next packet is over the limit.
 */
static void test_table_history_counts_past_2_32(void)
{
	const uint64_t planted = (1ULL << 32) - 5;
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_hist_slot *h, *s;
	uint64_t state;
	size_t len;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!env_open(&e, 4, 100 * MS, 10, 0))
		return;
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 12), 10);
	i = rw_table_find(&e.t, &k, &state);
	h = hist_rw(&e, &len);
	CHECK(i >= 0 && h);
	if (i < 0 || !h)
		goto out;
	s = &h[i * rw_hist_stride(e.slots) + 0];
	s->packets = planted;
	s->bytes = planted * 64;
	s->drop_packets = planted;
	s->drop_bytes = planted * 64;
	s->epoch = 0 + 1;
	set_time(&e, 105 * MS); /* the record's slot 0 is flushed into it */
	CHECK_EQ(passed_of(&e, SRC4, 1), 0);
	CHECK_EQ(s->epoch, 0 + 1);
	CHECK_EQ(s->packets, planted + 12);
	CHECK_EQ(s->drop_packets, planted + 2);
	CHECK(flow_window(&e, &k, 1, &w));
	CHECK_EQ(w.packets, planted + 13);
	CHECK_EQ(w.packets - w.drop_packets, 10);
	munmap(h, len);
out:
	env_close(&e);
}

/*
 * The age rules at the wraps: a history slot last written 2^23 or 2^24 slots
 * ago (where 24-bit tags would alias) is restarted by the next flush, neither
 * added to nor refused; a record whose low 32 bits of epoch come round again
 * after 2^32 idle slots starts over.
 */
static void test_table_age_rules_at_the_wrap(void)
{
	const uint64_t offsets[] = { 1ULL << 23, 1ULL << 24, (1ULL << 24) + 4 };
	struct rw_key k = key4(SRC4);

	pin_cpu(0);
	for (size_t n = 0; n < sizeof(offsets) / sizeof(offsets[0]); n++) {
		uint64_t e0 = (1ULL << 25) + 8, state;
		struct rw_window_sum w;
		struct rw_hist_slot *h, *s;
		size_t len;
		int64_t i;
		struct env e;

		if (!env_open(&e, 4, 1 * MS, 0, 0))
			return;
		set_time(&e, e0 * MS);
		passed_of(&e, SRC4, 3);
		i = rw_table_find(&e.t, &k, &state);
		h = hist_rw(&e, &len);
		CHECK(i >= 0 && h);
		if (i >= 0 && h) {
			/* An old round in the slot epoch e0 + 1 will use, full of counts. */
			s = &h[i * rw_hist_stride(e.slots) + (e0 + 1) % e.slots];
			s->packets = 1000;
			s->epoch = e0 + 1 - offsets[n] + 1;
			set_time(&e, (e0 + 1) * MS);
			passed_of(&e, SRC4, 2);
			set_time(&e, (e0 + 2) * MS);
			passed_of(&e, SRC4, 1);
			CHECK(flow_window(&e, &k, e0 + 2, &w));
			CHECK_EQ(w.packets, 3 + 2 + 1);
			CHECK_EQ(s->epoch, e0 + 1 + 1);
			CHECK_EQ(s->packets, 2);
			munmap(h, len);
		}
		env_close(&e);
	}
	{
		uint64_t e0 = 100, e1 = e0 + (1ULL << 32);
		struct rw_window_sum w;
		struct env e;

		if (!env_open(&e, 4, 1 * MS, 0, 0))
			return;
		set_time(&e, e0 * MS);
		passed_of(&e, SRC4, 5);
		set_time(&e, e1 * MS); /* same low 32 bits of epoch, 2^32 slots later */
		passed_of(&e, SRC4, 3);
		CHECK(flow_window(&e, &k, e1, &w));
		CHECK_EQ(w.packets, 3);
		CHECK_EQ(w.newest_epoch, e1);
		env_close(&e);
	}
}

/*
 * A saturated record that its CPU left behind while other CPUs kept the
 * entry alive (same generation) is not saturated when its source comes back
 * 2^16 slots later, when the low 16 bits of its `until` look a few slots
 * ahead again: the source, now under its limit, passes, and is not banned.
 */
static void test_table_saturated_record_ages_out(void)
{
	const uint64_t back = (1ULL << 16) + 1; /* until (slot 10) looks 9 slots ahead */
	struct rw_key k = key4(SRC4);

	pin_cpu(0);
	for (int ban = 0; ban < 2; ban++) {
		struct rw_window_sum w;
		uint64_t state;
		int64_t i;
		struct env e;

		if (!env_open_mode(&e, 10, 100 * MS, 10, 0, 1024,
				   (struct env_mode){ .ban_ns = ban ? 50 * MS : 0 }))
			return;
		set_time(&e, 5 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 11), 10); /* saturated until slot 10 */
		set_time(&e, 105 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 1), 0);   /* ... carried into slot 1, nothing admitted */
		i = rw_table_find(&e.t, &k, &state);
		CHECK(i >= 0);
		if (i < 0) {
			env_close(&e);
			return;
		}
		/* Another CPU's packets kept the entry live, in this generation, up to the last slot. */
		__atomic_store_n(&e.t.ent[i].state,
				 rw_st_make(back - 1, rw_st_gen(state),
					    state & (RW_ST_LIVE | RW_ST_OVERFLOW)),
				 __ATOMIC_SEQ_CST);
		set_time(&e, back * 100 * MS + 5 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 1), 1);
		CHECK_EQ(e.t.ent[i].ban_until_ns, 0);
		CHECK(flow_window(&e, &k, back, &w));
		CHECK_EQ(w.packets - w.drop_packets, 1);
		env_close(&e);
	}
}

/*
 * A saturated record carries into the next slots on its own word, with no
 * line of `keys` read (table.h, rw_carry_proven), while its last whole entry
 * is less than rw_lazy_slots (4 here) behind; then a whole entry raises the
 * state. The key line is planted with another key for a slot: read, it
 * would not match, and the record would stay behind. A bound taken from the
 * record's own epoch, not its last whole entry's, would carry on at e0 + 4.
 */
static void test_table_a_saturated_record_carries_on_its_own_word(void)
{
	const uint64_t e0 = 20, e1 = e0 + 1; /* e1: the first slot it only drops in */
	struct rw_key k = key4(SRC4);
	struct rw_hot rec;
	uint64_t state;
	uint32_t j;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!env_open_mode(&e, 10, 100 * MS, 10, 0, 1024, (struct env_mode){ 0 }))
		return;
	set_time(&e, e0 * 100 * MS + 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 11), 10); /* saturated until slot e0 + 10 */
	set_time(&e, e1 * 100 * MS + 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 1), 0);   /* a whole entry: the state at e1 */
	i = rw_table_find(&e.t, &k, &state);
	CHECK(i >= 0);
	if (i < 0) {
		env_close(&e);
		return;
	}
	j = (uint32_t)i; /* CPU 0's record */
	CHECK_EQ(rw_st_epoch(state), e1);

	e.t.ent[i].key = key4(SRC4 + 99);
	set_time(&e, (e1 + 1) * 100 * MS + 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 1), 0);
	CHECK_EQ(bpf_map_lookup_elem(e.fds.hot, &j, &rec), 0);
	CHECK_EQ(rec.epoch, e1 + 1);
	CHECK_EQ((rec.flags & RW_HOT_CARRY_MASK) >> RW_HOT_CARRY_SHIFT, 1);
	CHECK_EQ(rec.drop_packets, 2);
	e.t.ent[i].key = k;

	for (uint64_t s = e1 + 2; s <= e1 + 4; s++) {
		set_time(&e, s * 100 * MS + 5 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 1), 0);
		state = __atomic_load_n(&e.t.ent[i].state, __ATOMIC_SEQ_CST);
		CHECK_EQ(rw_st_epoch(state), s < e1 + 4 ? e1 : e1 + 4);
	}
	CHECK_EQ(bpf_map_lookup_elem(e.fds.hot, &j, &rec), 0);
	CHECK_EQ((rec.flags & RW_HOT_CARRY_MASK) >> RW_HOT_CARRY_SHIFT, 0);
	env_close(&e);
}

/*
 * A record its CPU left behind while other CPUs kept the entry live (same
 * generation) for more than 2^31 slots: its low 32 bits of epoch look a few
 * slots ahead of the entry's, or up to 2^31. It is stale all the same: the
 * source, saturated back then, passes up to its limit when it comes back to
 * that CPU, its old counts are in no window, and the entry's newest slot is
 * the slot it came back in (the loader may delete it once it goes quiet).
 */
static void test_table_record_left_behind_2_31_slots(void)
{
	const uint64_t behind[] = { (1ULL << 31) + 1, (1ULL << 31) + (1ULL << 30),
				    (1ULL << 32) - RW_HOT_AHEAD - 1 };
	struct rw_key k = key4(SRC4);

	pin_cpu(0);
	for (size_t n = 0; n < sizeof(behind) / sizeof(behind[0]); n++) {
		uint64_t e0 = 100, e1 = e0 + behind[n], state;
		struct rw_window_sum w;
		struct rw_stats st;
		int64_t i;
		struct env e;

		if (!env_open(&e, 10, 1 * MS, 10, 0))
			return;
		set_time(&e, e0 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 11), 10); /* saturated until slot e0 + 10 */
		i = rw_table_find(&e.t, &k, &state);
		CHECK(i >= 0);
		if (i < 0) {
			env_close(&e);
			return;
		}
		/* Other CPUs' packets kept it live, in this generation, up to the slot before. */
		__atomic_store_n(&e.t.ent[i].state,
				 rw_st_make(e1 - 1, rw_st_gen(state),
					    state & (RW_ST_LIVE | RW_ST_OVERFLOW)),
				 __ATOMIC_SEQ_CST);
		set_time(&e, e1 * MS);
		CHECK_EQ(passed_of(&e, SRC4, 12), 10);
		read_stats(&e, &st);
		CHECK_EQ(st.flush_retries, 0);
		CHECK(flow_window(&e, &k, e1, &w));
		CHECK_EQ(w.packets, 12);
		CHECK_EQ(w.drop_packets, 2);
		CHECK_EQ(w.newest_epoch, e1);
		env_close(&e);
	}
}

/*
 * Between a packet's match of its entry and the compare-and-swap that revives
 * it, another CPU deletes the entry and inserts another key there (every key
 * hashes alike here, so any key could take that way). The packet's revival
 * meets that key's state: it is untracked then (and so promoted into an entry
 * of its own), never counted for the other key.
 */
static void test_table_revival_rechecks_the_key(void)
{
	struct rw_key a = key4(SRC4), b = key4(SRC4 + 1);
	struct rw_window_sum w;
	uint64_t state;
	int64_t i;
	struct env e;

	pin_cpu(0);
	if (!env_open_mode(&e, 4, 100 * MS, 0, 0, 1024, ALL_COLLIDE))
		return;
	set_time(&e, 5 * MS);
	CHECK_EQ(passed_of(&e, SRC4, 3), 3);
	i = rw_table_find(&e.t, &a, &state);
	CHECK(i >= 0);
	if (i < 0)
		goto out;
	for (uint32_t off = 0; off < sizeof(b); off += 8) {
		uint64_t word;

		memcpy(&word, (const uint8_t *)&b + off, 8);
		race_write(&e, RW_RACE_KEYS, (uint32_t)i, 8 + off, word);
	}
	race_write(&e, RW_RACE_KEYS, (uint32_t)i, 0,
		   rw_st_make(0, (uint8_t)(rw_st_gen(state) + 1),
			      RW_ST_LIVE | (state & RW_ST_OVERFLOW)));
	race_arm(&e, RW_RACE_ENTER_SLOT);
	set_time(&e, 105 * MS); /* a's record meets a new slot: the revival */
	CHECK_EQ(passed_of(&e, SRC4, 1), 1);
	CHECK(race_played(&e));
	CHECK(flow_window(&e, &b, 1, &w));
	CHECK_EQ(w.packets, 0);
	CHECK_EQ(entries_of(&e, &a), 1);
	/*
	 * This packet only: a's first ones left the sketch when a was first
	 * promoted (what a promotion inherits leaves this CPU's buckets), and
	 * went with the entry b took.
	 */
	CHECK(flow_window(&e, &a, 1, &w));
	CHECK_EQ(w.newest_epoch, 1);
	CHECK_EQ(w.packets, 1);
out:
	env_close(&e);
}

struct sender {
	pthread_t tid;
	struct env *e;
	int cpu;
	uint32_t saddr;
	uint32_t count;
	pthread_barrier_t *go;
	uint32_t passed, dropped;
	bool on_cpu;
};

static void *send_on_cpu(void *arg)
{
	struct sender *s = arg;
	struct fb f;

	s->on_cpu = pin_cpu(s->cpu);
	fb_l2(&f, 0, 0x0800);
	fb_ipv4(&f, s->saddr, 5, -1, 0, 30);
	pthread_barrier_wait(s->go);
	for (uint32_t i = 0; i < s->count; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f.b, .data_size_in = (__u32)f.len,
			    .repeat = 1);

		if (bpf_prog_test_run_opts(s->e->prog, &o))
			continue;
		s->passed += o.retval == XDP_PASS;
		s->dropped += o.retval == XDP_DROP;
	}
	return NULL;
}

/* Every online CPU sends count frames of saddr at once; the admitted total. */
static uint32_t send_parallel(struct env *e, uint32_t saddr, uint32_t count, uint32_t *cpus)
{
	struct sender s[64];
	pthread_barrier_t go;
	uint32_t n = e->ncpus < 64 ? e->ncpus : 64, passed = 0;

	pthread_barrier_init(&go, NULL, n);
	for (uint32_t c = 0; c < n; c++) {
		s[c] = (struct sender){ .e = e, .cpu = (int)c, .saddr = saddr, .count = count,
					.go = &go };
		pthread_create(&s[c].tid, NULL, send_on_cpu, &s[c]);
	}
	*cpus = 0;
	for (uint32_t c = 0; c < n; c++) {
		pthread_join(s[c].tid, NULL);
		passed += s[c].passed;
		*cpus += s[c].on_cpu;
		CHECK_EQ(s[c].passed + s[c].dropped, count);
	}
	pthread_barrier_destroy(&go);
	return passed;
}

/*
 * Several CPUs at once on one source: never more than the limit admitted, and
 * what the table holds as admitted is exactly what the verdicts said.
 */
static void test_table_parallel_cpus_hold_the_limit(void)
{
	const uint64_t limit = 1000;
	uint32_t over = 0, mismatch = 0, cpus = 0, least = limit;
	cpu_set_t orig;

	sched_getaffinity(0, sizeof(orig), &orig);
	for (int round = 0; round < 8; round++) {
		struct rw_key k = key4(SRC4 + (uint32_t)round);
		uint32_t passed;
		struct env e;

		if (!env_open(&e, 10, 100 * MS, limit, 0))
			break;
		set_time(&e, 5 * MS);
		/* Tracked before the CPUs start: this is the leases' test, not promotion's. */
		passed = passed_of(&e, SRC4 + (uint32_t)round, 1);
		passed += send_parallel(&e, SRC4 + (uint32_t)round, 2 * limit, &cpus);
		over += passed > limit;
		mismatch += admitted_in_window(&e, &k, 0) != passed;
		least = passed < least ? passed : least;
		env_close(&e);
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	CHECK_EQ(over, 0);
	CHECK_EQ(mismatch, 0);
	printf("     %u CPUs at once, 8 rounds: at most %llu admitted each time (fewest %u)\n", cpus,
	       (unsigned long long)limit, least);
	if (cpus < 2)
		fprintf(stderr, "  note: one CPU online, nothing ran in parallel\n");
}

/* The 8 bytes of a record at off, as a race writes them. */
static uint64_t hot_word(const struct rw_hot *r, size_t off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)r + off, sizeof(v));
	return v;
}

/* Whether a second CPU is there to play another CPU's refill; closes e if not. */
static bool other_cpu_to_play(struct env *e)
{
	if (e->ncpus >= 2)
		return true;
	fprintf(stderr, "  note: one CPU, no other CPU's refill to play\n");
	env_close(e);
	return false;
}

/*
 * SRC4's first packet on CPU 0 at 5 ms, tracked: its entry in *idx and its
 * schedule, mapped writable (*map, *len: for munmap), or NULL.
 */
static struct rw_pace *tracked_on_cpu0(struct env *e, const struct rw_key *k, uint32_t *idx,
				       void **map, size_t *len)
{
	uint64_t state;
	int64_t i;

	pin_cpu(0);
	set_time(e, 5 * MS);
	CHECK_EQ(passed_of(e, SRC4, 1), 1);
	i = rw_table_find(&e->t, k, &state);
	CHECK(i >= 0);
	if (i < 0)
		return NULL;
	*idx = (uint32_t)i;
	return pace_rw(e, *idx, map, len);
}

/*
 * CPU 1's refill of entry idx begins: its packet counted in its record, then
 * its refill mark read (r1: that record, with CPU 0's until for its lease).
 */
static bool cpu1_refill_begins(struct env *e, uint32_t idx, struct rw_pace *pc, struct rw_hot *r1)
{
	struct rw_hot *hot = mmap(NULL, e->t.len[2], PROT_READ | PROT_WRITE, MAP_SHARED,
				  e->fds.hot, 0);

	CHECK(hot != MAP_FAILED);
	if (hot == MAP_FAILED)
		return false;
	*r1 = (struct rw_hot){ .epoch = hot[idx].epoch, .packets = 1, .gen = hot[idx].gen,
			       .until = hot[idx].until };
	hot[e->t.entries + idx] = *r1;
	munmap(hot, e->t.len[2]);
	(void)__atomic_fetch_add(&pc->refills, 0, __ATOMIC_SEQ_CST); /* its start moves nothing */
	return true;
}

/*
 * ... and ends inside CPU 0's next refill: its lease stored, its mark bumped,
 * and bumped as by `more` whole refills after it (only the marks: what CPU 0
 * decides on is the mark).
 */
static void cpu1_refill_ends_inside(struct env *e, uint32_t idx, struct rw_pace *pc,
				    struct rw_hot *r1, uint32_t lease, uint32_t more)
{
	uint64_t refills = __atomic_load_n(&pc->refills, __ATOMIC_SEQ_CST);

	r1->lease_packets = lease;
	r1->flags = RW_HOT_LEASE;
	race_write(e, RW_RACE_HOT, e->t.entries + idx, 16, hot_word(r1, 16));
	race_write(e, RW_RACE_HOT, e->t.entries + idx, 24, hot_word(r1, 24));
	race_write(e, RW_RACE_PACE, idx, offsetof(struct rw_pace, refills), refills + 1 + more);
	race_arm(e, RW_RACE_REFILL);
}

/*
 * A refill's lease goes into its record after its sum, so another CPU's
 * refill can land in between. Played here: CPU 1 counted its packet and
 * summed when the key had 1 of 100 (2 with its own: a lease of (100 - 2) /
 * C, 49 on 2 CPUs), then stalled; it stores that lease while CPU 0, 50
 * packets later, is between the sum and the store of its own next refill.
 * CPU 0's sum missed the lease: on 2 CPUs its own (24) and CPU 1's would
 * hold 25 more than the window has. A refill that finds the refill mark
 * moved by another one meanwhile gives its lease back, and its packet is
 * dropped where the window has no room for what it may have missed: never
 * more than the limit in the window, whichever CPU stalls where.
 */
static void test_table_concurrent_refills_hold_the_limit(void)
{
	const uint64_t limit = 100;
	struct rw_key k = key4(SRC4);
	struct rw_hot r1;
	struct rw_pace *pc;
	uint32_t idx, passed;
	cpu_set_t orig;
	struct env e;
	size_t len;
	void *map;

	if (!env_open(&e, 10, 100 * MS, limit, 0))
		return;
	if (!other_cpu_to_play(&e))
		return;
	sched_getaffinity(0, sizeof(orig), &orig);
	pc = tracked_on_cpu0(&e, &k, &idx, &map, &len); /* CPU 0's first lease: 49 */
	if (!pc)
		goto out;
	/* CPU 1's refill begins: its packet counted, then its refill mark, then its sum. */
	if (!cpu1_refill_begins(&e, idx, pc, &r1))
		goto unmap;
	CHECK_EQ(passed_of(&e, SRC4, 49), 49); /* CPU 0's lease */
	/* ... and ends inside CPU 0's next refill, which has bumped the mark once. */
	cpu1_refill_ends_inside(&e, idx, pc, &r1, (uint32_t)((limit - 2) / e.ncpus), 0); /* 1/C */
	passed = 50 + passed_of(&e, SRC4, 100);
	CHECK(race_played(&e));
	pin_cpu(1);
	passed += 1 + passed_of(&e, SRC4, 100); /* CPU 1 spends its lease */
	printf("     a refill landing inside another: %u admitted for a limit of %llu\n", passed,
	       (unsigned long long)limit);
	CHECK(passed <= limit);
	CHECK_EQ(admitted_in_window(&e, &k, 0), passed);
unmap:
	munmap(map, len);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/* Record j of hot (cpu x entries + entry), as it is now. */
static bool record_of(struct env *e, uint32_t j, struct rw_hot *r)
{
	struct rw_hot *hot = mmap(NULL, e->t.len[2], PROT_READ, MAP_SHARED, e->fds.hot, 0);

	CHECK(hot != MAP_FAILED);
	if (hot == MAP_FAILED)
		return false;
	*r = hot[j];
	munmap(hot, e->t.len[2]);
	return true;
}

/*
 * A refill reads every other CPU's record: its offered and dropped counts
 * and its lease. The record's own CPU may admit a packet from that lease
 * between two of those reads: its offered count goes up by one and its lease
 * down by one. Played here: CPU 0 has admitted 98 of a limit of 100 and holds
 * a lease of 1, CPU 1 admitted one (the window full with CPU 0's lease), and
 * CPU 1's next packet refills: 101 with it, dropped. Inside that refill's
 * reads of CPU 0's record, CPU 0 admits its last leased packet. A refill
 * that reads the count before the lease sees neither the packet nor the
 * lease it came from, sums 100 and admits: 101 in the window. Reading the
 * lease first (and, on a CPU that reorders loads, ordered before the counts;
 * CPU 0 orders its count before its lease's decrement), the refill sees the
 * packet twice at worst, never not at all.
 */
static void test_table_a_leased_packet_inside_a_refills_reads(void)
{
	const uint64_t limit = 100;
	struct rw_key k = key4(SRC4);
	struct rw_hot r0;
	uint32_t idx, passed;
	cpu_set_t orig;
	uint64_t state;
	struct env e;
	int64_t i;

	if (!env_open(&e, 10, 100 * MS, limit, 0))
		return;
	if (!other_cpu_to_play(&e))
		return;
	sched_getaffinity(0, sizeof(orig), &orig);
	if (e.ncpus != 2) {
		/* The leases below are 2 CPUs' (1/C of what is left); the guests' differ. */
		printf("     played on 2 possible CPUs only (here %u)\n", e.ncpus);
		goto out;
	}
	pin_cpu(0);
	set_time(&e, 5 * MS);
	/* Leases of 49, 24, 12, 5, 2, 1: after 98 packets CPU 0 holds a lease of 1. */
	passed = passed_of(&e, SRC4, 98);
	i = rw_table_find(&e.t, &k, &state);
	CHECK(i >= 0);
	if (i < 0 || !record_of(&e, (uint32_t)i, &r0))
		goto out;
	idx = (uint32_t)i;
	CHECK_EQ(r0.packets, 98);
	CHECK_EQ(r0.lease_packets, 1);
	pin_cpu(1);
	passed += passed_of(&e, SRC4, 1); /* 100 with CPU 0's lease: it fits, no lease left */
	/* CPU 0's leased packet lands between CPU 1's reads of its record. */
	r0.packets++;
	r0.lease_packets--;
	race_write(&e, RW_RACE_HOT, idx, 0, hot_word(&r0, 0));
	race_write(&e, RW_RACE_HOT, idx, 16, hot_word(&r0, 16));
	race_arm(&e, RW_RACE_SUM);
	passed += 1 + passed_of(&e, SRC4, 1);
	CHECK(race_played(&e));
	printf("     a leased packet between a refill's reads: %u admitted for a limit of %llu\n",
	       passed, (unsigned long long)limit);
	CHECK(passed <= limit);
	CHECK_EQ(admitted_in_window(&e, &k, 0), passed);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/*
 * The same meeting far from the limit: 10 000 packets a second, paced (a
 * lease is a millisecond of the rate: 10), CPU 1's refill starting before and
 * ending inside CPU 0's. CPU 0's sum may have missed CPU 1's packet and lease
 * (the mark moved by CPU 1's end: 1 + 10 at most), and its window holds a few
 * dozen of 10 000: its packet passes. Dropping it was the first version: a
 * source at 0.95x its limit spread over 2 CPUs lost 1-16 packets of 17 098
 * to such meetings. With `more`, CPU 1's mark moves as if it made that many
 * whole refills while CPU 0 is still in its own (a CPU descheduled there, as
 * in a guest): 1 + more, yet only the refill under way at CPU 0's start can
 * hold what CPU 0 did not see; the later ones summed CPU 0's packet (CPU 0
 * keeps no lease then: they may have missed that). Dropping at more bumps
 * than CPUs was the version before: a source at 0.5x its limit over 64
 * emulated CPUs lost a few.
 */
static void refills_that_meet_far_from_the_limit(uint32_t more)
{
	const uint64_t limit = 10000;
	struct rw_key k = key4(SRC4);
	struct rw_hot r1;
	struct rw_pace *pc;
	uint64_t before;
	uint32_t idx, passed;
	cpu_set_t orig;
	struct env e;
	size_t len;
	void *map;

	if (!env_open_mode(&e, 10, 100 * MS, limit, 0, 1024,
			   (struct env_mode){ .paced = true, .burst_ns = 20 * MS }))
		return;
	if (!other_cpu_to_play(&e))
		return;
	sched_getaffinity(0, sizeof(orig), &orig);
	pc = tracked_on_cpu0(&e, &k, &idx, &map, &len);
	if (!pc)
		goto out;
	/* CPU 1's refill begins: its packet counted, then its refill mark ... */
	if (!cpu1_refill_begins(&e, idx, pc, &r1))
		goto unmap;
	/* ... and ends (its lease, its second bump) inside CPU 0's next refill. */
	cpu1_refill_ends_inside(&e, idx, pc, &r1, 10, more);
	before = __atomic_load_n(&pc->refills, __ATOMIC_SEQ_CST);
	passed = passed_of(&e, SRC4, 30);
	CHECK(race_played(&e));
	printf("     refills meeting at 31 of %llu, %u more of CPU 1 inside: %u of 30 passed"
	       " (%llu refills)\n", (unsigned long long)limit, more, passed,
	       (unsigned long long)(__atomic_load_n(&pc->refills, __ATOMIC_SEQ_CST) - before));
	CHECK_EQ(passed, 30);
	CHECK_EQ(admitted_in_window(&e, &k, 0), 1 + passed + 1);
unmap:
	munmap(map, len);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

static void test_table_refills_that_meet_far_from_the_limit_pass(void)
{
	refills_that_meet_far_from_the_limit(0);
}

static void test_table_a_refill_stalled_past_many_others_passes_far_from_the_limit(void)
{
	refills_that_meet_far_from_the_limit(100);
}

/*
 * The meeting far from the limit again (CPU 1's refill ending inside CPU 0's
 * at 11 of 10 000, paced: leases of 10): CPU 0's refill may have missed CPU
 * 1's packet and lease, and the window has room for them many times over.
 * Giving its whole lease back, as refills that met did, left CPU 0's next
 * packet to refill again, and the one after: every meeting cost another
 * sum over every CPU, and another pair of marks for the others to meet.
 * Kept instead: the lease that still fits beside what it may have missed.
 */
static void test_table_a_met_refill_keeps_the_lease_that_fits(void)
{
	const uint64_t limit = 10000;
	struct rw_key k = key4(SRC4);
	struct rw_stats before, after;
	struct rw_hot r1, r0;
	struct rw_pace *pc;
	uint32_t idx, passed;
	cpu_set_t orig;
	struct env e;
	size_t len;
	void *map;

	if (!env_open_mode(&e, 10, 100 * MS, limit, 0, 1024,
			   (struct env_mode){ .paced = true, .burst_ns = 20 * MS }))
		return;
	if (!other_cpu_to_play(&e))
		return;
	sched_getaffinity(0, sizeof(orig), &orig);
	pc = tracked_on_cpu0(&e, &k, &idx, &map, &len); /* its first lease: 10 */
	if (!pc)
		goto out;
	if (!cpu1_refill_begins(&e, idx, pc, &r1))
		goto unmap;
	cpu1_refill_ends_inside(&e, idx, pc, &r1, 10, 0);
	read_stats(&e, &before);
	passed = passed_of(&e, SRC4, 11); /* 10 from the lease; the 11th refills, and meets */
	CHECK(race_played(&e));
	read_stats(&e, &after);
	CHECK_EQ(passed, 11);
	CHECK_EQ(after.cross_cpu_checks - before.cross_cpu_checks, 1);
	CHECK_EQ(after.met_drops - before.met_drops, 0);
	if (!record_of(&e, idx, &r0))
		goto unmap;
	before = after;
	passed = passed_of(&e, SRC4, 1);
	read_stats(&e, &after);
	printf("     a refill that met another far from the limit: lease %u after it, the next"
	       " packet %s\n", r0.lease_packets,
	       after.cross_cpu_checks > before.cross_cpu_checks ? "refilled again" : "took it");
	CHECK_EQ(passed, 1);
	CHECK(r0.flags & RW_HOT_LEASE);
	CHECK_EQ(r0.lease_packets, 10);
	CHECK_EQ(after.cross_cpu_checks - before.cross_cpu_checks, 0);
	CHECK_EQ(admitted_in_window(&e, &k, 0), 1 + 12 + 1);
unmap:
	munmap(map, len);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/*
 * The marks a whole refill of CPU 1 leaves on a key's schedule, ending
 * saturated: key SRC4 + 1 sent 100 packets on CPU 1 (the window full), then
 * one more, whose refill finds no budget. Measured, not assumed: what another
 * refill would find on the mark.
 */
static uint64_t marks_of_a_saturating_refill(struct env *e)
{
	struct rw_key k = key4(SRC4 + 1);
	struct rw_pace *pc;
	uint64_t state, was, marks = ~0ULL;
	size_t len;
	void *map;
	int64_t i;

	pin_cpu(1);
	CHECK_EQ(passed_of(e, SRC4 + 1, 100), 100);
	i = rw_table_find(&e->t, &k, &state);
	CHECK(i >= 0);
	pc = i >= 0 ? pace_rw(e, (uint32_t)i, &map, &len) : NULL;
	if (!pc)
		return marks;
	was = __atomic_load_n(&pc->refills, __ATOMIC_SEQ_CST);
	CHECK_EQ(passed_of(e, SRC4 + 1, 1), 0); /* the 101st: saturated */
	marks = __atomic_load_n(&pc->refills, __ATOMIC_SEQ_CST) - was;
	munmap(map, len);
	return marks;
}

/*
 * A refill that finds no budget takes nothing: no lease, and its packet is
 * dropped. Played here: CPU 0 has admitted 99 of 100 and its 100th packet
 * refills (100: it fits); inside it, between its sum and its lease's store,
 * CPU 1's refill of a packet begins and ends saturated (101). CPU 0 must not
 * lose its packet to that meeting. It did: a saturating refill bumped the
 * mark once (before its sum) and never again, so CPU 0 found the mark moved,
 * made room for a packet and a lease CPU 1 might hold (51 more), found none,
 * and dropped its packet as met_drops: 99 admitted of a limit of 100.
 */
static void test_table_a_saturating_refill_inside_another_costs_it_nothing(void)
{
	const uint64_t limit = 100;
	struct rw_key k = key4(SRC4);
	struct rw_stats before, after;
	struct rw_hot r0, r1;
	uint32_t idx, passed;
	uint64_t marks, state;
	cpu_set_t orig;
	struct env e;
	int64_t i;

	if (!env_open(&e, 10, 100 * MS, limit, 0))
		return;
	if (!other_cpu_to_play(&e))
		return;
	sched_getaffinity(0, sizeof(orig), &orig);
	set_time(&e, 5 * MS);
	marks = marks_of_a_saturating_refill(&e);
	pin_cpu(0);
	passed = passed_of(&e, SRC4, 99);
	i = rw_table_find(&e.t, &k, &state);
	CHECK(i >= 0);
	if (i < 0 || !record_of(&e, (uint32_t)i, &r0))
		goto out;
	idx = (uint32_t)i;
	/* CPU 1's packet, offered and dropped, its record saturated, and its marks. */
	r1 = (struct rw_hot){ .epoch = r0.epoch, .packets = 1, .drop_packets = 1, .gen = r0.gen,
			      .until = r0.until, .flags = RW_HOT_SAT };
	race_write(&e, RW_RACE_HOT, e.t.entries + idx, 0, hot_word(&r1, 0));
	race_write(&e, RW_RACE_HOT, e.t.entries + idx, 8, hot_word(&r1, 8));
	race_write(&e, RW_RACE_HOT, e.t.entries + idx, 16, hot_word(&r1, 16));
	race_write(&e, RW_RACE_HOT, e.t.entries + idx, 24, hot_word(&r1, 24));
	if (marks)
		race_add(&e, RW_RACE_PACE, idx, offsetof(struct rw_pace, refills), marks);
	race_arm(&e, RW_RACE_REFILL);
	read_stats(&e, &before);
	passed += passed_of(&e, SRC4, 1);
	CHECK(race_played(&e));
	read_stats(&e, &after);
	printf("     a saturating refill (%llu marks) inside another at 100 of %llu: %u admitted,"
	       " %llu met_drops\n", (unsigned long long)marks, (unsigned long long)limit, passed,
	       (unsigned long long)(after.met_drops - before.met_drops));
	CHECK_EQ(passed, limit);
	CHECK_EQ(after.met_drops - before.met_drops, 0);
	CHECK_EQ(admitted_in_window(&e, &k, 0), limit);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/*
 * The same lock, released while the packet waits for it (another CPU's
 * insert ending): the packet then takes its own entry and passes, tracked,
 * with what it had counted in the sketch. Dropping it whenever the lock was
 * held was the first version: spread over 2 CPUs, a flood of 65 536 sources
 * each under its limit lost 1 to 3 packets a run, and a spoofed flood at
 * --pps 1000 lost some (test_wide_flood with WIDE_CPUS=2).
 */
static void test_table_untracked_waits_out_an_insert(void)
{
	const size_t off = offsetof(struct rw_dir, ctl) & ~(size_t)7;
	const unsigned shift = (unsigned)(offsetof(struct rw_dir, ctl) & 4) * 8;
	struct rw_key k = key4(SRC4);
	struct rw_stats before, after;
	struct rw_where w;
	uint64_t word;
	struct env e;

	/* A threshold of 50 a CPU on any machine: the first 6 packets stay untracked. */
	if (!env_open(&e, 10, 100 * MS, 50ULL * rw_possible_cpus(), 0))
		return;
	set_thresholds(&e, 0, 0);
	set_time(&e, 5 * MS);
	pin_cpu(0);
	CHECK_EQ(passed_of(&e, SRC4, 5), 5); /* untracked, under its threshold */
	w = rw_table_where(&e.t, &k);
	__atomic_fetch_or(&e.t.dir[w.home].ctl, RW_DIR_LOCK, __ATOMIC_SEQ_CST);
	memcpy(&word, (uint8_t *)&e.t.dir[w.home] + off, sizeof(word));
	race_write(&e, RW_RACE_DIR, w.home, (uint32_t)off, word & ~((uint64_t)RW_DIR_LOCK << shift));
	race_arm(&e, RW_RACE_BUCKET_WAIT);
	read_stats(&e, &before);
	CHECK_EQ(passed_of(&e, SRC4, 1), 1);
	read_stats(&e, &after);
	CHECK(race_played(&e));
	printf("     an insert ending while a packet waits: %llu capped, %u entries, window %u\n",
	       (unsigned long long)(after.capped_drops - before.capped_drops), entries_of(&e, &k),
	       admitted_in_window(&e, &k, 0));
	CHECK_EQ(after.capped_drops - before.capped_drops, 0);
	CHECK_EQ(entries_of(&e, &k), 1);
	CHECK_EQ(admitted_in_window(&e, &k, 0), 6);
	CHECK_EQ(e.t.dir[w.home].ctl & RW_DIR_LOCK, 0);
	env_close(&e);
}

/*
 * An insert stalled on another CPU (its home bucket's lock held, here by the
 * test): a limited source of that bucket that is still under its threshold is
 * not admitted untracked meanwhile (it waits a bounded while, then is
 * dropped), since the insert may already have read
 * this CPU's sketch; its count is taken back, so nothing is lost for it. Once
 * the lock is gone it passes again. An unlimited source is never held up.
 */
static void test_table_untracked_waits_for_a_stalled_insert(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_where w;
	struct rw_stats before, after;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 50ULL * rw_possible_cpus(), 0))
		return;
	set_thresholds(&e, 0, 0); /* promoted at the limit's threshold only (50 a CPU) */
	set_time(&e, 5 * MS);
	pin_cpu(0);
	CHECK_EQ(passed_of(&e, SRC4, 5), 5); /* untracked, under its threshold */
	CHECK_EQ(entries_of(&e, &k), 0);
	w = rw_table_where(&e.t, &k);
	__atomic_fetch_or(&e.t.dir[w.home].ctl, RW_DIR_LOCK, __ATOMIC_SEQ_CST);
	read_stats(&e, &before);
	CHECK_EQ(passed_of(&e, SRC4, 20), 0);
	read_stats(&e, &after);
	CHECK_EQ(after.stalled_drops - before.stalled_drops, 20);
	CHECK_EQ(after.capped_drops - before.capped_drops, 0);
	CHECK_EQ(entries_of(&e, &k), 0);
	__atomic_fetch_and(&e.t.dir[w.home].ctl, ~RW_DIR_LOCK, __ATOMIC_SEQ_CST);
	/* The 20 were taken back out of the sketch: 44 more still pass under its threshold of 50. */
	CHECK_EQ(passed_of(&e, SRC4, 44), 44);
	CHECK_EQ(entries_of(&e, &k), 0);
	env_close(&e);

	/* Without a limit nothing waits: the lock is no reason to drop a packet. */
	if (!env_open(&e, 10, 100 * MS, 0, 0))
		return;
	set_thresholds(&e, 1000, 0);
	set_time(&e, 5 * MS);
	w = rw_table_where(&e.t, &k); /* this load's own hash seed */
	__atomic_fetch_or(&e.t.dir[w.home].ctl, RW_DIR_LOCK, __ATOMIC_SEQ_CST);
	CHECK_EQ(passed_of(&e, SRC4, 20), 20);
	env_close(&e);
}

/* Packets another CPU sends while an insert on this one inherits. */
struct during_inheritance {
	struct env *e;
	uint32_t saddr, count, passed;
	uint64_t ns;
	bool sent, ready;
};

/* On CPU 1: once CPU 0's insert is in its inheritance (its race played), count packets of saddr. */
static void *send_during_inheritance(void *arg)
{
	struct during_inheritance *o = arg;
	struct timespec t0, t1;

	pin_cpu(1);
	__atomic_store_n(&o->ready, true, __ATOMIC_SEQ_CST);
	for (long spins = 0; spins < 2000000000L; spins++) {
		if (__atomic_load_n(&o->e->skel->bss->test_race.point, __ATOMIC_SEQ_CST) !=
		    RW_RACE_NONE)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		o->passed = passed_of(o->e, o->saddr, (int)o->count);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		o->ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ULL +
			(uint64_t)(t1.tv_nsec - t0.tv_nsec);
		o->sent = true;
		break;
	}
	return NULL;
}

/*
 * Plays an insert of SRC4 on CPU 0 whose inheritance is slow (1 M empty
 * rounds, a millisecond or more, planted as it starts: as reading every
 * CPU's sketch takes at 64 CPUs), with o's packets sent on CPU 1 meanwhile.
 * The thread starts before this one is pinned, so that it runs beside it.
 */
static void insert_with_slow_inheritance(struct env *e, struct during_inheritance *o,
					 int cpu0_packets, uint32_t cpu0_passed)
{
	pthread_t tid;

	o->e = e;
	race_spin(e, 1000000);
	race_arm(e, RW_RACE_INHERIT);
	pthread_create(&tid, NULL, send_during_inheritance, o);
	while (!__atomic_load_n(&o->ready, __ATOMIC_SEQ_CST))
		sched_yield();
	pin_cpu(0);
	CHECK_EQ(passed_of(e, SRC4, cpu0_packets), cpu0_passed);
	pthread_join(tid, NULL);
	CHECK(race_played(e));
	CHECK(o->sent);
}

/*
 * An insert's inheritance reads every CPU's sketch buckets: at 64 CPUs it
 * outlasts the wait (RW_BUCKET_WAIT_SPINS) of a packet that meets the
 * bucket's lock. Played here with 2 CPUs and a slow inheritance: CPU 0
 * promotes SRC4, and while it inherits, CPU 1 gets a packet of another
 * limited, untracked key whose home is the same bucket (every hash
 * collides). That packet has nothing to do with the inheritance; it must not
 * be dropped as stalled. It was: the insert inherited under the lock.
 */
static void test_table_an_inheritance_holds_no_other_key_up(void)
{
	struct during_inheritance o = { .saddr = SRC4 + 1, .count = 1 };
	struct rw_stats before, after;
	cpu_set_t orig;
	struct env e;

	if (!env_open_mode(&e, 10, 100 * MS, 1000, 0, 1024, ALL_COLLIDE))
		return;
	if (!other_cpu_to_play(&e))
		return;
	sched_getaffinity(0, sizeof(orig), &orig);
	set_thresholds(&e, 1000, 1); /* SRC4 takes the one free promotion; SRC4 + 1 stays untracked */
	set_time(&e, 5 * MS);
	read_stats(&e, &before);
	insert_with_slow_inheritance(&e, &o, 1, 1);
	read_stats(&e, &after);
	printf("     another key's packet during a slow inheritance: %s in %.1f us, %llu"
	       " stalled_drops\n", o.passed ? "passed" : "dropped", (double)o.ns / 1000.0,
	       (unsigned long long)(after.stalled_drops - before.stalled_drops));
	CHECK_EQ(o.passed, 1);
	CHECK_EQ(after.stalled_drops - before.stalled_drops, 0);
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/*
 * The entry is published before it inherits, so another CPU's packet of the
 * key may find it while its history is still empty. Its refill must not sum
 * without what the entry inherits. Played with a limit of 20 (a promotion
 * threshold of 10 a CPU, 2 CPUs): 18 admitted untracked, 9 on each CPU;
 * CPU 0's 10th packet promotes the key, and while it inherits (slowly) CPU 1
 * sends 3 more. Summed without the inheritance they would pass (21 admitted
 * of 20); they wait for it, and the wait outlasted, are dropped as stalled.
 */
static void test_table_a_refill_waits_for_the_inheritance(void)
{
	struct during_inheritance o = { .saddr = SRC4, .count = 3 };
	struct rw_key k = key4(SRC4);
	struct rw_stats before, after;
	uint32_t passed;
	cpu_set_t orig;
	struct env e;

	if (!env_open(&e, 10, 100 * MS, 20, 0))
		return;
	if (!other_cpu_to_play(&e))
		return;
	if (e.ncpus != 2) {
		fprintf(stderr, "  note: %u CPUs, the thresholds here are for 2\n", e.ncpus);
		env_close(&e);
		return;
	}
	sched_getaffinity(0, sizeof(orig), &orig);
	set_thresholds(&e, 0, 0); /* promoted at the limit's threshold only: 10 a CPU */
	set_time(&e, 5 * MS);
	pin_cpu(0);
	passed = passed_of(&e, SRC4, 9);
	pin_cpu(1);
	passed += passed_of(&e, SRC4, 9);
	CHECK_EQ(passed, 18);
	CHECK_EQ(entries_of(&e, &k), 0);
	sched_setaffinity(0, sizeof(orig), &orig);
	read_stats(&e, &before);
	insert_with_slow_inheritance(&e, &o, 1, 1);
	read_stats(&e, &after);
	passed += 1 + o.passed;
	printf("     a refill during the key's own slow inheritance: %u of 3 passed (%llu stalled),"
	       " %u admitted of 20\n", o.passed,
	       (unsigned long long)(after.stalled_drops - before.stalled_drops), passed);
	CHECK_EQ(entries_of(&e, &k), 1);
	CHECK(passed <= 20);
	CHECK_EQ(admitted_in_window(&e, &k, 0), passed);
	sched_setaffinity(0, sizeof(orig), &orig);
	env_close(&e);
}

/*
 * Another CPU's insert of key k in the first way of its home bucket, its
 * state as given and no count; its tag not published (the caller does, or
 * plants it as a race's write). The entry's index; *at where it is.
 */
static uint32_t plant_entry(struct env *e, const struct rw_key *k, uint64_t state,
			    struct rw_where *at)
{
	uint32_t idx;

	*at = rw_table_where(&e->t, k);
	idx = at->home * RW_WAYS;
	e->t.ent[idx].key = *k;
	e->t.ent[idx].home = at->home;
	__atomic_store_n(&e->t.ent[idx].state, state, __ATOMIC_SEQ_CST);
	return idx;
}

/*
 * Two CPUs promote one source: both missed it in their lookups, the other one
 * took the lock first and inserted it. Here that insert is planted in the
 * table (its entry live, with no count) and its tag published between this
 * CPU's lookup and its lock: the insert under the lock finds it, makes no
 * second entry and inherits nothing a second time (the sketch holds 5 of the
 * source's packets), whichever CPU gets there how much later.
 */
static void test_table_promotion_rechecks_under_the_lock(void)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_where at;
	struct rw_stats st;
	struct env e;

	pin_cpu(0);
	if (!env_open(&e, 10, 100 * MS, 0, 0))
		return;
	set_time(&e, 5 * MS);
	set_thresholds(&e, 100, 0);
	CHECK_EQ(passed_of(&e, SRC4, 5), 5); /* in the sketch only */
	CHECK_EQ(entries_of(&e, &k), 0);
	plant_entry(&e, &k, rw_st_make(0, 1, RW_ST_LIVE), &at);
	race_write(&e, RW_RACE_DIR, at.home, 0,
		   at.tag | (uint64_t)e.t.dir[at.home].tag[1] << 32);
	race_arm(&e, RW_RACE_PROMOTE);
	set_thresholds(&e, 100, 1); /* the next packet is promoted */
	CHECK_EQ(passed_of(&e, SRC4, 1), 1);
	CHECK(race_played(&e));
	read_stats(&e, &st);
	CHECK_EQ(st.new_flows, 0);
	CHECK_EQ(entries_of(&e, &k), 1);
	CHECK(flow_window(&e, &k, 0, &w));
	CHECK_EQ(w.packets, 1);
	env_close(&e);
}

/*
 * The look again under the insert lock meets an entry whose state moves
 * while it compares the key: another CPU's record raising the epoch (here),
 * a revival, or the CPU that inserted the key ending its inheritance. As in
 * test_table_promotion_rechecks_under_the_lock, another CPU's insert of the
 * key is planted (two slots behind) and its tag published between this
 * CPU's lookup and its lock; here its epoch moves there too, and then during
 * each of the look's first `moves` key compares. Taken as a miss, the key
 * got a second entry and a second budget (parallel_promotion_inherits_once
 * saw it once in a loaded run); the look tries again. A state that never
 * holds still (every compare meets a move, as a CPU descheduled between the
 * reads would): the last try takes the live entry with the key as found.
 * And the packet is counted in it: the match for its record's state is
 * settled too (a move there let it pass uncounted).
 */
static void look_again_under_moves(uint32_t moves)
{
	struct rw_key k = key4(SRC4);
	struct rw_window_sum w;
	struct rw_where at;
	struct rw_stats st;
	uint32_t idx;
	struct env e;

	pin_cpu(0);
	if (!env_open(&e, 10, 100 * MS, 0, 0))
		return;
	set_time(&e, 95 * MS); /* epoch 9: the planted state's epoch, 2, moves by one a pass */
	set_thresholds(&e, 100, 1); /* the first packet is promoted */
	idx = plant_entry(&e, &k, rw_st_make(2, 1, RW_ST_LIVE), &at);
	race_write(&e, RW_RACE_DIR, at.home, 0,
		   at.tag | (uint64_t)e.t.dir[at.home].tag[1] << 32);
	race_add(&e, RW_RACE_KEYS, idx, offsetof(struct rw_entry, state), 1);
	race_arm_chain(&e, RW_RACE_PROMOTE, 1, RW_RACE_MATCH, moves);
	CHECK_EQ(passed_of(&e, SRC4, 1), 1);
	read_stats(&e, &st);
	CHECK_EQ(st.new_flows, 0);
	CHECK_EQ(entries_of(&e, &k), 1);
	CHECK(flow_window(&e, &k, 9, &w));
	CHECK_EQ(w.packets, 1);
	race_arm(&e, RW_RACE_NONE);
	env_close(&e);
}

static void test_table_the_look_again_waits_for_a_moving_state(void)
{
	look_again_under_moves(1);
}

static void test_table_the_look_again_trusts_its_last_try(void)
{
	look_again_under_moves(1000);
}

/* Moves: each of the look's 4 tries (the last trusted), and the first match of the promoted entry. */
static void test_table_a_promoted_packet_is_counted_under_a_move(void)
{
	look_again_under_moves(4 + 1);
}

/*
 * Several CPUs promote one new source at once (the sketch's own threshold):
 * one entry, and the sketch's counts inherited once. What a packet in flight
 * on another CPU at the moment of the insert can do is bounded, one packet
 * per other CPU: admitted untracked after the insert read that CPU's sketch
 * (the limit exceeded by it), or counted in that sketch, inherited, and then
 * counted again by the entry (the entry holds one packet more than passed).
 * Inheriting twice would put a whole threshold (50) in the entry. CPUs
 * rarely meet that closely here: the races themselves are played every run
 * by test_table_promotion_rechecks_under_the_lock and the look_again tests
 * (this one found the second: once, in a loaded run, a second entry).
 */
static void test_table_parallel_promotion_inherits_once(void)
{
	uint32_t over = 0, dup = 0, mismatch = 0, cpus = 0;
	cpu_set_t orig;

	sched_getaffinity(0, sizeof(orig), &orig);
	for (int round = 0; round < 8; round++) {
		uint64_t limit = 50ULL * rw_possible_cpus();
		struct rw_key k = key4(SRC4 + (uint32_t)round);
		uint32_t passed;
		struct env e;

		if (!env_open(&e, 10, 100 * MS, limit, 0))
			break;
		set_thresholds(&e, 0, 0); /* promoted at the limit's threshold only */
		set_time(&e, 5 * MS);
		passed = send_parallel(&e, SRC4 + (uint32_t)round, (uint32_t)(2 * limit), &cpus);
		over += passed > limit + (cpus ? cpus - 1 : 0);
		if (passed > limit + (cpus ? cpus - 1 : 0))
			fprintf(stderr, "  round %d: %u admitted for a limit of %llu on %u CPUs, %llu in the entry\n",
				round, passed, (unsigned long long)limit, cpus,
				(unsigned long long)admitted_in_window(&e, &k, 0));
		dup += entries_of(&e, &k) != 1;
		mismatch += admitted_in_window(&e, &k, 0) > passed + (cpus ? cpus - 1 : 0);
		env_close(&e);
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	CHECK_EQ(over, 0);
	CHECK_EQ(dup, 0);
	CHECK_EQ(mismatch, 0);
}

/*
 * A packet whose record already counts in this slot reads no key (bpf/table.h,
 * rw_find_current), so a key placed in a bucket that holds its tag already
 * marks the bucket (RW_DIR_DUPTAG): its packets are then its own, never the
 * other key's, even while that key's record counts in this slot. B is planted
 * in A's home bucket, way 0, with A's tag; A's first packet finds B's record
 * idle, so it is inserted beside B; then B's record counts in this slot and A
 * sends again.
 */
static void test_table_a_shared_tag_compares_keys(void)
{
	struct rw_key a = key4(SRC4), b = key4(SRC4 + 1);
	struct rw_hot rec = { 0 }, now_b;
	const uint64_t epoch = 10;
	cpu_set_t orig;
	struct rw_where w;
	struct rw_window_sum ws;
	uint32_t j, b_idx;
	struct env e;

	sched_getaffinity(0, sizeof(orig), &orig);
	if (!pin_cpu(0) || !env_open_mode(&e, 10, 100 * MS, 0, 0, 1000, (struct env_mode){ .hash_seed = 7 }))
		goto out;
	set_time(&e, epoch * 100 * MS + 5 * MS);
	w = rw_where_of(rw_hash(&a, 7), e.t.nbuckets);
	b_idx = w.home * RW_WAYS;
	j = b_idx; /* CPU 0's record */
	e.t.ent[b_idx].key = b;
	e.t.ent[b_idx].home = w.home;
	__atomic_store_n(&e.t.ent[b_idx].state, rw_st_make(epoch, 1, RW_ST_LIVE), __ATOMIC_SEQ_CST);
	__atomic_store_n(&e.t.dir[w.home].tag[0], w.tag, __ATOMIC_SEQ_CST);
	rec.epoch = (uint32_t)(epoch - 1);
	rec.packets = 1;
	rec.gen = 1;
	CHECK_EQ(bpf_map_update_elem(e.fds.hot, &j, &rec, BPF_ANY), 0);

	CHECK_EQ(passed_of(&e, SRC4, 1), 1);
	CHECK_EQ(entries_of(&e, &a), 1);
	CHECK(e.t.dir[w.home].ctl & RW_DIR_DUPTAG);

	rec.epoch = (uint32_t)epoch; /* B now counts in this slot on this CPU */
	CHECK_EQ(bpf_map_update_elem(e.fds.hot, &j, &rec, BPF_ANY), 0);
	CHECK_EQ(passed_of(&e, SRC4, 4), 4);
	CHECK(flow_window(&e, &a, epoch, &ws));
	CHECK_EQ(ws.packets, 5);
	CHECK_EQ(bpf_map_lookup_elem(e.fds.hot, &j, &now_b), 0);
	CHECK_EQ(now_b.packets, 1);
	env_close(&e);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
}

void run_table_tests(void)
{
	RUN(test_table_many_keys);
	RUN(test_table_equal_hashes_never_merge);
	RUN(test_table_a_shared_tag_compares_keys);
	RUN(test_table_full_set_keeps_limited);
	RUN(test_table_full_set_keeps_banned);
	RUN(test_table_delete_races_a_packet);
	RUN(test_table_revival_rechecks_the_key);
	RUN(test_table_flush_waits_never_loses);
	RUN(test_table_history_counts_past_2_32);
	RUN(test_table_byte_flush_waits_never_wraps);
	RUN(test_table_age_rules_at_the_wrap);
	RUN(test_table_saturated_record_ages_out);
	RUN(test_table_a_saturated_record_carries_on_its_own_word);
	RUN(test_table_record_left_behind_2_31_slots);
	RUN(test_table_parallel_cpus_hold_the_limit);
	RUN(test_table_concurrent_refills_hold_the_limit);
	RUN(test_table_a_leased_packet_inside_a_refills_reads);
	RUN(test_table_refills_that_meet_far_from_the_limit_pass);
	RUN(test_table_a_refill_stalled_past_many_others_passes_far_from_the_limit);
	RUN(test_table_a_met_refill_keeps_the_lease_that_fits);
	RUN(test_table_a_saturating_refill_inside_another_costs_it_nothing);
	RUN(test_table_untracked_waits_for_a_stalled_insert);
	RUN(test_table_untracked_waits_out_an_insert);
	RUN(test_table_promotion_rechecks_under_the_lock);
	RUN(test_table_the_look_again_waits_for_a_moving_state);
	RUN(test_table_the_look_again_trusts_its_last_try);
	RUN(test_table_a_promoted_packet_is_counted_under_a_move);
	RUN(test_table_parallel_promotion_inherits_once);
	RUN(test_table_an_inheritance_holds_no_other_key_up);
	RUN(test_table_a_refill_waits_for_the_inheritance);
}
