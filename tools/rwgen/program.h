/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* program.c: the generator's BPF program, loaded for one sequence. */
#ifndef RWGEN_PROGRAM_H
#define RWGEN_PROGRAM_H

#include <stdint.h>

#include "schedule.h" /* and layout.h, which the skeleton names */
#include "rwgen.skel.h"

/*
 * The program loaded to send s's copies out of ifindex (its rodata set, its
 * schedule map filled): *out, and 0; or -errno, and a line on stderr.
 */
int rwgen_program_load(const struct rwgen_sequence *s, uint32_t ifindex, struct rwgen_bpf **out);

#endif
