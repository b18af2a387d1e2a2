/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --history FILE: every report kept in an SQLite database, once per window.
 *
 * A report is keyed by (instance, epoch): the slot the window ends in, on the
 * program's clock. Writing a window that is there already (a loader restarted
 * in the same slot, a --replace) changes nothing: the window row is inserted
 * first, with ON CONFLICT DO NOTHING, and the rest of the report only when it
 * was new, all in one transaction. Retention (--history-keep) and the size cap
 * (--history-max) are enforced as it writes. The writer never waits for the
 * database more than RW_HISTORY_BUSY_MS: a locked, full, corrupt or foreign
 * file costs the window its row and an error, never a tick.
 */
#ifndef RW_HISTORY_H
#define RW_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/config.h"
#include "views/report.h"

/* PRAGMA user_version of the schema this ratewall writes and reads. */
#define RW_HISTORY_SCHEMA 3
/* PRAGMA application_id: "RWHL", a ratewall history file. */
#define RW_HISTORY_APP_ID 0x5257484c
/* Longest wait for another writer's lock, each statement. */
#define RW_HISTORY_BUSY_MS 50
/* After an error that closed the file: seconds before opening it again. */
#define RW_HISTORY_RETRY_S 5.0

struct sqlite3;
struct sqlite3_stmt;

struct rw_history {
	struct sqlite3 *db; /* NULL: not open (never opened, or closed after an error) */
	struct sqlite3_stmt *st[6];
	char path[RW_PATH_MAX];
	char instance[RW_NAME_MAX];
	uint64_t keep_ns;
	uint64_t max_bytes;
	double retry_at;  /* monotonic clock, s: when a closed file may be opened again */
	uint64_t written; /* windows written */
	uint64_t replays; /* windows that were there already */
	uint64_t failed;  /* windows not written (an error) */
	uint64_t rows;    /* rows written, every table */
	uint64_t trimmed; /* windows deleted by retention or the size cap */
};

/*
 * Opens (creates) the database at path for instance's windows. On failure
 * (-errno, the reason in err) h is still set up: rw_history_write opens it
 * again later.
 */
int rw_history_open(struct rw_history *h, const char *path, const char *instance,
		    uint64_t keep_ns, uint64_t max_bytes, char *err, size_t errlen);
void rw_history_close(struct rw_history *h);

/*
 * One report, as window epoch r->epoch ending at wall time r->ts: 1 written,
 * 0 there already (nothing changed), or -errno with the reason in err (the
 * window is not written; the next call tries again, reopening the file after
 * RW_HISTORY_RETRY_S when the error closed it).
 */
int rw_history_write(struct rw_history *h, const struct rw_report *r, char *err, size_t errlen);

/*
 * Whether the open database db (at path) is a ratewall history of this
 * schema version, or empty (*empty: a new file). 0 or -errno with the reason.
 */
int rw_history_schema(struct sqlite3 *db, const char *path, bool *empty, char *err,
		      size_t errlen);

/* Removes a database file and its log and shared-memory files, where they exist. */
void rw_history_remove(const char *path);

/* The size the database's pages take (in use, not free), bytes; 0 when not open. */
uint64_t rw_history_used_bytes(struct rw_history *h);

#endif
