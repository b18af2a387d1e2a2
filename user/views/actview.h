/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What --on-event and --bgp did, in words: one form for the report's table
 * and `ratewall status` alike (their JSON is model/actcounts.h's, /metrics
 * has its own lines in metrics_page.c).
 */
#ifndef RW_ACTVIEW_H
#define RW_ACTVIEW_H

#include <stdio.h>
#include "model/actcounts.h"

/* `status` lines, "  on-event     ..." and "  bgp          ...", for what is on. */
void rw_act_text(FILE *out, const struct rw_act_counts *c, const char *command,
		 const char *api);

#endif
