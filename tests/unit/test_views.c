// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/views/: The terminal view without a terminal: keys, filters, rankings of sources and prefixes, sparklines and every line at 80 columns. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/key.h"
#include "unit.h"
#include "views/view.h"

static void test_view_keys(void)
{
	struct rw_view_opts o;
	struct rw_view_input in = { 0 };

	rw_view_opts_init(&o, RW_SORT_PPS, NULL);
	CHECK_EQ(o.nlv, 4); /* v4 /24 /16, v6 /64 /48 */
	CHECK(rw_view_key(&o, &in, 's') & RW_VIEW_RESCAN);
	CHECK_EQ(o.sort, RW_SORT_BPS);
	rw_view_key(&o, &in, 's');
	CHECK_EQ(o.sort, RW_SORT_DROPS);
	rw_view_key(&o, &in, 's');
	CHECK_EQ(o.sort, RW_SORT_PPS);
	/* Pausing redraws only; resuming reads again. */
	CHECK_EQ(rw_view_key(&o, &in, 'p'), RW_VIEW_REDRAW);
	CHECK(o.paused);
	CHECK(rw_view_key(&o, &in, ' ') & RW_VIEW_RESCAN);
	CHECK(!o.paused);
	CHECK(rw_view_key(&o, &in, 'l') & RW_VIEW_RESCAN);
	CHECK(o.limited_only);
	for (int i = 0; i < 4; i++)
		rw_view_key(&o, &in, 'v');
	CHECK_EQ(o.level, 4);
	CHECK_EQ(o.lv[3].family, RW_FAMILY_IPV6);
	CHECK_EQ(o.lv[3].len, 48);
	rw_view_key(&o, &in, RW_VK_TAB);
	CHECK_EQ(o.level, 0); /* back to sources */
	/* Scrolling: a row, a page, back to the top; never above the first row. */
	o.page = 18;
	CHECK_EQ(rw_view_key(&o, &in, 'k'), 0);
	CHECK(rw_view_key(&o, &in, RW_VK_DOWN) & RW_VIEW_RESCAN);
	CHECK_EQ(o.first, 1);
	rw_view_key(&o, &in, RW_VK_PGDOWN);
	CHECK_EQ(o.first, 19);
	rw_view_key(&o, &in, RW_VK_PGUP);
	rw_view_key(&o, &in, RW_VK_PGUP);
	CHECK_EQ(o.first, 0);
	for (int i = 0; i < 40; i++)
		rw_view_key(&o, &in, RW_VK_PGDOWN);
	CHECK_EQ(o.first, RW_VIEW_ROWS_MAX - 1);
	rw_view_key(&o, &in, 'g');
	CHECK_EQ(o.first, 0);
	rw_view_key(&o, &in, 'j');
	rw_view_key(&o, &in, 's'); /* another order starts from its top */
	CHECK_EQ(o.first, 0);
	rw_view_key(&o, &in, 's');
	rw_view_key(&o, &in, 's');
	/* Help: any key closes it without acting; q quits even there. */
	rw_view_key(&o, &in, '?');
	CHECK(o.help);
	CHECK_EQ(rw_view_key(&o, &in, 's'), RW_VIEW_REDRAW);
	CHECK(!o.help);
	CHECK_EQ(o.sort, RW_SORT_PPS);
	rw_view_key(&o, &in, '?');
	CHECK_EQ(rw_view_key(&o, &in, 'q'), RW_VIEW_QUIT);
	CHECK_EQ(rw_view_key(&o, &in, 'z'), RW_VIEW_REDRAW); /* closes the help */
	CHECK_EQ(rw_view_key(&o, &in, 'z'), 0);              /* means nothing */
	/* --levels given: a full-length level is the sources view, skipped. */
	struct rw_levels lv;
	char err[128];

	CHECK_EQ(rw_parse_levels("v4:32,24 v6:128", &lv, err, sizeof(err)), 0);
	rw_view_opts_init(&o, RW_SORT_BPS, &lv);
	CHECK_EQ(o.nlv, 1);
	CHECK_EQ(o.lv[0].len, 24);
	CHECK_EQ(o.sort, RW_SORT_BPS);
}

