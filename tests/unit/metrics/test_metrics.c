// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the /metrics page (user/views/metrics_page.c): every family
 * declared once, before its samples; the banned gauge beside the limited one
 * (with --ban only); the tick's clock the alerts compare with time(); and
 * --history's health (with --history only); --metrics-min-share's keys and
 * prefixes beyond the top-N. The alert rules and the
 * dashboard read these names (dist/ratewall.rules.yml, dist/ratewall-dashboard.json).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unit/unit.h"
#include "views/metrics_page.h"
#include "views/report.h"

/* A report of one window on one interface: two sources in the top-N. */
struct page_report {
	struct rw_config cfg;
	struct rw_attachment at;
	struct rw_rank_entry top[2];
	struct rw_report r;
};

static void page_report(struct page_report *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->cfg.ifnames[0], "rw0");
	p->cfg.nifaces = 1;
	p->cfg.window_ns = 1000000000;
	p->cfg.interval_ns = 500000000;
	p->cfg.slots = 10;
	p->cfg.key_kind = RW_KIND_SRC;
	p->cfg.v6_prefix = 64;
	p->top[0] = (struct rw_rank_entry){ .key = v4("198.18.0.1"), .metric = 3000,
					    .sum = { .packets = 3000, .drop_packets = 2000 } };
	p->top[1] = (struct rw_rank_entry){ .key = v4("198.18.0.2"), .metric = 500,
					    .sum = { .packets = 500, .drop_packets = 20 } };
	p->r = (struct rw_report){ .cfg = &p->cfg, .ts = 1790000000.25, .span_ns = 1000000000,
				   .top = p->top, .ntop = 2, .at = &p->at, .nifaces = 1 };
	p->r.tick.total.packets = 3500;
}

/* The page for r (free it). */
static char *render(const struct rw_report *r)
{
	struct rw_tick_histogram ticks = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	rw_metrics_count_tick(&ticks, 3000000); /* one tick of 3 ms */
	rw_metrics_render(f, &ticks, r);
	fclose(f);
	return text;
}

/*
 * The value of the sample whose line is `series` (name and labels as the page
 * writes them) and a value; false when the page has no such line.
 */
static bool sample(const char *page, const char *series, double *v)
{
	size_t n = strlen(series);

	for (const char *line = page; *line;) {
		const char *eol = strchr(line, '\n');
		char *end;

		if (!strncmp(line, series, n) && line[n] == ' ') {
			*v = strtod(line + n + 1, &end);
			return end != line + n + 1 && (*end == '\n' || *end == '\0');
		}
		if (!eol)
			break;
		line = eol + 1;
	}
	return false;
}

/* sample() equal to want (within rounding of the printed digits). */
static bool sample_is(const char *page, const char *series, double want)
{
	double v;

	return sample(page, series, &v) && fabs(v - want) <= 1e-9 * (fabs(want) + 1);
}

/*
 * The text format's rules a scraper enforces: each family's HELP then TYPE,
 * once; each sample of the family declared last (a histogram's _bucket, _sum,
 * _count); a number after the series. Returns the families seen, -1 on a fault.
 */
static int check_exposition(const char *page)
{
	char family[128] = "", type[32] = "", seen[4096] = " ";
	const char *line = page;
	int families = 0;

	while (*line) {
		const char *eol = strchr(line, '\n');
		char name[128], want[160];
		size_t len;

		if (!eol)
			return -1; /* every line ends */
		if (sscanf(line, "# HELP %127s", name) == 1) {
			snprintf(want, sizeof(want), " %s ", name);
			if (strstr(seen, want))
				return -1; /* declared twice */
			if (strlen(seen) + strlen(name) + 2 >= sizeof(seen))
				return -1;
			strcat(strcat(seen, name), " ");
			snprintf(want, sizeof(want), "\n# TYPE %s ", name);
			if (strncmp(eol, want, strlen(want)))
				return -1; /* TYPE right after HELP */
			sscanf(eol + strlen(want), "%31s", type);
			snprintf(family, sizeof(family), "%s", name);
			families++;
			eol = strchr(eol + 1, '\n');
			if (!eol)
				return -1;
			line = eol + 1;
			continue;
		}
		len = strcspn(line, "{ ");
		snprintf(name, sizeof(name), "%.*s", (int)len, line);
		if (strcmp(name, family)) {
			size_t flen = strlen(family);
			const char *suffix = strncmp(name, family, flen) ? "" : name + flen;
			bool part = !strcmp(type, "histogram") &&
				    (!strcmp(suffix, "_bucket") || !strcmp(suffix, "_sum") ||
				     !strcmp(suffix, "_count"));

			if (!part)
				return -1; /* a sample outside its family */
		}
		{
			const char *value = memchr(line, '}', (size_t)(eol - line));
			char *end;

			value = value ? value + 1 : line + len;
			if (*value != ' ')
				return -1;
			strtod(value + 1, &end);
			if (end == value + 1 || end != eol)
				return -1;
		}
		line = eol + 1;
	}
	return families;
}

