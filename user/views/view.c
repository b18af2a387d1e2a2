// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "kernel/flowtab.h"
#include "kernel/window.h"
#include "model/key.h"
#include "model/rules.h"
#include "model/units.h"
#include "ratewall_hash.h"

/* --- Choices and keys ---------------------------------------------------------- */

void rw_view_opts_init(struct rw_view_opts *o, enum rw_sort sort, const struct rw_levels *levels)
{
	struct rw_levels def;
	char err[128];

	memset(o, 0, sizeof(*o));
	o->sort = sort;
	if (!levels || (!levels->n[0] && !levels->n[1])) {
		rw_parse_levels(RW_VIEW_DEFAULT_LEVELS, &def, err, sizeof(err));
		levels = &def;
	}
	for (int f = 0; f < 2; f++) {
		for (uint32_t i = 0; i < levels->n[f]; i++) {
			/* A level as long as an address is the sources view again. */
			if (levels->len[f][i] == (f ? 128 : 32))
				continue;
			o->lv[o->nlv].family = f ? RW_FAMILY_IPV6 : RW_FAMILY_IPV4;
			o->lv[o->nlv++].len = levels->len[f][i];
		}
	}
}

static void say(struct rw_view_input *in, const char *msg)
{
	snprintf(in->msg, sizeof(in->msg), "%s", msg);
}

/* Enter in the prompt: the filter it holds, or none when empty. */
static unsigned int apply_filter(struct rw_view_opts *o, struct rw_view_input *in)
{
	char err[RW_VIEW_MSG_MAX - 24];
	struct rw_key prefix;
	uint8_t plen;

	in->active = false;
	in->buf[in->len] = '\0';
	if (in->len == 0) {
		o->first = 0;
		o->filtered = false;
		o->filter_text[0] = '\0';
		say(in, "filter cleared");
		return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
	}
	if (rw_parse_cidr(in->buf, &prefix, &plen, err, sizeof(err))) {
		snprintf(in->msg, sizeof(in->msg), "filter not changed: %s", err);
		return RW_VIEW_REDRAW;
	}
	o->first = 0;
	o->filtered = true;
	o->filter = prefix;
	o->filter_len = plen;
	snprintf(o->filter_text, sizeof(o->filter_text), "%s", in->buf);
	in->msg[0] = '\0';
	return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
}

static unsigned int prompt_key(struct rw_view_opts *o, struct rw_view_input *in, int key)
{
	switch (key) {
	case RW_VK_ENTER:
	case '\r':
		return apply_filter(o, in);
	case RW_VK_ESC:
		in->active = false;
		say(in, "filter not changed");
		return RW_VIEW_REDRAW;
	case RW_VK_BACKSPACE:
	case '\b':
		if (in->len)
			in->len--;
		in->buf[in->len] = '\0';
		return RW_VIEW_REDRAW;
	case RW_VK_KILL:
		in->len = 0;
		in->buf[0] = '\0';
		return RW_VIEW_REDRAW;
	}
	if (key < 0x21 || key > 0x7e || in->len + 1 >= sizeof(in->buf))
		return 0; /* addresses are printable ASCII without blanks */
	in->buf[in->len++] = (char)key;
	in->buf[in->len] = '\0';
	return RW_VIEW_REDRAW;
}

/* Scrolls to row `to` (past the end is pulled back after the next pass). */
static unsigned int scroll(struct rw_view_opts *o, int64_t to)
{
	int64_t last = RW_VIEW_ROWS_MAX - 1;

	to = to < 0 ? 0 : to > last ? last : to;
	if ((uint32_t)to == o->first)
		return 0;
	o->first = (uint32_t)to;
	return RW_VIEW_RESCAN | RW_VIEW_REDRAW; /* rows beyond those ranked need a pass */
}