static void type(struct rw_view_opts *o, struct rw_view_input *in, const char *s)
{
	while (*s)
		rw_view_key(o, in, (unsigned char)*s++);
}

static void test_view_filter_prompt(void)
{
	struct rw_view_opts o;
	struct rw_view_input in = { 0 };

	rw_view_opts_init(&o, RW_SORT_PPS, NULL);
	rw_view_key(&o, &in, '/');
	CHECK(in.active);
	type(&o, &in, "198.18.1.0/2");
	rw_view_key(&o, &in, 'x');
	rw_view_key(&o, &in, RW_VK_BACKSPACE); /* the x goes */
	type(&o, &in, "4");
	/* While typing, letters are text, not commands. */
	rw_view_key(&o, &in, 'q');
	rw_view_key(&o, &in, RW_VK_BACKSPACE);
	CHECK_STR(in.buf, "198.18.1.0/24");
	CHECK(rw_view_key(&o, &in, RW_VK_ENTER) & RW_VIEW_RESCAN);
	CHECK(!in.active);
	CHECK(o.filtered);
	CHECK_EQ(o.filter_len, 24);
	CHECK_STR(o.filter_text, "198.18.1.0/24");
	/* A bad one is refused, said, and the old filter stays. */
	rw_view_key(&o, &in, '/');
	CHECK_STR(in.buf, "198.18.1.0/24"); /* the prompt starts from the filter in force */
	rw_view_key(&o, &in, RW_VK_KILL);
	type(&o, &in, "198.18.1.1/24");
	CHECK_EQ(rw_view_key(&o, &in, '\r'), RW_VIEW_REDRAW);
	CHECK(strstr(in.msg, "filter not changed") != NULL);
	CHECK_STR(o.filter_text, "198.18.1.0/24");
	/* Esc keeps it too; blanks and control bytes are never typed in. */
	rw_view_key(&o, &in, '/');
	rw_view_key(&o, &in, ' ');
	rw_view_key(&o, &in, 1);
	CHECK_STR(in.buf, "198.18.1.0/24");
	rw_view_key(&o, &in, RW_VK_ESC);
	CHECK(!in.active);
	CHECK(o.filtered);
	/* Overlong input stops at the buffer. */
	rw_view_key(&o, &in, '/');
	for (int i = 0; i < 200; i++)
		rw_view_key(&o, &in, '1');
	CHECK_EQ(strlen(in.buf), RW_VIEW_INPUT_MAX - 1);
	rw_view_key(&o, &in, RW_VK_ESC);
	/* An empty Enter clears it. */
	rw_view_key(&o, &in, '/');
	rw_view_key(&o, &in, RW_VK_KILL);
	rw_view_key(&o, &in, RW_VK_ENTER);
	CHECK(!o.filtered);
	/* IPv6 and a bare address. */
	rw_view_key(&o, &in, '/');
	type(&o, &in, "2001:db8::7");
	rw_view_key(&o, &in, RW_VK_ENTER);
	CHECK(o.filtered);
	CHECK_EQ(o.filter_len, 128);
}

static struct rw_window_sum wsum(uint64_t pk, uint64_t bytes, uint64_t drops)
{
	return (struct rw_window_sum){ .packets = pk, .bytes = bytes, .drop_packets = drops,
				       .newest_epoch = 99, .cpus = 1 };
}

/* A flow for the view: one CPU's record in slot 99, nothing else. */
static void offer(struct rw_view *v, struct rw_key k, struct rw_window_sum s)
{
	struct rw_hot hot = { .epoch = 99, .packets = (uint32_t)s.packets, .bytes = (uint32_t)s.bytes,
			      .drop_packets = (uint32_t)s.drop_packets, .gen = 1 };
	struct rw_flow_view fv = { .state = rw_st_make(99, 1, RW_ST_LIVE), .hot = &hot, .ncpus = 1 };

	CHECK_EQ(rw_view_offer(v, &k, &s, &fv), 0);
}

static void offer_all(struct rw_view *v)
{
	rw_view_begin(v, 100);
	offer(v, v4("198.18.0.9"), wsum(30000, 1920000, 0));
	offer(v, v4("198.18.0.1"), wsum(20000, 1280000, 10000));
	offer(v, v4("198.18.0.2"), wsum(5000, 7000000, 0));
	offer(v, v4("198.18.1.1"), wsum(3000, 192000, 0));
	offer(v, v6("2001:db8::1"), wsum(100, 6400, 50));
}

