// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/history.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kernel/window.h"
#include "model/clock.h"
#include "model/key.h"
#include "model/units.h"

/*
 * The schema (docs/operations/history.md shows it with example queries). Every table
 * is keyed by (instance, epoch) first: a window's rows go in with it, and go
 * out with it.
 */
static const char schema[] =
	"CREATE TABLE windows ("
	" instance TEXT NOT NULL, epoch INTEGER NOT NULL, ts REAL NOT NULL, span_ms REAL NOT NULL,"
	" window_ms REAL NOT NULL, slots INTEGER NOT NULL, key_kind TEXT NOT NULL,"
	" sort TEXT NOT NULL, top_n INTEGER NOT NULL, listed INTEGER NOT NULL,"
	" packets INTEGER NOT NULL, bytes INTEGER NOT NULL,"
	" dropped INTEGER NOT NULL, dropped_bytes INTEGER NOT NULL,"
	" sketch_packets INTEGER NOT NULL, flows INTEGER NOT NULL, rx_packets INTEGER NOT NULL,"
	" rx_bytes INTEGER NOT NULL, passed INTEGER NOT NULL, dropped_total INTEGER NOT NULL,"
	" events_not_written INTEGER NOT NULL, tick_ms REAL NOT NULL,"
	" PRIMARY KEY (instance, epoch)) WITHOUT ROWID;"
	"CREATE INDEX windows_ts ON windows (ts);"
	"CREATE TABLE interfaces ("
	" instance TEXT NOT NULL, epoch INTEGER NOT NULL, name TEXT NOT NULL,"
	" rx_packets INTEGER NOT NULL, rx_bytes INTEGER NOT NULL, passed INTEGER NOT NULL,"
	" dropped INTEGER NOT NULL, dropped_bytes INTEGER NOT NULL,"
	" PRIMARY KEY (instance, epoch, name)) WITHOUT ROWID;"
	"CREATE TABLE top ("
	" instance TEXT NOT NULL, epoch INTEGER NOT NULL, kind TEXT NOT NULL, rank INTEGER NOT NULL,"
	" key TEXT NOT NULL, key_bin BLOB NOT NULL, packets INTEGER NOT NULL,"
	" bytes INTEGER NOT NULL, dropped INTEGER NOT NULL, dropped_bytes INTEGER NOT NULL,"
	" pps REAL NOT NULL, bps REAL NOT NULL, limited INTEGER NOT NULL,"
	" banned INTEGER NOT NULL, cpus INTEGER NOT NULL, rule TEXT,"
	" PRIMARY KEY (instance, epoch, kind, rank)) WITHOUT ROWID;"
	"CREATE INDEX top_key ON top (key);"
	"CREATE TABLE heavy ("
	" instance TEXT NOT NULL, epoch INTEGER NOT NULL, prefix TEXT NOT NULL,"
	" level INTEGER NOT NULL, packets INTEGER NOT NULL, residual INTEGER NOT NULL,"
	" share REAL NOT NULL, PRIMARY KEY (instance, epoch, prefix)) WITHOUT ROWID;"
	"CREATE TABLE events ("
	" instance TEXT NOT NULL, epoch INTEGER NOT NULL, seq INTEGER NOT NULL, ts REAL NOT NULL,"
	" event TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, cpu INTEGER,"
	" until REAL, rule TEXT, sample TEXT, PRIMARY KEY (instance, epoch, seq)) WITHOUT ROWID;";

/*
 * A file of an older schema is brought up to this one, in place: each step
 * takes version i to i + 1 (2 to 3: the events' --samples file).
 */
#define OLDEST_MIGRATED 2
static const char *const migrations[] = {
	[2] = "ALTER TABLE events ADD COLUMN sample TEXT",
};
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == RW_HISTORY_SCHEMA,
	       "a migration to every version from OLDEST_MIGRATED up");

/* The children of a window, in the order its rows are deleted. */
static const char *const children[] = { "interfaces", "top", "heavy", "events" };

enum { ST_WINDOW, ST_IFACE, ST_TOP, ST_HEAVY, ST_EVENT, ST_OLDEST };

