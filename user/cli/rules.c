// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/rules.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/errmsg.h"
#include "cli/key.h"
#include "cli/lines.h"
#include "cli/units.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

static unsigned int max_len(const struct rw_key *k)
{
	return k->family == RW_FAMILY_IPV4 ? 32 : 128;
}

/* Whether any bit of addr beyond the first plen is set. */
static bool host_bits(const uint8_t *addr, unsigned int bytes, unsigned int plen)
{
	for (unsigned int i = 0; i < bytes; i++) {
		unsigned int keep = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;
		uint8_t mask = keep ? (uint8_t)(0xff << (8 - keep)) : 0;

		if (addr[i] & ~mask)
			return true;
	}
	return false;
}

int rw_parse_cidr(const char *s, struct rw_key *prefix, uint8_t *plen, char *err, size_t errlen)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	uint64_t len;

	memset(prefix, 0, sizeof(*prefix));
	if (alen == 0 || alen >= sizeof(addr))
		return fail(err, errlen, "'%s' is not an address or prefix", s);
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, prefix->addr) == 1)
		prefix->family = RW_FAMILY_IPV4;
	else if (inet_pton(AF_INET6, addr, prefix->addr) == 1)
		prefix->family = RW_FAMILY_IPV6;
	else
		return fail(err, errlen, "'%s' is not an IPv4 or IPv6 address", addr);
	len = max_len(prefix);
	if (slash && rw_parse_uint(slash + 1, 0, max_len(prefix), &len))
		return fail(err, errlen, "'%s': the prefix length must be 0 to %u", s, max_len(prefix));
	if (host_bits(prefix->addr, prefix->family == RW_FAMILY_IPV4 ? 4 : 16, (unsigned int)len))
		return fail(err, errlen, "'%s' has bits set beyond /%u", s, (unsigned int)len);
	*plen = (uint8_t)len;
	return 0;
}

/* A rate token: "50k" or "50kpps" (packets), "10Mbps" (bits); unit_next is a lone "pps"/"bps". */
static int parse_rate_token(const char *tok, const char *unit_next, uint64_t *pps, uint64_t *bps,
			    bool *used_next, char *err, size_t errlen)
{
	char num[64];
	size_t n = strlen(tok);
	bool bits = false;
	uint64_t v;

	*used_next = false;
	if (n >= sizeof(num))
		return fail(err, errlen, "'%s' is not a rate", tok);
	strcpy(num, tok);
	if (n > 3 && (strcmp(num + n - 3, "pps") == 0 || strcmp(num + n - 3, "bps") == 0)) {
		bits = num[n - 3] == 'b';
		num[n - 3] = '\0';
	} else if (unit_next && (strcmp(unit_next, "pps") == 0 || strcmp(unit_next, "bps") == 0)) {
		bits = unit_next[0] == 'b';
		*used_next = true;
	}
	if (rw_parse_rate(num, &v))
		return fail(err, errlen, "'%s' is not a rate (e.g. 50k, 50kpps, 100Mbps)", tok);
	if (bits ? *bps : *pps)
		return fail(err, errlen, "limit: a %s rate is given twice", bits ? "bit" : "packet");
	*(bits ? bps : pps) = v;
	return 0;
}

/*
 * An IPv6 src, dst or pair key keeps only --v6-prefix bits of the address
 * the rule matches (the source; the destination under --key dst): a rule
 * longer than that, or a `per /LEN` longer, would share its key, record and
 * leases with the rest of the /v6-prefix, which a different rule or none
 * governs (issue 29: ::2 at the default limit spent ::1's leases). Flow keys
 * keep whole addresses. This is the one check: every rule comes through here.
 */
