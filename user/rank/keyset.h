/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A set of source keys with one mark each: the loader's memory of limited sources. */
#ifndef RW_KEYSET_H
#define RW_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include "ratewall.h"

struct rw_keyset {
	struct rw_key *key;
	unsigned char *state; /* 0 free, 1 in, 2 in and marked, 3 deleted */
	size_t cap, n, used;  /* used: in + deleted slots */
};

/* 0, or -ENOMEM (the set is unchanged). */
int rw_keyset_add(struct rw_keyset *s, const struct rw_key *k);
bool rw_keyset_has(const struct rw_keyset *s, const struct rw_key *k);
void rw_keyset_mark(struct rw_keyset *s, const struct rw_key *k);
void rw_keyset_del(struct rw_keyset *s, const struct rw_key *k);
/* Calls fn for each key not marked since the last sweep, then clears every mark. */
void rw_keyset_sweep_unmarked(struct rw_keyset *s, void (*fn)(void *arg, const struct rw_key *k),
			      void *arg);
void rw_keyset_free(struct rw_keyset *s);

#endif
