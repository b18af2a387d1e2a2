// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The program loads in every configuration a machine of RW_MAX_CPUS CPUs
 * could ask of it. The verifier walks each load's paths until it has seen
 * them all or a million instructions: a configuration that takes every
 * branch, on a machine whose CPU count the per-CPU loops run to, is where a
 * change comes nearest that limit, and a kernel older than this host's
 * counts more than this host does. So each load here pretends to
 * RW_MAX_CPUS CPUs (the loops' bound is the only thing the count changes
 * for the verifier), and the most instructions any of them took is printed
 * with the margin left.
 */
#include <stdio.h>
#include <string.h>

#include "bpfenv.h"
#include "cli/config.h"
#include "testlib.h"

/*
 * Where any kernel's count must stay, with room for the next change: Debian
 * 12's 6.12 counts about 6 % more than 6.18 for the same object. The refill,
 * once walked again for every state a packet's path reached it in, is
 * verified once (bpf/limit.h), and --samples' copy is called last
 * (bpf/samples.h): the git log has the counts each change moved.
 */
#define BUDGET (RW_VERIFIER_INSNS_LIMIT * 8 / 10)

static int pretend_max_cpus(struct ratewall_bpf *skel, void *arg)
{
	(void)arg;
	skel->rodata->cfg_nr_cpus = RW_MAX_CPUS;
	return 0;
}

/* Loads p as RW_MAX_CPUS CPUs would; the verifier's count, or 0 if the load was refused. */
static uint32_t load_counted(struct rw_load_params *p, const char *what)
{
	struct ratewall_bpf *skel;
	uint32_t insns;
	int err;

	p->prepare = pretend_max_cpus;
	p->verified_insns = &insns;
	p->test_clock = true;
	p->max_rules = RW_DEFAULT_MAX_RULES;
	err = rw_bpf_load(p, &skel);
	printf("  %-54s %7u insns%s%s\n", what, insns, err ? ": refused, " : "",
	       err ? strerror(-err) : "");
	CHECK_EQ(err, 0);
	if (err)
		return 0;
	ratewall_bpf__destroy(skel);
	return insns;
}

/* What `ratewall run` loads with no options. */
static void test_load_defaults(void)
{
	struct rw_load_params p = { .slots = RW_DEFAULT_SLOTS, .slot_ns = 100 * MS,
				    .limit_packets = 1000, .max_flows = 32768,
				    .burst_ns = 100 * MS, .v6_prefix = RW_DEFAULT_V6_PREFIX };
	uint32_t n = load_counted(&p, "defaults");

	CHECK(n > 0 && n <= BUDGET);
}

/*
 * Every key kind, paced and not, with every option that adds a path: both
 * limits, the most slots, IPv6 cut, every other kind ranked, events, bans,
 * samples, --samples' frame copies, malformed drop and per-interface totals; the coarse clock on the
 * unpaced half.
 */
static void test_load_every_branch(void)
{
	static const char *const kinds[RW_KIND_COUNT] = { "src", "dst", "pair", "flow" };
	uint32_t most = 0;

	for (uint8_t kind = 0; kind < RW_KIND_COUNT; kind++) {
		for (int paced = 0; paced <= 1; paced++) {
			struct rw_load_params p = {
				.key_kind = kind,
				.rank_mask = (uint8_t)(((1u << RW_KIND_COUNT) - 1) & ~(1u << kind)),
				.v6_prefix = 56, .slots = RW_MAX_SLOTS, .slot_ns = 100 * MS,
				.limit_packets = 1000, .limit_bytes = 1000000, .max_flows = 4096,
				.burst_ns = paced ? 20 * MS : RW_BURST_WINDOW,
				.coarse_clock = !paced, .malformed_drop = true, .events = true,
				.ban_ns = 60000 * MS, .sample = true, .pcap = true,
				.nifaces = 4, .ifindex = { 1, 2, 3, 4 },
			};
			char what[64];
			uint32_t n;

			snprintf(what, sizeof(what), "--key %s, %s, every option", kinds[kind],
				 paced ? "--burst 20ms" : "--burst window --clock coarse");
			n = load_counted(&p, what);
			CHECK(n > 0);
			if (n > most)
				most = n;
		}
	}
	printf("  most: %u insns, %u%% of the verifier's limit (budget %u%%)\n", most,
	       most / (RW_VERIFIER_INSNS_LIMIT / 100), BUDGET / (RW_VERIFIER_INSNS_LIMIT / 100));
	CHECK(most <= BUDGET);
}

void run_load_tests(void)
{
	RUN(test_load_defaults);
	RUN(test_load_every_branch);
}
