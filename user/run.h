/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `ratewall run`: attach, enforce, report until stopped. */
#ifndef RW_RUN_H
#define RW_RUN_H

#include "cli/config.h"

/* Returns the process exit status (RW_EXIT_*). */
int rw_run(const struct rw_config *cfg);
/* `ratewall run ...` from the command line (argv[0] is "run"): parsed, then run. */
int rw_run_command(int argc, char **argv);

#endif