unsigned int rw_view_key(struct rw_view_opts *o, struct rw_view_input *in, int key)
{
	if (in->active)
		return prompt_key(o, in, key);
	if (key == 'q' || key == 'Q')
		return RW_VIEW_QUIT;
	if (o->help) {
		o->help = false; /* any other key closes the help */
		return RW_VIEW_REDRAW;
	}
	in->msg[0] = '\0';
	switch (key) {
	case 's':
		o->first = 0; /* another order, another list: from its top */
		o->sort = (enum rw_sort)((o->sort + 1) % 3);
		snprintf(in->msg, sizeof(in->msg), "sorted by %s", rw_sort_name(o->sort));
		return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
	case 'p':
	case ' ':
		o->paused = !o->paused;
		say(in, o->paused ? "paused: the data stays as it is (p resumes)" : "resumed");
		return RW_VIEW_REDRAW | (o->paused ? 0 : RW_VIEW_RESCAN);
	case '/':
		in->active = true;
		in->len = strlen(o->filter_text);
		memcpy(in->buf, o->filter_text, in->len + 1);
		return RW_VIEW_REDRAW;
	case 'l':
		o->first = 0;
		o->limited_only = !o->limited_only;
		snprintf(in->msg, sizeof(in->msg), "%s %s", o->limited_only ? "only limited" : "all",
			 rw_kind(o->shown)->many);
		return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
	case 'v':
	case RW_VK_TAB:
		o->first = 0;
		o->level = (o->level + 1) % (o->nlv + 1);
		return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
	case 'n': {
		/* The next kind: the main one, then each --rank kind, round again. */
		uint32_t k = o->shown;

		if (!o->rank_mask) {
			say(in, "one kind only: ratewall run --rank KIND,... ranks others beside it");
			return RW_VIEW_REDRAW;
		}
		do
			k = (k + 1) % RW_KIND_COUNT;
		while (k != o->key_kind && !(o->rank_mask & (1u << k)));
		o->shown = (uint8_t)k;
		o->first = 0;
		snprintf(in->msg, sizeof(in->msg), "%s%s", rw_kind(k)->many,
			 k == o->key_kind ? " (limited)" : " (counted, never limited)");
		return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
	}
	case 'r':
		return RW_VIEW_RESCAN | RW_VIEW_REDRAW;
	case 'j':
	case RW_VK_DOWN:
		return scroll(o, (int64_t)o->first + 1);
	case 'k':
	case RW_VK_UP:
		return scroll(o, (int64_t)o->first - 1);
	case RW_VK_PGDOWN:
		return scroll(o, (int64_t)o->first + (o->page ? o->page : 1));
	case RW_VK_PGUP:
		return scroll(o, (int64_t)o->first - (o->page ? o->page : 1));
	case 'g':
	case RW_VK_HOME:
		return scroll(o, 0);
	case '?':
	case 'h':
		o->help = true;
		return RW_VIEW_REDRAW;
	}
	return 0;
}

/* --- One pass ------------------------------------------------------------------- */

struct rw_view_cell {
	struct rw_key key;
	bool used;
	uint32_t members;
	struct rw_window_sum sum;
};

int rw_view_init(struct rw_view *v, uint32_t slots)
{
	memset(v, 0, sizeof(*v));
	v->slots = slots;
	v->rows = calloc(RW_VIEW_ROWS_MAX, sizeof(*v->rows));
	v->best = calloc(RW_VIEW_ROWS_MAX, sizeof(*v->best));
	if (!v->rows || !v->best || rw_topk_init(&v->top, RW_VIEW_ROWS_MAX))
		return -ENOMEM;
	return 0;
}

static uint64_t *cell_spark(const struct rw_view *v, const uint64_t *spark, size_t i)
{
	return (uint64_t *)spark + i * v->slots;
}

void rw_view_free(struct rw_view *v)
{
	free(v->rows);
	free(v->best);
	free(v->cell);
	rw_topk_free(&v->top);
	memset(v, 0, sizeof(*v));
}

/* The prefix table's sparklines live after its cells, slots counts each. */
static uint64_t *sparks_of(const struct rw_view *v)
{
	return (uint64_t *)(v->cell + v->cell_cap);
}