/* The checker itself: a page it must refuse is refused. */
static void test_metrics_exposition_checker(void)
{
	CHECK_EQ(check_exposition("# HELP a x\n# TYPE a gauge\na 1\n"), 1);
	CHECK_EQ(check_exposition("# HELP a x\n# TYPE a gauge\nb 1\n"), -1);
	CHECK_EQ(check_exposition("# HELP a x\n# TYPE a gauge\na{k=\"v\"} one\n"), -1);
	CHECK_EQ(check_exposition("# HELP a x\n# TYPE a gauge\n# HELP a x\n# TYPE a gauge\n"), -1);
	CHECK_EQ(check_exposition("# HELP a x\n# TYPE a histogram\na_bucket{le=\"1\"} 1\na_sum 1\n"),
		 1);
	CHECK_EQ(check_exposition("# HELP a x\na 1\n"), -1);
}

/* A main-kind source's series of a top-N gauge, as the page writes it. */
#define SRC_SERIES(family, addr) family "{kind=\"src\",key=\"" addr "\",source=\"" addr "\"}"

/* --ban: a top-N key serving a ban is 1, labelled as the limited gauge; no family without --ban. */
static void test_metrics_banned(void)
{
	struct page_report p;
	char *page;
	double v;

	page_report(&p);
	page = render(&p.r);
	CHECK(strstr(page, "ratewall_source_banned") == NULL);
	CHECK(sample_is(page, SRC_SERIES("ratewall_source_limited", "198.18.0.1"), 1));
	free(page);

	p.cfg.ban_ns = 30000000000ULL;
	p.top[0].banned = true;
	page = render(&p.r);
	CHECK(check_exposition(page) > 0);
	CHECK(strstr(page, "# TYPE ratewall_source_banned gauge\n") != NULL);
	CHECK(sample_is(page, SRC_SERIES("ratewall_source_banned", "198.18.0.1"), 1));
	CHECK(sample_is(page, SRC_SERIES("ratewall_source_banned", "198.18.0.2"), 0));
	/* Limited is not banned: a key over its limit whose ban has not begun (or ran out). */
	CHECK(sample_is(page, SRC_SERIES("ratewall_source_limited", "198.18.0.2"), 1));
	CHECK(!sample(page, SRC_SERIES("ratewall_source_banned", "198.18.0.3"), &v));
	free(page);

	/* A --rank kind's keys have theirs too, told apart by kind. */
	struct rw_rank_entry dst = { .key = v4("198.19.0.9"), .metric = 10, .banned = true };

	dst.key.kind = RW_KIND_DST | RW_KIND_RANKED;
	p.r.rankings[0] = (struct rw_report_ranking){ .kind = RW_KIND_DST, .top = &dst, .n = 1 };
	p.r.nrankings = 1;
	page = render(&p.r);
	CHECK(sample_is(page, "ratewall_source_banned{kind=\"dst\",key=\"198.19.0.9\"}", 1));
	free(page);
}

/* The tick's wall clock and the interval: "late" is their difference against time(). */
static void test_metrics_tick_clock(void)
{
	struct page_report p;
	char *page;

	page_report(&p);
	page = render(&p.r);
	CHECK(check_exposition(page) > 0);
	CHECK(strstr(page, "# TYPE ratewall_last_tick_timestamp_seconds gauge\n") != NULL);
	CHECK(sample_is(page, "ratewall_last_tick_timestamp_seconds", 1790000000.25));
	CHECK(strstr(page, "# TYPE ratewall_interval_seconds gauge\n") != NULL);
	CHECK(sample_is(page, "ratewall_interval_seconds", 0.5));
	free(page);
	p.cfg.interval_ns = 10000000; /* the shortest, 10 ms */
	p.r.ts = 1790000001.007;
	page = render(&p.r);
	CHECK(sample_is(page, "ratewall_interval_seconds", 0.01));
	CHECK(sample_is(page, "ratewall_last_tick_timestamp_seconds", 1790000001.007));
	free(page);
}

/* --history: up after a good write, 0 while writes fail, the counters as kept; none without. */
static void test_metrics_history(void)
{
	struct rw_history_health h = { .written = 7, .errors = 0, .up = true };
	struct page_report p;
	char *page;

	page_report(&p);
	page = render(&p.r);
	CHECK(strstr(page, "ratewall_history_") == NULL);
	free(page);

	p.r.history = &h;
	page = render(&p.r);
	CHECK(check_exposition(page) > 0);
	CHECK(strstr(page, "# TYPE ratewall_history_up gauge\n") != NULL);
	CHECK(strstr(page, "# TYPE ratewall_history_write_errors_total counter\n") != NULL);
	CHECK(strstr(page, "# TYPE ratewall_history_windows_written_total counter\n") != NULL);
	CHECK(sample_is(page, "ratewall_history_up", 1));
	CHECK(sample_is(page, "ratewall_history_write_errors_total", 0));
	CHECK(sample_is(page, "ratewall_history_windows_written_total", 7));
	free(page);

	h.up = false;
	h.errors = 3;
	page = render(&p.r);
	CHECK(sample_is(page, "ratewall_history_up", 0));
	CHECK(sample_is(page, "ratewall_history_write_errors_total", 3));
	CHECK(sample_is(page, "ratewall_history_windows_written_total", 7));
	free(page);
}

