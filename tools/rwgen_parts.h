/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rwgen's parts: options, safety checks, the frame, the source schedule. */
#ifndef RWGEN_PARTS_H
#define RWGEN_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rwgen.h"

#define MAX_THREADS 256
#define MAX_SOURCES (1u << 24)
/* --dist random draws from up to the whole last 32 bits of 2001:db8::/32. */
#define MAX_RANDOM_SOURCES 0xffffffffu
#define MAX_SCHEDULE (1u << 24)
#define MAX_DURATION_NS (3600ULL * 1000000000ULL)

struct gen_opts {
	const char *dev;
	unsigned char dst_mac[6];
	bool ipv6;
	uint32_t sources;
	const char *src;
	const char *dist;   /* uniform, shuffled, random, zipf:S, counts:FILE */
	uint64_t seed;      /* shuffled order and random sources */
	uint32_t size;
	uint64_t rate;      /* packets per second, 0 = as fast as possible */
	uint64_t count;     /* 0 = until the duration ends */
	uint64_t duration_ns;
	uint32_t cpus;
	uint64_t batch;
	bool per_source;
};

/* Prints "rwgen: ..." and exits 2: every check here is about what was asked. */
void rwgen_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
uint64_t rwgen_parse_u64_or_die(const char *opt, const char *s, uint64_t min, uint64_t max);

/* rwgen_safety.c: refuses any target but a veth in a namespace without a default route. */
void rwgen_refuse_unsafe_target(const char *dev);
/* Source k is base + k in the last 32 bits; all inside 198.18.0.0/15 or 2001:db8::/32. */
void rwgen_resolve_sources(const struct gen_opts *o, unsigned char addr[16], uint32_t *base);

/* rwgen_frame.c: the template frame (source index 0) and where the generator patches it. */
unsigned char *rwgen_build_frame(const struct gen_opts *o, const unsigned char addr[16],
				 uint32_t base, struct rwgen_layout *lay);

/* rwgen_sched.c: per-source counts wanted (NULL: round-robin) and their shuffled schedule. */
uint64_t *rwgen_source_weights(const struct gen_opts *o, uint64_t *total);
uint32_t *rwgen_build_schedule(const uint64_t *counts, uint32_t sources, uint64_t total,
				uint64_t seed);
/* Adds packets per source for positions [pos, pos + n) of the source sequence. */
void rwgen_count_range(uint64_t *out, uint32_t sources, const uint32_t *sched, uint64_t len,
		       const uint64_t *per_cycle, uint64_t pos, uint64_t n);

#endif
