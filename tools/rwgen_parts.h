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

/* The field that takes index k of the sequence: base + k. */
enum gen_vary { GEN_VARY_SRC, GEN_VARY_DST, GEN_VARY_SPORT, GEN_VARY_DPORT };

struct gen_opts {
	const char *dev;
	unsigned char dst_mac[6];
	bool ipv6;
	bool ipv6_net;      /* an address varies in bits 32..63 (one /64 each), not the last 32 */
	uint32_t sources;   /* distinct values of the varying field */
	const char *src;
	const char *dst;
	uint16_t sport, dport;
	uint8_t proto;      /* IPPROTO_UDP, IPPROTO_TCP, or ICMP (ICMPv6 with --ipv6): an echo request */
	uint8_t tcp_flags;  /* TCP header byte 13 (default SYN) */
	bool random_sport;  /* each packet a pseudo-random source port in 1024..65535 */
	enum gen_vary vary;
	const char *dist;   /* uniform, shuffled, random, zipf:S, counts:FILE */
	uint64_t seed;      /* shuffled order and random sources */
	uint32_t size;
	uint64_t rate;      /* packets per second, 0 = as fast as possible */
	uint64_t count;     /* 0 = until the duration ends */
	uint64_t duration_ns;
	uint32_t cpus;
	uint64_t batch;
	uint64_t catch_up_ns; /* the most of its pace a late thread sends at once; 0 = all it owes */
	bool per_source;
};

/* Prints "rwgen: ..." and exits 2: every check here is about what was asked. */
void rwgen_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
uint64_t rwgen_parse_u64_or_die(const char *opt, const char *s, uint64_t min, uint64_t max);

/* rwgen_safety.c: refuses any target but a veth in a namespace without a default route. */
void rwgen_refuse_unsafe_target(const char *dev);
/* The frame's addresses, and the varying field's value at index 0. */
struct gen_addrs {
	unsigned char src[16], dst[16];
	uint32_t base;
};
/*
 * Index k is base + k in the varying field: the last 32 bits of an address
 * (bits 32..63 with --ipv6-net), or a port. Every address any index makes
 * stays inside 198.18.0.0/15 or 2001:db8::/32; dies otherwise.
 */
void rwgen_resolve_addrs(const struct gen_opts *o, struct gen_addrs *a);
/* Offset of the varying 32 bits inside an address of o's family. */
unsigned int rwgen_vary_word(const struct gen_opts *o);

/* rwgen_frame.c: the template frame (index 0) and where the generator patches it. */
unsigned char *rwgen_build_frame(const struct gen_opts *o, const struct gen_addrs *a,
				 struct rwgen_layout *lay);

/* rwgen_sched.c: per-source counts wanted (NULL: round-robin) and their shuffled schedule. */
uint64_t *rwgen_source_weights(const struct gen_opts *o, uint64_t *total);
uint32_t *rwgen_build_schedule(const uint64_t *counts, uint32_t sources, uint64_t total,
				uint64_t seed);
/* Adds packets per source for positions [pos, pos + n) of the source sequence. */
void rwgen_count_range(uint64_t *out, uint32_t sources, const uint32_t *sched, uint64_t len,
		       const uint64_t *per_cycle, uint64_t pos, uint64_t n);

#endif
