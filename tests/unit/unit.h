/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The userspace unit tests: one file a room of user/, one runner (main.c), helpers they share. */
#ifndef RW_UNIT_H
#define RW_UNIT_H

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "kernel/table.h"
#include "ratewall.h"
#include "testlib.h"

/* A refused input: -EINVAL, and a reason that says what it should. */
#define CHECK_REFUSED(ret, input, err, needle)                                               \
	do {                                                                               \
		CHECK_EQ((ret), -EINVAL);                                                  \
		if (!strstr((err), (needle))) {                                            \
			fprintf(stderr, "  '%s': error '%s' lacks '%s'\n", (input), (err),   \
				(needle));                                                 \
			CHECK(0);                                                          \
		}                                                                          \
	} while (0)

static inline void set_hist(struct rw_hist_slot *h, uint64_t epoch, uint32_t slots, uint64_t pk,
		     uint64_t drop)
{
	struct rw_hist_slot *s = &h[epoch % slots];

	s->epoch = epoch + 1;
	s->packets = pk;
	s->bytes = pk * 100;
	s->drop_packets = drop;
	s->drop_bytes = drop * 100;
}

static inline struct rw_key v4(const char *a)
{
	struct rw_key k = { .family = RW_FAMILY_IPV4 };

	inet_pton(AF_INET, a, k.addr);
	return k;
}

static inline struct rw_key v6(const char *a)
{
	struct rw_key k = { .family = RW_FAMILY_IPV6 };

	inet_pton(AF_INET6, a, k.addr);
	return k;
}

void run_cli_tests(void);
void run_actconf_tests(void);
void run_kinds_tests(void);
void run_kernel_tests(void);
void run_crowd_tests(void);
void run_rank_tests(void);
void run_views_tests(void);
void run_metrics_tests(void);
void run_history_tests(void);
void run_hook_tests(void);
void run_bgp_tests(void);
void run_samples_tests(void);

#endif
