// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client's command lines and answers. Its JSON is read by hand, no
 * library: only the keys we need, found the way JSON allows (a key is a
 * string followed by ':', and a '"' inside a string is always escaped, so
 * "key": can only be a key), within each element of the top-level list.
 */
#include "bgp/gobgp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/errmsg.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

int rw_gobgp_init(struct rw_gobgp *g, const struct rw_bgp_config *c, char *err, size_t errlen)
{
	const char *api = c->api, *colon = strrchr(api, ':'), *port = api;

	memset(g, 0, sizeof(*g));
	snprintf(g->command, sizeof(g->command), "%s", c->command[0] ? c->command : "gobgp");
	snprintf(g->helper, sizeof(g->helper), "%s", c->helper);
	snprintf(g->host, sizeof(g->host), "127.0.0.1");
	if (api[0] == '[') { /* [IPv6]:PORT */
		const char *close = strchr(api, ']');

		if (!close || close[1] != ':' || (size_t)(close - api - 1) >= sizeof(g->host))
			return fail(err, errlen, "--bgp: '%s' is not [HOST]:PORT", api);
		snprintf(g->host, sizeof(g->host), "%.*s", (int)(close - api - 1), api + 1);
		port = close + 2;
	} else if (colon) {
		if ((size_t)(colon - api) >= sizeof(g->host) || colon == api)
			return fail(err, errlen, "--bgp: '%s' is not HOST:PORT", api);
		snprintf(g->host, sizeof(g->host), "%.*s", (int)(colon - api), api);
		port = colon + 1;
	}
	if (!*port || strlen(port) >= sizeof(g->port) || strspn(port, "0123456789") != strlen(port))
		return fail(err, errlen, "--bgp: '%s' has no port", api);
	memcpy(g->port, port, strlen(port) + 1); /* fits: checked above */
	snprintf(g->api, sizeof(g->api), "%s:%s", g->host, g->port);
	if (strchr(g->host, ':'))
		snprintf(g->api, sizeof(g->api), "[%s]:%s", g->host, g->port);
	snprintf(g->next_hop4, sizeof(g->next_hop4), "%s", c->next_hop4);
	snprintf(g->next_hop6, sizeof(g->next_hop6), "%s", c->next_hop6);
	for (uint32_t i = 0; i < c->ncommunities && i < RW_BGP_COMMUNITIES; i++) {
		size_t used = strlen(g->communities);

		snprintf(g->communities + used, sizeof(g->communities) - used, "%s%u:%u",
			 i ? "," : "", c->community[i] >> 16, c->community[i] & 0xffff);
	}
	g->owner_value = c->owner;
	if (c->owner)
		snprintf(g->owner, sizeof(g->owner), "%u:%u", c->owner >> 16, c->owner & 0xffff);
	return 0;
}

/* One more word (bounded by buf: a word that does not fit is cut, never overrun). */
static void word(struct rw_gobgp_argv *a, const char *w)
{
	size_t room = sizeof(a->buf) - a->used;
	int n;

	if (a->n >= RW_GOBGP_WORDS - 1 || room == 0)
		return;
	n = snprintf(a->buf + a->used, room, "%s", w);
	a->argv[a->n++] = a->buf + a->used;
	a->argv[a->n] = NULL;
	a->used += (size_t)n < room ? (size_t)n + 1 : room;
}

/* The client and whom it asks: gobgp -u HOST -p PORT. */
static void start(const struct rw_gobgp *g, struct rw_gobgp_argv *a)
{
	a->used = 0;
	a->n = 0;
	a->argv[0] = NULL;
	word(a, g->command);
	word(a, "-u");
	word(a, g->host);
	word(a, "-p");
	word(a, g->port);
}

/* "198.18.0.5/32", a route's source (or a blackhole's destination), or with dst its destination. */
static void prefix_text(const struct rw_route *r, bool dst, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(r->family, dst ? r->dst : r->addr, a, sizeof(a)))
		strcpy(a, "?");
	snprintf(buf, len, "%s/%u", a, dst ? r->dst_len : r->len);
}

/* name and value, unless it is 0 (any). */
static void number(struct rw_gobgp_argv *a, const char *name, unsigned int value)
{
	char text[12];

	if (!value)
		return;
	snprintf(text, sizeof(text), "%u", value);
	word(a, name);
	word(a, text);
}

/*
 * VERB -a ipv4|ipv6 PREFIX, or for a flow rule -a ipv4-flowspec|ipv6-flowspec
 * VERB match destination D source S [protocol N] [source-port N]
 * [destination-port N]: gobgp's words after `global rib` (the family before
 * the verb for a flow rule; the protocol and ports numbers, not gobgp's
 * "udp" and "==53"), a line of the session (session.h).
 */