static const char *const statements[] = {
	[ST_WINDOW] = ("INSERT INTO windows VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		       " ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)"
		       " ON CONFLICT (instance, epoch) DO NOTHING"),
	[ST_IFACE] = "INSERT INTO interfaces VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_TOP] = ("INSERT INTO top VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		    " ?14, ?15, ?16)"),
	[ST_HEAVY] = "INSERT INTO heavy VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_EVENT] = "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[ST_OLDEST] = "SELECT MIN(ts), COUNT(*) FROM windows",
};

_Static_assert(sizeof(statements) / sizeof(statements[0]) ==
	       sizeof(((struct rw_history *)0)->st) / sizeof(((struct rw_history *)0)->st[0]),
	       "one prepared statement each");

static int say(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* An SQLite result as a negative errno, for callers that speak errno. */
static int as_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_SCHEMA:
	case SQLITE_MISMATCH:
		return -EPROTO;
	default:
		return -EIO;
	}
}

/* The database's own message for the last error, with what it means here. */
static int db_error(struct rw_history *h, int rc, char *err, size_t errlen, const char *doing)
{
	const char *hint = "";

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		hint = " (another process holds it; this window is not written, the next is tried)";
		break;
	case SQLITE_FULL:
		hint = " (the disk is full; lower --history-max or --history-keep)";
		break;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		hint = " (not a usable database: move it away, or give another file)";
		break;
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		hint = " (check the path and its permissions)";
		break;
	}
	return say(err, errlen, as_errno(rc), "history %s: %s: %s%s", h->path, doing,
		   h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc), hint);
}

static void close_db(struct rw_history *h)
{
	for (size_t i = 0; i < sizeof(h->st) / sizeof(h->st[0]); i++) {
		sqlite3_finalize(h->st[i]);
		h->st[i] = NULL;
	}
	sqlite3_close(h->db);
	h->db = NULL;
}

static int exec(struct rw_history *h, const char *sql)
{
	return sqlite3_exec(h->db, sql, NULL, NULL, NULL);
}

/* One integer a pragma or a query returns, or rc < 0 on error. */
static int query_int(struct rw_history *h, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The transaction begun ends: committed if rc says all went well, else undone and said. */
static int commit_or_undo(struct rw_history *h, int rc, const char *what, char *err, size_t errlen)
{
	if (!rc)
		rc = exec(h, "COMMIT");
	if (rc) {
		int e = db_error(h, rc, err, errlen, what);

		exec(h, "ROLLBACK");
		return e;
	}
	return 0;
}

/* An older file brought up to RW_HISTORY_SCHEMA in one transaction. 0 or -errno (said). */
static int migrate(struct rw_history *h, int64_t version, char *err, size_t errlen)
{
	char sql[64];
	int rc = exec(h, "BEGIN IMMEDIATE");

	for (int64_t v = version; !rc && v < RW_HISTORY_SCHEMA; v++)
		rc = exec(h, migrations[v]);
	if (!rc) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", RW_HISTORY_SCHEMA);
		rc = exec(h, sql);
	}
	return commit_or_undo(h, rc, "bringing its schema up to date", err, errlen);
}

int rw_history_schema(struct sqlite3 *db, const char *path, bool *empty, char *err, size_t errlen)
{
	int64_t app = 0, version = 0, tables = 0;
	struct rw_history h = { .db = db };
	int rc;

	snprintf(h.path, sizeof(h.path), "%s", path);
	if ((rc = query_int(&h, "PRAGMA application_id", &app)) ||
	    (rc = query_int(&h, "PRAGMA user_version", &version)) ||
	    (rc = query_int(&h, "SELECT COUNT(*) FROM sqlite_master", &tables)))
		return db_error(&h, rc, err, errlen, "reading its schema");
	*empty = tables == 0;
	if (tables && app != RW_HISTORY_APP_ID)
		return say(err, errlen, -EPROTO, "history %s: an SQLite database, but not a "
			   "ratewall history (give another file)", path);
	if (tables && version >= OLDEST_MIGRATED && version < RW_HISTORY_SCHEMA) {
		/* Older: the writer brings it up to date; a reader reads it as it is. */
		if (sqlite3_db_readonly(db, "main") == 1)
			return 0;
		return migrate(&h, version, err, errlen);
	}
	if (tables && version != RW_HISTORY_SCHEMA)
		return say(err, errlen, -EPROTO, "history %s: schema version %lld, this ratewall "
			   "reads and writes version %d (move the file away, or read it with the "
			   "ratewall that wrote it)", path, (long long)version, RW_HISTORY_SCHEMA);
	return 0;
}

