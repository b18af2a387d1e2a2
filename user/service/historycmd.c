// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ratewall history FILE`: what run --history kept, window by window, or
 * summed over a range (--sum). Read-only, in WAL mode: a loader writing the
 * file never waits for it, and it reads the last committed window.
 */
#include "service/historycmd.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/exit.h"
#include "cli/historycli.h"
#include "model/clock.h"
#include "model/json.h"
#include "model/key.h"
#include "model/units.h"
#include "views/history.h"
#include "views/report.h"

/* The windows of the range (and instance), oldest first. */
static const char windows_sql[] =
	"SELECT instance, epoch, ts, span_ms, key_kind, sort, top_n, packets, bytes, dropped,"
	" dropped_bytes, sketch_packets, flows FROM windows"
	" WHERE ts >= ?1 AND ts <= ?2 AND (?3 = '' OR instance = ?3) ORDER BY ts, instance";

/* One window's ranking of one kind, best first. */
static const char top_sql[] =
	"SELECT rank, key, key_bin, packets, bytes, dropped, dropped_bytes, pps, bps, limited, banned"
	" FROM top WHERE instance = ?1 AND epoch = ?2 AND kind = ?3 ORDER BY rank";

static const char events_sql[] =
	"SELECT ts, event, kind, key, until, sample FROM events WHERE instance = ?1 AND epoch = ?2"
	" ORDER BY seq";
/* A file of schema 2, read as it is (a writer brings it up to date): no samples. */
static const char events_sql_2[] =
	"SELECT ts, event, kind, key, until, NULL FROM events WHERE instance = ?1 AND epoch = ?2"
	" ORDER BY seq";

/*
 * --sum, the TPUT bound: a window ranked by packets whose list of the kind
 * is full says that a key it does not list had at most its last listed
 * count (floor); a list with room to spare lists every tracked key (0). A
 * window ranked by another order bounds nothing (NULL). The range's windows
 * with their floors, for both queries below.
 */
#define FLOORS_SQL                                                                           \
	"WITH w AS (SELECT instance, epoch, top_n, sort, ts FROM windows"                   \
	"  WHERE ts >= ?1 AND ts <= ?2 AND (?3 = '' OR instance = ?3)),"                   \
	" f AS (SELECT w.instance, w.epoch, w.ts,"                                          \
	"  CASE WHEN w.sort != 'pps' THEN NULL WHEN COUNT(t.rank) >= w.top_n"              \
	"  THEN MIN(t.packets) ELSE 0 END AS floor"                                          \
	"  FROM w LEFT JOIN top t ON t.instance = w.instance AND t.epoch = w.epoch"          \
	"  AND t.kind = ?4 GROUP BY w.instance, w.epoch)"

/* Each key's sums over the windows listing it, and the floors of those windows. */
static const char sum_sql[] =
	FLOORS_SQL
	" SELECT t.key, MIN(t.key_bin), SUM(t.packets), SUM(t.bytes), SUM(t.dropped),"
	"  SUM(t.dropped_bytes), COUNT(*), TOTAL(f.floor)"
	" FROM top t JOIN f ON f.instance = t.instance AND f.epoch = t.epoch"
	" WHERE t.kind = ?4 GROUP BY t.key ORDER BY 3 DESC, t.key";

/* The range: windows, the floors summed, windows without a floor, first and last. */
static const char sum_range_sql[] =
	FLOORS_SQL
	" SELECT COUNT(*), TOTAL(floor), COUNT(*) - COUNT(floor), MIN(ts), MAX(ts) FROM f";

/* The kind --sum ranks without --kind: the newest window's own. */
static const char newest_kind_sql[] =
	"SELECT key_kind FROM windows WHERE ts >= ?1 AND ts <= ?2 AND (?3 = '' OR instance = ?3)"
	" ORDER BY ts DESC LIMIT 1";

static void bind_range(sqlite3_stmt *st, const struct rw_history_args *a)
{
	sqlite3_bind_double(st, 1, a->since);
	sqlite3_bind_double(st, 2, isinf(a->until) ? 1e300 : a->until);
	sqlite3_bind_text(st, 3, a->name, -1, SQLITE_STATIC);
}

