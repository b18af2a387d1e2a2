// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/kinds.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Column widths: an IPv4 or IPv6 address takes up to 39 columns (43 with a
 * /128); two of them with an arrow 60 in the table; with a protocol and ports
 * 72. The terminal view grows its column to the longest key shown, up to 43
 * for one address and 100 for two (an IPv6 flow is cut, both ends kept).
 *
 * A pair is "SOURCE → DESTINATION", "pair(s)" in prose: the heading reads as
 * its keys do ("198.18.0.1 → 198.19.0.5") and says which end is which, since
 * a → b and b → a are two keys (a "conversation" would be both ways); the
 * noun is the word operators type, --key pair.
 */
/* Each name once: the rows below, and the list a choice option offers. */
#define NAME_SRC "src"
#define NAME_DST "dst"
#define NAME_PAIR "pair"
#define NAME_FLOW "flow"

const char *const rw_key_kind_names[RW_KIND_COUNT + 1] = {
	[RW_KIND_SRC] = NAME_SRC, [RW_KIND_DST] = NAME_DST, [RW_KIND_PAIR] = NAME_PAIR,
	[RW_KIND_FLOW] = NAME_FLOW, [RW_KIND_COUNT] = NULL,
};

const struct rw_kind_desc rw_kinds[RW_KIND_COUNT] = {
	[RW_KIND_SRC] = { .name = NAME_SRC, .heading = "SOURCE", .one = "source", .many = "sources",
			  .table_cols = 39, .view_max_cols = 43, .metric_label = "source", .ends = 1 },
	[RW_KIND_DST] = { .name = NAME_DST, .heading = "DESTINATION", .one = "destination",
			  .many = "destinations", .table_cols = 39, .view_max_cols = 43, .ends = 1 },
	[RW_KIND_PAIR] = { .name = NAME_PAIR, .heading = "SOURCE → DESTINATION", .one = "pair",
			   .many = "pairs", .table_cols = 60, .view_max_cols = 100, .ends = 2 },
	[RW_KIND_FLOW] = { .name = NAME_FLOW, .heading = "FLOW", .one = "flow", .many = "flows",
			   .table_cols = 72, .view_max_cols = 100, .ends = 2, .ports = true },
};

/* What a view shows for a kind it does not know (a key read from a newer program). */
static const struct rw_kind_desc unknown = { .name = "?", .heading = "KEY", .one = "key",
					     .many = "keys", .table_cols = 39, .view_max_cols = 43,
					     .ends = 1 };

const struct rw_kind_desc *rw_kind(unsigned int kind)
{
	return kind < RW_KIND_COUNT ? &rw_kinds[kind] : &unknown;
}

void rw_kind_heading(const struct rw_kind_desc *d, bool utf8, char *buf, size_t len)
{
	const char *arrow = strstr(d->heading, "→");

	if (utf8 || !arrow)
		snprintf(buf, len, "%s", d->heading);
	else
		snprintf(buf, len, "%.*s->%s", (int)(arrow - d->heading), d->heading,
			 arrow + strlen("→"));
}

const char *rw_key_kind_name(unsigned int kind)
{
	return rw_kind(kind)->name;
}

int rw_key_kind_parse(const char *name)
{
	for (int i = 0; i < RW_KIND_COUNT; i++) {
		if (strcmp(name, rw_kinds[i].name) == 0)
			return i;
	}
	return -1;
}

/* The names of a mask's kinds, sep between them; "none" for 0. */
static void join_names(unsigned int mask, const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return;
	snprintf(buf, len, "none");
	for (unsigned int k = 0; k < RW_KIND_COUNT; k++) {
		if (!(mask & (1u << k)))
			continue;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? sep : "", rw_kinds[k].name);
	}
}

void rw_key_kind_choices(char *buf, size_t len)
{
	join_names((1u << RW_KIND_COUNT) - 1, ", ", buf, len);
}

void rw_key_kinds_text(unsigned int mask, char *buf, size_t len)
{
	join_names(mask, ",", buf, len);
}

int rw_key_kinds_parse(const char *list, unsigned int *mask, char *err, size_t errlen)
{
	char copy[64], choices[64], *save;
	int k;

	*mask = 0;
	if (strlen(list) >= sizeof(copy)) {
		snprintf(err, errlen, "'%s' is not a list of kinds (e.g. dst,pair)", list);
		return -EINVAL;
	}
	strcpy(copy, list);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		k = rw_key_kind_parse(name);
		if (k < 0) {
			rw_key_kind_choices(choices, sizeof(choices));
			snprintf(err, errlen, "'%s' is not one of %s", name, choices);
			return -EINVAL;
		}
		if (*mask & (1u << k)) {
			snprintf(err, errlen, "'%s' is listed twice", name);
			return -EINVAL;
		}
		*mask |= 1u << k;
	}
	if (!*mask) {
		snprintf(err, errlen, "'%s' names no kind", list);
		return -EINVAL;
	}
	return 0;
}