/* Row i's key as the screen shows it. */
static const char *key_of(const struct rw_view *v, uint32_t i)
{
	static char buf[RW_KEY_STRLEN];

	rw_key_format(&v->rows[i].key, buf, sizeof(buf));
	return buf;
}

static void test_view_ranks_sources(void)
{
	struct rw_view v;

	CHECK_EQ(rw_view_init(&v, 10), 0);
	rw_view_opts_init(&v.o, RW_SORT_PPS, NULL);
	offer_all(&v);
	v.o.page = 3;
	rw_view_end(&v);
	CHECK_EQ(v.nrows, 3); /* as many as the screen holds */
	/* Scrolled by two: the rows up to the screen's end are ranked; past the end is pulled back. */
	v.o.first = 2;
	offer_all(&v);
	rw_view_end(&v);
	CHECK_EQ(v.nrows, 5);
	CHECK_EQ(v.o.first, 2);
	v.o.first = 9;
	offer_all(&v);
	rw_view_end(&v);
	CHECK_EQ(v.o.first, 4);
	v.o.first = 0;
	CHECK_EQ(v.matched, 5);
	CHECK_STR(key_of(&v, 0), "198.18.0.9");
	v.o.sort = RW_SORT_BPS;
	offer_all(&v);
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_STR(key_of(&v, 0), "198.18.0.2");
	v.o.sort = RW_SORT_DROPS;
	offer_all(&v);
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_STR(key_of(&v, 0), "198.18.0.1");
	CHECK_STR(key_of(&v, 1), "2001:db8::1");
	/* Limited only, and a filter, decide what is offered, not just what is shown. */
	v.o.sort = RW_SORT_PPS;
	v.o.limited_only = true;
	offer_all(&v);
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_EQ(v.nrows, 2);
	CHECK_EQ(v.matched, 2);
	v.o.limited_only = false;
	v.o.filtered = true;
	v.o.filter = v4("198.18.1.0");
	v.o.filter_len = 24;
	offer_all(&v);
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_EQ(v.nrows, 1);
	CHECK_STR(key_of(&v, 0), "198.18.1.1");
	/* A source row's sparkline from its flow: slot 99 is the last complete one. */
	struct rw_hot hot = { .epoch = 99, .packets = 3000, .gen = 1 };
	struct rw_flow_view fv = { .state = rw_st_make(99, 1, RW_ST_LIVE), .hot = &hot, .ncpus = 1 };

	rw_view_source_spark(&v, &v.rows[0], &fv);
	CHECK_EQ(v.rows[0].spark[9], 3000);
	CHECK_EQ(v.rows[0].spark[8], 0);
	rw_view_free(&v);
}

/* One pass of offer_all at a level, ranked for a screen of ten rows. */
static void rank_level(struct rw_view *v, uint32_t level)
{
	v->o.level = level;
	offer_all(v);
	v->o.page = 10;
	rw_view_end(v);
}

