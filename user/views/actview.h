/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What --on-event and --bgp did, in words and as JSON: one form for the
 * report's JSON and `ratewall status` alike (/metrics has its own lines in
 * metrics_page.c).
 */
#ifndef RW_ACTVIEW_H
#define RW_ACTVIEW_H

#include <stdio.h>
#include "cli/actcounts.h"

/* `status` lines, "  on-event     ..." and "  bgp          ...", for what is on. */
void rw_act_text(FILE *out, const struct rw_act_counts *c, const char *command,
		 const char *api);
/* `, "on_event": {...}, "bgp": {...}` for what is on (nothing when neither). */
void rw_act_json(FILE *out, const struct rw_act_counts *c);

#endif
