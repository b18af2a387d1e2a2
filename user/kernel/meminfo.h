/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How much memory the machine can spare. LRU maps are preallocated at
 * creation: a flow table sized past what is free would push the whole router
 * into the OOM killer, so the loader refuses it first.
 */
#ifndef RW_MEMINFO_H
#define RW_MEMINFO_H

#include <stdint.h>
#include <stdio.h>

/* MemAvailable in bytes from a /proc/meminfo stream; 0 if absent. */
uint64_t rw_meminfo_available(FILE *meminfo);

/* The share of available memory a flow table may take. */
#define RW_MAX_TABLE_SHARE_PERCENT 50

#endif
