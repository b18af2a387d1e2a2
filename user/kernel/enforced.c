// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The list of enforced fields as a table: their values, their text, what differs. */
#include "kernel/enforced.h"

#include <stdio.h>
#include <string.h>

#include "model/key.h"
#include "model/units.h"
#include "ratewall.h"

/* The window the per-window limits are of, in seconds. */
static double window_s(const struct rw_enforced *e)
{
	return (double)e->slot_ns * e->slots / 1e9;
}

static void text_key_kind(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	snprintf(buf, len, "%s", rw_key_kind_name((unsigned int)v));
}

static void text_kinds(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	rw_key_kinds_text((unsigned int)v, buf, len);
}

static void text_number(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* A rate as the options give it: what the per-window limit allows a second. */
static void rate_text(const struct rw_enforced *e, uint64_t per_window, double unit, char *buf,
		      size_t len)
{
	if (per_window && window_s(e) > 0)
		rw_format_si((double)per_window * unit / window_s(e), buf, len);
	else
		snprintf(buf, len, "none");
}

static void text_pps(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	rate_text(e, v, 1, buf, len);
}

static void text_bps(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	rate_text(e, v, 8, buf, len);
}

/* --window and --slots together: the slot length follows both. */
static void text_window(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)v;
	snprintf(buf, len, "%.3gs/%u slots", window_s(e), e->slots);
}

static void text_clock(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	snprintf(buf, len, "%s", v ? "coarse" : "precise");
}

static void text_on_off(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	snprintf(buf, len, "%s", v ? "on" : "off");
}

static void text_drop_pass(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	snprintf(buf, len, "%s", v ? "drop" : "pass");
}

static void text_ban(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	if (v)
		snprintf(buf, len, "%.3gs", v / 1e9);
	else
		snprintf(buf, len, "off");
}

static void text_burst(const struct rw_enforced *e, uint64_t v, char *buf, size_t len)
{
	(void)e;
	if (v == RW_BURST_WINDOW)
		snprintf(buf, len, "window");
	else
		snprintf(buf, len, "%.3gs", v / 1e9);
}

#define VALUE_OF(type, field, ...)                                                         \
	static uint64_t value_##field(const struct rw_enforced *e)                         \
	{                                                                                  \
		return (uint64_t)e->field;                                                 \
	}
RW_ENFORCED_FIELDS(VALUE_OF)

#define CHANGE_kept RW_ENFORCED_KEPT
#define CHANGE_layout RW_ENFORCED_LAYOUT
#define CHANGE_key RW_ENFORCED_KEY
#define FIELD_ROW(type, field, option, text, rodata, change)                               \
	{ #field, option, CHANGE_##change, value_##field, text_##text },

const struct rw_enforced_field rw_enforced_fields[] = { RW_ENFORCED_FIELDS(FIELD_ROW) };
const size_t rw_enforced_nfields = sizeof(rw_enforced_fields) / sizeof(rw_enforced_fields[0]);

struct rw_enforced rw_enforced_of_config(const struct rw_config *cfg, uint32_t max_flows,
					 enum rw_clock clock)
{
	uint64_t slot_ns = rw_slot_ns(cfg), window_ns = slot_ns * cfg->slots;

	return (struct rw_enforced){
		.key_kind = cfg->key_kind,
		.rank_mask = cfg->rank_mask,
		.v6_prefix = cfg->v6_prefix,
		.limit_packets = rw_limit_per_window(cfg->pps, window_ns, 1),
		.limit_bytes = rw_limit_per_window(cfg->bps, window_ns, 8),
		.slot_ns = slot_ns,
		.slots = cfg->slots,
		.max_flows = max_flows,
		.coarse_clock = clock == RW_CLOCK_COARSE,
		.dry_run = cfg->dry_run,
		.malformed_drop = cfg->malformed_drop,
		/* --history keeps them too, and --on-event acts on them */
		.events = cfg->events_path[0] || cfg->history_path[0] || cfg->hook.command[0],
		.ban_ns = cfg->ban_ns,
		.burst_ns = cfg->burst_ns,
		.sample = cfg->levels.n[0] || cfg->levels.n[1],
		.pcap = cfg->samples_dir[0] != '\0',
	};
}

bool rw_enforced_differs(const struct rw_enforced *a, const struct rw_enforced *b,
			 enum rw_enforced_change at_least)
{
	for (size_t i = 0; i < rw_enforced_nfields; i++) {
		const struct rw_enforced_field *f = &rw_enforced_fields[i];

		if (f->change >= at_least && f->value(a) != f->value(b))
			return true;
	}
	return false;
}

/* Whether field i is said with the one before it (the same option). */
static bool said_before(size_t i)
{
	return i > 0 && strcmp(rw_enforced_fields[i].option, rw_enforced_fields[i - 1].option) == 0;
}

unsigned int rw_enforced_each_difference(const struct rw_enforced *was,
					 const struct rw_enforced *now, rw_enforced_diff_fn fn,
					 void *arg)
{
	unsigned int n = 0;

	for (size_t i = 0; i < rw_enforced_nfields; i++) {
		const struct rw_enforced_field *f = &rw_enforced_fields[i];
		bool differs = false;
		char a[48], b[48];

		if (said_before(i))
			continue;
		/* The option differs when any of its fields does. */
		for (size_t j = i; j < rw_enforced_nfields && (j == i || said_before(j)); j++)
			differs |= rw_enforced_fields[j].value(was) != rw_enforced_fields[j].value(now);
		if (!differs)
			continue;
		f->text(was, f->value(was), a, sizeof(a));
		f->text(now, f->value(now), b, sizeof(b));
		fn(f->option, a, b, arg);
		n++;
	}
	return n;
}

void rw_enforced_options_text(const struct rw_enforced *e, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < rw_enforced_nfields && n < len; i++) {
		const struct rw_enforced_field *f = &rw_enforced_fields[i];
		char text[48];

		if (said_before(i))
			continue;
		f->text(e, f->value(e), text, sizeof(text));
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? " " : "", f->option, text);
	}
}
