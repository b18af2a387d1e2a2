/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `ratewall status`, `stop`, `rule` and `top`: pinned instances, seen, removed, edited, watched. */
#ifndef RW_SVCCMD_H
#define RW_SVCCMD_H

/* argv[0] is the command; both return the exit status. */
int rw_status_command(int argc, char **argv);
int rw_stop_command(int argc, char **argv);
int rw_rule_command(int argc, char **argv);
int rw_top_command(int argc, char **argv);

#endif