static int fits_key(const struct rw_rule_spec *r, const struct rw_rule_scope *scope, char *err,
		    size_t errlen)
{
	unsigned int cut = scope->v6_prefix;
	char addr[RW_KEY_STRLEN];

	if (r->prefix.family != RW_FAMILY_IPV6 || scope->key_kind == RW_KIND_FLOW || cut >= 128)
		return 0;
	rw_key_format(&r->prefix, addr, sizeof(addr));
	if (r->plen > cut)
		return fail(err, errlen, "%s/%u: a /%u rule is longer than --v6-prefix %u: it would "
			    "share the key (record, leases) of its /%u with its neighbours; use "
			    "--v6-prefix %u or a rule of /%u or shorter", addr, r->plen, r->plen, cut,
			    cut, r->plen, cut);
	if (r->action == RW_RULE_LIMIT && r->per_len > cut)
		return fail(err, errlen, "%s/%u: per /%u is longer than --v6-prefix %u: each /%u "
			    "would share the budget of its /%u; use --v6-prefix %u or per /%u or "
			    "shorter", addr, r->plen, r->per_len, cut, r->per_len, cut, r->per_len, cut);
	return 0;
}

#define RW_RULE_TOKENS 16

int rw_rule_parse(const char *text, const struct rw_rule_scope *scope, struct rw_rule_spec *r,
		  char *err, size_t errlen)
{
	char buf[RW_RULE_LINE_MAX + 1], *tok[RW_RULE_TOKENS + 1], *save = NULL;
	int n = 0, i;
	uint64_t len;

	memset(r, 0, sizeof(*r));
	if (strlen(text) > RW_RULE_LINE_MAX)
		return fail(err, errlen, "rule longer than %d bytes", RW_RULE_LINE_MAX);
	strcpy(buf, text);
	for (char *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == RW_RULE_TOKENS)
			return fail(err, errlen, "too many words for a rule");
		tok[n++] = t;
	}
	tok[n] = NULL;
	if (n < 2)
		return fail(err, errlen, "a rule is: CIDR allow|deny|limit RATE[pps] [RATEbps] [per /LEN]");
	if (rw_parse_cidr(tok[0], &r->prefix, &r->plen, err, errlen))
		return -EINVAL;
	if (strcmp(tok[1], "allow") == 0 || strcmp(tok[1], "deny") == 0) {
		r->action = tok[1][0] == 'a' ? RW_RULE_ALLOW : RW_RULE_DENY;
		if (n > 2)
			return fail(err, errlen, "'%s' takes no options ('%s')", tok[1], tok[2]);
		return fits_key(r, scope, err, errlen);
	}
	if (strcmp(tok[1], "limit") != 0)
		return fail(err, errlen, "'%s' is not an action (allow, deny, limit)", tok[1]);
	r->action = RW_RULE_LIMIT;
	for (i = 2; i < n; i++) {
		bool used_next;

		if (strcmp(tok[i], "per") == 0) {
			if (i + 1 >= n || tok[i + 1][0] != '/' ||
			    rw_parse_uint(tok[i + 1] + 1, 1, max_len(&r->prefix), &len))
				return fail(err, errlen, "per: give a prefix length, e.g. per /24 (at most /%u)",
					    max_len(&r->prefix));
			if (len < r->plen)
				return fail(err, errlen, "per /%u is shorter than the rule's own /%u",
					    (unsigned int)len, r->plen);
			if (r->per_len)
				return fail(err, errlen, "per is given twice");
			r->per_len = (uint8_t)len;
			i++;
			continue;
		}
		if (parse_rate_token(tok[i], tok[i + 1], &r->pps, &r->bps, &used_next, err, errlen))
			return -EINVAL;
		i += used_next;
	}
	if (!r->pps && !r->bps)
		return fail(err, errlen, "limit needs a rate: limit RATE[pps] [RATEbps] [per /LEN]");
	return fits_key(r, scope, err, errlen);
}

bool rw_rule_same_prefix(const struct rw_rule_spec *a, const struct rw_rule_spec *b)
{
	return a->plen == b->plen && a->prefix.family == b->prefix.family &&
	       memcmp(a->prefix.addr, b->prefix.addr, sizeof(a->prefix.addr)) == 0;
}

