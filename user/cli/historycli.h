/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Arguments of `ratewall history FILE`, and the times it takes. */
#ifndef RW_HISTORYCLI_H
#define RW_HISTORYCLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/config.h"
#include "ratewall.h"

struct rw_history_args {
	char path[RW_PATH_MAX];
	double since, until; /* wall clock, seconds; 0 and +inf when not given */
	uint32_t top;        /* keys a window (or the --sum) shows */
	bool json;
	bool sum;            /* each key's totals over the range, ranked */
	bool has_key;        /* --key: only keys inside key/key_len */
	struct rw_key key;
	uint8_t key_len;
	int kind;            /* --kind: enum rw_key_kind, or -1 (each window's own --key kind) */
	char name[RW_NAME_MAX]; /* --name: one instance's windows; "" = every instance */
};

/*
 * A point in time as an operator gives it, in seconds since the epoch:
 * a duration back from now ("15m", "2h", "7d"), "@UNIXTIME", a local date and
 * time ("2026-11-24 03:00", "2026-11-24T03:00:15", "2026-11-24"), or a local
 * time of today ("03:15", "03:15:30"). 0 or -EINVAL.
 */
int rw_parse_when(const char *s, double now, double *out);

/* argv[0] is "history". 0, 1 for --help, or -EINVAL with the reason in err. */
int rw_cli_parse_history(int argc, char **argv, double now, struct rw_history_args *a, char *err,
			 size_t errlen);
void rw_history_usage(FILE *out);
/* history's getopt table, NULL-terminated (for completion). */
const struct option *rw_cli_history_options(void);

#endif
