// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include "bpfenv.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sched.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "cli/config.h"
#include "model/rules.h"
#include "testlib.h"

void set_thresholds(struct env *e, uint64_t promote_packets, int64_t free_promotions)
{
	struct rw_thresholds t = { .promote_packets = promote_packets,
				   .free_promotions = free_promotions };

	/* Every kind's: the main one's and any --rank kind's. */
	for (uint32_t k = 0; k < RW_KIND_COUNT; k++)
		CHECK_EQ(rw_thresholds_write(e->thresholds, k, &t), 0);
}

/* RW_TEST_VERBOSE=1: libbpf's messages, the verifier's log of a refused load among them. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

bool env_open_mode(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
		   uint64_t limit_bytes, uint32_t max_flows, struct env_mode mode)
{
	struct rw_load_params p = {
		.slot_ns = slot_ns, .slots = slots, .limit_packets = limit_packets,
		.limit_bytes = limit_bytes, .max_flows = max_flows, .test_clock = true,
		.dry_run = mode.dry_run, .malformed_drop = mode.malformed_drop, .sample = mode.sample,
		.events = mode.events, .pcap = mode.pcap, .ban_ns = mode.ban_ns, .hash_clear = mode.hash_clear,
		.hash_seed = mode.hash_seed, .key_kind = mode.key_kind, .rank_mask = mode.rank_mask,
		.v6_prefix = mode.v6_prefix ? mode.v6_prefix : 128,
		.burst_ns = mode.paced ? mode.burst_ns : RW_BURST_WINDOW,
		/* As `ratewall run` plans them: each rule's counts are per CPU (64 at most here). */
		.max_rules = RW_DEFAULT_MAX_RULES,
		.libbpf_log = getenv("RW_TEST_VERBOSE") ? print_libbpf : NULL,
	};
	struct rw_maps m;
	int err;

	memset(e, 0, sizeof(*e));
	err = rw_bpf_load(&p, &e->skel);
	if (err) {
		fprintf(stderr, "  cannot load the program: %s\n", strerror(-err));
		CHECK(err == 0);
		return false;
	}
	rw_maps_of(e->skel, &m);
	e->prog = bpf_program__fd(e->skel->progs.ratewall_xdp);
	e->fds = m.table;
	e->stats = m.stats;
	e->thresholds = m.thresholds;
	e->ncpus = rw_possible_cpus();
	e->slots = slots;
	e->slot_ns = slot_ns;
	e->recs = calloc(e->ncpus, sizeof(*e->recs));
	err = rw_table_map(&e->t, &e->fds, e->ncpus, slots, e->skel->rodata->cfg_hash_seed, true);
	if (err || !e->recs) {
		fprintf(stderr, "  cannot map the table: %s\n", strerror(-err));
		CHECK(err == 0);
		ratewall_bpf__destroy(e->skel);
		free(e->recs);
		return false;
	}
	e->t.hash_mask = ~mode.hash_clear;
	set_thresholds(e, 0, 1000000);
	return true;
}

bool env_open_sized(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
		    uint64_t limit_bytes, uint32_t max_flows)
{
	return env_open_mode(e, slots, slot_ns, limit_packets, limit_bytes, max_flows,
			     (struct env_mode){ 0 });
}

bool env_open(struct env *e, uint32_t slots, uint64_t slot_ns, uint64_t limit_packets,
	      uint64_t limit_bytes)
{
	return env_open_sized(e, slots, slot_ns, limit_packets, limit_bytes, 1024);
}

void env_close(struct env *e)
{
	rw_table_unmap(&e->t);
	free(e->recs);
	ratewall_bpf__destroy(e->skel);
}

void set_time(struct env *e, uint64_t ns)
{
	e->skel->bss->test_clock_ns = ns;
}

uint32_t run_frame(struct env *e, const struct fb *f)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = (__u32)f->len, .repeat = 1);
	int err = bpf_prog_test_run_opts(e->prog, &o);

	if (err)
		fprintf(stderr, "  test run of a %zu-byte frame failed: %s\n", f->len, strerror(-err));
	CHECK_EQ(err, 0);
	return err ? 0xdead : o.retval;
}

void read_stats(struct env *e, struct rw_stats *s)
{
	CHECK_EQ(rw_stats_read(e->stats, e->ncpus, s, NULL, 0), 0);
}

bool flow_window(struct env *e, const struct rw_key *k, uint64_t now_epoch,
		 struct rw_window_sum *w)
{
	struct rw_flow_view fv;
	uint64_t state;
	int64_t i = rw_table_find(&e->t, k, &state);

	if (i < 0)
		return false;
	rw_table_flow(&e->t, (uint32_t)i, state, e->recs, &fv);
	rw_flow_window(&fv, e->slots, now_epoch, w);
	return true;
}

uint32_t entries_of(struct env *e, const struct rw_key *k)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < e->t.entries; i++) {
		struct rw_key key;
		uint64_t state;

		n += rw_table_entry(&e->t, i, &key, &state) && memcmp(&key, k, sizeof(key)) == 0;
	}
	return n;
}

struct rw_key key4(uint32_t saddr)
{
	struct rw_key k = { .family = RW_FAMILY_IPV4 };
	uint32_t be = htonl(saddr);

	memcpy(k.addr, &be, 4);
	return k;
}