/*
 * --metrics-min-share: each ranking's series are its top-N and the keys over
 * the share beyond it (nover), never the rest the ranking kept; the share
 * itself and, with --levels, the prefixes over it are families too.
 */
static void test_metrics_min_share(void)
{
	struct rw_rank_entry top[3], dst[2] = { { .key = v4("198.19.0.1"), .metric = 9 },
						 { .key = v4("198.19.0.2"), .metric = 8 } };
	struct rw_hhh_item over = { .prefix = v4("198.18.0.0"), .packets = 300 };
	struct page_report p;
	char *page;
	double v;

	page_report(&p);
	top[0] = p.top[0], top[1] = p.top[1], top[2] = p.top[1];
	top[2].key = v4("198.18.0.3");
	dst[0].key.kind = dst[1].key.kind = RW_KIND_DST | RW_KIND_RANKED;
	over.prefix.prefix_len = 24;
	p.r.top = top, p.r.ntop = 1, p.r.nover = 1;
	p.r.rankings[0] = (struct rw_report_ranking){ .kind = RW_KIND_DST, .top = dst, .n = 1,
						      .nover = 1 };
	p.r.nrankings = 1;
	p.cfg.metrics_min_share_ppm = 5000;
	p.r.share_bar = 18; /* 0.5 % of the window's 3500 packets, rounded up */
	p.cfg.levels.n[0] = 1;
	p.r.prefixes_over = &over, p.r.nprefixes_over = 1;
	page = render(&p.r);
	CHECK(check_exposition(page) > 0);
	CHECK(sample_is(page, SRC_SERIES("ratewall_source_packets_per_second", "198.18.0.1"), 3000));
	CHECK(sample_is(page, SRC_SERIES("ratewall_source_packets_per_second", "198.18.0.2"), 500));
	CHECK(!sample(page, SRC_SERIES("ratewall_source_packets_per_second", "198.18.0.3"), &v));
	CHECK(sample(page, "ratewall_source_packets_per_second{kind=\"dst\",key=\"198.19.0.2\"}", &v));
	CHECK(sample_is(page, "ratewall_metrics_min_share", 0.005));
	/* the bar as a rate over the window's span (1 s), in the --sort order's family */
	CHECK(sample_is(page, "ratewall_metrics_share_bar_packets_per_second", 18));
	CHECK(strstr(page, "# TYPE ratewall_metrics_share_bar_packets_per_second gauge\n") != NULL);
	CHECK(sample_is(page, "ratewall_prefix_packets_per_second{prefix=\"198.18.0.0/24\",level=\"24\"}",
			300));
	free(page);
	/* Ranked by bytes, the bar bounds bytes: no packet bar (no packet sum is bounded). */
	p.cfg.sort = RW_SORT_BPS, p.r.span_ns = 2000000000, p.r.share_bar = 9000;
	page = render(&p.r);
	CHECK(check_exposition(page) > 0);
	CHECK(sample_is(page, "ratewall_metrics_share_bar_bytes_per_second", 4500));
	CHECK(strstr(page, "ratewall_metrics_share_bar_packets_per_second") == NULL);
	free(page);
	p.cfg.sort = RW_SORT_PPS, p.r.span_ns = 1000000000;
	/* Without the share: neither family, and the top-N alone. */
	p.cfg.metrics_min_share_ppm = 0, p.r.nover = 0, p.r.rankings[0].nover = 0;
	page = render(&p.r);
	CHECK(!sample(page, SRC_SERIES("ratewall_source_packets_per_second", "198.18.0.2"), &v));
	CHECK(!sample(page, "ratewall_source_packets_per_second{kind=\"dst\",key=\"198.19.0.2\"}", &v));
	CHECK(strstr(page, "ratewall_metrics_min_share") == NULL);
	CHECK(strstr(page, "ratewall_metrics_share_bar") == NULL);
	CHECK(strstr(page, "ratewall_prefix_packets_per_second") == NULL);
	free(page);
}

void run_metrics_tests(void)
{
	RUN(test_metrics_exposition_checker);
	RUN(test_metrics_banned);
	RUN(test_metrics_tick_clock);
	RUN(test_metrics_history);
	RUN(test_metrics_min_share);
}
