/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What rwgen was asked (struct gen_opts, filled by rwgen.c's option parsing)
 * and how every part refuses it (die.c). The bottom of the generator's
 * headers: each part's header includes this one, none includes another
 * part's but frame.h (the addresses safety.h resolves).
 */
#ifndef RWGEN_OPTS_H
#define RWGEN_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_THREADS 256
#define MAX_SOURCES (1u << 24)
/* --dist random draws from up to the whole last 32 bits of 2001:db8::/32. */
#define MAX_RANDOM_SOURCES 0xffffffffu
#define MAX_SCHEDULE (1u << 24)
#define MAX_DURATION_NS (3600ULL * 1000000000ULL)

/*
 * How the frames leave: BPF_PROG_RUN with live frames (fast; the benchmark's),
 * or a packet socket (packet.c). GEN_VIA_AUTO: live frames, and the packet
 * socket if the kernel refuses them.
 */
enum gen_via { GEN_VIA_AUTO, GEN_VIA_LIVE, GEN_VIA_PACKET };

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
	enum gen_via via;
};

/* Prints "rwgen: ..." and exits 2: every check here is about what was asked. */
void rwgen_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
uint64_t rwgen_parse_u64_or_die(const char *opt, const char *s, uint64_t min, uint64_t max);

#endif