static void test_view_prefix_levels(void)
{
	struct rw_view v;

	CHECK_EQ(rw_view_init(&v, 10), 0);
	rw_view_opts_init(&v.o, RW_SORT_PPS, NULL);
	rank_level(&v, 1); /* IPv4 /24 */
	CHECK_EQ(v.nrows, 2);
	CHECK_STR(key_of(&v, 0), "198.18.0.0/24");
	CHECK_EQ(v.rows[0].sum.packets, 55000);
	CHECK_EQ(v.rows[0].members, 3);
	CHECK_EQ(v.rows[0].spark[9], 55000); /* the members' slots, summed */
	CHECK_STR(key_of(&v, 1), "198.18.1.0/24");
	rank_level(&v, 2); /* /16: one prefix */
	CHECK_EQ(v.nrows, 1);
	CHECK_EQ(v.rows[0].sum.packets, 58000);
	rank_level(&v, 3); /* IPv6 /64 */
	CHECK_EQ(v.nrows, 1);
	CHECK_STR(key_of(&v, 0), "2001:db8::/64");
	/* Limited only applies to the prefix's sum; a shared budget coarser than the level stays whole. */
	v.o.level = 1;
	v.o.limited_only = true;
	rw_view_begin(&v, 100);
	offer(&v, v4("198.18.0.1"), wsum(20000, 0, 10));
	offer(&v, v4("198.18.0.2"), wsum(100, 0, 0));
	struct rw_key budget;

	rw_key_cut(&(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 18, 5, 1 } }, 16,
		   &budget);
	offer(&v, budget, wsum(9000, 0, 0));
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_EQ(v.nrows, 1);
	CHECK_EQ(v.rows[0].sum.packets, 20100);
	v.o.limited_only = false;
	rw_view_begin(&v, 100);
	offer(&v, budget, wsum(9000, 0, 0));
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_STR(key_of(&v, 0), "198.18.0.0/16");
	/* Many prefixes: the table grows and keeps every count. */
	rw_view_begin(&v, 100);
	for (uint32_t i = 0; i < 5000; i++) {
		struct rw_key k = { .family = RW_FAMILY_IPV4, .addr = { 10, (uint8_t)(i >> 8), (uint8_t)i, 1 } };

		offer(&v, k, wsum(i + 1, 0, 0));
	}
	v.o.page = 10;
	rw_view_end(&v);
	CHECK_EQ(v.matched, 5000);
	CHECK_EQ(v.rows[0].sum.packets, 5000);
	CHECK_EQ(v.rows[9].sum.packets, 4991);
	rw_view_free(&v);
}

