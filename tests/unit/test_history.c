// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --history's writer (views/history.c) on files in a temporary directory, and `history`'s arguments. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/historycli.h"
#include "unit.h"
#include "views/history.h"

static char dir[64];

/* A file name in the test's directory (removed with its log first). */
static const char *db_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rw_history_remove(path);
	return path;
}

static int64_t count(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return n;
}

static void exec_on(const char *path, const char *sql)
{
	sqlite3 *db;

	CHECK_EQ(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* A report of n keys, 198.18.x.y with packets 1000 - i, and one event. */
struct fake {
	struct rw_config cfg;
	struct rw_rank_entry top[1000];
	struct rw_event_rec ev;
	struct rw_report r;
};

static void fake_report(struct fake *f, uint32_t n, uint64_t epoch, double ts)
{
	memset(f, 0, sizeof(*f));
	strcpy(f->cfg.ifnames[0], "veth0");
	f->cfg.nifaces = 1;
	f->cfg.top = n;
	f->cfg.slots = 10;
	f->cfg.window_ns = 1000000000ULL;
	for (uint32_t i = 0; i < n; i++) {
		char a[32];

		snprintf(a, sizeof(a), "198.18.%u.%u", i / 250, i % 250 + 1);
		f->top[i].key = v4(a);
		f->top[i].sum.packets = 1000 - i;
		f->top[i].sum.bytes = (1000 - i) * 64;
		f->top[i].sum.drop_packets = i == 0 ? 10 : 0;
		f->top[i].metric = 1000 - i;
		f->top[i].banned = i == 0;
	}
	f->ev = (struct rw_event_rec){ .ts = ts, .key = f->top[0].key, .type = RW_EV_BANNED,
				       .cpu = 1, .until = ts + 3 };
	f->r = (struct rw_report){ .cfg = &f->cfg, .ts = ts, .epoch = epoch, .span_ns = 1000000000ULL,
				   .top = f->top, .ntop = n, .nifaces = 1, .events = &f->ev,
				   .nevents = 1 };
	f->r.tick.total.packets = 123456;
}

static void test_history_window_written_once(void)
{
	const char *path = db_path("once.db");
	struct rw_history h;
	static struct fake f;
	char err[512];

	CHECK_EQ(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	fake_report(&f, 3, 500, 1000.0);
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	/* The same window again (a restart in the same slot): nothing changes. */
	f.top[0].sum.packets = 1;
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 0);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM windows"), 1);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM top"), 3);
	CHECK_EQ(count(path, "SELECT packets FROM top WHERE rank = 1"), 1000);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM events WHERE event = 'banned'"), 1);
	CHECK_EQ(count(path, "SELECT banned FROM top WHERE rank = 1"), 1);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM interfaces WHERE name = 'veth0'"), 1);
	/* Another instance's window of the same epoch is its own. */
	rw_history_close(&h);
	CHECK_EQ(rw_history_open(&h, path, "eth2", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM windows"), 2);
	CHECK_EQ(h.written, 1);
	rw_history_close(&h);
}

/* --samples: an event's file goes into history; a schema-2 file gets the column in place. */
static void test_history_event_sample(void)
{
	char path[128], old[128]; /* db_path's buffer is one */
	struct rw_history h;
	static struct fake f;
	char err[512];

	snprintf(path, sizeof(path), "%s", db_path("sample.db"));
	snprintf(old, sizeof(old), "%s", db_path("schema2.db"));
	CHECK_EQ(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	fake_report(&f, 3, 500, 1000.0);
	strcpy(f.ev.sample, "20260101T000000.000000Z-198.18.0.1.pcap");
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	f.r.epoch = 501;
	f.ev.sample[0] = 0; /* no sample: NULL, not "" */
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	rw_history_close(&h);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM events WHERE epoch = 500 AND sample = "
			     "'20260101T000000.000000Z-198.18.0.1.pcap'"), 1);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM events WHERE epoch = 501 AND sample IS NULL"), 1);
	/* A file of schema 2 (before samples), with one event: opened, it is brought up to date. */
	CHECK_EQ(rw_history_open(&h, old, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	rw_history_close(&h);
	exec_on(old, "ALTER TABLE events DROP COLUMN sample; PRAGMA user_version = 2");
	CHECK_EQ(count(old, "SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'sample'"),
		 0);
	CHECK_EQ(rw_history_open(&h, old, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	rw_history_close(&h);
	CHECK_EQ(count(old, "PRAGMA user_version"), RW_HISTORY_SCHEMA);
	CHECK_EQ(count(old, "SELECT COUNT(*) FROM events WHERE sample IS NULL"), 1);
}

static void test_history_retention(void)
{
	const char *path = db_path("keep.db");
	struct rw_history h;
	static struct fake f;
	char err[512];

	CHECK_EQ(rw_history_open(&h, path, "eth1", 10ULL * 1000000000ULL, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	for (int i = 0; i < 5; i++) {
		fake_report(&f, 2, 100 + (uint64_t)i, 1000.0 + 4 * i); /* 1000, 1004, ..., 1016 */
		CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	}
	/* Kept: ts >= 1016 - 10, i.e. 1008, 1012, 1016; their rows only. */
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM windows"), 3);
	CHECK_EQ(count(path, "SELECT MIN(epoch) FROM windows"), 102);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM top"), 6);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM events"), 3);
	CHECK_EQ(h.trimmed, 2);
	rw_history_close(&h);
}

static void test_history_size_cap(void)
{
	const char *path = db_path("cap.db");
	uint64_t max = 1ULL << 20, worst = 0;
	struct rw_history h;
	static struct fake f;
	char err[512], wal[160];
	struct stat st;

	CHECK_EQ(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, max, err, sizeof(err)), 0);
	/* 1000 keys a window, ~100 KiB: the cap is passed after about ten. */
	for (int i = 0; i < 40; i++) {
		uint64_t used;

		fake_report(&f, 1000, 1000 + (uint64_t)i, 5000.0 + i);
		if (rw_history_write(&h, &f.r, err, sizeof(err)) != 1) {
			fprintf(stderr, "  window %d: %s\n", i, err);
			CHECK(0);
			break;
		}
		used = rw_history_used_bytes(&h);
		if (used > worst)
			worst = used;
	}
	CHECK(worst <= max / 4 * 3); /* trimmed past three quarters */
	CHECK(h.trimmed > 0);
	/* The newest window is always there; the file and its log stay under the cap. */
	CHECK_EQ(count(path, "SELECT MAX(epoch) FROM windows"), 1039);
	CHECK_EQ(stat(path, &st), 0);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	{
		struct stat sw = { 0 };

		stat(wal, &sw);
		if ((uint64_t)(st.st_size + sw.st_size) > max) {
			fprintf(stderr, "  file %lld + log %lld > cap %llu\n", (long long)st.st_size,
				(long long)sw.st_size, (unsigned long long)max);
			CHECK(0);
		}
	}
	rw_history_close(&h);
}

static void test_history_refuses_foreign_files(void)
{
	struct rw_history h;
	static struct fake f;
	char err[512];
	const char *path;
	FILE *fp;

	/* Another schema version of ours. */
	path = db_path("v7.db");
	exec_on(path, "CREATE TABLE windows (x); PRAGMA application_id = 1381451852; "
		      "PRAGMA user_version = 7");
	CHECK_EQ(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), -EPROTO);
	CHECK(strstr(err, "schema version 7") != NULL);
	/* Writing later tries again, and says the same. */
	fake_report(&f, 1, 1, 1.0);
	h.retry_at = 0;
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), -EPROTO);
	CHECK_EQ(h.failed, 1);
	rw_history_close(&h);

	/* Some other application's database. */
	path = db_path("other.db");
	exec_on(path, "CREATE TABLE notes (x)");
	CHECK_EQ(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), -EPROTO);
	CHECK(strstr(err, "not a ratewall history") != NULL);
	rw_history_close(&h);

	/* Not a database at all. */
	path = db_path("junk.db");
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	for (int i = 0; fp && i < 512; i++)
		fputs("not sqlite", fp);
	if (fp)
		fclose(fp);
	CHECK(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
			      sizeof(err)) < 0);
	CHECK(strstr(err, "not a usable database") != NULL);
	rw_history_close(&h);

	/* A directory that does not exist. */
	CHECK(rw_history_open(&h, "/nonexistent/dir/h.db", "eth1", RW_HISTORY_KEEP_NS,
			      RW_HISTORY_MAX, err, sizeof(err)) < 0);
	CHECK(strstr(err, "/nonexistent/dir/h.db") != NULL);
	rw_history_close(&h);
}

