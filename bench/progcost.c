// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * progcost: per-packet cost of the ratewall XDP program, next to an XDP
 * drop-all program, measured with bpf_prog_test_run_opts and a large repeat
 * (the kernel reports the mean time per run). Same 64-byte IPv4/UDP frame,
 * same CPU, median of several rounds. Prints one JSON object.
 *
 * -D FILE: also libxdp's dispatcher (FILE: its xdp-dispatcher.o) with one
 * slot enabled. On a kernel that refuses extension programs nothing can fill
 * that slot, but its stub runs instead: the dispatcher's own cost a packet
 * (its configuration read, the call into the slot and the chain-call check)
 * is measured with nothing of ratewall's in it. An extension replaces the
 * stub's few instructions with a jump into its own.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xdp/prog_dispatcher.h>

#include "cli/config.h"
#include "flowfill.h"
#include "kernel/loader.h"
#include "kernel/rules_maps.h"
#include "model/key.h"
#include "model/units.h"
#include "ratewall.h"
#include "ratewall.skel.h"
#include "xdp_drop_all.skel.h"

static const unsigned char frame64[64] = {
	0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
	0x45, 0, 0, 50, 0, 0, 0x40, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 19, 255, 254,
	0x04, 0x00, 0x00, 0x09, 0, 30, 0, 0,
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The kernel's mean ns per run of one test run of `repeat` frames. */
static double run_ns(int prog_fd, unsigned int repeat, unsigned int *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame64, .data_size_in = sizeof(frame64),
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &o)) {
		fprintf(stderr, "progcost: test run failed: %s\n", strerror(errno));
		exit(1);
	}
	*verdict = o.retval;
	return o.duration;
}

/*
 * libxdp's dispatcher from its object, configured as libxdp configures it for
 * one program that passes on (its stub's default return included): the fd of
 * its program, or -1 with a reason on stderr.
 */
static int load_dispatcher(const char *path, struct bpf_object **objp)
{
	struct xdp_dispatcher_config conf = {
		.magic = XDP_DISPATCHER_MAGIC, .dispatcher_version = XDP_DISPATCHER_VERSION,
		.num_progs_enabled = 1,
		.chain_call_actions = { 1u << XDP_PASS | 1u << XDP_DISPATCHER_RETVAL },
	};
	/* Its metadata section is libxdp's own: libbpf would warn that it skips it. */
	libbpf_print_fn_t was = libbpf_set_print(NULL);
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	struct bpf_map *m;
	int err = -ENOENT;

	libbpf_set_print(was);
	if (!obj) {
		fprintf(stderr, "progcost: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	bpf_object__for_each_map(m, obj) {
		if (strstr(bpf_map__name(m), ".rodata"))
			err = bpf_map__set_initial_value(m, &conf, sizeof(conf));
	}
	prog = bpf_object__find_program_by_name(obj, "xdp_dispatcher");
	if (!err && !prog)
		err = -ENOENT;
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "progcost: cannot load libxdp's dispatcher from %s: %s\n", path, strerror(-err));
		bpf_object__close(obj);
		return -1;
	}
	*objp = obj;
	return bpf_program__fd(prog);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

#define NSCEN 4

static const char *verdict_name(unsigned int v)
{
	return v == XDP_DROP ? "drop" : v == XDP_PASS ? "pass" : "other";
}

struct scenario {
	const char *name;
	uint64_t limit_packets;
	bool tracked; /* promoted at its first packet, as `ratewall run` does while there is room */
};

/*
 * n rules the test frame (198.18.0.1) never matches: /24s in random /16s
 * other than 198.18/15, so their hint bits are set elsewhere; plus, with
 * matching, one for 198.18.0.0/15 that enforces what the scenario does (its
 * limit, or allow for none), so the trie is walked for every packet.
 */
/*
 * Rules with a match that cover every address, as the recipes in docs/operations/recipes.md write
 * them (-q): the frame (UDP 1024 -> 9) meets none, but reads its L4 header to
 * find that out.
 */
static const char *const everywhere[] = {
	"0.0.0.0/0 tcp flags syn limit 200", "0.0.0.0/0 udp sport 53,123,11211 limit 20k per dst",
	"0.0.0.0/0 udp dport 11211 deny", "0.0.0.0/0 icmp type echo-request limit 1k",
};
#define NEVERYWHERE (sizeof(everywhere) / sizeof(everywhere[0]))

