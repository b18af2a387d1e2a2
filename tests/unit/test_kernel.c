// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of user/kernel/: The kernel room's code that needs no kernel: window sums and
 * the rules of age, memory plans, the hash, the list of what the program enforces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "kernel/enforced.h"
#include "kernel/meminfo.h"
#include "kernel/memplan.h"
#include "kernel/window.h"
#include "ratewall_hash.h"
#include "unit.h"

static void test_window_sum_skips_stale_slots(void)
{
	uint32_t slots = 4;
	struct rw_hist_slot hist[4] = { 0 };
	struct rw_hot hot[4] = {
		/* now = epoch 100: live epochs are 97..100 (and 101, a CPU a slot ahead). */
		{ .epoch = 100, .packets = 10, .bytes = 1000, .drop_packets = 1, .drop_bytes = 100, .gen = 3 },
		{ .epoch = 96, .packets = 700, .bytes = 70000, .gen = 3 }, /* just out of the window */
		{ .epoch = 101, .packets = 3, .bytes = 300, .gen = 3 },    /* ahead of the reader */
		{ .epoch = 100, .packets = 40, .bytes = 4000, .gen = 2 },  /* an earlier generation's */
	};
	struct rw_flow_view fv = { .state = rw_st_make(101, 3, RW_ST_LIVE), .hot = hot, .ncpus = 4,
				   .hist = hist };
	struct rw_window_sum w;

	set_hist(hist, 99, slots, 20, 0);
	set_hist(hist, 97, slots, 5, 5);    /* oldest live slot */
	set_hist(hist, 94, slots, 1000, 0); /* slot 2: stale by a whole round */
	rw_flow_window(&fv, slots, 100, &w);
	CHECK_EQ(w.packets, 10 + 20 + 5 + 3);
	CHECK_EQ(w.bytes, (10 + 20 + 5 + 3) * 100ULL);
	CHECK_EQ(w.drop_packets, 6);
	CHECK_EQ(w.drop_bytes, 600);
	CHECK_EQ(w.cpus, 2); /* CPUs with live counts of this generation */
	CHECK_EQ(w.newest_epoch, 101);
	CHECK(!rw_window_idle(&w, 100, slots));

	/* Four slots later, nothing is live: idle, to be wiped. */
	rw_flow_window(&fv, slots, 105, &w);
	CHECK_EQ(w.packets, 0);
	CHECK_EQ(w.cpus, 0);
	CHECK(rw_window_idle(&w, 105, slots));
	/* A slot being restarted is no round's: not counted, not newest. */
	hist[99 % 4].epoch = RW_HIST_BUSY;
	rw_flow_window(&fv, slots, 100, &w);
	CHECK_EQ(w.packets, 10 + 5 + 3);
	/* A flow with no history yet is summed from its records alone. */
	fv.hist = NULL;
	fv.ncpus = 1;
	rw_flow_window(&fv, slots, 100, &w);
	CHECK_EQ(w.packets, 10);
}

/*
 * The age rules both sides share: a record's 32-bit epoch read against the
 * entry's 48-bit one across the wrap, the entry state's fields, and idleness
 * with its one spare slot.
 */
static void test_age_rules(void)
{
	uint64_t bases[] = { 0, 5, (1ULL << 32) - 2, (1ULL << 32) + 3, 123456789012ULL };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		uint64_t e = bases[i], s = rw_st_make(e, 200, RW_ST_LIVE | RW_ST_OVERFLOW);
		struct rw_hot f = { .epoch = (uint32_t)e };

		CHECK_EQ(rw_hot_epoch(&f, e), e);
		CHECK_EQ(rw_hot_epoch(&f, e + 9), e);          /* the entry moved on since */
		CHECK_EQ(rw_hot_epoch(&f, e + 2000000000ULL), e);
		/* Left behind for more than 2^31 slots, up to 2^32 - RW_HOT_AHEAD - 1. */
		CHECK_EQ(rw_hot_epoch(&f, e + (1ULL << 31) + 1), e);
		CHECK_EQ(rw_hot_epoch(&f, e + (1ULL << 32) - RW_HOT_AHEAD - 1), e);
		if (e >= RW_HOT_AHEAD) /* ... and as far ahead as a record may be */
			CHECK_EQ(rw_hot_epoch(&f, e - RW_HOT_AHEAD), e);
		if (e >= 3)
			CHECK_EQ(rw_hot_epoch(&f, e - 3), e); /* a saturated record ahead of the state */
		CHECK_EQ(rw_st_epoch(s), e);
		CHECK_EQ(rw_st_gen(s), 200);
		CHECK(rw_st_live(s));
		CHECK(!rw_st_live(s | RW_ST_BUSY));
		/* 4 slots, carried counts up to 3 slots past the state, one spare slot */
		CHECK(!rw_st_quiet(s, e + 7, 4));
		CHECK(rw_st_quiet(s, e + 8, 4));
		CHECK(!rw_st_idle(s, e + 8, 4));
		CHECK(rw_st_idle(s, e + 9, 4));
		CHECK(!rw_st_idle(s | RW_ST_BUSY, e + 50, 4));
	}
	CHECK_EQ(rw_st_gen(rw_st_make(7, (uint8_t)(255 + 1), RW_ST_LIVE)), 0);
	CHECK_EQ(rw_st_epoch(rw_st_make(RW_ST_EPOCH_MASK + 5, 1, 0)), 4); /* 48 bits kept */
	CHECK(!rw_hist_held(0));
	CHECK(!rw_hist_held(RW_HIST_BUSY));
	CHECK(rw_hist_held(1));
	CHECK_EQ(rw_hist_round(1), 0);
}

