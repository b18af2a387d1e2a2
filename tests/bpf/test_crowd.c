// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The crowd (bpf/crowd.h), through the real program on one CPU: a botnet of
 * more sources over their limit than the table holds, each lost in the
 * noise of the others, is held in aggregate to sources x limit; a crowd of
 * sources each under its limit loses nothing to it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <unistd.h>

#include "bpfenv.h"
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

void run_crowd_tests(void)
{
	RUN(test_crowd_holds_a_botnet_beyond_the_table);
	RUN(test_crowd_under_its_limits_loses_nothing_to_it);
	RUN(test_crowd_spread_over_cpus);
}
