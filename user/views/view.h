/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What `ratewall top` and `run --tui` show, without the terminal: the
 * watcher's choices (sort, filter, limited only, level, pause), the keys that
 * change them, the ranking of one pass over the tracked flows (sources, or
 * prefixes of one level), and every line of text the screen is made of. The
 * ncurses part (tui.c) only places these lines; the tests read them here.
 */
#ifndef RW_VIEW_H
#define RW_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cli/config.h"
#include "kernel/table.h"
#include "model/rules.h"
#include "rank/hhh.h"
#include "rank/rank.h"
#include "ratewall.h"
#include "ratewall_window.h"

/* Rows a pass keeps at most (more than any screen holds). */
#define RW_VIEW_ROWS_MAX 256
#define RW_VIEW_INPUT_MAX 64
#define RW_VIEW_MSG_MAX 160
/* Prefix levels the view cycles through when none are given. */
#define RW_VIEW_DEFAULT_LEVELS "v4:24,16 v6:64,48"

struct rw_view_level {
	uint8_t family; /* RW_FAMILY_IPV4 or _IPV6 */
	uint8_t len;
};

/* The watcher's choices: what the keys change. */
struct rw_view_opts {
	enum rw_sort sort;
	bool limited_only; /* only keys with drops in the window */
	bool paused;       /* keep the screen's data as it is */
	bool help;         /* the help screen is up */
	uint32_t level;    /* 0: the keys; i > 0: prefixes of lv[i - 1] */
	uint32_t first;    /* the first row on screen (scrolled down this many) */
	uint32_t page;     /* rows the screen holds (the terminal's, for page keys) */
	struct rw_view_level lv[2 * RW_HHH_LEVELS];
	uint32_t nlv;
	uint8_t key_kind;  /* enum rw_key_kind: the main (limited) kind */
	uint8_t rank_mask; /* --rank: the other kinds ranked, a bit each */
	uint8_t shown;     /* the kind on screen: key_kind, or one of rank_mask (n switches) */
	bool filtered;     /* only sources inside filter/filter_len */
	struct rw_key filter;
	uint8_t filter_len;
	char filter_text[RW_VIEW_INPUT_MAX];
	const struct rw_ruleset *rules; /* the rules in force, to name a key's (NULL: none) */
};

/* The filter prompt and the one-line message under the table. */
struct rw_view_input {
	bool active;
	char buf[RW_VIEW_INPUT_MAX];
	size_t len;
	char msg[RW_VIEW_MSG_MAX];
};

/* Keys the view understands beyond printable ones (the terminal's are mapped to these). */
#define RW_VK_ENTER '\n'
#define RW_VK_ESC 27
#define RW_VK_BACKSPACE 127
#define RW_VK_TAB '\t'
#define RW_VK_KILL 21 /* Ctrl-U: empty the prompt */
#define RW_VK_DOWN 0x1001
#define RW_VK_UP 0x1002
#define RW_VK_PGDOWN 0x1003
#define RW_VK_PGUP 0x1004
#define RW_VK_HOME 0x1005

/* What a key asks of the caller (bits). */
#define RW_VIEW_REDRAW 1u /* the screen changed: draw it again */
#define RW_VIEW_RESCAN 2u /* the ranking changed: read the flows again */
#define RW_VIEW_QUIT 4u

/*
 * Sets the defaults: sort by pps, sources, no filter; the prefix levels from
 * levels (none given: RW_VIEW_DEFAULT_LEVELS).
 */
void rw_view_opts_init(struct rw_view_opts *o, enum rw_sort sort, const struct rw_levels *levels);
/* One key: changes o and in, returns RW_VIEW_* bits. */
unsigned int rw_view_key(struct rw_view_opts *o, struct rw_view_input *in, int key);

struct rw_view_row {
	struct rw_key key; /* a source, a shared budget, or a prefix of the level */
	struct rw_window_sum sum;
	uint64_t metric;   /* by the sort */
	uint32_t members;  /* prefix rows: tracked keys in it */
	uint64_t spark[RW_MAX_SLOTS]; /* the sort's count per slot, oldest first */
};

struct rw_view_cell; /* a prefix being summed (view.c) */

/* One pass: offer every tracked flow, then rank. */
struct rw_view {
	struct rw_view_opts o;
	uint32_t slots;
	uint64_t first_epoch; /* the sparklines' oldest slot */
	struct rw_topk top;   /* sources */
	struct rw_view_cell *cell; /* prefixes, open addressing */
	size_t ncell, cell_cap;
	struct rw_view_row *rows;
	struct rw_rank_entry *best; /* the ranking drained, before it becomes rows */
	uint32_t nrows;
	uint64_t matched; /* sources (or prefixes) that passed the filters this pass */
};

