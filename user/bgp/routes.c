// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "bgp/routes.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

int rw_route_cmp(const struct rw_route *a, const struct rw_route *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	/* The rest byte by byte: normalized routes have nothing unset in them. */
	return memcmp(a->addr, b->addr, sizeof(*a) - offsetof(struct rw_route, addr));
}

static void clear_host_bits(uint8_t *addr, unsigned int len)
{
	for (unsigned int bit = len; bit < 128; bit++)
		addr[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
}

bool rw_route_normalize(struct rw_route *r)
{
	unsigned int max = r->family == AF_INET ? 32 : r->family == AF_INET6 ? 128 : 0;

	if (!max || r->len > max)
		return false;
	clear_host_bits(r->addr, r->len);
	switch (r->kind) {
	case RW_ROUTE_BLACKHOLE:
		memset(r->dst, 0, sizeof(r->dst));
		r->dst_len = 0;
		r->rate = 0;
		r->proto = 0;
		r->sport = r->dport = 0;
		break;
	case RW_ROUTE_FLOW:
		if (r->dst_len > max)
			return false;
		clear_host_bits(r->dst, r->dst_len);
		if (r->proto != IPPROTO_TCP && r->proto != IPPROTO_UDP)
			r->sport = r->dport = 0; /* ports are TCP's and UDP's */
		break;
	default:
		return false;
	}
	r->zero = 0;
	r->zero2 = 0;
	return true;
}

/* Where r is, or would go: the first element not below it. */
static size_t held_slot(const struct rw_held_set *s, const struct rw_route *r)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rw_route_cmp(&s->e[mid].r, r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long rw_held_find(const struct rw_held_set *s, const struct rw_route *r)
{
	size_t i = held_slot(s, r);

	return i < s->n && !rw_route_cmp(&s->e[i].r, r) ? (long)i : -1;
}

int rw_held_add(struct rw_held_set *s, const struct rw_route *r, bool sure, uint64_t since_ns)
{
	size_t i = held_slot(s, r);

	if (i < s->n && !rw_route_cmp(&s->e[i].r, r)) {
		s->e[i].sure = sure;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct rw_held *e = realloc(s->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		s->e = e;
		s->cap = cap;
	}
	memmove(&s->e[i + 1], &s->e[i], (s->n - i) * sizeof(*s->e));
	s->e[i] = (struct rw_held){ .r = *r, .sure = sure, .since_ns = since_ns };
	s->n++;
	return 0;
}

void rw_held_remove(struct rw_held_set *s, size_t i)
{
	if (i >= s->n)
		return;
	memmove(&s->e[i], &s->e[i + 1], (s->n - i - 1) * sizeof(*s->e));
	s->n--;
}

void rw_held_doubt(struct rw_held_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		s->e[i].sure = false;
}

size_t rw_held_sure(const struct rw_held_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->e[i].sure;
	return n;
}

void rw_held_free(struct rw_held_set *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}

struct ranked {
	struct rw_route r;
	size_t rank; /* its place in what was wanted */
};

static int by_route_then_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = rw_route_cmp(&x->r, &y->r);

	return c ? c : x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_route(const void *a, const void *b)
{
	return rw_route_cmp(a, b);
}

int rw_route_target_build(struct rw_route_target *t, const struct rw_route *want, size_t n,
			  uint32_t max, const struct rw_held_set *held, uint64_t keep_since)
{
	struct ranked *all = malloc((n ? n : 1) * sizeof(*all));
	size_t valid = 0, distinct = 0, take;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		all[valid].r = want[i];
		all[valid].rank = i;
		valid += rw_route_normalize(&all[valid].r);
	}
	/* A route wanted twice keeps its first place. */
	qsort(all, valid, sizeof(*all), by_route_then_rank);
	for (size_t i = 0; i < valid; i++) {
		if (!distinct || rw_route_cmp(&all[i].r, &all[distinct - 1].r))
			all[distinct++] = all[i];
	}
	/* Past max, the ones held lately go first, each part in the order wanted. */
	for (size_t i = 0; held && distinct > max && i < distinct; i++) {
		long h = rw_held_find(held, &all[i].r);

		if (h < 0 || held->e[h].since_ns < keep_since)
			all[i].rank += n;
	}
	qsort(all, distinct, sizeof(*all), by_rank);
	take = distinct < max ? distinct : max;
	if (take > t->cap) {
		struct rw_route *o = malloc(take * sizeof(*o)), *s = malloc(take * sizeof(*s));

		if (!o || !s) {
			free(o);
			free(s);
			free(all);
			return -ENOMEM;
		}
		free(t->order);
		free(t->sorted);
		t->order = o;
		t->sorted = s;
		t->cap = take;
	}
	for (size_t i = 0; i < take; i++)
		t->order[i] = t->sorted[i] = all[i].r;
	qsort(t->sorted, take, sizeof(*t->sorted), by_route);
	t->n = take;
	t->over_max = (uint32_t)(distinct - take);
	free(all);
	return 0;
}

bool rw_route_target_has(const struct rw_route_target *t, const struct rw_route *r)
{
	return t->n && bsearch(r, t->sorted, t->n, sizeof(*r), by_route);
}

void rw_route_target_free(struct rw_route_target *t)
{
	free(t->order);
	free(t->sorted);
	memset(t, 0, sizeof(*t));
}
