// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the kinds of key (user/model/kinds.c): the table is whole, and
 * every view names a kind with its row: the plain table, JSON, /metrics,
 * --events and the terminal view.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/key.h"
#include "model/kinds.h"
#include "model/units.h"
#include "unit.h"
#include "views/events.h"
#include "views/metrics_page.h"
#include "views/report.h"
#include "views/view.h"

/* A key of each kind, as the data path makes them. */
static struct rw_key sample_key(unsigned int kind)
{
	struct rw_key k = v4(kind == RW_KIND_DST ? "198.19.0.1" : "198.18.0.1");

	k.kind = (uint8_t)kind;
	if (rw_kinds[kind].ends == 2)
		inet_pton(AF_INET, "198.19.0.1", k.addr2);
	if (rw_kinds[kind].ports) {
		k.proto = IPPROTO_UDP;
		k.sport = htons(5353);
		k.dport = htons(53);
	}
	return k;
}

/* Another kind than k, for a --rank beside it. */
static unsigned int other_kind(unsigned int k)
{
	return (k + 1) % RW_KIND_COUNT;
}

/* The text a stream wrote, NUL-terminated (free it). */
static char *read_all(FILE *f)
{
	long n = ftell(f);
	char *s = calloc(1, (size_t)n + 1);

	rewind(f);
	CHECK_EQ(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

static void test_kind_table_whole(void)
{
	char heading[64];

	for (unsigned int k = 0; k < RW_KIND_COUNT; k++) {
		const struct rw_kind_desc *d = &rw_kinds[k];

		CHECK(d->name && d->name[0] && d->heading && d->heading[0]);
		CHECK(d->one && d->one[0] && d->many && d->many[0]);
		CHECK(d->ends == 1 || d->ends == 2);
		CHECK(!d->ports || d->ends == 2);
		/* The heading in its column, either arrow: the table's, and the view's at most. */
		rw_kind_heading(d, false, heading, sizeof(heading));
		CHECK(strstr(heading, "→") == NULL);
		CHECK((int)strlen(heading) <= d->table_cols);
		CHECK((int)strlen(heading) <= d->view_max_cols);
		CHECK(d->table_cols <= d->view_max_cols);
		CHECK(d->table_cols < RW_KEY_STRLEN && d->view_max_cols < RW_KEY_STRLEN);
		/* The name is what parses to it, and what it is called back. */
		CHECK_EQ(rw_key_kind_parse(d->name), k);
		CHECK_STR(rw_key_kind_name(k), d->name);
		CHECK(rw_kind(k) == d);
		for (unsigned int j = 0; j < k; j++) {
			CHECK(strcmp(d->name, rw_kinds[j].name) != 0);
			CHECK(strcmp(d->heading, rw_kinds[j].heading) != 0);
			CHECK(strcmp(d->one, rw_kinds[j].one) != 0);
			CHECK(strcmp(d->many, rw_kinds[j].many) != 0);
		}
	}
	/* The contracts: JSON's and the flags' words, and /metrics' source label. */
	CHECK_STR(rw_kinds[RW_KIND_SRC].name, "src");
	CHECK_STR(rw_kinds[RW_KIND_DST].name, "dst");
	CHECK_STR(rw_kinds[RW_KIND_PAIR].name, "pair");
	CHECK_STR(rw_kinds[RW_KIND_FLOW].name, "flow");
	CHECK_STR(rw_kinds[RW_KIND_SRC].metric_label, "source");
	for (unsigned int k = RW_KIND_DST; k < RW_KIND_COUNT; k++)
		CHECK(rw_kinds[k].metric_label == NULL);
	/* Past the table: a row still, never a read beyond it. */
	CHECK_STR(rw_kind(RW_KIND_COUNT)->name, "?");
	CHECK_STR(rw_kind(200)->heading, "KEY");
	CHECK_EQ(rw_key_kind_parse("?"), -1);
	rw_key_kind_choices(heading, sizeof(heading));
	CHECK_STR(heading, "src, dst, pair, flow");
	rw_kind_heading(&rw_kinds[RW_KIND_PAIR], false, heading, sizeof(heading));
	CHECK_STR(heading, "SOURCE -> DESTINATION");
}

/* A key's text has its kind's ends, and a protocol and ports when the kind has them. */
static void test_kind_key_text(void)
{
	char text[RW_KEY_STRLEN];

	for (unsigned int k = 0; k < RW_KIND_COUNT; k++) {
		struct rw_key key = sample_key(k);

		rw_key_format(&key, text, sizeof(text));
		CHECK_EQ(strstr(text, " → ") != NULL, rw_kinds[k].ends == 2);
		CHECK_EQ(strncmp(text, "udp ", 4) == 0 && strstr(text, ":53") != NULL,
			 rw_kinds[k].ports);
	}
	/* A rule's budget is its kind's key: a destination says so. */
	struct rw_key budget = sample_key(RW_KIND_DST);

	budget.kind |= RW_KIND_RULE;
	budget.rule = 3;
	rw_key_format(&budget, text, sizeof(text));
	CHECK_STR(text, "198.19.0.1 dst [rule 3]");
	CHECK(rw_kind(rw_kind_of(&budget)) == &rw_kinds[RW_KIND_DST]);
}

/* A report of one window: the main kind's key first, and another kind ranked beside it. */
struct one_report {
	struct rw_config cfg;
	struct rw_attachment at;
	struct rw_rank_entry top, ranked;
	struct rw_report r;
};

static void one_report(struct one_report *o, unsigned int kind)
{
	memset(o, 0, sizeof(*o));
	strcpy(o->cfg.ifnames[0], "rw0");
	o->cfg.nifaces = 1;
	o->cfg.window_ns = 1000000000;
	o->cfg.slots = 10;
	o->cfg.key_kind = (uint8_t)kind;
	o->cfg.v6_prefix = 64;
	o->top = (struct rw_rank_entry){ .key = sample_key(kind), .metric = 1000,
					 .sum = { .packets = 1000, .bytes = 64000, .cpus = 1 } };
	o->ranked = (struct rw_rank_entry){ .key = sample_key(other_kind(kind)), .metric = 500,
					    .sum = { .packets = 500, .bytes = 32000, .cpus = 1 } };
	o->ranked.key.kind |= RW_KIND_RANKED;
	o->r = (struct rw_report){ .cfg = &o->cfg, .span_ns = 1000000000, .top = &o->top, .ntop = 1,
				   .at = &o->at, .nifaces = 1, .nrankings = 1 };
	o->r.tick.total.packets = 1500;
	o->r.rankings[0] = (struct rw_report_ranking){ .kind = (uint8_t)other_kind(kind),
						       .top = &o->ranked, .n = 1 };
}

/* Columns of s before needle (UTF-8 counted as columns), -1 when it is not there. */
static int cols_before(const char *s, const char *needle)
{
	const char *at = strstr(s, needle);
	char head[512];

	if (!at || at - s >= (long)sizeof(head))
		return -1;
	snprintf(head, sizeof(head), "%.*s", (int)(at - s), s);
	return (int)strlen(head) - rw_text_extra_bytes(head);
}

/* The plain table: each ranking headed by its kind's heading, the rows under it in line. */
static void check_table(const struct one_report *o, unsigned int kind)
{
	FILE *f = tmpfile();
	char line[256], key[RW_KEY_STRLEN], pps[32], *text, *at;
	const struct rw_kind_desc *d = &rw_kinds[kind];

	rw_report_table(f, &o->r);
	text = read_all(f);
	snprintf(line, sizeof(line), "\nRANK  %s ", d->heading);
	at = strstr(text, line);
	CHECK(at != NULL);
	if (at) {
		char *row = strchr(at + 1, '\n') + 1;

		rw_key_format(&o->top.key, key, sizeof(key));
		/* The heading is padded to the kind's column, in columns (its arrow is one). */
		CHECK_EQ(cols_before(at + 1, "PPS"), 6 + d->table_cols + 7);
		CHECK(strncmp(row, "   1  ", 6) == 0 && strncmp(row + 6, key, strlen(key)) == 0);
		/* Each row's rate under PPS: the key padded in columns too. */
		rw_format_si(rw_rate(o->top.sum.packets, o->r.span_ns), pps, sizeof(pps));
		snprintf(line, sizeof(line), " %9s ", pps);
		CHECK_EQ(cols_before(row, line), 6 + d->table_cols);
	}
	snprintf(line, sizeof(line), "\nRANK  %s ", rw_kinds[other_kind(kind)].heading);
	CHECK(strstr(text, line) != NULL);
	free(text);
}

/* JSON: the main kind's name in key_kind, the ranked kind's as its rankings' field. */
static void check_json(const struct one_report *o, unsigned int kind)
{
	FILE *f = tmpfile();
	char want[256], key[RW_KEY_STRLEN], *text;

	rw_report_json(f, &o->r);
	text = read_all(f);
	snprintf(want, sizeof(want), "\"key_kind\": \"%s\",", rw_kinds[kind].name);
	CHECK(strstr(text, want) != NULL);
	rw_key_format(&o->ranked.key, key, sizeof(key));
	snprintf(want, sizeof(want), "\"rankings\": {\"%s\": [{\"rank\": 1, \"key\": \"%s\"",
		 rw_kinds[other_kind(kind)].name, key);
	CHECK(strstr(text, want) != NULL);
	free(text);
}

/* /metrics: kind="name" on each series, and the kind's own label when it has one. */
static void check_metrics(const struct one_report *o, unsigned int kind)
{
	struct rw_tick_histogram ticks = { 0 };
	FILE *f = tmpfile();
	char want[256], key[RW_KEY_STRLEN], *text;

	rw_metrics_render(f, &ticks, &o->r);
	text = read_all(f);
	for (int i = 0; i < 2; i++) {
		const struct rw_kind_desc *d = &rw_kinds[i ? other_kind(kind) : kind];
		const struct rw_key *k = i ? &o->ranked.key : &o->top.key;
		size_t n;

		rw_key_format(k, key, sizeof(key));
		n = (size_t)snprintf(want, sizeof(want),
				     "\nratewall_source_packets_per_second{kind=\"%s\",key=\"%s\"",
				     d->name, key);
		if (d->metric_label)
			snprintf(want + n, sizeof(want) - n, ",%s=\"%s\"", d->metric_label, key);
		strcat(want, "} ");
		CHECK(strstr(text, want) != NULL);
	}
	free(text);
}

/* --events: a limited event names its key's kind, a rule's budget its kind too. */
static void check_events(unsigned int kind)
{
	char path[] = "/tmp/rw-kinds-events-XXXXXX", want[128], *text;
	struct rw_events_out o;
	struct rw_event ev = { .type = RW_EV_LIMITED, .key = sample_key(kind) };
	int fd = mkstemp(path);
	FILE *f;

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(rw_events_open(&o, path, false), 0);
	rw_events_kernel(&o, &ev);
	ev.key.kind |= RW_KIND_RULE;
	ev.key.rule = 1;
	rw_events_kernel(&o, &ev);
	rw_events_close(&o);
	f = fopen(path, "r");
	fseek(f, 0, SEEK_END);
	text = read_all(f);
	unlink(path);
	snprintf(want, sizeof(want), "\"event\": \"limited\", \"kind\": \"%s\",", rw_kinds[kind].name);
	CHECK(strstr(text, want) != NULL);
	CHECK(strstr(strstr(text, want) + 1, want) != NULL);
	free(text);
}

static void test_kind_report_views(void)
{
	struct one_report o;

	for (unsigned int k = 0; k < RW_KIND_COUNT; k++) {
		one_report(&o, k);
		check_table(&o, k);
		check_json(&o, k);
		check_metrics(&o, k);
		check_events(k);
	}
}

/* The terminal view of kind k: its heading over the keys, its noun in the lines and messages. */
static void check_view(unsigned int kind)
{
	const struct rw_kind_desc *d = &rw_kinds[kind], *other = &rw_kinds[other_kind(kind)];
	struct rw_window_sum s = { .packets = 100, .bytes = 6400, .newest_epoch = 99, .cpus = 1 };
	struct rw_hot hot = { .epoch = 99, .packets = 100, .bytes = 6400, .gen = 1 };
	struct rw_flow_view fv = { .state = rw_st_make(99, 1, RW_ST_LIVE), .hot = &hot, .ncpus = 1 };
	struct rw_view_head h = { .what = "top", .name = "rw0", .window_s = 1, .slots = 10 };
	struct rw_view_input in = { 0 };
	struct rw_key key = sample_key(kind);
	struct rw_view_layout l;
	char buf[512], want[128];
	struct rw_view v;

	CHECK_EQ(rw_view_init(&v, 10), 0);
	rw_view_opts_init(&v.o, RW_SORT_PPS, NULL);
	v.o.key_kind = v.o.shown = (uint8_t)kind;
	v.o.rank_mask = (uint8_t)(1u << other_kind(kind));
	rw_view_begin(&v, 100);
	CHECK_EQ(rw_view_offer(&v, &key, &s, &fv), 0);
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_EQ(v.nrows, 1);
	l = rw_view_layout(&v, 160);
	for (int utf8 = 0; utf8 < 2; utf8++) {
		char heading[64];

		rw_kind_heading(d, utf8, heading, sizeof(heading));
		rw_view_columns(&v, &l, utf8, buf, sizeof(buf));
		snprintf(want, sizeof(want), "  # %s ", heading);
		CHECK(strstr(buf, want) == buf);
		/* PPS over the rows' rates: the heading padded in columns, its arrow one. */
		CHECK_EQ(cols_before(buf, "PPS"), 4 + l.key_w + 1 + 4);
	}
	rw_view_state_line(&v, &h, buf, sizeof(buf));
	snprintf(want, sizeof(want), "view %s 1/", d->many);
	CHECK(strstr(buf, want) == buf);
	CHECK(rw_view_empty_line(&v, buf, sizeof(buf)) == NULL);
	rw_view_key(&v.o, &in, 'l');
	snprintf(want, sizeof(want), "only limited %s", d->many);
	CHECK_STR(in.msg, want);
	rw_view_key(&v.o, &in, 'l');
	rw_view_key(&v.o, &in, 'n');
	snprintf(want, sizeof(want), "%s (counted, never limited)", other->many);
	CHECK_STR(in.msg, want);
	CHECK_EQ(v.o.shown, other_kind(kind));
	/* Nothing of the kind ranked: the empty line says what there is none of. */
	rw_view_begin(&v, 100);
	rw_view_end(&v);
	snprintf(want, sizeof(want), "    (no tracked %s in the window)", other->one);
	CHECK_STR(rw_view_empty_line(&v, buf, sizeof(buf)), want);
	rw_view_free(&v);
}

static void test_kind_terminal_view(void)
{
	for (unsigned int k = 0; k < RW_KIND_COUNT; k++)
		check_view(k);
}

void run_kinds_tests(void)
{
	RUN(test_kind_table_whole);
	RUN(test_kind_key_text);
	RUN(test_kind_report_views);
	RUN(test_kind_terminal_view);
}