/* The promotion threshold a limit needs: ncpus x (threshold - 1) never reaches the limit. */
static void test_limit_threshold_bound(void)
{
	static const uint64_t limits[] = { 1, 2, 3, 7, 100, 999, 1000, 10000, 123456789, 1ULL << 40 };
	static const uint32_t cpus[] = { 1, 2, 3, 16, 64, 192, 1024 };

	CHECK_EQ(rw_limit_threshold(0, 4, 0), 0);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		for (size_t j = 0; j < sizeof(cpus) / sizeof(cpus[0]); j++) {
			uint64_t t = rw_limit_threshold(limits[i], cpus[j], RW_MAX_THRESHOLD);

			CHECK(t >= 1 && t <= RW_MAX_THRESHOLD);
			CHECK((t - 1) * cpus[j] < limits[i]);
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Count-min needs its two rows to collide independently: over 65 536
 * sequential sources (how real ranges look), pairs that share both buckets
 * stay near what independent rows give (n^2 / 2 / columns^2), and each row's
 * load is as even as chance makes it.
 */
static void test_hash_rows_independent(void)
{
	const uint32_t n = 65536;
	const uint64_t expect = (uint64_t)n * n / 2 / ((uint64_t)RW_SKETCH_COLS * RW_SKETCH_COLS);
	uint32_t *pairs = calloc(n, sizeof(*pairs)), *row0 = calloc(RW_SKETCH_COLS, sizeof(*row0));

	for (int fam = RW_FAMILY_IPV4; fam <= RW_FAMILY_IPV6; fam += 2) {
		uint64_t both = 0, run = 0;
		double chi = 0, mean = (double)n / RW_SKETCH_COLS;

		memset(row0, 0, RW_SKETCH_COLS * sizeof(*row0));
		for (uint32_t i = 0; i < n; i++) {
			struct rw_key k = { .family = (uint8_t)fam };
			uint32_t v = htonl((fam == RW_FAMILY_IPV4 ? 0xc6120000u : 0) + i);
			uint64_t h;

			if (fam == RW_FAMILY_IPV6) {
				k.addr[0] = 0x20, k.addr[1] = 0x01, k.addr[2] = 0x0d, k.addr[3] = 0xb8;
				memcpy(k.addr + 12, &v, 4);
			} else {
				memcpy(k.addr, &v, 4);
			}
			h = rw_hash(&k, 0x243f6a8885a308d3ULL);
			pairs[i] = rw_sketch_col(h, 0) << 16 | rw_sketch_col(h, 1);
			row0[rw_sketch_col(h, 0)]++;
		}
		qsort(pairs, n, sizeof(*pairs), cmp_u32);
		for (uint32_t i = 1; i < n; i++) {
			run = pairs[i] == pairs[i - 1] ? run + 1 : 0;
			both += run;
		}
		for (uint32_t i = 0; i < RW_SKETCH_COLS; i++)
			chi += (row0[i] - mean) * (row0[i] - mean) / mean;
		chi /= RW_SKETCH_COLS - 1;
		if (both > 3 * expect || chi < 0.5 || chi > 1.5)
			fprintf(stderr, "  IPv%d: %llu pairs share both rows, row 0 chi2/df %.3f\n", fam,
				(unsigned long long)both, chi);
		CHECK(both <= 3 * expect);
		CHECK(chi > 0.5 && chi < 1.5);
	}
	free(pairs);
	free(row0);
}

static void test_memplan(void)
{
	struct rw_memplan a, b;
	uint64_t sum = 0;

	rw_memplan(2, 32768, 10, RW_DEFAULT_MAX_RULES, false, &a);
	for (uint32_t i = 0; i < a.n; i++)
		sum += a.map[i].bytes;
	CHECK_EQ(sum, a.total);
	CHECK_EQ(strcmp(a.map[2].name, "hot"), 0);
	/*
	 * The record is 32 B: from 2 to 64 CPUs the table grows by that per CPU
	 * and entry (entries: 5/4 of the flows, in whole buckets), no more.
	 */
	rw_memplan(64, 32768, 10, RW_DEFAULT_MAX_RULES, false, &b);
	CHECK(b.map[2].bytes - a.map[2].bytes + 4096 >=
	      62ULL * sizeof(struct rw_hot) * rw_table_buckets(32768) * RW_WAYS);
	CHECK(b.map[2].bytes - a.map[2].bytes <=
	      62ULL * sizeof(struct rw_hot) * rw_table_buckets(32768) * RW_WAYS + 4096);
	CHECK_EQ(b.map[3].bytes, a.map[3].bytes); /* the history does not depend on the CPUs */
	/* Defaults on 64 CPUs stay within 130 MiB (bench/targets.py: MEMORY_TARGET_MIB). */
	CHECK(b.total <= 130ULL << 20);
	/* One more flow costs about what rw_memplan_per_flow says (whole buckets and pages). */
	rw_memplan(64, 30000, 10, RW_DEFAULT_MAX_RULES, false, &a);
	rw_memplan(64, 30000 + 12 * RW_WAYS, 10, RW_DEFAULT_MAX_RULES, false, &b);
	CHECK(b.total - a.total <= 12 * RW_WAYS * rw_memplan_per_flow(64, 10) + 4 * 4096);
	CHECK(b.total - a.total + 4 * 4096 >= 12 * RW_WAYS * rw_memplan_per_flow(64, 10) * 9 / 10);
	/* --samples adds its 4 MiB ring buffer and its map of RW_PCAP_KEYS keys. */
	rw_memplan(2, 32768, 10, RW_DEFAULT_MAX_RULES, false, &a);
	rw_memplan(2, 32768, 10, RW_DEFAULT_MAX_RULES, true, &b);
	CHECK(b.total - a.total >= RW_PCAP_RINGBUF - 4096 +
	      RW_PCAP_KEYS * (sizeof(struct rw_key) + sizeof(struct rw_pcap_budget)));
	CHECK(b.total - a.total <= RW_PCAP_RINGBUF + RW_PCAP_KEYS * 128ULL + (1u << 16) + 4096);
}

static void test_window_span(void)
{
	uint64_t slot = 100000000ULL;

	/* 10 slots of 100 ms at 30 ms into a slot: 9 full slots + 30 ms. */
	CHECK_EQ(rw_window_span_ns(50 * slot + 30000000ULL, 0, slot, 10), 930000000ULL);
	/* Counting began 200 ms ago: the window covers only that. */
	CHECK_EQ(rw_window_span_ns(50 * slot, 50 * slot - 200000000ULL, slot, 10), 200000000ULL);
	CHECK_EQ(rw_window_span_ns(50 * slot, 50 * slot, slot, 10), 1); /* never zero */
}

static void test_meminfo_available(void)
{
	static char text[] = "MemTotal:       24683584 kB\nMemFree:        24430000 kB\n"
			     "MemAvailable:   24232292 kB\nBuffers:            1234 kB\n";
	static char missing[] = "MemTotal: 100 kB\n";
	FILE *f = fmemopen(text, sizeof(text) - 1, "r");

	CHECK_EQ(rw_meminfo_available(f), 24232292ULL * 1024);
	fclose(f);
	f = fmemopen(missing, sizeof(missing) - 1, "r");
	CHECK_EQ(rw_meminfo_available(f), 0);
	fclose(f);
}

/* Per-slot counts of one flow: history slots, records, stale and future ones. */
static void test_flow_slot_counts(void)
{
	uint32_t slots = 4;
	struct rw_hist_slot hist[4] = { 0 };
	uint64_t out[4];
	struct rw_hot hot[3] = {
		{ .epoch = 99, .packets = 7, .bytes = 700, .drop_packets = 2, .gen = 1 },
		{ .epoch = 100, .packets = 50, .gen = 1 }, /* the current slot: not a complete one */
		{ .epoch = 97, .packets = 1, .bytes = 100, .gen = 1 },
	};
	struct rw_flow_view fv = { .state = rw_st_make(100, 1, RW_ST_LIVE), .hot = hot, .ncpus = 3,
				   .hist = hist };

	/* now = 100: complete slots 96..99 */
	set_hist(hist, 96, slots, 30, 3);
	set_hist(hist, 97, slots, 20, 0);
	set_hist(hist, 98, slots, 10, 1);
	set_hist(hist, 95, slots, 999, 0); /* where 99 would be: a round outside the slots asked for */
	rw_flow_slot_counts(&fv, slots, RW_H_PACKETS, 96, 4, out);
	CHECK_EQ(out[0], 30);
	CHECK_EQ(out[1], 20 + 1);
	CHECK_EQ(out[2], 10);
	CHECK_EQ(out[3], 7);
	rw_flow_slot_counts(&fv, slots, RW_H_DROP_PACKETS, 96, 4, out);
	CHECK_EQ(out[0], 3);
	CHECK_EQ(out[1], 0);
	CHECK_EQ(out[2], 1);
	CHECK_EQ(out[3], 2);
	rw_flow_slot_counts(&fv, slots, RW_H_BYTES, 96, 4, out);
	CHECK_EQ(out[1], 2000 + 100);
	/* No history yet: records alone. */
	fv.hist = NULL;
	rw_flow_slot_counts(&fv, slots, RW_H_PACKETS, 97, 4, out);
	CHECK_EQ(out[0], 1);
	CHECK_EQ(out[2], 7);
	CHECK_EQ(out[3], 50);
	/* Records of an earlier generation belong to nobody now. */
	fv.state = rw_st_make(100, 2, RW_ST_LIVE);
	rw_flow_slot_counts(&fv, slots, RW_H_PACKETS, 97, 4, out);
	CHECK_EQ(out[0] + out[2] + out[3], 0);
}

/* The options of a run: 20k pps a key over a 1 s window in 10 slots, the rest as the defaults. */
static struct rw_config enforced_config(void)
{
	return (struct rw_config){ .window_ns = 1000000000ULL, .slots = 10, .pps = 20000,
				   .burst_ns = RW_BURST_WINDOW, .v6_prefix = RW_DEFAULT_V6_PREFIX,
				   .key_kind = RW_KIND_SRC };
}

struct said {
	unsigned int n;
	char text[512];
};

static void say_difference(const char *option, const char *was, const char *now, void *arg)
{
	struct said *d = arg;
	size_t n = strlen(d->text);

	snprintf(d->text + n, sizeof(d->text) - n, "%s%s %s -> %s", d->n++ ? "; " : "", option,
		 was, now);
}

static const char *differences(const struct rw_config *was, const struct rw_config *now,
			       struct said *d)
{
	struct rw_enforced a = rw_enforced_of_config(was, 1000, RW_CLOCK_PRECISE);
	struct rw_enforced b = rw_enforced_of_config(now, 1000, RW_CLOCK_PRECISE);

	memset(d, 0, sizeof(*d));
	CHECK_EQ(rw_enforced_each_difference(&a, &b, say_difference, d), d->n);
	return d->text;
}

/*
 * --replace names each option whose fields differ, once, in the list's
 * order, as the options read (a rate, not the per-window limit it became).
 */
static void test_enforced_differences(void)
{
	struct rw_config was = enforced_config(), now = enforced_config();
	struct said d;

	CHECK_STR(differences(&was, &now, &d), "");
	now.pps = 10000;
	CHECK_STR(differences(&was, &now, &d), "--pps 20.0k -> 10.0k");
	now = enforced_config();
	now.dry_run = true;
	now.malformed_drop = true;
	now.slots = 20; /* the slot length changes with it: still one option */
	CHECK_STR(differences(&was, &now, &d),
		  "--window/--slots 1s/10 slots -> 1s/20 slots; --dry-run off -> on; "
		  "--malformed pass -> drop");
	now = enforced_config();
	now.burst_ns = 100 * 1000000ULL;
	now.ban_ns = 0;
	was.ban_ns = 2000000000ULL;
	was.history_path[0] = 'h'; /* history keeps the events: the program emits them */
	now.levels.n[0] = 1;
	now.bps = 8000000;
	CHECK_STR(differences(&was, &now, &d),
		  "--bps none -> 8.00M; --events on -> off; --ban 2s -> off; --burst window -> 0.1s; "
		  "--levels off -> on");
	CHECK_EQ(d.n, 5);
}

/* What a change does to the flow state --replace keeps, by the class of the fields that differ. */
static void test_enforced_change_classes(void)
{
	struct rw_config cfg = enforced_config();
	struct rw_enforced a = rw_enforced_of_config(&cfg, 1000, RW_CLOCK_PRECISE), b = a;

	CHECK(!rw_enforced_differs(&a, &b, RW_ENFORCED_KEPT));
	b.limit_packets++;
	CHECK(rw_enforced_differs(&a, &b, RW_ENFORCED_KEPT));
	CHECK(!rw_enforced_differs(&a, &b, RW_ENFORCED_LAYOUT));
	b = a;
	b.coarse_clock = true;
	CHECK(rw_enforced_differs(&a, &b, RW_ENFORCED_LAYOUT));
	CHECK(!rw_enforced_differs(&a, &b, RW_ENFORCED_KEY));
	b = rw_enforced_of_config(&cfg, 2000, RW_CLOCK_PRECISE);
	CHECK(rw_enforced_differs(&a, &b, RW_ENFORCED_LAYOUT));
	b = a;
	b.v6_prefix = 48;
	CHECK(rw_enforced_differs(&a, &b, RW_ENFORCED_KEY));
}

/*
 * Every field has an option, and the fields of one option are neighbours
 * in the list (they are named once, as one); status reads them all.
 */
static void test_enforced_options(void)
{
	struct rw_config cfg = enforced_config();
	struct rw_enforced e = rw_enforced_of_config(&cfg, 1000, RW_CLOCK_COARSE);
	char text[512];

	CHECK_EQ(rw_enforced_nfields, 16);
	for (size_t i = 0; i < rw_enforced_nfields; i++) {
		CHECK(rw_enforced_fields[i].option[0] == '-');
		for (size_t j = 0; j + 1 < i; j++) {
			if (!strcmp(rw_enforced_fields[j].option, rw_enforced_fields[i].option))
				CHECK(!strcmp(rw_enforced_fields[i - 1].option,
					      rw_enforced_fields[i].option));
		}
	}
	rw_enforced_options_text(&e, text, sizeof(text));
	CHECK_STR(text, "--key src --rank none --v6-prefix 64 --pps 20.0k --bps none "
			"--window/--slots 1s/10 slots --max-flows 1000 --clock coarse --dry-run off "
			"--malformed pass --events off --ban off --burst window --levels off --samples off");
}

/* Whether an enforced field's option ("--window/--slots") names the option name. */
static bool enforced_names(const char *options, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = options; (p = strstr(p, "--")); p += 2) {
		if (!strncmp(p + 2, name, n) && (p[2 + n] == '\0' || p[2 + n] == '/'))
			return true;
	}
	return false;
}

/*
 * The options' table marks what a pinned instance changes only with --replace
 * (--help's *); the enforced list is what --replace compares. They must be the
 * same options, or --help would promise what --replace does not check. The one
 * alias: --max-memory sizes the same max_flows --max-flows gives.
 */
static void test_pinned_options_are_enforced(void)
{
	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];
		bool pinned = o->flags & RW_OPT_PINNED, listed = false;
		const char *name = strcmp(o->name, "max-memory") ? o->name : "max-flows";

		for (size_t f = 0; f < rw_enforced_nfields; f++)
			listed |= enforced_names(rw_enforced_fields[f].option, name);
		if (pinned != listed)
			fprintf(stderr, "    --%s: %s in the options' table, %s in the enforced list\n",
				o->name, pinned ? "pinned" : "not pinned", listed ? "listed" : "not listed");
		CHECK_EQ(pinned, listed);
	}
	for (size_t f = 0; f < rw_enforced_nfields; f++) {
		char copy[64], *save;

		snprintf(copy, sizeof(copy), "%s", rw_enforced_fields[f].option);
		for (char *opt = strtok_r(copy, "/", &save); opt; opt = strtok_r(NULL, "/", &save)) {
			const struct rw_opt *o = rw_opt_find(opt + 2);

			CHECK(o != NULL);
			if (o)
				CHECK(o->flags & RW_OPT_PINNED);
		}
	}
}

void run_kernel_tests(void)
{
	RUN(test_window_sum_skips_stale_slots);
	RUN(test_window_span);
	RUN(test_age_rules);
	RUN(test_limit_threshold_bound);
	RUN(test_memplan);
	RUN(test_hash_rows_independent);
	RUN(test_meminfo_available);
	RUN(test_flow_slot_counts);
	RUN(test_enforced_differences);
	RUN(test_enforced_change_classes);
	RUN(test_enforced_options);
	RUN(test_pinned_options_are_enforced);
}
