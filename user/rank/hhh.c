// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rank/hhh.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/key.h"
#include "rank/rank.h"
#include "ratewall_hash.h"
#include "ratewall_window.h"


static int fam_index(uint8_t family)
{
	return family == RW_FAMILY_IPV4 ? 0 : 1;
}

struct sample_slot {
	uint64_t epoch;
	struct rw_key *keys;
	uint32_t n, cap;
};

struct exact {
	struct rw_key key;
	uint64_t packets;
};

struct rw_hhh {
	struct rw_levels lv;
	uint32_t slots, every;
	struct sample_slot slot[RW_MAX_SLOTS];
	struct exact *exact;
	size_t nexact, capexact;
	uint32_t over_ppm;          /* --metrics-min-share, 0: none */
	struct rw_hhh_item *over;   /* the last report's prefixes over it */
	uint32_t nover, capover;
};

struct rw_hhh *rw_hhh_new(const struct rw_levels *lv, uint32_t slots, uint32_t sample_every)
{
	struct rw_hhh *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->lv = *lv;
	h->slots = slots > RW_MAX_SLOTS ? RW_MAX_SLOTS : slots;
	h->every = sample_every ? sample_every : 1;
	return h; /* every slot empty: whatever epoch it says, it counts nothing */
}

void rw_hhh_free(struct rw_hhh *h)
{
	if (!h)
		return;
	for (uint32_t i = 0; i < RW_MAX_SLOTS; i++)
		free(h->slot[i].keys);
	free(h->exact);
	free(h->over);
	free(h);
}

int rw_hhh_keep_over(struct rw_hhh *h, uint32_t ppm)
{
	/* Prefixes of one level split the traffic: at most 1/share of them reach the share. */
	uint32_t cap = (h->lv.n[0] + h->lv.n[1]) * (ppm ? 1000000u / ppm : 0);
	struct rw_hhh_item *o = cap ? calloc(cap, sizeof(*o)) : NULL;

	if (cap && !o)
		return -ENOMEM;
	free(h->over);
	h->over = o;
	h->capover = cap;
	h->nover = 0;
	h->over_ppm = ppm;
	return 0;
}

const struct rw_hhh_item *rw_hhh_over(const struct rw_hhh *h, uint32_t *n)
{
	*n = h->nover;
	return h->over;
}

void rw_hhh_sample(struct rw_hhh *h, const struct rw_key *key, uint64_t epoch)
{
	struct sample_slot *s = &h->slot[epoch % h->slots];

	if (s->epoch != epoch) {
		s->epoch = epoch;
		s->n = 0;
	}
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 1024;
		struct rw_key *k;

		if (cap > RW_HHH_MAX_SAMPLES_PER_SLOT)
			return; /* bounded: a slot keeps its first million samples */
		k = realloc(s->keys, cap * sizeof(*k));
		if (!k)
			return;
		s->keys = k;
		s->cap = cap;
	}
	s->keys[s->n++] = *key;
}

void rw_hhh_exact(struct rw_hhh *h, const struct rw_key *key, uint64_t packets)
{
	if (h->nexact == h->capexact) {
		size_t cap = h->capexact ? h->capexact * 2 : 1024;
		struct exact *e = realloc(h->exact, cap * sizeof(*e));

		if (!e)
			return;
		h->exact = e;
		h->capexact = cap;
	}
	h->exact[h->nexact++] = (struct exact){ .key = *key, .packets = packets };
}

/* --- counting prefixes: an open-addressing table, built per report ----------- */

struct cell {
	struct rw_key prefix;
	uint64_t packets;
	bool used;
};

struct table {
	struct cell *c;
	size_t mask;
};

static void count(struct table *t, const struct rw_key *prefix, uint64_t packets)
{
	size_t i = rw_hash(prefix, 0x5bd1e995) & t->mask;

	while (t->c[i].used && memcmp(&t->c[i].prefix, prefix, sizeof(*prefix)) != 0)
		i = (i + 1) & t->mask;
	t->c[i].used = true;
	t->c[i].prefix = *prefix;
	t->c[i].packets += packets;
}

