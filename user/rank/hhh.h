/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hierarchical heavy hitters over the sliding window: the prefixes whose
 * traffic, minus what their reported more-specific prefixes already account
 * for, is at least a share of all traffic in the window. A spoofed flood from
 * one /16 has no heavy source and no heavy /24, but its /16 is.
 *
 * Counts come from two places, never the same packet twice: tracked flows
 * (exact, every tick) and a 1-in-N sample of untracked packets the data path
 * writes to a ring buffer, kept per slot so the window slides (the
 * sample-based sliding-window idea of Memento / H-Memento).
 */
#ifndef RW_HHH_H
#define RW_HHH_H

#include <stddef.h>
#include <stdint.h>
#include "model/levels.h"
#include "ratewall.h"

#define RW_HHH_MAX_SAMPLES_PER_SLOT (1u << 20)

struct rw_hhh_item {
	struct rw_key prefix; /* masked; RW_KEY_PREFIX_LEN holds the length */
	uint64_t packets;     /* all of its traffic in the window (estimated where sampled) */
	uint64_t residual;    /* minus its reported more-specific prefixes */
};

struct rw_hhh;

/* sample_every: N of the data path's 1-in-N sample. NULL when out of memory. */
struct rw_hhh *rw_hhh_new(const struct rw_levels *lv, uint32_t slots, uint32_t sample_every);
void rw_hhh_free(struct rw_hhh *h);
/* One sampled untracked packet of slot `epoch`. */
void rw_hhh_sample(struct rw_hhh *h, const struct rw_key *key, uint64_t epoch);
/* One tracked flow's window count, this tick. */
void rw_hhh_exact(struct rw_hhh *h, const struct rw_key *key, uint64_t packets);
/*
 * The heavy prefixes of the window ending at now_epoch, most specific level
 * first, each level by residual: residual >= share x total. Writes at most
 * max, returns how many; forgets this tick's exact counts. 0 on no memory.
 */
size_t rw_hhh_report(struct rw_hhh *h, uint64_t now_epoch, uint64_t total, double share,
		     struct rw_hhh_item *out, size_t max);
/*
 * --metrics-min-share: each report also keeps every prefix of every level
 * whose own window packets (not net of anything) reach ppm parts per million
 * of the total; at most 1/share a level. 0 or -ENOMEM.
 */
int rw_hhh_keep_over(struct rw_hhh *h, uint32_t ppm);
/* The last report's prefixes over the share, by level as rw_hhh_report; residual unused. */
const struct rw_hhh_item *rw_hhh_over(const struct rw_hhh *h, uint32_t *n);

#endif
