/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef RW_RUN_H
#define RW_RUN_H

#include "config.h"

/* `ratewall run`: returns the process exit status (0, 1 or 2). */
int rw_run(const struct rw_config *cfg);

#endif