struct rw_key key6(uint32_t low)
{
	struct rw_key k = { .family = RW_FAMILY_IPV6, .addr = { 0x20, 0x01, 0x0d, 0xb8 } };
	uint32_t be = htonl(low);

	memcpy(k.addr + 12, &be, 4);
	return k;
}

bool pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

void send4(struct env *e, uint32_t saddr, int count, size_t payload, uint32_t *passed,
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

uint32_t passed_of(struct env *e, uint32_t saddr, int count)
{
	uint32_t p = 0, d = 0;

	send4(e, saddr, count, 30, &p, &d);
	CHECK_EQ(p + d, (uint32_t)count);
	return p;
}

bool cpu0_value(struct env *e, const struct bpf_map *map, uint32_t idx, void *out, size_t size)
{
	size_t each = (size + 7) & ~(size_t)7; /* the kernel lays per-CPU values out 8-aligned */
	char *all = calloc(e->ncpus, each);
	bool ok = all && !bpf_map_lookup_elem(bpf_map__fd(map), &idx, all);

	if (ok)
		memcpy(out, all, size);
	free(all);
	return ok;
}

uint64_t new_flows(struct env *e)
{
	struct rw_stats st;

	read_stats(e, &st);
	return st.new_flows;
}

void race_write(struct env *e, uint32_t line, uint32_t index, uint32_t off, uint64_t val)
{
	struct rw_race *r = &e->skel->bss->test_race;

	CHECK(r->nr < RW_RACE_WRITES && off % 8 == 0 && off < 64);
	if (r->nr < RW_RACE_WRITES)
		r->w[r->nr++] = (struct rw_race_write){ .line = line, .index = index, .off = off,
							.val = val };
}

void race_add(struct env *e, uint32_t line, uint32_t index, uint32_t off, uint64_t val)
{
	struct rw_race *r = &e->skel->bss->test_race;
	uint32_t nr = r->nr;

	race_write(e, line, index, off, val);
	if (r->nr > nr)
		r->w[nr].op = RW_RACE_ADD;
}

void race_spin(struct env *e, uint64_t rounds)
{
	struct rw_race *r = &e->skel->bss->test_race;
	uint32_t nr = r->nr;

	race_write(e, RW_RACE_KEYS, 0, 0, rounds);
	if (r->nr > nr)
		r->w[nr].op = RW_RACE_SPIN;
}

void race_arm(struct env *e, uint32_t point)
{
	race_arm_chain(e, point, 1, RW_RACE_NONE, 0);
}

void race_arm_chain(struct env *e, uint32_t point, uint32_t passes, uint32_t next,
		    uint32_t next_passes)
{
	e->skel->bss->test_race.passes = passes;
	e->skel->bss->test_race.next = next;
	e->skel->bss->test_race.next_passes = next_passes;
	__atomic_store_n(&e->skel->bss->test_race.point, point, __ATOMIC_SEQ_CST);
}

bool race_played(struct env *e)
{
	struct rw_race *r = &e->skel->bss->test_race;

	if (__atomic_load_n(&r->point, __ATOMIC_SEQ_CST) != RW_RACE_NONE)
		return false;
	r->nr = 0;
	return true;
}

/* The test env's rule maps, as the loader uses them. */
struct rw_rule_env rule_env_of(struct env *e)
{
	return (struct rw_rule_env){ .rules_fd = bpf_map__fd(e->skel->maps.rules),
				     .hint_fd = bpf_map__fd(e->skel->maps.rule_hint),
				     .index_fd = bpf_map__fd(e->skel->maps.match_index),
				     .ports_fd = bpf_map__fd(e->skel->maps.rule_ports),
				     .stats_fd = bpf_map__fd(e->skel->maps.rule_stats),
				     .window_ns = e->slot_ns * e->slots, .ncpus = e->ncpus };
}

/* The key the env's program keeps, as rules are checked against it. */
struct rw_rule_scope rule_scope_of(struct env *e)
{
	return (struct rw_rule_scope){ e->skel->rodata->cfg_key_kind, e->skel->rodata->cfg_v6_prefix, 0 };
}

/* Installs the rules in text (a rules file) into the env's program. */
void install_rules(struct env *e, const char *text)
{
	struct rw_rule_scope scope = rule_scope_of(e);
	struct rw_rule_env env = rule_env_of(e);
	struct rw_ruleset rs = { 0 };
	char err[256] = "";
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(rw_rules_parse_stream(f, "t.rules", &scope, &rs, err, sizeof(err)), 0);
	if (err[0])
		fprintf(stderr, "  %s\n", err);
	fclose(f);
	CHECK_EQ(rw_rules_install(&env, &rs), 0);
	rw_ruleset_free(&rs);
}

struct rw_hist_slot *hist_rw(struct env *e, size_t *len)
{
	void *p;

	*len = e->t.len[3];
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fds.hist, 0);
	CHECK(p != MAP_FAILED);
	return p == MAP_FAILED ? NULL : p;
}

struct rw_pace *pace_in(struct env *e, struct rw_hist_slot *h, uint32_t idx)
{
	return (struct rw_pace *)((uint8_t *)h + rw_pace_offset(e->slots, idx));
}

struct rw_pace *pace_rw(struct env *e, uint32_t idx, void **map, size_t *len)
{
	struct rw_hist_slot *h = hist_rw(e, len);

	*map = h;
	return h ? pace_in(e, h, idx) : NULL;
}
