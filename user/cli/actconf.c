// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/actconf.h"
#include "model/actcounts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "model/errmsg.h"
#include "model/rules.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

/* Indexed by enum rw_event_type: the kinds a command can be run for. */
const char *const rw_event_kind_names[] = { "limited", "released", "banned", "unbanned",
					    "heavy", "light", NULL };

int rw_parse_event_kinds(const char *s, uint32_t *kinds, char *err, size_t errlen)
{
	char buf[128], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "--on-event-kinds: '%s' is too long", s);
	strcpy(buf, s);
	*kinds = 0;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint32_t type = 0;

		for (uint32_t i = 0; rw_event_kind_names[i]; i++)
			if (strcmp(w, rw_event_kind_names[i]) == 0)
				type = RW_EV_LIMITED + i;
		if (!type)
			return fail(err, errlen, "--on-event-kinds: '%s' is not one of limited, released, "
				    "banned, unbanned, heavy, light", w);
		*kinds |= RW_EV_BIT(type);
	}
	if (!*kinds)
		return fail(err, errlen, "--on-event-kinds: name at least one kind");
	return 0;
}

int rw_split_words(const char *s, char *buf, char **argv, int max, char *err, size_t errlen)
{
	char *out = buf;
	int n = 0;

	for (;;) {
		char quote = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (n == max - 1)
			return fail(err, errlen, "more than %d words", max - 1);
		argv[n++] = out;
		for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
			if (quote && *s == quote) {
				quote = 0;
			} else if (!quote && (*s == '\'' || *s == '"')) {
				quote = *s;
			} else if (*s == '\\' && quote != '\'' && s[1]) {
				*out++ = *++s;
			} else {
				*out++ = *s;
			}
		}
		if (quote)
			return fail(err, errlen, "a %c is not closed", quote);
		*out++ = '\0';
	}
	argv[n] = NULL;
	if (!n)
		return fail(err, errlen, "no command");
	return n;
}

struct rw_route rw_route_of_key(const struct rw_key *key, unsigned int len)
{
	struct rw_route r = { .family = key->family == RW_FAMILY_IPV6 ? AF_INET6 : AF_INET };
	unsigned int full = r.family == AF_INET6 ? 128 : 32;

	r.len = (uint8_t)(len && len < full ? len : full);
	memcpy(r.addr, key->addr, r.family == AF_INET6 ? 16 : 4);
	for (unsigned int bit = r.len; bit < 128; bit++)
		r.addr[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
	return r;
}

int rw_route_parse(const char *s, struct rw_route *r, char *err, size_t errlen)
{
	struct rw_key prefix;
	uint8_t plen;
	int e = rw_parse_cidr(s, &prefix, &plen, err, errlen);

	if (e)
		return e;
	*r = rw_route_of_key(&prefix, plen);
	r->len = plen; /* a /0 too */
	return 0;
}

void rw_route_format(const struct rw_route *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	if (!inet_ntop(r->family, r->addr, a, sizeof(a)))
		strcpy(a, "?");
	if (r->kind != RW_ROUTE_FLOW) {
		snprintf(buf, len, "%s/%u", a, r->len);
		return;
	}
	if (!inet_ntop(r->family, r->dst, d, sizeof(d)))
		strcpy(d, "?");
	snprintf(buf, len, "flow %s/%u > %s/%u", a, r->len, d, r->dst_len);
	if (r->proto)
		snprintf(buf + strlen(buf), len - strlen(buf), " proto %u", r->proto);
	if (r->sport)
		snprintf(buf + strlen(buf), len - strlen(buf), " sport %u", r->sport);
	if (r->dport)
		snprintf(buf + strlen(buf), len - strlen(buf), " dport %u", r->dport);
	if (r->rate)
		snprintf(buf + strlen(buf), len - strlen(buf), " rate %u", r->rate);
}

bool rw_route_within(const struct rw_route *p, const struct rw_route *in)
{
	return p->len >= in->len && rw_route_overlaps(p, in);
}

bool rw_route_overlaps(const struct rw_route *a, const struct rw_route *b)
{
	unsigned int len = a->len < b->len ? a->len : b->len;

	if (a->family != b->family)
		return false;
	for (unsigned int bit = 0; bit < len; bit++) {
		uint8_t m = (uint8_t)(0x80u >> (bit % 8));

		if ((a->addr[bit / 8] & m) != (b->addr[bit / 8] & m))
			return false;
	}
	return true;
}

/* Calls fn for each comma-separated item of s; stops at its first error. */
static int each_item(const char *s, const char *opt, int (*fn)(const char *item, void *arg,
							    char *err, size_t errlen),
		     void *arg, char *err, size_t errlen)
{
	char buf[2048], *save = NULL;
	int n = 0, e;

	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "--%s: '%.40s...' is too long", opt, s);
	strcpy(buf, s);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save), n++) {
		if ((e = fn(w, arg, err, errlen)))
			return e;
	}
	return n ? 0 : fail(err, errlen, "--%s: give at least one", opt);
}