static void count_all_levels(struct table *t, const struct rw_levels *lv, const struct rw_key *key,
			     uint64_t packets)
{
	int f = fam_index(key->family);
	struct rw_key p;

	for (uint32_t l = 0; l < lv->n[f]; l++) {
		if (rw_key_cut(key, lv->len[f][l], &p))
			count(t, &p, packets);
	}
}

/* Whether prefix a (length la) holds prefix b. */
static bool covers(const struct rw_key *a, const struct rw_key *b)
{
	struct rw_key c;

	return a->family == b->family && RW_KEY_PREFIX_LEN(a) < RW_KEY_PREFIX_LEN(b) &&
	       rw_key_cut(b, RW_KEY_PREFIX_LEN(a), &c) && memcmp(c.addr, a->addr, sizeof(c.addr)) == 0;
}

static int by_residual(const void *pa, const void *pb)
{
	const struct rw_hhh_item *a = pa, *b = pb;

	return a->residual < b->residual ? 1 : a->residual > b->residual ? -1 : 0;
}

size_t rw_hhh_report(struct rw_hhh *h, uint64_t now_epoch, uint64_t total, double share,
		     struct rw_hhh_item *out, size_t max)
{
	size_t cells = 0, n = 0, size = 1024;
	uint64_t over_bar = rw_share_bar(&(struct rw_window_sum){ .packets = total }, RW_SORT_PPS,
					 h->over_ppm);
	bool *absorbed = calloc(max ? max : 1, sizeof(*absorbed));
	struct table t;

	for (uint32_t s = 0; s < h->slots; s++) {
		if (rw_slot_live(h->slot[s].epoch, now_epoch, h->slots))
			cells += h->slot[s].n;
	}
	cells = (cells + h->nexact) * (h->lv.n[0] > h->lv.n[1] ? h->lv.n[0] : h->lv.n[1]);
	while (size < 2 * cells)
		size <<= 1;
	t.c = calloc(size, sizeof(*t.c));
	t.mask = size - 1;
	if (!t.c || !absorbed) {
		free(t.c);
		free(absorbed);
		h->nexact = 0;
		return 0;
	}
	for (uint32_t s = 0; s < h->slots; s++) {
		const struct sample_slot *sl = &h->slot[s];

		if (!rw_slot_live(sl->epoch, now_epoch, h->slots))
			continue;
		for (uint32_t i = 0; i < sl->n; i++)
			count_all_levels(&t, &h->lv, &sl->keys[i], h->every);
	}
	for (size_t i = 0; i < h->nexact; i++)
		count_all_levels(&t, &h->lv, &h->exact[i].key, h->exact[i].packets);
	h->nexact = 0;

	/* Most specific level first; a prefix keeps what its reported descendants do not. */
	h->nover = 0;
	for (int f = 0; f < 2; f++) {
		for (uint32_t l = 0; l < h->lv.n[f]; l++) {
			size_t level_start = n;

			for (size_t i = 0; i < size; i++) {
				struct rw_hhh_item it;

				if (!t.c[i].used || fam_index(t.c[i].prefix.family) != f ||
				    RW_KEY_PREFIX_LEN(&t.c[i].prefix) != h->lv.len[f][l])
					continue;
				it = (struct rw_hhh_item){ .prefix = t.c[i].prefix,
							   .packets = t.c[i].packets,
							   .residual = t.c[i].packets };
				if (it.packets >= over_bar && h->nover < h->capover)
					h->over[h->nover++] = it;
				for (size_t j = 0; j < level_start; j++) {
					if (!absorbed[j] && covers(&it.prefix, &out[j].prefix))
						it.residual -= it.residual > out[j].packets ?
							       out[j].packets : it.residual;
				}
				if (n < max && (double)it.residual >= share * (double)total &&
				    it.residual > 0)
					out[n++] = it;
			}
			/* Reported now: their descendants are accounted for by them from here up. */
			for (size_t k = level_start; k < n; k++) {
				for (size_t j = 0; j < level_start; j++) {
					if (covers(&out[k].prefix, &out[j].prefix))
						absorbed[j] = true;
				}
			}
			qsort(out + level_start, n - level_start, sizeof(*out), by_residual);
		}
	}
	free(t.c);
	free(absorbed);
	return n;
}