int rw_view_init(struct rw_view *v, uint32_t slots);
void rw_view_free(struct rw_view *v);
/* Starts a pass whose sparklines end with the slot before now_epoch (complete slots only). */
void rw_view_begin(struct rw_view *v, uint64_t now_epoch);
/*
 * One live tracked flow: key, window sums, and the flow itself (records and
 * history) for the prefix sparklines. 0 or -ENOMEM.
 */
int rw_view_offer(struct rw_view *v, const struct rw_key *key, const struct rw_window_sum *sum,
		  const struct rw_flow_view *fv);
/*
 * Ranks the pass into rows: the best first + page (at most RW_VIEW_ROWS_MAX),
 * and pulls first back onto the last row when it points past the end. Source
 * rows come without sparklines: the caller reads their flows (rw_view_source_spark).
 */
void rw_view_end(struct rw_view *v);
/* A source row's sparkline from its flow. */
void rw_view_source_spark(const struct rw_view *v, struct rw_view_row *row,
			  const struct rw_flow_view *fv);

/* Everything above the table that is not a ranking. */
struct rw_view_head {
	const char *what;   /* "top" or "run" */
	char name[RW_NAME_MAX];
	double window_s;
	uint32_t slots;
	uint64_t pps, bps;  /* per-source limits, 0 = none */
	bool dry_run;
	bool loader_alive;  /* someone wipes idle flows and sets thresholds */
	bool gone;          /* the instance was stopped under the watcher */
	double ts;          /* wall clock of the pass */
	uint64_t span_ns;   /* time the window covers */
	struct rw_window_sum total; /* every keyed packet in the window */
	uint64_t sketch_packets;
	uint64_t tracked, max_flows;
	struct rw_stats stats; /* since load */
	/* --levels: the window's heavy prefixes (sampled untracked traffic too) */
	bool levels;
	uint32_t heavy_share_pct;
	const struct rw_hhh_item *heavy;
	uint32_t nheavy;
	uint64_t heavy_total; /* the window's packets they are shares of (0: total.packets) */
	double heavy_ts;      /* when the loader found them (top; 0: this pass) */
};

/* Column widths for a terminal cols wide; ok false when it cannot hold a row. */
struct rw_view_layout {
	bool ok;
	int key_w, spark_w;
};
#define RW_VIEW_MIN_COLS 50
#define RW_VIEW_MIN_LINES 9
/* Lines above the table (head: one more with heavy prefixes); one below it (prompt, message). */
#define RW_VIEW_HEAD_LINES 5
int rw_view_head_lines(const struct rw_view_head *h);
struct rw_view_layout rw_view_layout(const struct rw_view *v, int cols);

/* The screen's lines, each at most len - 1 bytes; utf8: block characters for sparklines. */
void rw_view_title(const struct rw_view *v, const struct rw_view_head *h, char *buf, size_t len);
void rw_view_window_line(const struct rw_view_head *h, char *buf, size_t len);
void rw_view_since_line(const struct rw_view_head *h, char *buf, size_t len);
/* The heavy prefixes' line; false when the head has none to show (no --levels). */
bool rw_view_heavy_line(const struct rw_view_head *h, char *buf, size_t len);
void rw_view_state_line(const struct rw_view *v, const struct rw_view_head *h, char *buf,
			size_t len);
/* The column headings, the key's the shown kind's (its arrow "->" when utf8 is false). */
void rw_view_columns(const struct rw_view *v, const struct rw_view_layout *l, bool utf8,
		     char *buf, size_t len);
/* The line in place of the rows when there are none (into buf); NULL when there are rows. */
const char *rw_view_empty_line(const struct rw_view *v, char *buf, size_t len);
void rw_view_row_text(const struct rw_view *v, const struct rw_view_head *h,
		      const struct rw_view_layout *l, uint32_t i, bool utf8, char *buf, size_t len);
/* Whether row i is limited (drops in the window): shown in another colour. */
bool rw_view_row_limited(const struct rw_view *v, uint32_t i);
/* The help screen, NULL-terminated. */
extern const char *const rw_view_help[];

/* A sparkline of n counts scaled to their peak: one character (cell) each. */
void rw_spark(const uint64_t *count, uint32_t n, bool utf8, char *buf, size_t len);

#endif