static int one_community(const char *w, void *arg, char *err, size_t errlen)
{
	struct rw_bgp_config *b = arg;
	unsigned long hi, lo;
	char *end;

	errno = 0;
	hi = strtoul(w, &end, 10);
	if (end == w || *end != ':' || errno || hi > 65535)
		goto bad;
	w = end + 1;
	lo = strtoul(w, &end, 10);
	if (end == w || *end || errno || lo > 65535)
		goto bad;
	if (b->ncommunities == RW_BGP_COMMUNITIES)
		return fail(err, errlen, "--bgp-community: at most %d", RW_BGP_COMMUNITIES);
	b->community[b->ncommunities++] = (uint32_t)(hi << 16 | lo);
	return 0;
bad:
	return fail(err, errlen, "--bgp-community: '%s' is not ASN:VALUE (each 0..65535), e.g. "
		    "65535:666", w);
}

int rw_parse_owner(const char *s, struct rw_bgp_config *b, char *err, size_t errlen)
{
	struct rw_bgp_config one = { 0 };
	int e = strchr(s, ',') ? fail(err, errlen, "--bgp-owner: one community, ASN:VALUE") :
				  rw_parse_communities(s, &one, err, errlen);

	if (e)
		return e;
	if (!one.community[0])
		return fail(err, errlen, "--bgp-owner: 0:0 is not a community to own by");
	b->owner = one.community[0];
	return 0;
}

uint32_t rw_bgp_default_owner(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return 64512u << 16 | ((h ^ h >> 16) & 0xffff ? (h ^ h >> 16) & 0xffff : 1);
}

int rw_parse_communities(const char *s, struct rw_bgp_config *b, char *err, size_t errlen)
{
	b->ncommunities = 0;
	return each_item(s, "bgp-community", one_community, b, err, errlen);
}

static int one_next_hop(const char *w, void *arg, char *err, size_t errlen)
{
	struct rw_bgp_config *b = arg;
	unsigned char bytes[16];

	if (inet_pton(AF_INET, w, bytes) == 1 && !b->next_hop4[0])
		snprintf(b->next_hop4, sizeof(b->next_hop4), "%s", w);
	else if (inet_pton(AF_INET6, w, bytes) == 1 && !b->next_hop6[0])
		snprintf(b->next_hop6, sizeof(b->next_hop6), "%s", w);
	else
		return fail(err, errlen, "--bgp-next-hop: '%s' is not an address (one IPv4 and one "
			    "IPv6 at most)", w);
	return 0;
}

int rw_parse_next_hops(const char *s, struct rw_bgp_config *b, char *err, size_t errlen)
{
	b->next_hop4[0] = b->next_hop6[0] = '\0';
	return each_item(s, "bgp-next-hop", one_next_hop, b, err, errlen);
}

/* A list of prefixes an option fills: --bgp-never, --bgp-own. */
struct prefix_list {
	const char *opt;
	struct rw_route *v;
	uint32_t *n, max;
	bool all_refused; /* 0.0.0.0/0 or ::/0 is refused: every address */
};

static int one_prefix(const char *w, void *arg, char *err, size_t errlen)
{
	struct prefix_list *l = arg;
	char why[160];

	if (*l->n == l->max)
		return fail(err, errlen, "--%s: at most %u prefixes", l->opt, l->max);
	if (rw_route_parse(w, &l->v[*l->n], why, sizeof(why)))
		return fail(err, errlen, "--%s: %s", l->opt, why);
	if (l->all_refused && l->v[*l->n].len == 0)
		return fail(err, errlen, "--%s: '%s' is every address: give the prefixes that are "
			    "yours", l->opt, w);
	(*l->n)++;
	return 0;
}

int rw_parse_never(const char *s, struct rw_bgp_config *b, char *err, size_t errlen)
{
	struct prefix_list l = { "bgp-never", b->never, &b->nnever, RW_BGP_NEVER_MAX, false };

	b->nnever = 0;
	return each_item(s, l.opt, one_prefix, &l, err, errlen);
}

int rw_parse_own(const char *s, struct rw_bgp_config *b, char *err, size_t errlen)
{
	struct prefix_list l = { "bgp-own", b->own, &b->nown, RW_BGP_OWN_MAX, true };

	b->nown = 0;
	return each_item(s, l.opt, one_prefix, &l, err, errlen);
}