static int cmp_prefix(const void *pa, const void *pb)
{
	const struct rw_rule_spec *a = pa, *b = pb;
	int c = a->prefix.family - b->prefix.family;

	if (!c)
		c = memcmp(a->prefix.addr, b->prefix.addr, sizeof(a->prefix.addr));
	if (!c)
		c = a->plen - b->plen;
	if (!c)
		c = (int)a->line - (int)b->line;
	return c;
}

static int push(struct rw_ruleset *rs, const struct rw_rule_spec *r)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct rw_rule_spec *p = realloc(rs->rule, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rs->rule = p;
		rs->cap = cap;
	}
	rs->rule[rs->n++] = *r;
	return 0;
}

int rw_rules_parse_stream(FILE *f, const char *path, const struct rw_rule_scope *scope,
			  struct rw_ruleset *out, char *err, size_t errlen)
{
	char buf[RW_RULE_LINE_MAX + 2], why[256], *text;
	struct rw_ruleset rs = { 0 };
	unsigned int lineno = 0;
	int ret = 0, got;

	while (!ret && (got = rw_next_line(f, buf, sizeof(buf), &lineno, &text, path, err,
					  errlen)) == 1) {
		struct rw_rule_spec r;

		if (rw_rule_parse(text, scope, &r, why, sizeof(why))) {
			ret = fail(err, errlen, "%s:%u: %s", path, lineno, why);
		} else if (rs.n >= RW_MAX_RULES) {
			ret = fail(err, errlen, "%s:%u: more than %d rules", path, lineno, RW_MAX_RULES);
		} else {
			r.line = lineno;
			if (push(&rs, &r))
				ret = fail(err, errlen, "%s: out of memory", path);
		}
	}
	if (!ret && got < 0)
		ret = got; /* an overlong line, said by rw_next_line */
	if (!ret && ferror(f))
		ret = fail(err, errlen, "%s: read error", path);
	/* The same prefix twice: the second would silently win; say where both are. */
	if (!ret && rs.n > 1) {
		struct rw_rule_spec *sorted = malloc(rs.n * sizeof(*sorted));

		if (!sorted) {
			ret = fail(err, errlen, "%s: out of memory", path);
		} else {
			memcpy(sorted, rs.rule, rs.n * sizeof(*sorted));
			qsort(sorted, rs.n, sizeof(*sorted), cmp_prefix);
			for (size_t i = 1; i < rs.n && !ret; i++) {
				if (rw_rule_same_prefix(&sorted[i - 1], &sorted[i]))
					ret = fail(err, errlen, "%s:%u: this prefix already has a rule on line %u",
						   path, sorted[i].line, sorted[i - 1].line);
			}
			free(sorted);
		}
	}
	if (ret) {
		rw_ruleset_free(&rs);
		return ret;
	}
	*out = rs;
	return 0;
}

int rw_rules_parse_file(const char *path, const struct rw_rule_scope *scope,
			struct rw_ruleset *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return fail(err, errlen, "cannot read rules file '%s': %s", path, strerror(errno));
	ret = rw_rules_parse_stream(f, path, scope, out, err, errlen);
	fclose(f);
	return ret;
}

void rw_ruleset_free(struct rw_ruleset *rs)
{
	free(rs->rule);
	*rs = (struct rw_ruleset){ 0 };
}

void rw_rule_format(const struct rw_rule_spec *r, char *buf, size_t len)
{
	char addr[RW_KEY_STRLEN], a[32], b[32];
	int n;

	rw_key_format(&r->prefix, addr, sizeof(addr));
	n = snprintf(buf, len, "%s/%u %s", addr, r->plen,
		     r->action == RW_RULE_ALLOW ? "allow" : r->action == RW_RULE_DENY ? "deny" : "limit");
	if (n < 0 || (size_t)n >= len || r->action != RW_RULE_LIMIT)
		return;
	a[0] = b[0] = '\0';
	if (r->pps)
		snprintf(a, sizeof(a), " %llupps", (unsigned long long)r->pps);
	if (r->bps)
		snprintf(b, sizeof(b), " %llubps", (unsigned long long)r->bps);
	n += snprintf(buf + n, len - (size_t)n, "%s%s", a, b);
	if (r->per_len && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " per /%u", r->per_len);
}
