/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `ratewall memory`: the kernel memory of every map, planned for N CPUs. */
#ifndef RW_MEMCMD_H
#define RW_MEMCMD_H

/* argv[0] is "memory". Returns the exit status. */
int rw_memory_command(int argc, char **argv);

#endif
