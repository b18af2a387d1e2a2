/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command lines of `ratewall run` and `ratewall memory` into a validated
 * struct rw_config, the config file's keys onto the same options (both from
 * the options' table, options.h), the cross-option checks, and
 * rw_cli_outcome: where a parse result becomes a message (an error, or the
 * command's usage.h) and an exit status.
 */
#ifndef RW_CLI_H
#define RW_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/config.h"

/*
 * Parses `ratewall run` arguments (argv[0] is "run"). Returns 0, 1 when help
 * was asked for, or -EINVAL with a one-line reason in err. Does not look at the
 * system (whether the interface exists is the loader's business) but for the
 * kernel's tick, which --clock coarse must fit.
 */
int rw_cli_parse_run(int argc, char **argv, struct rw_config *cfg, char *err, size_t errlen);
/*
 * Parses `ratewall memory` arguments (argv[0] is "memory"): the run options
 * without IFACE, plus --cpus N (left untouched when not given).
 */
int rw_cli_parse_memory(int argc, char **argv, struct rw_config *cfg, uint32_t *cpus, char *err,
			size_t errlen);

/*
 * Applies a config file already open as f (path names it in errors): `key
 * value` or `key = value` per line, the keys the long options of `run`, `#`
 * comments. 0, or -EINVAL with "PATH:LINE: reason" in err.
 */
int rw_config_apply_stream(FILE *f, const char *path, struct rw_config *cfg, char *err,
			   size_t errlen);

/* Interface names as given on a command line: valid, distinct, at most RW_MAX_IFACES. */
int rw_cli_ifaces(int argc, char **argv, char ifnames[][IF_NAMESIZE], uint32_t *n, char *err,
		  size_t errlen);
/* --interval (at least 10 ms) and --sort, for run and top alike. 0 or -EINVAL. */
int rw_cli_interval(const char *arg, uint64_t *ns, char *err, size_t errlen);
int rw_cli_sort(const char *arg, enum rw_sort *sort, char *err, size_t errlen);
/* "pps", "bps", "drops". */
const char *rw_sort_name(enum rw_sort sort);

/*
 * What a parse's result means for the process: -1 to go on, else the exit
 * status, after printing cmd's usage (help) or the one-line error.
 */
int rw_cli_outcome(int ret, const char *cmd, const char *err);

#endif
