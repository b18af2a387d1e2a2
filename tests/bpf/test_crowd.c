// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The crowd (bpf/crowd.h), through the real program on one CPU: a botnet of
 * more sources over their limit than the table holds, each lost in the
 * noise of the others, is held in aggregate to sources x limit; a crowd of
 * sources each under its limit loses nothing to it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfenv.h"
#include "ratewall_crowd.h"
#include "ratewall_hash.h"
#include "testlib.h"

#define CROWD_BASE 0xc6120000u /* 198.18.0.0/16 */
#define CROWD_SOURCES 8192u
#define CROWD_LIMIT 8u       /* per window, every CPU together */
#define CROWD_ERROR_PCT 10u  /* docs/limits.md: the crowd's bound */

static bool crowd_open(struct env *e, cpu_set_t *orig, uint32_t max_flows)
{
	sched_getaffinity(0, sizeof(*orig), orig);
	pin_cpu(0);
	if (!env_open_mode(e, 10, 100 * MS, CROWD_LIMIT, 0, max_flows,
			   (struct env_mode){ .hash_seed = 41 }))
		return false;
	set_thresholds(e, 0, 0); /* no loader: only the limit's own threshold promotes */
	set_time(e, 5 * MS);
	return true;
}

static void crowd_close(struct env *e, cpu_set_t *orig)
{
	sched_setaffinity(0, sizeof(*orig), orig);
	env_close(e);
}

/* Every source `each` times, one packet a turn, in an order shuffled afresh every round. */
static void crowd_send(struct env *e, uint32_t each, uint32_t *p, uint32_t *d)
{
	static uint32_t order[CROWD_SOURCES];
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (uint32_t i = 0; i < CROWD_SOURCES; i++)
		order[i] = i;
	for (uint32_t r = 0; r < each; r++) {
		for (uint32_t i = CROWD_SOURCES - 1; i > 0; i--) {
			uint32_t j, t;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			j = (uint32_t)(x % (i + 1));
			t = order[i], order[i] = order[j], order[j] = t;
		}
		for (uint32_t i = 0; i < CROWD_SOURCES; i++)
			send4(e, CROWD_BASE + order[i], 1, 18, p, d);
	}
}

/*
 * Whether the crowd is what holds the botnet here: with 4 or more possible
 * CPUs a limit of 8 leaves each CPU a share of 1 (or 2), and every source's
 * own estimate caps it first (the bound is checked all the same).
 */
static bool crowd_holds(void)
{
	bool holds = CROWD_LIMIT / rw_possible_cpus() >= 4;

	if (!holds)
		printf("     %u possible CPUs: each source's share of %u is under 4, its own estimate caps it\n",
		       rw_possible_cpus(), CROWD_LIMIT);
	return holds;
}

/* One botnet on CPU 0: every source `each` times, table `max_flows`; its verdicts and counters. */
static bool crowd_run(uint32_t max_flows, uint32_t each, uint32_t *p, uint32_t *d,
		      struct rw_stats *st)
{
	cpu_set_t orig;
	struct env e;

	*p = *d = 0;
	if (!crowd_open(&e, &orig, max_flows))
		return false;
	crowd_send(&e, each, p, d);
	read_stats(&e, st);
	crowd_close(&e, &orig);
	return true;
}

/*
 * 8 192 sources at 3x a limit of 8 in one window: with a table of 512 (room
 * for one in sixteen) and with room for all, whatever is tracked and
 * however the noise hides them, the botnet is admitted sources x limit
 * within the distinct count's error, and the drops that hold the untracked
 * ones are the crowd's.
 */
static void test_crowd_holds_a_botnet_beyond_the_table(void)
{
	const uint32_t tables[] = { 512, 2 * CROWD_SOURCES };
	const uint64_t allowed = (uint64_t)CROWD_SOURCES * CROWD_LIMIT;

	for (uint32_t t = 0; t < 2; t++) {
		struct rw_stats st;
		uint32_t p, d;

		if (!crowd_run(tables[t], 3 * CROWD_LIMIT, &p, &d, &st))
			return;
		printf("     %u sources at 3x a limit of %u, table %u: %u admitted (%.3fx the limits),"
		       " %llu tracked, crowd drops %llu, capped %llu\n",
		       CROWD_SOURCES, CROWD_LIMIT, tables[t], p, (double)p / (double)allowed,
		       (unsigned long long)st.new_flows, (unsigned long long)st.crowd_drops,
		       (unsigned long long)st.capped_drops);
		CHECK(p <= allowed * (100 + CROWD_ERROR_PCT) / 100);
		CHECK(p >= allowed * (100 - CROWD_ERROR_PCT) / 100 / rw_possible_cpus());
		CHECK(!crowd_holds() || st.crowd_drops > 0);
		CHECK_EQ(st.dropped, d);
	}
}