static void rib_words(const char *verb, const struct rw_route *r, struct rw_gobgp_argv *a)
{
	char src[INET6_ADDRSTRLEN + 8], dst[INET6_ADDRSTRLEN + 8];

	prefix_text(r, false, src, sizeof(src));
	if (r->kind == RW_ROUTE_FLOW) {
		word(a, "-a");
		word(a, r->family == AF_INET6 ? "ipv6-flowspec" : "ipv4-flowspec");
		prefix_text(r, true, dst, sizeof(dst));
		word(a, verb);
		word(a, "match");
		word(a, "destination");
		word(a, dst);
		word(a, "source");
		word(a, src);
		number(a, "protocol", r->proto);
		number(a, "source-port", r->sport);
		number(a, "destination-port", r->dport);
		return;
	}
	word(a, verb);
	word(a, "-a");
	word(a, r->family == AF_INET6 ? "ipv6" : "ipv4");
	word(a, src);
}

/* An announcement's attributes: a flow rule's action, a blackhole's next hop and communities. */
static void add_words(const struct rw_gobgp *g, const struct rw_route *r, struct rw_gobgp_argv *a)
{
	const char *nh = r->family == AF_INET6 ? g->next_hop6 : g->next_hop4;
	char communities[sizeof(g->communities) + sizeof(g->owner) + 1];

	if (r->kind == RW_ROUTE_FLOW) {
		/* Discard (traffic-rate 0) or a rate in bytes a second; no BLACKHOLE, no next hop. */
		word(a, "then");
		if (r->rate) {
			char rate[16];

			snprintf(rate, sizeof(rate), "%u", r->rate);
			word(a, "rate-limit");
			word(a, rate);
		} else {
			word(a, "discard");
		}
		if (g->owner[0]) {
			word(a, "community");
			word(a, g->owner);
		}
		return;
	}
	if (nh[0]) {
		word(a, "nexthop");
		word(a, nh);
	}
	snprintf(communities, sizeof(communities), "%s%s%s", g->communities,
		 g->communities[0] && g->owner[0] ? "," : "", g->owner);
	if (communities[0]) {
		word(a, "community");
		word(a, communities);
	}
}

