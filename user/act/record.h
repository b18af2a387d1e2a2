/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The loader's record of what it acts with (--on-event, --bgp), for a
 * pinned instance: `ratewall status` shows it, and `ratewall stop` reads
 * the speaker it must withdraw the journal's routes through. One value in a
 * BPF array map, written each tick.
 */
#ifndef RW_ACT_RECORD_H
#define RW_ACT_RECORD_H

#include <stdint.h>
#include "cli/actconf.h"
#include "model/actcounts.h"

struct rw_act_record {
	uint64_t at_ns;                /* CLOCK_REALTIME of the tick that wrote it */
	struct rw_act_counts counts;
	char hook_command[RW_CMD_MAX]; /* --on-event ("" without) */
	struct rw_bgp_config bgp;      /* --bgp (api "" without) */
};

/* A new, empty record map (not pinned): its fd or a negative errno. */
int rw_act_record_create(void);
int rw_act_record_write(int fd, const struct rw_act_record *r);
/*
 * Reads the record, or one an earlier ratewall pinned (its speaker and
 * counts: what `ratewall stop` and status need). -EPROTO when the map is
 * no record of any form.
 */
int rw_act_record_read(int fd, struct rw_act_record *r);

#endif
