/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `ratewall history FILE`: the windows run --history kept, listed or summed. */
#ifndef RW_HISTORYCMD_H
#define RW_HISTORYCMD_H

/* argv[0] is "history". Returns the exit status. */
int rw_history_command(int argc, char **argv);

#endif