void rw_gobgp_line(const struct rw_gobgp *g, bool add, const struct rw_route *r, char *buf,
		   size_t len)
{
	struct rw_gobgp_argv a = { .n = 0 };
	size_t used = 0;

	rib_words(add ? "add" : "del", r, &a);
	if (add)
		add_words(g, r, &a);
	buf[0] = '\0';
	for (int i = 0; i < a.n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", a.argv[i]);
}

void rw_gobgp_neighbors(const struct rw_gobgp *g, struct rw_gobgp_argv *a)
{
	start(g, a);
	word(a, "neighbor");
	word(a, "-j");
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* One line, fit for a terminal: cut at a line's end, other control characters shown as '?'. */
static void tame(char *buf)
{
	for (char *p = buf; *p; p++) {
		if (*p == '\n' || *p == '\r') {
			*p = '\0';
			break;
		}
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
}

/* Past the string s points at (its opening '"'); NULL when it does not end. */
static const char *skip_string(const char *s)
{
	for (s++; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* Past the value s points at (an object, list, string or bare word); NULL when it does not end. */
static const char *skip_value(const char *s)
{
	int depth = 0;

	s = skip_space(s);
	if (*s != '"' && *s != '{' && *s != '[') { /* a number, true, false, null */
		while (*s && !strchr(",:}] \t\r\n", *s))
			s++;
		return s;
	}
	do {
		if (!*s)
			return NULL;
		if (*s == '"') {
			s = skip_string(s);
			if (!s)
				return NULL;
			continue;
		}
		if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			depth--;
		s++;
	} while (depth > 0);
	return s;
}

/* The value of "key": between from and to (the first), or NULL. */
static const char *find_key(const char *from, const char *to, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = from; p && p + klen + 3 <= to; p++) {
		p = memchr(p, '"', (size_t)(to - p));
		if (!p || p + klen + 2 > to)
			return NULL;
		if (!strncmp(p + 1, key, klen) && p[klen + 1] == '"' && (p == from || p[-1] != '\\')) {
			const char *v = skip_space(p + klen + 2);

			if (*v == ':')
				return skip_space(v + 1);
		}
	}
	return NULL;
}

const char *rw_gobgp_state_name(int state)
{
	static const char *const names[] = { "Unknown", "Idle", "Connect", "Active",
					     "OpenSent", "OpenConfirm", "Established" };

	return state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])) ? names[state] : "?";
}

int rw_gobgp_parse_peers(const char *json, struct rw_gobgp_peers *p)
{
	const char *s = skip_space(json ? json : "");

	memset(p, 0, sizeof(*p));
	if (!strncmp(s, "null", 4)) /* no neighbours, as some versions say it */
		return 0;
	if (*s != '[')
		return -EINVAL;
	s = skip_space(s + 1);
	while (*s == '{') {
		const char *end = skip_value(s), *addr, *state;
		long st = 0; /* left out of the JSON when 0 (Unknown) */

		if (!end)
			return -EINVAL;
		addr = find_key(s, end, "neighbor_address");
		state = find_key(s, end, "session_state");
		if (state)
			st = strtol(state, NULL, 10);
		p->peers++;
		if (st == 6) {
			p->established++;
		} else if (!p->down[0]) {
			const char *close = addr && *addr == '"' ? skip_string(addr) : NULL;
			int alen = close ? (int)(close - addr - 2) : 1;

			snprintf(p->down, sizeof(p->down), "%.*s: %s", alen > 64 ? 64 : alen,
				 close ? addr + 1 : "?", rw_gobgp_state_name((int)st));
			tame(p->down);
		}
		s = skip_space(end);
		if (*s == ',')
			s = skip_space(s + 1);
	}
	return *s == ']' ? 0 : -EINVAL;
}

bool rw_gobgp_route_of_words(const char *words, int family, bool flow, struct rw_route *r)
{
	char text[2 * (INET6_ADDRSTRLEN + 8) + 48], err[96], *word[8], *save = NULL;
	struct rw_route d;
	int n = 0;

	if (!words || strlen(words) >= sizeof(text))
		return false;
	snprintf(text, sizeof(text), "%s", words);
	for (char *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (n == 8)
			return false;
		word[n++] = w;
	}
	if (!flow)
		return n == 1 && strchr(word[0], '/') &&
		       rw_route_parse(word[0], r, err, sizeof(err)) == 0 && r->family == family;
	if (n < 2 || n % 2 || !strchr(word[0], '/') || !strchr(word[1], '/') ||
	    rw_route_parse(word[0], &d, err, sizeof(err)) || d.family != family ||
	    rw_route_parse(word[1], r, err, sizeof(err)) || r->family != family)
		return false;
	r->kind = RW_ROUTE_FLOW;
	r->dst_len = d.len;
	memcpy(r->dst, d.addr, sizeof(r->dst));
	/* Then "proto N", "sport N", "dport N", "rate N", each at most once, in any order. */
	for (int i = 2; i < n; i += 2) {
		char *end;
		unsigned long v = strtoul(word[i + 1], &end, 10);
		bool proto = !strcmp(word[i], "proto"), rate = !strcmp(word[i], "rate");
		uint16_t *port = !strcmp(word[i], "sport") ? &r->sport :
				 !strcmp(word[i], "dport") ? &r->dport : NULL;

		if (*end || end == word[i + 1] || word[i + 1][0] == '-' || !v ||
		    (!proto && !port && !rate) ||
		    v > (proto ? 255UL : port ? 65535UL : UINT32_MAX) ||
		    (proto ? r->proto != 0 : port ? *port != 0 : r->rate != 0))
			return false;
		if (proto)
			r->proto = (uint8_t)v;
		else if (port)
			*port = (uint16_t)v;
		else
			r->rate = (uint32_t)v;
	}
	return true;
}

/* The first line of s that is not blank, into buf. */
static bool first_line(const char *s, char *buf, size_t len)
{
	while (s && *s) {
		size_t n = strcspn(s, "\n");
		const char *t = skip_space(s);

		if (t < s + n) {
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
				n--;
			snprintf(buf, len, "%.*s", (int)(n - (size_t)(t - s)), t);
			return true;
		}
		s += n + (s[n] == '\n');
	}
	return false;
}

static void reason(const struct rw_capture *c, uint64_t timeout_ns, char *buf, size_t len)
{
	const char *out = c->out ? c->out : "", *e;

	if (c->timed_out) {
		snprintf(buf, len, "no answer within %.1f s (the client was killed)",
			 (double)timeout_ns / 1e9);
		return;
	}
	if (first_line(c->err, buf, len))
		return;
	e = find_key(out, out + strlen(out), "error");
	if (e && *e == '"') {
		const char *close = skip_string(e);

		if (close) {
			snprintf(buf, len, "%.*s", (int)(close - e - 2), e + 1);
			return;
		}
	}
	if (first_line(out, buf, len))
		return;
	if (c->status > 128)
		snprintf(buf, len, "the client was killed by signal %d", c->status - 128);
	else
		snprintf(buf, len, "the client exited with status %d", c->status);
}

void rw_gobgp_reason(const struct rw_capture *c, uint64_t timeout_ns, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = '\0';
	reason(c, timeout_ns, buf, len);
	tame(buf);
}