static int install_rules(struct ratewall_bpf *skel, uint32_t n, bool matching, bool qualified,
			 uint64_t limit, uint32_t slots)
{
	struct rw_rule_env env = { .rules_fd = bpf_map__fd(skel->maps.rules),
				   .hint_fd = bpf_map__fd(skel->maps.rule_hint),
				   .index_fd = bpf_map__fd(skel->maps.match_index),
				   .ports_fd = bpf_map__fd(skel->maps.rule_ports),
				   .stats_fd = bpf_map__fd(skel->maps.rule_stats),
				   .window_ns = 1000000000ULL / slots * slots,
				   .ncpus = rw_possible_cpus() };
	struct rw_ruleset rs = { .rule = calloc(n + 1 + NEVERYWHERE, sizeof(struct rw_rule_spec)),
				 .cap = n + 1 + NEVERYWHERE };
	const struct rw_rule_scope scope = { RW_KIND_SRC, RW_DEFAULT_V6_PREFIX, 0 };
	char why[256];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int err;

	if (!rs.rule)
		return -ENOMEM;
	while (rs.n < n) {
		struct rw_rule_spec *r = &rs.rule[rs.n];

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		*r = (struct rw_rule_spec){ .prefix = { .family = RW_FAMILY_IPV4 }, .plen = 24,
					    .action = RW_RULE_LIMIT, .pps = 1000 };
		r->prefix.addr[0] = (uint8_t)(x >> 8);
		r->prefix.addr[1] = (uint8_t)(x >> 16);
		r->prefix.addr[2] = (uint8_t)(x >> 24);
		if (r->prefix.addr[0] == 198 && (r->prefix.addr[1] & 0xfe) == 18)
			continue;
		rs.n++;
	}
	for (size_t i = 0; qualified && i < NEVERYWHERE; i++) {
		if (rw_rule_parse(everywhere[i], &scope, &rs.rule[rs.n++], why, sizeof(why))) {
			fprintf(stderr, "progcost: %s: %s\n", everywhere[i], why);
			rw_ruleset_free(&rs);
			return -EINVAL;
		}
	}
	if (matching) {
		struct rw_rule_spec *r = &rs.rule[rs.n++];

		*r = (struct rw_rule_spec){ .prefix = { .family = RW_FAMILY_IPV4,
							.addr = { 198, 18 } },
					    .plen = 15, .action = limit ? RW_RULE_LIMIT : RW_RULE_ALLOW,
					    .pps = limit };
	}
	err = rw_rules_install(&env, &rs);
	rw_ruleset_free(&rs);
	return err;
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

/* Lets the next new source be promoted at its first packet. */
static int allow_one_promotion(struct ratewall_bpf *skel)
{
	struct rw_thresholds t = { .free_promotions = 1 };
	int err = 0;

	for (__u32 k = 0; k < RW_KIND_COUNT && !err; k++)
		err = bpf_map_update_elem(bpf_map__fd(skel->maps.thresholds), &k, &t, BPF_ANY);
	return err;
}

int main(int argc, char **argv)
{
	static const struct scenario scen[] = {
		{ "ratewall_sketch_only", 0, false },               /* untracked: the sketch path */
		{ "ratewall_count_only", 0, true },                 /* tracked, no limit configured */
		{ "ratewall_under_limit", 1000000000000ULL, true }, /* tracked pass path, leases */
		{ "ratewall_over_limit", 1, true },                 /* tracked drop path, saturated */
	};
	unsigned int repeat = 1000000, v, verdict[NSCEN], dverdict = 0;
	struct ratewall_bpf *skel[NSCEN];
	double floors[32], ns[NSCEN][32], dns[32];
	const char *dispatcher_path = NULL;
	struct bpf_object *dispatcher = NULL;
	int dispatcher_fd = -1;
	uint32_t slots = 10, fill = 0, nrules = 0;
	int rounds = 7, c;
	bool no_clock = false, coarse = false, matching = false, qualified = false;
	int kind = RW_KIND_SRC;
	unsigned int rank = 0;
	char why[96];
	bool verbose = false;
	struct xdp_drop_all_bpf *base;
	cpu_set_t set;
	double floor;

	while ((c = getopt(argc, argv, "r:n:s:cCk:R:mqK:X:vD:")) != -1) {
		uint64_t v;

		if (c == 'c')
			no_clock = true; /* test clock: the cost without reading the time */
		else if (c == 'C')
			coarse = true;
		else if (c == 'r' && !rw_parse_uint(optarg, 1, 100000000, &v))
			repeat = (unsigned int)v;
		else if (c == 'n' && !rw_parse_uint(optarg, 1, 31, &v))
			rounds = (int)v;
		else if (c == 's' && !rw_parse_uint(optarg, RW_MIN_SLOTS, RW_MAX_SLOTS, &v))
			slots = (uint32_t)v;
		else if (c == 'k' && !rw_parse_uint(optarg, 0, 1u << 24, &v))
			fill = (uint32_t)v;
		else if (c == 'R' && !rw_parse_uint(optarg, 0, RW_MAX_RULES - 1, &v))
			nrules = (uint32_t)v;
		else if (c == 'q')
			qualified = true;
		else if (c == 'm')
			matching = true;
		else if (c == 'K' && rw_key_kind_parse(optarg) >= 0)
			kind = rw_key_kind_parse(optarg);
		else if (c == 'X' && !rw_key_kinds_parse(optarg, &rank, why, sizeof(why)))
			;
		else if (c == 'v')
			verbose = true;
		else if (c == 'D')
			dispatcher_path = optarg;
		else {
			fprintf(stderr, "usage: progcost [-r REPEAT] [-n ROUNDS] [-s SLOTS] [-k PREFILLED_KEYS] [-c (no clock read) | -C (coarse clock)]\n"
				"                [-R RULES (none matching the frame)] [-m (and one matching it)]\n"
				"                [-q (and rules with a match everywhere, none met by the frame)]\n"
				"                [-K src|dst|pair|flow (--key)] [-X KIND,... (--rank)] [-v]\n"
				"                [-D XDP_DISPATCHER_OBJECT (libxdp's dispatcher too)]\n");
			return 2;
		}
	}
	/* One CPU for every measurement: the comparison is what matters. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);

	base = xdp_drop_all_bpf__open_and_load();
	if (!base) {
		fprintf(stderr, "progcost: cannot load the baseline: %s\n", strerror(errno));
		return 1;
	}
	if (dispatcher_path) {
		dispatcher_fd = load_dispatcher(dispatcher_path, &dispatcher);
		if (dispatcher_fd < 0)
			return 1;
		run_ns(dispatcher_fd, 1000, &dverdict); /* warm */
		if (dverdict != XDP_PASS) {
			fprintf(stderr, "progcost: libxdp's dispatcher gave %u, not XDP_PASS\n", dverdict);
			return 1;
		}
	}
	/* Every program loaded first, then rounds taken in turn: drift on a noisy machine hits all alike. */
	for (size_t i = 0; i < NSCEN; i++) {
		struct rw_load_params p = { .slot_ns = 1000000000ULL / slots, .slots = slots,
					    .test_clock = no_clock, .coarse_clock = coarse,
					    .key_kind = (uint8_t)kind, .rank_mask = (uint8_t)rank,
					    .libbpf_log = verbose ? libbpf_log : NULL,
					    .limit_packets = scen[i].limit_packets,
					    .burst_ns = RW_DEFAULT_BURST_NS, /* ratewall run's */
					    .max_flows = fill + fill / 4 + 65536 };
		int err = rw_bpf_load(&p, &skel[i]);

		if (err) {
			fprintf(stderr, "progcost: cannot load ratewall: %s\n", strerror(-err));
			return 1;
		}
		if (fill) {
			struct rw_maps m;
			int64_t placed;

			rw_maps_of(skel[i], &m);
			placed = rw_fill_flows(&m.table, skel[i]->rodata->cfg_hash_seed, fill,
					       rw_possible_cpus(), slots, 0);
			err = placed < 0 ? (int)placed : 0;
		}
		if (!err && (nrules || matching || qualified))
			err = install_rules(skel[i], nrules, matching, qualified, scen[i].limit_packets, slots);
		if (!err && scen[i].tracked)
			err = allow_one_promotion(skel[i]);
		if (err) {
			fprintf(stderr, "progcost: cannot prefill %u keys: %s\n", fill, strerror(-err));
			return 1;
		}
		run_ns(bpf_program__fd(skel[i]->progs.ratewall_xdp), 1000, &verdict[i]); /* warm */
	}
	for (int r = 0; r < rounds; r++) {
		floors[r] = run_ns(bpf_program__fd(base->progs.xdp_drop_all), repeat, &v);
		if (dispatcher)
			dns[r] = run_ns(dispatcher_fd, repeat, &dverdict);
		for (size_t i = 0; i < NSCEN; i++)
			ns[i][r] = run_ns(bpf_program__fd(skel[i]->progs.ratewall_xdp), repeat, &verdict[i]);
	}
	floor = median(floors, rounds);
	printf("{");
	if (dispatcher) { /* the floor's own cost (entry, a return) is in both: the difference is the dispatcher's */
		double d = median(dns, rounds);

		printf("\"xdp_dispatcher_ns\": %.1f, \"xdp_dispatcher_over_floor_ns\": %.1f, ", d, d - floor);
	}
	printf("\"repeat\": %u, \"rounds\": %d, \"slots\": %u, \"frame_bytes\": 64, \"key\": \"%s\", "
	       "\"clock\": \"%s\", \"prefilled_keys\": %u, \"rules\": %u, \"matching_rule\": %s, "
	       "\"xdp_drop_all_ns\": %.1f, \"ratewall\": [",
	       repeat, rounds, slots, rw_key_kind_name((unsigned int)kind), no_clock ? "none" : coarse ? "coarse" : "precise", fill, nrules,
	       matching ? "true" : "false", floor);
	for (size_t i = 0; i < NSCEN; i++) {
		double m = median(ns[i], rounds);

		printf("%s{\"case\": \"%s\", \"verdict\": \"%s\", \"ns\": %.1f, \"over_floor_ns\": %.1f}",
		       i ? ", " : "", scen[i].name, verdict_name(verdict[i]), m, m - floor);
		ratewall_bpf__destroy(skel[i]);
	}
	printf("]}\n");
	xdp_drop_all_bpf__destroy(base);
	bpf_object__close(dispatcher);
	return 0;
}
