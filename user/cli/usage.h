/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Each command's --help and the man page's options, made from the options' table. */
#ifndef RW_USAGE_H
#define RW_USAGE_H

#include <stdio.h>

/*
 * The --help of a command the options' table serves (run, memory, status,
 * stop, rule, top): its usage, what it does and its own options. -1 for
 * another command.
 */
int rw_cli_usage(FILE *out, const char *cmd);
/*
 * The man page's OPTIONS: a subsection a command, its options from the
 * table (`ratewall completion --man`; tools/manpage.awk puts them in place).
 */
void rw_cli_man_options(FILE *out);

#endif
