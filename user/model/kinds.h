/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kinds of key (--key, --rank): a row each, what every view calls a kind
 * and how wide it shows it. The table, the terminal view, JSON, /metrics,
 * --history and --events read their words here, so a kind reads the same in
 * each. A new kind is a row here (and its key's fields in include/ratewall.h).
 */
#ifndef RW_KINDS_H
#define RW_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include "ratewall.h"

struct rw_kind_desc {
	/* The word operators type (--key, --rank, history --kind), JSON's "kind" and
	 * "key_kind", --history's kind column, /metrics' kind label: a contract. */
	const char *name;
	/* The key column's heading, the table's and the terminal view's. */
	const char *heading;
	/* A key of the kind, and keys of it, in prose: "no tracked source", "view sources". */
	const char *one;
	const char *many;
	/* The table's key column: room for the usual key (longer ones push the row on). */
	int table_cols;
	/* The terminal view's key column at most: the longest key, two ends with ports. */
	int view_max_cols;
	/* /metrics: a label that repeats the key beside key="" (the source's, from before
	 * kinds: users' queries read it), or NULL. */
	const char *metric_label;
	/* Addresses in a key: 1, or 2 for "A → B". */
	int ends;
	/* A key carries the protocol and the ports: "udp A:p → B:q". */
	bool ports;
};

/* Indexed by enum rw_key_kind. */
extern const struct rw_kind_desc rw_kinds[RW_KIND_COUNT];
/* The rows' names in that order, NULL-ended: what a choice offers (--key, --rank, completion). */
extern const char *const rw_key_kind_names[RW_KIND_COUNT + 1];

/*
 * The row of a kind (a key's rw_kind_of(), or an enum rw_key_kind): for anything
 * else a row named "?", headed "KEY", of "keys", so a view never reads past the table.
 */
const struct rw_kind_desc *rw_kind(unsigned int kind);
/* The heading with "->" for its "→" when utf8 is false, as keys are shown then. */
void rw_kind_heading(const struct rw_kind_desc *d, bool utf8, char *buf, size_t len);

/* "src", "dst", "pair", "flow"; "?" for anything else. */
const char *rw_key_kind_name(unsigned int kind);
/* The kind a name stands for, or -1. */
int rw_key_kind_parse(const char *name);
/* Every kind's name, as an error lists the choices: "src, dst, pair, flow". */
void rw_key_kind_choices(char *buf, size_t len);
/*
 * A list of kinds ("dst,pair") as a mask, a bit per kind: 0, or -EINVAL with
 * the reason ("'x' is not one of ...", "'dst' is listed twice") in err.
 */
int rw_key_kinds_parse(const char *list, unsigned int *mask, char *err, size_t errlen);
/* The kinds of a mask (a bit per kind) as "dst,pair"; "none" for 0. */
void rw_key_kinds_text(unsigned int mask, char *buf, size_t len);

#endif