static void test_history_locked_file(void)
{
	const char *path = db_path("locked.db");
	struct rw_history h;
	static struct fake f;
	sqlite3 *other;
	char err[512];

	CHECK_EQ(rw_history_open(&h, path, "eth1", RW_HISTORY_KEEP_NS, RW_HISTORY_MAX, err,
				 sizeof(err)), 0);
	CHECK_EQ(sqlite3_open(path, &other), SQLITE_OK);
	CHECK_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	fake_report(&f, 2, 7, 7.0);
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), -EBUSY);
	CHECK(strstr(err, "another process holds it") != NULL);
	sqlite3_exec(other, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(other);
	/* The lock gone, the next window goes in (the file was kept open). */
	f.r.epoch = 8;
	CHECK_EQ(rw_history_write(&h, &f.r, err, sizeof(err)), 1);
	CHECK_EQ(count(path, "SELECT COUNT(*) FROM windows"), 1);
	rw_history_close(&h);
}

static void test_history_when(void)
{
	double now = 1795500000.0, t;
	struct tm tm;
	time_t tt;

	CHECK_EQ(rw_parse_when("15m", now, &t), 0);
	CHECK(fabs(t - (now - 900)) < 1e-6);
	CHECK_EQ(rw_parse_when("7d", now, &t), 0);
	CHECK(fabs(t - (now - 7 * 86400)) < 1e-6);
	CHECK_EQ(rw_parse_when("@1700000000.5", now, &t), 0);
	CHECK(fabs(t - 1700000000.5) < 1e-6);
	CHECK_EQ(rw_parse_when("2026-11-24 03:00", now, &t), 0);
	tt = (time_t)t;
	localtime_r(&tt, &tm);
	CHECK_EQ(tm.tm_hour, 3);
	CHECK_EQ(tm.tm_min, 0);
	CHECK_EQ(tm.tm_mday, 24);
	CHECK_EQ(rw_parse_when("2026-11-24T03:00:15", now, &t), 0);
	tt = (time_t)t;
	localtime_r(&tt, &tm);
	CHECK_EQ(tm.tm_sec, 15);
	CHECK_EQ(rw_parse_when("03:15", now, &t), 0);
	tt = (time_t)t;
	localtime_r(&tt, &tm);
	CHECK_EQ(tm.tm_hour * 60 + tm.tm_min, 195);
	CHECK(now - t < 86400 && t - now < 86400);
	CHECK_EQ(rw_parse_when("15", now, &t), -EINVAL);   /* a bare number is no time */
	CHECK_EQ(rw_parse_when("yesterday", now, &t), -EINVAL);
	CHECK_EQ(rw_parse_when("25:00", now, &t), -EINVAL);
	CHECK_EQ(rw_parse_when("@", now, &t), -EINVAL);
	CHECK_EQ(rw_parse_when("", now, &t), -EINVAL);
}