static void test_view_text_fits_80_columns(void)
{
	struct rw_view v;
	struct rw_view_head h = { .what = "top", .name = "veth-edge0", .window_s = 1, .slots = 10,
				  .pps = 10000, .loader_alive = false, .ts = 0, .span_ns = 1000000000,
				  .tracked = 5, .max_flows = 32768 };
	struct rw_view_layout l;
	char buf[512];

	h.total = wsum(58100, 10392000, 10050);
	h.stats.rx_packets = 123456789;
	CHECK_EQ(rw_view_init(&v, 10), 0);
	rw_view_opts_init(&v.o, RW_SORT_PPS, NULL);
	v.o.paused = true;
	offer_all(&v);
	v.o.page = 10;
	rw_view_end(&v);
	l = rw_view_layout(&v, 80);
	CHECK(l.ok);
	CHECK_EQ(l.key_w, 11);     /* the longest key shown: 2001:db8::1 */
	CHECK_EQ(l.spark_w, 10);   /* a cell per slot */
	rw_view_title(&v, &h, buf, sizeof(buf));
	CHECK(strlen(buf) <= 80);
	CHECK(strstr(buf, "NO LOADER  PAUSED") != NULL);
	CHECK(strstr(buf, "limit 10.0k pps") != NULL);
	rw_view_window_line(&h, buf, sizeof(buf));
	CHECK(strlen(buf) <= 80);
	rw_view_since_line(&h, buf, sizeof(buf));
	CHECK(strlen(buf) <= 80);
	{
		/* Every figure at its widest (five characters), a 16 Mi table full: still 80 columns. */
		struct rw_view_head w = h;

		w.total = wsum(99900000, 99900000000ULL / 8, 99900000);
		w.sketch_packets = 99900000;
		w.tracked = w.max_flows = 16u << 20;
		rw_view_window_line(&w, buf, sizeof(buf));
		CHECK_STR(buf, "rx 99.9M pps 99.9G bps  drop 99.9M pps  tracked 16.8M/16.8M  sketch 99.9M pps");
		CHECK(strlen(buf) <= 80);
		w.tracked = 99999;
		w.max_flows = 32768;
		rw_view_window_line(&w, buf, sizeof(buf));
		CHECK(strstr(buf, "tracked 99999/32768  ") != NULL); /* exact up to five digits */
		w.stats.rx_packets = w.stats.dropped = w.stats.malformed = 999000000000000ULL;
		rw_view_since_line(&w, buf, sizeof(buf));
		CHECK(strlen(buf) <= 80);
	}
	/* Heavy prefixes: a line only when the run ranks them (--levels), "none" when none is. */
	CHECK(!rw_view_heavy_line(&h, buf, sizeof(buf)));
	CHECK_EQ(rw_view_head_lines(&h), RW_VIEW_HEAD_LINES);
	h.levels = true;
	h.heavy_share_pct = 5;
	CHECK(rw_view_heavy_line(&h, buf, sizeof(buf)));
	CHECK_STR(buf, "heavy prefixes (>= 5% net): none");
	CHECK_EQ(rw_view_head_lines(&h), RW_VIEW_HEAD_LINES + 1);
	struct rw_hhh_item heavy[2] = { { .residual = 29050 }, { .residual = 5810 } };

	rw_key_cut(&(struct rw_key){ .family = RW_FAMILY_IPV4, .addr = { 198, 18, 7, 7 } }, 16,
		   &heavy[0].prefix);
	heavy[1].prefix = v4("198.18.0.9");
	h.heavy = heavy;
	h.nheavy = 2;
	CHECK(rw_view_heavy_line(&h, buf, sizeof(buf)));
	CHECK_STR(buf, "heavy prefixes (>= 5% net): 198.18.0.0/16 50.0%, 198.18.0.9 10.0%");
	/* Many: cut at the buffer, never past it. */
	CHECK(rw_view_heavy_line(&h, buf, 40));
	CHECK_EQ(strlen(buf), 39);
	rw_view_state_line(&v, &h, buf, sizeof(buf));
	CHECK(strlen(buf) <= 80);
	rw_view_columns(&v, &l, false, buf, sizeof(buf));
	CHECK(strlen(buf) <= 80);
	for (uint32_t i = 0; i < v.nrows; i++) {
		rw_view_row_text(&v, &h, &l, i, false, buf, sizeof(buf));
		CHECK(strlen(buf) <= 80);
	}
	rw_view_row_text(&v, &h, &l, 1, false, buf, sizeof(buf));
	CHECK(strstr(buf, "  2 198.18.0.1") == buf);
	CHECK(strstr(buf, " 10.0k  34.4% yes ") != NULL);
	CHECK(rw_view_row_limited(&v, 1));
	CHECK(!rw_view_row_limited(&v, 0));
	for (int i = 0; rw_view_help[i]; i++)
		CHECK(strlen(rw_view_help[i]) <= 80);
	/* The longest IPv6 address: the sparkline gives way first, the address is cut last. */
	rw_view_begin(&v, 100);
	offer(&v, v6("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), wsum(1, 64, 0));
	v.o.page = 10;
	rw_view_end(&v);
	l = rw_view_layout(&v, 80);
	CHECK_EQ(l.key_w, 38);
	CHECK_EQ(l.spark_w, 1);
	l = rw_view_layout(&v, 60);
	CHECK(l.ok);
	CHECK_EQ(l.spark_w, 0);
	CHECK_EQ(l.key_w, 19);
	rw_view_row_text(&v, &h, &l, 0, true, buf, sizeof(buf));
	CHECK(strlen(buf) <= 60);
	CHECK(strstr(buf, "2001:db8:ffff:ffff~ ") != NULL);
	CHECK(!rw_view_layout(&v, 45).ok);
	rw_view_free(&v);
}

static void test_spark(void)
{
	uint64_t c[5] = { 0, 1, 50, 100, 70 };
	char buf[64];

	rw_spark(c, 5, false, buf, sizeof(buf));
	CHECK_STR(buf, " .=@+"); /* 70 of 100: step 4 of 0..7 */
	rw_spark(c, 5, true, buf, sizeof(buf));
	CHECK_STR(buf, " \u2581\u2584\u2588\u2585");
	rw_spark(c, 0, true, buf, sizeof(buf));
	CHECK_STR(buf, "");
	/* No room: whole cells only. */
	rw_spark(c, 5, true, buf, 8);
	CHECK_STR(buf, " \u2581\u2584");
	uint64_t zero[3] = { 0 };

	rw_spark(zero, 3, true, buf, sizeof(buf));
	CHECK_STR(buf, "   ");
}

void run_views_tests(void)
{
	RUN(test_view_keys);
	RUN(test_view_filter_prompt);
	RUN(test_view_ranks_sources);
	RUN(test_view_prefix_levels);
	RUN(test_view_text_fits_80_columns);
	RUN(test_spark);
}