/* Whether a stored key passes --key. */
static bool key_wanted(const struct rw_history_args *a, const void *bin, int len)
{
	struct rw_key k;

	if (!a->has_key)
		return true;
	if (!bin || len != (int)sizeof(k))
		return false;
	memcpy(&k, bin, sizeof(k));
	return rw_key_within(&k, &a->key, a->key_len);
}

static void when_text(double ts, char *buf, size_t len)
{
	time_t t = (time_t)ts;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static int64_t col64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i);
}

static const char *coltext(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

/* One window's rows of the kind (--key, --top applied), as text or JSON. */
static int print_top(sqlite3_stmt *top, const struct rw_history_args *a, bool json)
{
	uint32_t shown = 0;
	int rc;

	while ((rc = sqlite3_step(top)) == SQLITE_ROW && shown < a->top) {
		char p[32], b[32], d[32];

		if (!key_wanted(a, sqlite3_column_blob(top, 2), sqlite3_column_bytes(top, 2)))
			continue;
		if (json) {
			printf("%s{\"rank\": %lld, \"key\": ", shown ? ", " : "", (long long)col64(top, 0));
			rw_json_string(stdout, coltext(top, 1));
			printf(", \"packets\": %lld, \"bytes\": %lld, \"dropped\": %lld, "
			       "\"dropped_bytes\": %lld, \"pps\": %.1f, \"bps\": %.1f, \"limited\": %s, "
			       "\"banned\": %s}", (long long)col64(top, 3), (long long)col64(top, 4),
			       (long long)col64(top, 5), (long long)col64(top, 6),
			       sqlite3_column_double(top, 7), sqlite3_column_double(top, 8),
			       col64(top, 9) ? "true" : "false", col64(top, 10) ? "true" : "false");
		} else {
			rw_format_si((double)col64(top, 3), p, sizeof(p));
			rw_format_si((double)col64(top, 4), b, sizeof(b));
			rw_format_si((double)col64(top, 5), d, sizeof(d));
			printf("  %4lld  %-*s %9s pkts %9s B %9s dropped%s%s\n", (long long)col64(top, 0),
			       39 + rw_text_extra_bytes(coltext(top, 1)), coltext(top, 1), p, b, d,
			       col64(top, 9) ? "  limited" : "", col64(top, 10) ? "  banned" : "");
		}
		shown++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return rc;
	if (!json && !shown)
		printf("        (no key%s)\n", a->has_key ? " inside --key" : "");
	return SQLITE_OK;
}

static int print_events(sqlite3_stmt *ev)
{
	bool first = true;
	int rc;

	while ((rc = sqlite3_step(ev)) == SQLITE_ROW) {
		printf("%s{\"ts\": %.6f, \"event\": ", first ? "" : ", ", sqlite3_column_double(ev, 0));
		rw_json_string(stdout, coltext(ev, 1));
		printf(", \"kind\": ");
		rw_json_string(stdout, coltext(ev, 2));
		printf(", \"key\": ");
		rw_json_string(stdout, coltext(ev, 3));
		if (sqlite3_column_type(ev, 4) != SQLITE_NULL)
			printf(", \"until\": %.6f", sqlite3_column_double(ev, 4));
		if (sqlite3_column_type(ev, 5) != SQLITE_NULL) {
			printf(", \"sample\": ");
			rw_json_string(stdout, coltext(ev, 5));
		}
		printf("}");
		first = false;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Every window of the range, oldest first. SQLITE_OK or an error. */
static int list_windows(sqlite3 *db, const struct rw_history_args *a)
{
	sqlite3_stmt *w = NULL, *top = NULL, *ev = NULL;
	uint64_t n = 0;
	int rc;

	rc = sqlite3_prepare_v2(db, windows_sql, -1, &w, NULL);
	if (!rc)
		rc = sqlite3_prepare_v2(db, top_sql, -1, &top, NULL);
	if (!rc && sqlite3_prepare_v2(db, events_sql, -1, &ev, NULL))
		rc = sqlite3_prepare_v2(db, events_sql_2, -1, &ev, NULL);
	if (rc)
		goto out;
	bind_range(w, a);
	while ((rc = sqlite3_step(w)) == SQLITE_ROW) {
		const char *kind = a->kind >= 0 ? rw_key_kind_name((unsigned int)a->kind) : coltext(w, 4);
		double ts = sqlite3_column_double(w, 2), span = sqlite3_column_double(w, 3) / 1e3;
		char when[32], p[32], d[32];

		sqlite3_bind_text(top, 1, coltext(w, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(top, 2, col64(w, 1));
		sqlite3_bind_text(top, 3, kind, -1, SQLITE_TRANSIENT);
		if (a->json) {
			printf("{\"ts\": %.3f, \"epoch\": %lld, \"instance\": ", ts,
			       (long long)col64(w, 1));
			rw_json_string(stdout, coltext(w, 0));
			printf(", \"span_ms\": %.3f, \"kind\": \"%s\", \"totals\": {\"packets\": %lld, "
			       "\"bytes\": %lld, \"dropped\": %lld, \"dropped_bytes\": %lld, "
			       "\"sketch_packets\": %lld, \"flows\": %lld}, \"top\": [", span * 1e3, kind,
			       (long long)col64(w, 7), (long long)col64(w, 8), (long long)col64(w, 9),
			       (long long)col64(w, 10), (long long)col64(w, 11), (long long)col64(w, 12));
			rc = print_top(top, a, true);
			sqlite3_bind_text(ev, 1, coltext(w, 0), -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ev, 2, col64(w, 1));
			printf("], \"events\": [");
			if (!rc)
				rc = print_events(ev);
			printf("]}\n");
			sqlite3_reset(ev);
		} else {
			when_text(ts, when, sizeof(when));
			rw_format_si((double)col64(w, 7), p, sizeof(p));
			rw_format_si((double)col64(w, 9), d, sizeof(d));
			printf("%s  %s  window %.3gs  %s pkts, %s dropped  (%s, epoch %lld)\n", when,
			       coltext(w, 0), span, p, d, kind, (long long)col64(w, 1));
			rc = print_top(top, a, false);
		}
		sqlite3_reset(top);
		if (rc)
			goto out;
		n++;
	}
	rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	if (!rc && !n && !a->json)
		printf("no window in the range\n");
out:
	sqlite3_finalize(w);
	sqlite3_finalize(top);
	sqlite3_finalize(ev);
	return rc;
}

struct sum_range {
	int64_t windows, unbounded;
	double floor_total; /* what a key listed nowhere could have sent, at most */
	double first, last;
};

static int sum_range(sqlite3 *db, const struct rw_history_args *a, const char *kind,
		     struct sum_range *r)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sum_range_sql, -1, &st, NULL);

	if (rc)
		return rc;
	bind_range(st, a);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*r = (struct sum_range){ 0 };
	if (rc == SQLITE_ROW) {
		*r = (struct sum_range){ .windows = col64(st, 0), .floor_total = sqlite3_column_double(st, 1),
					 .unbounded = col64(st, 2), .first = sqlite3_column_double(st, 3),
					 .last = sqlite3_column_double(st, 4) };
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* --sum: each key's totals over the range, ranked by packets, with its bound. */
static int sum_keys(sqlite3 *db, const struct rw_history_args *a)
{
	char kind[16] = "src", from[32] = "-", to[32] = "-";
	sqlite3_stmt *st = NULL;
	struct sum_range r = { 0 };
	uint32_t shown = 0;
	int rc;

	if (a->kind >= 0) {
		snprintf(kind, sizeof(kind), "%s", rw_key_kind_name((unsigned int)a->kind));
	} else if (!(rc = sqlite3_prepare_v2(db, newest_kind_sql, -1, &st, NULL))) {
		bind_range(st, a);
		if (sqlite3_step(st) == SQLITE_ROW)
			snprintf(kind, sizeof(kind), "%s", coltext(st, 0));
		sqlite3_finalize(st);
	} else {
		return rc;
	}
	rc = sum_range(db, a, kind, &r);
	if (!rc)
		rc = sqlite3_prepare_v2(db, sum_sql, -1, &st, NULL);
	if (rc)
		return rc;
	bind_range(st, a);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	if (r.windows) {
		when_text(r.first, from, sizeof(from));
		when_text(r.last, to, sizeof(to));
	}
	if (a->json) {
		printf("{\"kind\": \"%s\", \"windows\": %lld, \"from\": %.3f, \"to\": %.3f, "
		       "\"by\": \"packets\", \"unbounded_windows\": %lld, \"unlisted_max\": ",
		       kind, (long long)r.windows, r.first, r.last, (long long)r.unbounded);
		if (r.unbounded)
			printf("null");
		else
			printf("%.0f", r.floor_total);
		printf(", \"top\": [");
	} else {
		printf("%lld windows from %s to %s, kind %s, ranked by packets summed over the "
		       "windows that list each key\n", (long long)r.windows, from, to, kind);
		printf("%4s  %-39s %12s %14s %12s %9s  %s\n", "RANK", "KEY", "PACKETS", "BYTES",
		       "DROPPED", "LISTED", "MISSED AT MOST");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && shown < a->top) {
		int64_t listed = col64(st, 6);
		/* In the windows that do not list it, each at most that window's floor. */
		double missed = r.floor_total - sqlite3_column_double(st, 7);

		if (!key_wanted(a, sqlite3_column_blob(st, 1), sqlite3_column_bytes(st, 1)))
			continue;
		shown++;
		if (a->json) {
			printf("%s{\"rank\": %u, \"key\": ", shown > 1 ? ", " : "", shown);
			rw_json_string(stdout, coltext(st, 0));
			printf(", \"packets\": %lld, \"bytes\": %lld, \"dropped\": %lld, "
			       "\"dropped_bytes\": %lld, \"windows\": %lld, \"missed_max\": ",
			       (long long)col64(st, 2), (long long)col64(st, 3), (long long)col64(st, 4),
			       (long long)col64(st, 5), (long long)listed);
			if (r.unbounded)
				printf("null}");
			else
				printf("%.0f}", missed);
		} else {
			char m[32] = "unknown";

			if (!r.unbounded)
				snprintf(m, sizeof(m), "%.0f", missed);
			printf("%4u  %-*s %12lld %14lld %12lld %4lld/%-4lld  %s\n", shown,
			       39 + rw_text_extra_bytes(coltext(st, 0)), coltext(st, 0),
			       (long long)col64(st, 2), (long long)col64(st, 3), (long long)col64(st, 4),
			       (long long)listed, (long long)r.windows, m);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return rc;
	if (a->json) {
		printf("]}\n");
	} else if (r.unbounded) {
		printf("%lld windows were ranked by another order than packets: no bound on what "
		       "their lists left out\n", (long long)r.unbounded);
	} else {
		printf("a key listed in no window sent at most %.0f packets in the range (each full "
		       "list's last count, summed); untracked traffic is only in the totals\n",
		       r.floor_total);
	}
	return SQLITE_OK;
}

int rw_history_command(int argc, char **argv)
{
	struct rw_history_args a;
	char err[512];
	sqlite3 *db = NULL;
	bool empty;
	int ret = rw_cli_parse_history(argc, argv, rw_wall_seconds(), &a, err, sizeof(err)), rc;

	if (ret == 1) {
		rw_history_usage(stdout);
		return RW_EXIT_OK;
	}
	if (ret) {
		fprintf(stderr, "ratewall: %s\n", err);
		return RW_EXIT_USAGE;
	}
	rc = sqlite3_open_v2(a.path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc) {
		fprintf(stderr, "ratewall: history %s: cannot open it: %s\n", a.path,
			db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return RW_EXIT_RUNTIME;
	}
	sqlite3_busy_timeout(db, 1000);
	ret = rw_history_schema(db, a.path, &empty, err, sizeof(err));
	if (!ret && empty)
		snprintf(err, sizeof(err), "history %s: no windows (not written by run --history)",
			 a.path), ret = -1;
	if (ret) {
		fprintf(stderr, "ratewall: %s\n", err);
		sqlite3_close(db);
		return RW_EXIT_RUNTIME;
	}
	/* One read transaction: every window of the answer from the same moment. */
	rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (!rc)
		rc = a.sum ? sum_keys(db, &a) : list_windows(db, &a);
	if (rc)
		fprintf(stderr, "ratewall: history %s: %s\n", a.path, sqlite3_errmsg(db));
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	fflush(stdout);
	return rc ? RW_EXIT_RUNTIME : RW_EXIT_OK;
}
