/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* schedule.c: which source each packet carries. */
#ifndef RWGEN_SCHEDULE_H
#define RWGEN_SCHEDULE_H

#include <stdbool.h>

#include "layout.h"
#include "opts.h"

/*
 * The whole sequence: which index each position carries and how a copy is
 * patched for it. The BPF program reads it from its rodata and schedule map
 * (program.c loads them from here), the packet socket from here.
 */
struct rwgen_sequence {
	const struct rwgen_layout *lay;
	const uint32_t *sched; /* index for each position, or NULL */
	uint64_t sched_len;
	uint32_t nsrc;
	bool random;
	uint64_t seed; /* --seed spread over 64 bits: the program's mix of it */
};

/* Per-source counts wanted (NULL: round-robin) and their shuffled schedule. */
uint64_t *rwgen_source_weights(const struct gen_opts *o, uint64_t *total);
uint32_t *rwgen_build_schedule(const uint64_t *counts, uint32_t sources, uint64_t total,
				uint64_t seed);
/* o's sequence over its frame's layout and schedule (sched_len positions, or NULL). */
struct rwgen_sequence rwgen_sequence_of(const struct gen_opts *o, const struct rwgen_layout *lay,
					const uint32_t *sched, uint64_t sched_len);
/* The index position pos carries, as the BPF program picks it. */
uint32_t rwgen_sequence_index(const struct rwgen_sequence *s, uint64_t pos);
/* Adds packets per source for positions [pos, pos + n) of the source sequence. */
void rwgen_count_range(uint64_t *out, uint32_t sources, const uint32_t *sched, uint64_t len,
		       const uint64_t *per_cycle, uint64_t pos, uint64_t n);

#endif