/* A new file gets the schema; an existing one must be ours, of this version. 0 or -errno (said). */
static int check_schema(struct rw_history *h, char *err, size_t errlen)
{
	bool empty;
	int rc = rw_history_schema(h->db, h->path, &empty, err, errlen);

	if (rc || !empty)
		return rc;
	/* Freed pages go back to the file system when the size cap deletes windows. */
	rc = exec(h, "PRAGMA auto_vacuum = INCREMENTAL");
	if (!rc)
		rc = exec(h, "BEGIN IMMEDIATE");
	if (!rc)
		rc = exec(h, schema);
	if (!rc) {
		char sql[96];

		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
			 RW_HISTORY_APP_ID, RW_HISTORY_SCHEMA);
		rc = exec(h, sql);
	}
	return commit_or_undo(h, rc, "creating its tables", err, errlen);
}

/* The log and checkpoint settings for the cap; SQLITE_OK or an error. */
static int set_journal(struct rw_history *h)
{
	int64_t page = 4096, pages;
	char sql[160];
	int rc;

	/*
	 * WAL: `ratewall history` reads while the loader writes, and neither
	 * waits for the other. NORMAL sync: a power cut may lose the last
	 * windows, never the file. The log is checkpointed before it grows past
	 * an eighth of the cap (the cap counts the file and its log).
	 */
	rc = exec(h, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
	if (!rc)
		rc = query_int(h, "PRAGMA page_size", &page);
	if (rc)
		return rc;
	pages = (int64_t)(h->max_bytes / 8) / (page > 0 ? page : 4096);
	snprintf(sql, sizeof(sql), "PRAGMA wal_autocheckpoint = %lld; PRAGMA journal_size_limit = %llu",
		 (long long)(pages < 1000 ? pages : 1000), (unsigned long long)(h->max_bytes / 8));
	return exec(h, sql);
}

/* Opens the file, checks or creates the schema, prepares the statements. 0 or -errno. */
static int open_db(struct rw_history *h, char *err, size_t errlen)
{
	int rc = sqlite3_open_v2(h->path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
					 SQLITE_OPEN_NOMUTEX, NULL);

	if (rc != SQLITE_OK) {
		int e = db_error(h, rc, err, errlen, "cannot open it");

		close_db(h);
		return e;
	}
	sqlite3_busy_timeout(h->db, RW_HISTORY_BUSY_MS);
	rc = check_schema(h, err, errlen);
	if (rc) {
		close_db(h);
		return rc;
	}
	rc = set_journal(h);
	for (size_t i = 0; !rc && i < sizeof(h->st) / sizeof(h->st[0]); i++)
		rc = sqlite3_prepare_v3(h->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT, &h->st[i],
					NULL);
	if (rc) {
		int e = db_error(h, rc, err, errlen, "setting it up");

		close_db(h);
		return e;
	}
	return 0;
}

/* Seconds on the monotonic clock: when to try a closed file again (the wall clock may jump). */
static double mono_now(void)
{
	return (double)rw_clock_ns(CLOCK_MONOTONIC) / 1e9;
}

int rw_history_open(struct rw_history *h, const char *path, const char *instance,
		    uint64_t keep_ns, uint64_t max_bytes, char *err, size_t errlen)
{
	int e;

	memset(h, 0, sizeof(*h));
	snprintf(h->path, sizeof(h->path), "%s", path);
	snprintf(h->instance, sizeof(h->instance), "%s", instance);
	h->keep_ns = keep_ns;
	h->max_bytes = max_bytes;
	e = open_db(h, err, errlen);
	if (e)
		h->retry_at = mono_now() + RW_HISTORY_RETRY_S;
	return e;
}

void rw_history_close(struct rw_history *h)
{
	if (h->db)
		close_db(h);
}

/* Runs a prepared statement to its end, and resets it for the next use. */
static int run(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	/* SQLite integers are signed 64-bit: a count past 2^63 is held at the top. */
	sqlite3_bind_int64(st, i, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void bind_head(struct rw_history *h, sqlite3_stmt *st, uint64_t epoch)
{
	sqlite3_bind_text(st, 1, h->instance, -1, SQLITE_STATIC);
	bind_u64(st, 2, epoch);
}

/* The window's own row. SQLITE_OK with *fresh false when it was there already. */
static int put_window(struct rw_history *h, const struct rw_report *r, bool *fresh)
{
	const struct rw_config *cfg = r->cfg;
	sqlite3_stmt *st = h->st[ST_WINDOW];
	int rc;

	bind_head(h, st, r->epoch);
	sqlite3_bind_double(st, 3, r->ts);
	sqlite3_bind_double(st, 4, r->span_ns / 1e6);
	sqlite3_bind_double(st, 5, cfg->window_ns / 1e6);
	sqlite3_bind_int(st, 6, (int)cfg->slots);
	sqlite3_bind_text(st, 7, rw_key_kind_name(cfg->key_kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, rw_sort_name(cfg->sort), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, (int)cfg->top);
	sqlite3_bind_int(st, 10, (int)r->ntop);
	bind_u64(st, 11, r->tick.total.packets);
	bind_u64(st, 12, r->tick.total.bytes);
	bind_u64(st, 13, r->tick.total.drop_packets);
	bind_u64(st, 14, r->tick.total.drop_bytes);
	bind_u64(st, 15, r->tick.sketch_packets);
	bind_u64(st, 16, r->tick.flows);
	bind_u64(st, 17, r->stats.rx_packets);
	bind_u64(st, 18, r->stats.rx_bytes);
	bind_u64(st, 19, rw_stats_passed(&r->stats));
	bind_u64(st, 20, r->stats.dropped);
	bind_u64(st, 21, r->events_not_written);
	sqlite3_bind_double(st, 22, r->tick_ns / 1e6);
	rc = run(st);
	*fresh = rc == SQLITE_OK && sqlite3_changes(h->db) == 1;
	return rc;
}

/* The rule that governs a key, as written (NULL when none). */
static void bind_rule(sqlite3_stmt *st, int i, const struct rw_report *r, const struct rw_key *key)
{
	const struct rw_rule_spec *rule = rw_rule_of_key(r->rules, key);
	char text[RW_RULE_STRLEN];

	if (!rule)
		return;
	rw_rule_format(rule, text, sizeof(text));
	sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
}

static int put_ranking(struct rw_history *h, const struct rw_report *r, uint8_t kind,
		       const struct rw_rank_entry *top, uint32_t n)
{
	sqlite3_stmt *st = h->st[ST_TOP];
	int rc = SQLITE_OK;

	for (uint32_t i = 0; !rc && i < n; i++) {
		const struct rw_rank_entry *e = &top[i];
		char key[RW_KEY_STRLEN];

		rw_key_format(&e->key, key, sizeof(key));
		bind_head(h, st, r->epoch);
		sqlite3_bind_text(st, 3, rw_key_kind_name(kind), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, (int)i + 1);
		sqlite3_bind_text(st, 5, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_blob(st, 6, &e->key, sizeof(e->key), SQLITE_TRANSIENT);
		bind_u64(st, 7, e->sum.packets);
		bind_u64(st, 8, e->sum.bytes);
		bind_u64(st, 9, e->sum.drop_packets);
		bind_u64(st, 10, e->sum.drop_bytes);
		sqlite3_bind_double(st, 11, rw_rate(e->sum.packets, r->span_ns));
		sqlite3_bind_double(st, 12, rw_rate(e->sum.bytes * 8, r->span_ns));
		sqlite3_bind_int(st, 13, e->sum.drop_packets != 0);
		sqlite3_bind_int(st, 14, e->banned);
		sqlite3_bind_int(st, 15, (int)e->sum.cpus);
		bind_rule(st, 16, r, &e->key);
		rc = run(st);
		h->rows += !rc;
	}
	return rc;
}

/* Everything of the report but the window row: interfaces, rankings, prefixes, events. */
static int put_rows(struct rw_history *h, const struct rw_report *r)
{
	int rc = SQLITE_OK;

	for (uint32_t i = 0; !rc && i < r->nifaces; i++) {
		sqlite3_stmt *st = h->st[ST_IFACE];
		const struct rw_stats *s = &r->iface[i];

		bind_head(h, st, r->epoch);
		sqlite3_bind_text(st, 3, r->cfg->ifnames[i], -1, SQLITE_STATIC);
		bind_u64(st, 4, s->rx_packets);
		bind_u64(st, 5, s->rx_bytes);
		bind_u64(st, 6, rw_stats_passed(s));
		bind_u64(st, 7, s->dropped);
		bind_u64(st, 8, s->dropped_bytes);
		rc = run(st);
		h->rows += !rc;
	}
	if (!rc)
		rc = put_ranking(h, r, r->cfg->key_kind, r->top, r->ntop);
	for (uint32_t k = 0; !rc && k < r->nrankings; k++)
		rc = put_ranking(h, r, r->rankings[k].kind, r->rankings[k].top, r->rankings[k].n);
	for (uint32_t i = 0; !rc && i < r->nhhh; i++) {
		sqlite3_stmt *st = h->st[ST_HEAVY];
		const struct rw_hhh_item *it = &r->hhh[i];
		char key[RW_KEY_STRLEN];

		rw_key_format(&it->prefix, key, sizeof(key));
		bind_head(h, st, r->epoch);
		sqlite3_bind_text(st, 3, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 4, RW_KEY_PREFIX_LEN(&it->prefix));
		bind_u64(st, 5, it->packets);
		bind_u64(st, 6, it->residual);
		sqlite3_bind_double(st, 7, rw_share_pct(it->residual, r->tick.total.packets));
		rc = run(st);
		h->rows += !rc;
	}
	for (uint32_t i = 0; !rc && i < r->nevents; i++) {
		sqlite3_stmt *st = h->st[ST_EVENT];
		const struct rw_event_rec *ev = &r->events[i];
		char key[RW_KEY_STRLEN];

		rw_key_format(&ev->key, key, sizeof(key));
		bind_head(h, st, r->epoch);
		sqlite3_bind_int(st, 3, (int)i);
		sqlite3_bind_double(st, 4, ev->ts);
		sqlite3_bind_text(st, 5, rw_event_name(ev->type), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, rw_key_kind_name(rw_kind_of(&ev->key)), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, key, -1, SQLITE_TRANSIENT);
		if (ev->cpu >= 0)
			sqlite3_bind_int(st, 8, ev->cpu);
		if (ev->until > 0)
			sqlite3_bind_double(st, 9, ev->until);
		bind_rule(st, 10, r, &ev->key);
		if (ev->sample[0])
			sqlite3_bind_text(st, 11, ev->sample, -1, SQLITE_TRANSIENT);
		rc = run(st);
		h->rows += !rc;
	}
	return rc;
}

/* Deletes every window (of any instance) that ended before cutoff, with its rows. */
static int delete_before(struct rw_history *h, double cutoff)
{
	char sql[200];
	int rc = SQLITE_OK;

	for (size_t i = 0; !rc && i < sizeof(children) / sizeof(children[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE (instance, epoch) IN "
			 "(SELECT instance, epoch FROM windows WHERE ts < %.6f)", children[i], cutoff);
		rc = exec(h, sql);
	}
	if (!rc) {
		snprintf(sql, sizeof(sql), "DELETE FROM windows WHERE ts < %.6f", cutoff);
		rc = exec(h, sql);
		if (!rc)
			h->trimmed += (uint64_t)sqlite3_changes(h->db);
	}
	return rc;
}

/* --history-keep: windows older than the newest report by more than keep go. */
static int keep_recent(struct rw_history *h, double now)
{
	sqlite3_stmt *st = h->st[ST_OLDEST];
	double cutoff = now - h->keep_ns / 1e9, oldest;
	int rc = sqlite3_step(st);

	oldest = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
			 ? sqlite3_column_double(st, 0) : now;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return rc;
	return oldest < cutoff ? delete_before(h, cutoff) : SQLITE_OK;
}

void rw_history_remove(const char *path)
{
	static const char *const ends[] = { "", "-wal", "-shm" };
	char p[RW_PATH_MAX + 8];

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, ends[i]);
		unlink(p);
	}
}

uint64_t rw_history_used_bytes(struct rw_history *h)
{
	int64_t pages = 0, freed = 0, page = 0;

	if (!h->db || query_int(h, "PRAGMA page_count", &pages) ||
	    query_int(h, "PRAGMA freelist_count", &freed) || query_int(h, "PRAGMA page_size", &page))
		return 0;
	return (uint64_t)((pages - freed) * page);
}

/*
 * --history-max: past three quarters of the cap, the oldest windows go until
 * the pages in use are under six tenths, and the freed pages go back to the
 * file system. How many go is estimated from the average window; three
 * rounds at most. The log past an eighth of the cap is checkpointed and cut
 * to nothing. So the file and its log stay under the cap while one window
 * takes less than a tenth of it.
 */
static int hold_size(struct rw_history *h)
{
	uint64_t high = h->max_bytes / 4 * 3, low = h->max_bytes / 10 * 6;
	char wal[RW_PATH_MAX + 8];
	struct stat st;
	int rc = SQLITE_OK;

	for (int round = 0; round < 3 && !rc; round++) {
		uint64_t used = rw_history_used_bytes(h);
		sqlite3_stmt *st = h->st[ST_OLDEST], *q;
		int64_t n, go;
		char sql[120];
		double cutoff = 0;

		if (used <= (round ? low : high))
			break;
		rc = sqlite3_step(st);
		n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW || n <= 1)
			return rc == SQLITE_ROW ? SQLITE_OK : rc;
		go = (int64_t)((double)(used - low) / ((double)used / (double)n)) + 1;
		if (go >= n)
			go = n - 1; /* the newest window stays */
		snprintf(sql, sizeof(sql), "SELECT ts FROM windows ORDER BY ts LIMIT 1 OFFSET %lld",
			 (long long)go);
		rc = sqlite3_prepare_v2(h->db, sql, -1, &q, NULL);
		if (rc)
			return rc;
		if (sqlite3_step(q) == SQLITE_ROW)
			cutoff = sqlite3_column_double(q, 0);
		sqlite3_finalize(q);
		rc = exec(h, "BEGIN IMMEDIATE");
		if (!rc)
			rc = delete_before(h, cutoff);
		if (!rc)
			rc = exec(h, "COMMIT");
		if (!rc)
			rc = exec(h, "PRAGMA incremental_vacuum");
	}
	snprintf(wal, sizeof(wal), "%s-wal", h->path);
	if (!rc && stat(wal, &st) == 0 && (uint64_t)st.st_size > h->max_bytes / 8)
		rc = exec(h, "PRAGMA wal_checkpoint(TRUNCATE)");
	return rc;
}

/* An error after which the file is closed and opened again later, not used as it is. */
static bool reopen_after(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_FULL:
		return false;
	default:
		return true;
	}
}

int rw_history_write(struct rw_history *h, const struct rw_report *r, char *err, size_t errlen)
{
	bool fresh = false;
	int rc, e;

	if (!h->db) {
		if (mono_now() < h->retry_at) {
			h->failed++;
			return say(err, errlen, -EAGAIN, "history %s: not open", h->path);
		}
		e = open_db(h, err, errlen);
		if (e) {
			h->retry_at = mono_now() + RW_HISTORY_RETRY_S;
			h->failed++;
			return e;
		}
	}
	rc = exec(h, "BEGIN IMMEDIATE");
	if (!rc)
		rc = put_window(h, r, &fresh);
	if (!rc && fresh)
		rc = put_rows(h, r);
	if (!rc && fresh)
		rc = keep_recent(h, r->ts);
	if (!rc)
		rc = exec(h, "COMMIT");
	if (!rc) {
		h->written += fresh;
		h->replays += !fresh;
		h->rows += fresh;
		rc = fresh ? hold_size(h) : SQLITE_OK;
		if (!rc)
			return fresh ? 1 : 0;
		/* The window is in; what failed is making room after it. */
		e = db_error(h, rc, err, errlen, "deleting old windows for --history-max");
		if (!sqlite3_get_autocommit(h->db))
			exec(h, "ROLLBACK");
		return e;
	}
	e = db_error(h, rc, err, errlen, "writing a window");
	if (!sqlite3_get_autocommit(h->db))
		exec(h, "ROLLBACK");
	h->failed++;
	if (reopen_after(rc)) {
		close_db(h);
		h->retry_at = mono_now() + RW_HISTORY_RETRY_S;
	}
	return e;
}