static void test_history_args(void)
{
	struct rw_history_args a;
	char err[256];
	char *ok[] = { "history", "h.db", "--since", "1h", "--top", "20", "--key", "198.18.0.0/16",
		       "--kind", "dst", "--sum", "--json", NULL };
	char *bad_top[] = { "history", "h.db", "--top", "0", NULL };
	char *bad_kind[] = { "history", "h.db", "--kind", "port", NULL };
	char *bad_key[] = { "history", "h.db", "--key", "300.1.1.1", NULL };
	char *no_file[] = { "history", "--sum", NULL };
	char *backwards[] = { "history", "h.db", "--since", "1h", "--until", "2h", NULL };

	CHECK_EQ(rw_cli_parse_history(12, ok, 10000.0, &a, err, sizeof(err)), 0);
	CHECK_STR(a.path, "h.db");
	CHECK(fabs(a.since - 6400.0) < 1e-6);
	CHECK(isinf(a.until));
	CHECK_EQ(a.top, 20);
	CHECK_EQ(a.kind, RW_KIND_DST);
	CHECK(a.sum && a.json && a.has_key);
	CHECK_EQ(a.key_len, 16);
	CHECK_REFUSED(rw_cli_parse_history(4, bad_top, 1e4, &a, err, sizeof(err)), "--top 0", err,
		      "--top");
	CHECK_REFUSED(rw_cli_parse_history(4, bad_kind, 1e4, &a, err, sizeof(err)), "--kind port",
		      err, "not one of src");
	CHECK_REFUSED(rw_cli_parse_history(4, bad_key, 1e4, &a, err, sizeof(err)), "--key", err,
		      "--key");
	CHECK_REFUSED(rw_cli_parse_history(2, no_file, 1e4, &a, err, sizeof(err)), "no file", err,
		      "missing FILE");
	CHECK_REFUSED(rw_cli_parse_history(6, backwards, 1e4, &a, err, sizeof(err)), "backwards",
		      err, "after --until");
}

void run_history_tests(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rwhist.XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	RUN(test_history_window_written_once);
	RUN(test_history_event_sample);
	RUN(test_history_retention);
	RUN(test_history_size_cap);
	RUN(test_history_refuses_foreign_files);
	RUN(test_history_locked_file);
	RUN(test_history_when);
	RUN(test_history_args);
	{
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "  could not remove %s\n", dir);
	}
}