static size_t cell_size(const struct rw_view *v)
{
	return sizeof(struct rw_view_cell) + v->slots * sizeof(uint64_t);
}

void rw_view_begin(struct rw_view *v, uint64_t now_epoch)
{
	v->first_epoch = now_epoch > v->slots ? now_epoch - v->slots : 0;
	v->nrows = 0;
	v->matched = 0;
	/* Only a table the last pass used needs wiping (a sources pass leaves it empty). */
	if (v->ncell)
		memset(v->cell, 0, v->cell_cap * cell_size(v));
	v->ncell = 0;
	rw_topk_clear(&v->top);
}

static size_t find_cell(const struct rw_view_cell *c, size_t cap, const struct rw_key *key)
{
	size_t i = rw_hash(key, 0x9e3779b9) & (cap - 1);

	while (c[i].used && memcmp(&c[i].key, key, sizeof(*key)) != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Doubles the prefix table (kept at most half full). */
static int grow_cells(struct rw_view *v)
{
	size_t cap = v->cell_cap ? v->cell_cap * 2 : 1024;
	struct rw_view *next = &(struct rw_view){ .slots = v->slots, .cell_cap = cap };
	const uint64_t *old_spark = v->cell ? sparks_of(v) : NULL;

	next->cell = calloc(cap, cell_size(v));
	if (!next->cell)
		return -ENOMEM;
	for (size_t i = 0; i < v->cell_cap; i++) {
		size_t j;

		if (!v->cell[i].used)
			continue;
		j = find_cell(next->cell, cap, &v->cell[i].key);
		next->cell[j] = v->cell[i];
		memcpy(cell_spark(next, sparks_of(next), j), cell_spark(v, old_spark, i),
		       v->slots * sizeof(uint64_t));
	}
	free(v->cell);
	v->cell = next->cell;
	v->cell_cap = cap;
	return 0;
}

static enum rw_hist_word spark_word(enum rw_sort sort)
{
	return sort == RW_SORT_BPS ? RW_H_BYTES : sort == RW_SORT_DROPS ? RW_H_DROP_PACKETS
									: RW_H_PACKETS;
}

static void sum_add(struct rw_window_sum *a, const struct rw_window_sum *b)
{
	a->packets += b->packets;
	a->bytes += b->bytes;
	a->drop_packets += b->drop_packets;
	a->drop_bytes += b->drop_bytes;
	if (b->newest_epoch > a->newest_epoch)
		a->newest_epoch = b->newest_epoch;
	if (b->cpus > a->cpus)
		a->cpus = b->cpus;
}

/*
 * A flow into its prefix of the level. A shared budget already coarser than
 * the level (limit ... per /16, seen at /24) stays its own row.
 */
static int offer_prefix(struct rw_view *v, const struct rw_key *key,
			const struct rw_window_sum *sum, const struct rw_flow_view *fv)
{
	const struct rw_view_level *lv = &v->o.lv[v->o.level - 1];
	uint64_t counts[RW_MAX_SLOTS], *spark;
	struct rw_key p;
	size_t i;
	int e;

	if (key->family != lv->family)
		return 0;
	if (!rw_key_cut(key, lv->len, &p))
		p = *key;
	if ((v->ncell + 1) * 2 > v->cell_cap && (e = grow_cells(v)))
		return e;
	i = find_cell(v->cell, v->cell_cap, &p);
	if (!v->cell[i].used) {
		v->cell[i].used = true;
		v->cell[i].key = p;
		v->ncell++;
	}
	v->cell[i].members++;
	sum_add(&v->cell[i].sum, sum);
	rw_flow_slot_counts(fv, v->slots, spark_word(v->o.sort), v->first_epoch, v->slots, counts);
	spark = cell_spark(v, sparks_of(v), i);
	for (uint32_t s = 0; s < v->slots; s++)
		spark[s] += counts[s];
	return 0;
}

int rw_view_offer(struct rw_view *v, const struct rw_key *key, const struct rw_window_sum *sum,
		  const struct rw_flow_view *fv)
{
	struct rw_rank_entry e;

	/* The kind on screen only: the main kind's keys, or one --rank kind's. */
	if (v->o.shown == v->o.key_kind ? (key->kind & RW_KIND_RANKED) != 0
					 : key->kind != (v->o.shown | RW_KIND_RANKED))
		return 0;
	if (v->o.filtered && !rw_key_within(key, &v->o.filter, v->o.filter_len))
		return 0;
	if (v->o.level)
		return offer_prefix(v, key, sum, fv);
	if (v->o.limited_only && !sum->drop_packets)
		return 0;
	v->matched++;
	e = (struct rw_rank_entry){ .key = *key, .sum = *sum,
				    .metric = rw_sort_metric(sum, v->o.sort) };
	rw_topk_offer(&v->top, &e);
	return 0;
}

void rw_view_end(struct rw_view *v)
{
	struct rw_rank_entry *best = v->best;
	uint64_t max = (uint64_t)v->o.first + (v->o.page ? v->o.page : 1);
	uint32_t n;

	for (size_t i = 0; v->o.level && i < v->cell_cap; i++) {
		const struct rw_view_cell *c = &v->cell[i];

		if (!c->used || (v->o.limited_only && !c->sum.drop_packets))
			continue;
		v->matched++;
		rw_topk_offer(&v->top, &(struct rw_rank_entry){
			.key = c->key, .sum = c->sum, .metric = rw_sort_metric(&c->sum, v->o.sort) });
	}
	n = rw_topk_drain(&v->top, best);
	v->nrows = n < max ? n : (uint32_t)max;
	if (v->o.first >= v->nrows)
		v->o.first = v->nrows ? v->nrows - 1 : 0;
	for (uint32_t r = 0; r < v->nrows; r++) {
		struct rw_view_row *row = &v->rows[r];

		memset(row, 0, sizeof(*row));
		row->key = best[r].key;
		row->sum = best[r].sum;
		row->metric = best[r].metric;
		if (v->o.level) {
			size_t i = find_cell(v->cell, v->cell_cap, &row->key);

			row->members = v->cell[i].members;
			memcpy(row->spark, cell_spark(v, sparks_of(v), i), v->slots * sizeof(uint64_t));
		}
	}
}

void rw_view_source_spark(const struct rw_view *v, struct rw_view_row *row,
			  const struct rw_flow_view *fv)
{
	rw_flow_slot_counts(fv, v->slots, spark_word(v->o.sort), v->first_epoch, v->slots, row->spark);
}

/* --- Text ------------------------------------------------------------------------ */

/* The header of the key column, and the current level's name. */
static const char *level_name(const struct rw_view *v, char *buf, size_t len)
{
	const struct rw_view_level *lv;

	if (!v->o.level)
		return rw_kind(v->o.shown)->many;
	lv = &v->o.lv[v->o.level - 1];
	snprintf(buf, len, "IPv%u /%u", lv->family == RW_FAMILY_IPV4 ? 4 : 6, lv->len);
	return buf;
}

static const char *sort_name(enum rw_sort s)
{
	return s == RW_SORT_BPS ? "bps" : s == RW_SORT_DROPS ? "drops" : "pps";
}

void rw_view_title(const struct rw_view *v, const struct rw_view_head *h, char *buf, size_t len)
{
	char pps[16], bps[16], limit[40] = "none";

	rw_format_si((double)h->pps, pps, sizeof(pps));
	rw_format_si((double)h->bps, bps, sizeof(bps));
	if (h->pps && h->bps)
		snprintf(limit, sizeof(limit), "%s pps %s bps", pps, bps);
	else if (h->pps || h->bps)
		snprintf(limit, sizeof(limit), "%s %s", h->pps ? pps : bps, h->pps ? "pps" : "bps");
	/* What needs attention first: the rest may be cut by a narrow terminal. */
	snprintf(buf, len, "ratewall %s: %s%s%s%s%s  window %.3gs/%u  limit %s", h->what, h->name,
		 h->gone ? "  STOPPED" : "", h->loader_alive ? "" : "  NO LOADER",
		 v->o.paused ? "  PAUSED" : "", h->dry_run ? "  DRY RUN" : "", h->window_s, h->slots,
		 limit);
}

/* A count of keys, exact up to five digits, else in three figures (a table of 1 Mi: 1.05M). */
static void rw_view_format_keys(uint64_t n, char *buf, size_t len)
{
	if (n < 100000)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		rw_format_si((double)n, buf, len);
}

/*
 * The window's rates (the title names the window): unlabelled, so that it
 * fits 80 columns with every figure at its widest, a 1 Mi table full
 * included (tests/unit/test_views.c).
 */
void rw_view_window_line(const struct rw_view_head *h, char *buf, size_t len)
{
	char a[16], b[16], c[16], d[16], n[16], max[16];

	rw_format_si(rw_rate(h->total.packets, h->span_ns), a, sizeof(a));
	rw_format_si(rw_rate(h->total.bytes * 8, h->span_ns), b, sizeof(b));
	rw_format_si(rw_rate(h->total.drop_packets, h->span_ns), c, sizeof(c));
	rw_format_si(rw_rate(h->sketch_packets, h->span_ns), d, sizeof(d));
	rw_view_format_keys(h->tracked, n, sizeof(n));
	rw_view_format_keys(h->max_flows, max, sizeof(max));
	snprintf(buf, len, "rx %s pps %s bps  drop %s pps  tracked %s/%s  sketch %s pps", a, b, c, n,
		 max, d);
}

void rw_view_since_line(const struct rw_view_head *h, char *buf, size_t len)
{
	char a[16], b[16], c[16], d[16];

	rw_format_si((double)h->stats.rx_packets, a, sizeof(a));
	rw_format_si((double)rw_stats_passed(&h->stats), b, sizeof(b));
	rw_format_si((double)h->stats.dropped, c, sizeof(c));
	rw_format_si((double)(h->stats.malformed + h->stats.non_ip), d, sizeof(d));
	snprintf(buf, len, "since load  rx %s  passed %s  dropped %s  unkeyed %s packets", a, b, c,
		 d);
}

int rw_view_head_lines(const struct rw_view_head *h)
{
	return RW_VIEW_HEAD_LINES + (h->levels ? 1 : 0);
}

bool rw_view_heavy_line(const struct rw_view_head *h, char *buf, size_t len)
{
	uint64_t total = h->heavy_total ? h->heavy_total : h->total.packets;
	char when[24] = "";
	size_t n;

	if (!h->levels)
		return false;
	/* Found by a loader that is gone: say when, they are not this window's. */
	if (h->heavy_ts && !h->loader_alive) {
		time_t at = (time_t)h->heavy_ts;
		struct tm tm;

		localtime_r(&at, &tm);
		strftime(when, sizeof(when), ", as of %H:%M:%S", &tm);
	}
	n = (size_t)snprintf(buf, len, "heavy prefixes (>= %u%% net%s):", h->heavy_share_pct, when);
	for (uint32_t i = 0; i < h->nheavy && n < len; i++) {
		char key[RW_KEY_STRLEN];

		rw_key_format(&h->heavy[i].prefix, key, sizeof(key));
		n += (size_t)snprintf(buf + n, len - n, "%s %s %.1f%%", i ? "," : "", key,
				      total ? 100.0 * (double)h->heavy[i].residual / (double)total
					    : 0.0);
	}
	if (!h->nheavy && n < len)
		snprintf(buf + n, len - n, " none");
	return true;
}

void rw_view_state_line(const struct rw_view *v, const struct rw_view_head *h, char *buf,
			size_t len)
{
	char lv[48], when[16];
	time_t now = (time_t)h->ts;
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	snprintf(buf, len, "view %s %u/%u | sort %s | filter %s%s | %s%u of %llu | %s",
		 level_name(v, lv, sizeof(lv)), v->o.level + 1, v->o.nlv + 1, sort_name(v->o.sort),
		 v->o.filtered ? v->o.filter_text : "none", v->o.limited_only ? " | limited only" : "",
		 v->o.first ? "from " : "", v->o.first ? v->o.first + 1 : v->nrows,
		 (unsigned long long)v->matched, when);
}

/* Fixed columns: rank, PPS, BPS, DROP/S, SHARE, LIM and the blanks between. */
#define FIXED_COLS (3 + 1 + 1 + 7 + 1 + 7 + 1 + 7 + 1 + 6 + 1 + 3 + 2)
#define KEY_COL_MIN 8

/* Columns a key's text takes (the arrow is one column, three bytes). */
static int key_cols(const char *k)
{
	return (int)strlen(k) - rw_text_extra_bytes(k);
}

/* The key column's heading: the shown kind's, or PREFIX on a prefix level. */
static void key_heading(const struct rw_view *v, bool utf8, char *buf, size_t len)
{
	if (v->o.level)
		snprintf(buf, len, "PREFIX");
	else
		rw_kind_heading(rw_kind(v->o.shown), utf8, buf, len);
}

/*
 * A row's key as the table shows it: a key under a prefix-only rule says so,
 * as a rule's budget does in its own text ("198.18.0.9 [rule 3]").
 */
static void row_key_text(const struct rw_view *v, const struct rw_view_row *r, bool utf8,
			 char *buf, size_t len)
{
	const struct rw_rule_spec *rule;
	size_t n;

	rw_key_format_as(&r->key, utf8, buf, len);
	rule = r->key.kind & RW_KIND_RULE ? NULL : rw_rule_of_key(v->o.rules, &r->key);
	n = strlen(buf);
	if (rule && n < len)
		snprintf(buf + n, len - n, " [rule %u]", rule->id);
}
struct rw_view_layout rw_view_layout(const struct rw_view *v, int cols)
{
	int max = rw_kind(v->o.shown)->view_max_cols;
	struct rw_view_layout l;
	char heading[64];

	/* Room for the heading as either terminal shows it ("->" is the wider arrow). */
	key_heading(v, false, heading, sizeof(heading));
	l = (struct rw_view_layout){ .key_w = key_cols(heading) };

	for (uint32_t i = 0; i < v->nrows; i++) {
		char k[RW_KEY_STRLEN];
		int n;

		row_key_text(v, &v->rows[i], true, k, sizeof(k));
		n = key_cols(k);
		if (n > l.key_w)
			l.key_w = n < max ? n : max;
	}
	/* The address first: the sparkline gets what is left, up to a cell per slot. */
	l.spark_w = cols - FIXED_COLS - l.key_w;
	if (l.spark_w > (int)v->slots)
		l.spark_w = (int)v->slots;
	if (l.spark_w < 0) {
		l.key_w += l.spark_w;
		l.spark_w = 0;
	}
	l.ok = l.key_w >= KEY_COL_MIN && cols >= RW_VIEW_MIN_COLS;
	return l;
}

void rw_view_columns(const struct rw_view *v, const struct rw_view_layout *l, bool utf8,
		     char *buf, size_t len)
{
	char spark[32], heading[64];

	snprintf(spark, sizeof(spark), "%s", l->spark_w >= 5 ? "SLOTS" : "");
	key_heading(v, utf8, heading, sizeof(heading));
	snprintf(buf, len, "%3s %-*s %7s %7s %7s %6s %3s  %s", "#",
		 l->key_w + rw_text_extra_bytes(heading), heading, "PPS", "BPS", "DROP/S", "SHARE",
		 "LIM", spark);
}

const char *rw_view_empty_line(const struct rw_view *v, char *buf, size_t len)
{
	if (v->nrows)
		return NULL;
	if (v->matched || v->o.filtered || v->o.limited_only)
		snprintf(buf, len, "    (nothing matches)");
	else
		snprintf(buf, len, "    (no tracked %s in the window)", rw_kind(v->o.shown)->one);
	return buf;
}

bool rw_view_row_limited(const struct rw_view *v, uint32_t i)
{
	return i < v->nrows && v->rows[i].sum.drop_packets > 0;
}

void rw_view_row_text(const struct rw_view *v, const struct rw_view_head *h,
		      const struct rw_view_layout *l, uint32_t i, bool utf8, char *buf, size_t len)
{
	const struct rw_view_row *r = &v->rows[i];
	uint64_t whole = rw_sort_metric(&h->total, v->o.sort);
	char key[RW_KEY_STRLEN], a[16], b[16], c[16], spark[RW_MAX_SLOTS * 3 + 1];
	int n;

	row_key_text(v, r, utf8, key, sizeof(key));
	rw_key_fit(key, l->key_w);
	n = l->key_w + rw_text_extra_bytes(key); /* bytes for key_w columns */
	rw_format_si(rw_rate(r->sum.packets, h->span_ns), a, sizeof(a));
	rw_format_si(rw_rate(r->sum.bytes * 8, h->span_ns), b, sizeof(b));
	rw_format_si(rw_rate(r->sum.drop_packets, h->span_ns), c, sizeof(c));
	/* The newest slots when the line has no room for all of them. */
	rw_spark(r->spark + (v->slots - (uint32_t)l->spark_w), (uint32_t)l->spark_w, utf8, spark,
		 sizeof(spark));
	snprintf(buf, len, "%3u %-*s %7s %7s %7s %5.1f%% %3s  %s", i + 1, n, key, a, b, c,
		 whole ? 100.0 * (double)r->metric / (double)whole : 0.0,
		 r->sum.drop_packets ? "yes" : "", spark);
}

void rw_spark(const uint64_t *count, uint32_t n, bool utf8, char *buf, size_t len)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = ".:-=+*#@";
	uint64_t peak = 0;
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		peak = count[i] > peak ? count[i] : peak;
	for (uint32_t i = 0; i < n; i++) {
		/* 0 is blank; anything else at least the lowest step, the peak the highest. */
		unsigned int step = peak ? (unsigned int)((long double)count[i] * 7 / peak) : 0;
		const char *cell = utf8 ? blocks[step] : (char[]){ ascii[step], '\0' };

		if (!count[i])
			cell = " ";
		if (at + strlen(cell) + 1 > len)
			break;
		memcpy(buf + at, cell, strlen(cell) + 1);
		at += strlen(cell);
	}
}

const char *const rw_view_help[] = {
	"Keys",
	"  s          sort by pps, then bps, then drops (the top N of that order)",
	"  p, space   pause: the data on the screen stays; p again resumes",
	"  /          filter: a prefix (198.18.0.0/16, 2001:db8::/32) or an address;",
	"             Enter applies it, Esc keeps the old one, an empty Enter clears it",
	"             (Backspace and Ctrl-U edit)",
	"  l          only limited keys (drops in the window)",
	"  v, Tab     keys -> each prefix level (--levels) -> keys",
	"  n          the next kind of key: the main one, then each --rank kind",
	"  j, k       scroll a row (arrows too); PgDn, PgUp a page; g back to the top",
	"  r          read the flows again now",
	"  ?          this help (any key closes it)",
	"  q          quit (the instance keeps running)",
	"",
	"Columns",
	"  PPS BPS DROP/S  rates over the sliding window; SHARE of the window's total",
	"  by the sort; LIM yes: drops in the window. SLOTS: the sort's count in each",
	"  complete slot of the window, oldest first, scaled to the row's peak.",
	"  Prefix rows sum the tracked keys inside; untracked (sketch-only)",
	"  traffic is in the header only.",
	NULL,
};
