// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rank/keyset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ratewall_hash.h"

enum { FREE = 0, IN = 1, MARKED = 2, GONE = 3 };

/* The slot holding k, else the free slot it would go in (cap > 0, never full). */
static size_t find(const struct rw_keyset *s, const struct rw_key *k, bool *found)
{
	size_t i = rw_hash(k, 0x6a09e667) & (s->cap - 1), first_gone = s->cap;

	for (;; i = (i + 1) & (s->cap - 1)) {
		if (s->state[i] == FREE) {
			*found = false;
			return first_gone < s->cap ? first_gone : i;
		}
		if (s->state[i] == GONE) {
			if (first_gone == s->cap)
				first_gone = i;
			continue;
		}
		if (memcmp(&s->key[i], k, sizeof(*k)) == 0) {
			*found = true;
			return i;
		}
	}
}

static int grow(struct rw_keyset *s)
{
	struct rw_keyset bigger = { .cap = s->cap ? s->cap * 2 : 64 };

	/* Rehashing drops the deleted slots: same size is enough when they were many. */
	if (s->cap && s->n * 2 < s->cap)
		bigger.cap = s->cap;
	bigger.key = malloc(bigger.cap * sizeof(*bigger.key));
	bigger.state = calloc(bigger.cap, 1);
	if (!bigger.key || !bigger.state) {
		free(bigger.key);
		free(bigger.state);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		bool found;
		size_t j;

		if (s->state[i] != IN && s->state[i] != MARKED)
			continue;
		j = find(&bigger, &s->key[i], &found);
		bigger.key[j] = s->key[i];
		bigger.state[j] = s->state[i];
		bigger.n++;
	}
	bigger.used = bigger.n;
	rw_keyset_free(s);
	*s = bigger;
	return 0;
}

int rw_keyset_add(struct rw_keyset *s, const struct rw_key *k)
{
	bool found;
	size_t i;

	if ((s->used + 1) * 4 > s->cap * 3 && grow(s))
		return -ENOMEM;
	i = find(s, k, &found);
	if (found)
		return 0;
	if (s->state[i] == FREE)
		s->used++;
	s->key[i] = *k;
	s->state[i] = IN;
	s->n++;
	return 0;
}

bool rw_keyset_has(const struct rw_keyset *s, const struct rw_key *k)
{
	bool found = false;

	if (s->cap)
		find(s, k, &found);
	return found;
}

void rw_keyset_mark(struct rw_keyset *s, const struct rw_key *k)
{
	bool found = false;
	size_t i = s->cap ? find(s, k, &found) : 0;

	if (found)
		s->state[i] = MARKED;
}

void rw_keyset_del(struct rw_keyset *s, const struct rw_key *k)
{
	bool found = false;
	size_t i = s->cap ? find(s, k, &found) : 0;

	if (found) {
		s->state[i] = GONE;
		s->n--;
	}
}

void rw_keyset_sweep_unmarked(struct rw_keyset *s, void (*fn)(void *arg, const struct rw_key *k),
			      void *arg)
{
	for (size_t i = 0; i < s->cap; i++) {
		if (s->state[i] == MARKED) {
			s->state[i] = IN;
		} else if (s->state[i] == IN) {
			fn(arg, &s->key[i]);
			s->state[i] = GONE;
			s->n--;
		}
	}
}

void rw_keyset_free(struct rw_keyset *s)
{
	free(s->key);
	free(s->state);
	*s = (struct rw_keyset){ 0 };
}