/*
 * The same crowd at 7 of its limit of 8 (the crowd's budget 87.5 % used):
 * the crowd drops none of it, table full or not.
 */
static void test_crowd_under_its_limits_loses_nothing_to_it(void)
{
	const uint32_t tables[] = { 512, 2 * CROWD_SOURCES };

	for (uint32_t t = 0; t < 2; t++) {
		struct rw_stats st;
		uint32_t p, d;

		if (!crowd_run(tables[t], CROWD_LIMIT - 1, &p, &d, &st))
			return;
		printf("     %u sources at %u of a limit of %u, table %u: %u dropped (crowd %llu,"
		       " capped %llu: a source's own estimate over its share of a CPU)\n",
		       CROWD_SOURCES, CROWD_LIMIT - 1, CROWD_LIMIT, tables[t], d,
		       (unsigned long long)st.crowd_drops, (unsigned long long)st.capped_drops);
		CHECK_EQ(st.crowd_drops, 0);
	}
}

/*
 * The botnet again, each source's packets coming in on two CPUs by turns
 * (one round on CPU 0, the next on CPU 1, 40 ms apart, all in one window):
 * each CPU counts every source, and their shares of the budget add up to
 * the one crowd's, not twice it.
 */
static void test_crowd_spread_over_cpus(void)
{
	const uint64_t allowed = (uint64_t)CROWD_SOURCES * CROWD_LIMIT;
	uint32_t p = 0, d = 0;
	struct rw_stats st;
	cpu_set_t orig;
	struct env e;

	if (!crowd_open(&e, &orig, 512))
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("     one CPU online: nothing to spread over\n");
		crowd_close(&e, &orig);
		return;
	}
	for (uint32_t r = 0; r < 3 * CROWD_LIMIT; r++) {
		pin_cpu((int)(r % 2));
		set_time(&e, 5 * MS + r * 40 * MS);
		crowd_send(&e, 1, &p, &d);
	}
	read_stats(&e, &st);
	printf("     %u sources at 3x a limit of %u over 2 CPUs by turns, table 512: %u admitted "
	       "(%.3fx the limits), crowd drops %llu, capped %llu\n", CROWD_SOURCES, CROWD_LIMIT, p,
	       (double)p / (double)allowed, (unsigned long long)st.crowd_drops,
	       (unsigned long long)st.capped_drops);
	CHECK(p <= allowed * (100 + CROWD_ERROR_PCT) / 100);
	CHECK(!crowd_holds() || st.crowd_drops > 0);
	crowd_close(&e, &orig);
}

/* CPU 0's crowd entry idx (a slot's, or the window's at index slots) into *c. */
static bool crowd_entry(struct env *e, uint32_t idx, struct rw_crowd *c)
{
	return cpu0_value(e, e->skel->maps.crowd, idx, c, sizeof(*c));
}

/* The HyperLogLog of sources base .. base + n - 1 as the program hashes them, maxed into reg. */
static void crowd_model(struct env *e, uint32_t base, uint32_t n, uint8_t reg[RW_CROWD_REGS])
{
	for (uint32_t i = 0; i < n; i++) {
		struct rw_key k = key4(base + i);
		uint64_t h = rw_hash(&k, e->skel->rodata->cfg_hash_seed) & e->t.hash_mask;
		uint32_t j = rw_crowd_reg(h);

		if (reg[j] < rw_crowd_rank(h))
			reg[j] = rw_crowd_rank(h);
	}
}

/* The packets of sources base .. base + n - 1 the table tracks, over their windows at epoch. */
static uint64_t tracked_packets(struct env *e, uint32_t base, uint32_t n, uint64_t epoch,
				uint32_t *keys)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct rw_key k = key4(base + i);
		struct rw_window_sum w;

		if (!flow_window(e, &k, epoch, &w))
			continue;
		sum += w.packets;
		(*keys)++;
	}
	return sum;
}

/*
 * The crowd's entries through the real program on CPU 0: 16 384 sources
 * under their limit, four times over in one slot, then 4 096 others in the
 * next. Each slot's registers and the window's are exactly the
 * HyperLogLog of the keys they saw; every packet of the window is counted
 * once, in the window's entry or in the tracked window of a source promoted
 * out of it, and the first slot's entry gets its own sums once it has ended
 * (bpf/crowd.h: rw_crowd_close_slot). The limit is 15 packets a CPU on any
 * CPU count, so the same sources are promoted on each: those whose sketch
 * estimates, collisions and all, reach it. Among them are sources whose
 * estimate of the slot has none of their promoting packet, which the entry
 * counts and the crowd must not.
 */
static void test_crowd_registers_are_the_keys_hyperloglog(void)
{
	static uint8_t slot0[RW_CROWD_REGS], slot1[RW_CROWD_REGS], window[RW_CROWD_REGS];
	const uint32_t n = 16384, later = 4096;
	uint32_t p = 0, d = 0, diff[3] = { 0 }, keys0 = 0, keys = 0;
	struct rw_crowd *c = calloc(1, sizeof(*c));
	uint64_t tracked0, tracked, slot0_packets;
	cpu_set_t orig;
	struct env e;

	sched_getaffinity(0, sizeof(orig), &orig);
	pin_cpu(0);
	if (!c || !env_open_mode(&e, 10, 100 * MS, 15 * rw_possible_cpus(), 0, 512,
				 (struct env_mode){ .hash_seed = 43 }))
		goto out;
	set_thresholds(&e, 0, 0);
	set_time(&e, 5 * MS);
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t i = 0; i < n; i++)
			send4(&e, CROWD_BASE + i, 1, 18, &p, &d);
	memset(slot0, 0, sizeof(slot0));
	crowd_model(&e, CROWD_BASE, n, slot0);
	CHECK(crowd_entry(&e, 0, c));
	for (uint32_t j = 0; j < RW_CROWD_REGS; j++)
		diff[0] += c->reg[j] != slot0[j];
	CHECK(crowd_entry(&e, e.slots, c));
	tracked0 = tracked_packets(&e, CROWD_BASE, n, 0, &keys0);
	printf("     %u sources x 4 in a slot: %u passed, %u dropped; the window's entry: %llu packets,"
	       " %u distinct; %u sources promoted with %llu packets\n", n, p, d,
	       (unsigned long long)c->packets, c->distinct, keys0, (unsigned long long)tracked0);
	CHECK_EQ(p, 4 * n);
	CHECK(keys0 > 0);
	CHECK_EQ(c->packets + tracked0, 4 * n);

	set_time(&e, 105 * MS);
	for (uint32_t i = 0; i < later; i++)
		send4(&e, CROWD_BASE + n + i, 1, 18, &p, &d);
	memset(slot1, 0, sizeof(slot1));
	crowd_model(&e, CROWD_BASE + n, later, slot1);
	for (uint32_t j = 0; j < RW_CROWD_REGS; j++)
		window[j] = slot0[j] > slot1[j] ? slot0[j] : slot1[j];
	CHECK(crowd_entry(&e, 1, c));
	for (uint32_t j = 0; j < RW_CROWD_REGS; j++)
		diff[1] += c->reg[j] != slot1[j];
	CHECK(crowd_entry(&e, e.slots, c));
	for (uint32_t j = 0; j < RW_CROWD_REGS; j++)
		diff[2] += c->reg[j] != window[j];
	tracked = tracked_packets(&e, CROWD_BASE, n + later, 1, &keys);
	CHECK_EQ(c->packets + tracked, 4 * n + later);
	slot0_packets = c->start_packets;
	CHECK(crowd_entry(&e, 0, c));
	CHECK_EQ(c->packets, slot0_packets);
	printf("     registers unlike the keys' HyperLogLog: slot 0 %u, slot 1 %u, window %u;"
	       " %u sources promoted by the next slot\n", diff[0], diff[1], diff[2], keys);
	CHECK_EQ(diff[0], 0);
	CHECK_EQ(diff[1], 0);
	CHECK_EQ(diff[2], 0);
	env_close(&e);
out:
	sched_setaffinity(0, sizeof(orig), &orig);
	free(c);
}

void run_crowd_tests(void)
{
	RUN(test_crowd_registers_are_the_keys_hyperloglog);
	RUN(test_crowd_holds_a_botnet_beyond_the_table);
	RUN(test_crowd_under_its_limits_loses_nothing_to_it);
	RUN(test_crowd_spread_over_cpus);
}
