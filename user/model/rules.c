// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/rules.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/errmsg.h"
#include "model/key.h"
#include "model/lines.h"
#include "model/rule_match.h"
#include "model/units.h"

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
 * governs (::2 at the default limit would spend ::1's leases). Flow keys
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
	/* A rule with a match or a `per` kind has budgets of its own (its id in their keys). */
	if (r->plen > cut && !rw_match_any(&r->match) && !r->per)
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

#define RW_RULE_TOKENS 24

/* Splits text into words; -EINVAL when it is too long or has too many. */
static int split(const char *text, char *buf, char **tok, int *n, char *err, size_t errlen)
{
	char *save = NULL;

	*n = 0;
	if (strlen(text) > RW_RULE_LINE_MAX)
		return fail(err, errlen, "rule longer than %d bytes", RW_RULE_LINE_MAX);
	strcpy(buf, text);
	for (char *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (*n == RW_RULE_TOKENS)
			return fail(err, errlen, "too many words for a rule");
		tok[(*n)++] = t;
	}
	tok[*n] = NULL;
	return 0;
}

/* `per src|dst|pair|/LEN`, tok[*i] being "per". */
static int parse_per(char **tok, int n, int *i, struct rw_rule_spec *r, char *err, size_t errlen)
{
	static const char *const kinds[] = { [RW_PER_SRC] = "src", [RW_PER_DST] = "dst",
					     [RW_PER_PAIR] = "pair" };
	const char *w = *i + 1 < n ? tok[*i + 1] : "";
	uint64_t len;

	if (r->per_len || r->per)
		return fail(err, errlen, "per is given twice");
	(*i)++;
	for (unsigned int k = RW_PER_SRC; k <= RW_PER_PAIR; k++) {
		if (strcmp(w, kinds[k]) == 0) {
			r->per = (uint8_t)k;
			return 0;
		}
	}
	if (w[0] != '/' || rw_parse_uint(w + 1, 1, max_len(&r->prefix), &len))
		return fail(err, errlen, "per: give src, dst, pair or a prefix length, e.g. per /24 "
			    "(at most /%u)", max_len(&r->prefix));
	if (len < r->plen)
		return fail(err, errlen, "per /%u is shorter than the rule's own /%u", (unsigned int)len,
			    r->plen);
	r->per_len = (uint8_t)len;
	return 0;
}

int rw_rule_parse(const char *text, const struct rw_rule_scope *scope, struct rw_rule_spec *r,
		  char *err, size_t errlen)
{
	char buf[RW_RULE_LINE_MAX + 1], *tok[RW_RULE_TOKENS + 1];
	int n, i = 1;

	memset(r, 0, sizeof(*r));
	if (split(text, buf, tok, &n, err, errlen))
		return -EINVAL;
	if (n < 2)
		return fail(err, errlen, "a rule is: CIDR [PROTO [sport P] [dport P] [flags F] [type T]] "
			    "allow|deny|limit RATE[pps] [RATEbps] [per src|dst|pair|/LEN]");
	if (rw_parse_cidr(tok[0], &r->prefix, &r->plen, err, errlen))
		return -EINVAL;
	if (rw_match_parse(tok, n, &i, r->prefix.family, &r->match, err, errlen))
		return -EINVAL;
	if (i >= n)
		return fail(err, errlen, "the rule has no action (allow, deny, limit)");
	if (strcmp(tok[i], "allow") == 0 || strcmp(tok[i], "deny") == 0) {
		r->action = tok[i][0] == 'a' ? RW_RULE_ALLOW : RW_RULE_DENY;
		if (n > i + 1)
			return fail(err, errlen, "'%s' takes no options ('%s')", tok[i], tok[i + 1]);
		return fits_key(r, scope, err, errlen);
	}
	if (strcmp(tok[i], "limit") != 0)
		return fail(err, errlen, "'%s' is not %s (allow, deny, limit)", tok[i],
			    rw_match_any(&r->match) ? "a match word (sport, dport, flags, type) or an action"
					   : "an action");
	r->action = RW_RULE_LIMIT;
	for (i++; i < n; i++) {
		bool used_next;

		if (strcmp(tok[i], "per") == 0) {
			if (parse_per(tok, n, &i, r, err, errlen))
				return -EINVAL;
			continue;
		}
		if (parse_rate_token(tok[i], tok[i + 1], &r->pps, &r->bps, &used_next, err, errlen))
			return -EINVAL;
		i += used_next;
	}
	if (!r->pps && !r->bps)
		return fail(err, errlen, "limit needs a rate: limit RATE[pps] [RATEbps] "
			    "[per src|dst|pair|/LEN]");
	return fits_key(r, scope, err, errlen);
}

int rw_rule_parse_selector(const char *text, struct rw_rule_spec *r, char *err, size_t errlen)
{
	char buf[RW_RULE_LINE_MAX + 1], *tok[RW_RULE_TOKENS + 1];
	int n, i = 1;

	memset(r, 0, sizeof(*r));
	if (split(text, buf, tok, &n, err, errlen))
		return -EINVAL;
	if (n < 1)
		return fail(err, errlen, "give the rule's CIDR and its match, e.g. 0.0.0.0/0 tcp flags syn");
	if (rw_parse_cidr(tok[0], &r->prefix, &r->plen, err, errlen) ||
	    rw_match_parse(tok, n, &i, r->prefix.family, &r->match, err, errlen))
		return -EINVAL;
	if (i < n)
		return fail(err, errlen, "'%s': a rule is deleted by its CIDR and match alone", tok[i]);
	return 0;
}

bool rw_rule_same_prefix(const struct rw_rule_spec *a, const struct rw_rule_spec *b)
{
	return a->plen == b->plen && a->prefix.family == b->prefix.family &&
	       memcmp(a->prefix.addr, b->prefix.addr, sizeof(a->prefix.addr)) == 0 &&
	       rw_match_equal(&a->match, &b->match);
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
		c = memcmp(&a->match, &b->match, sizeof(a->match));
	if (!c)
		c = (int)a->line - (int)b->line;
	return c;
}

/* Different matches in rs, up to the first that is one too many: its index, or -1. */
static long too_many_matches(const struct rw_ruleset *rs)
{
	struct rw_match seen[RW_MATCHES - 1];
	size_t nseen = 0;

	for (size_t i = 0; i < rs->n; i++) {
		size_t k;

		if (!rw_match_any(&rs->rule[i].match))
			continue;
		for (k = 0; k < nseen && !rw_match_equal(&seen[k], &rs->rule[i].match); k++)
			;
		if (k < nseen)
			continue;
		if (nseen == RW_MATCHES - 1)
			return (long)i;
		seen[nseen++] = rs->rule[i].match;
	}
	return -1;
}

int rw_ruleset_push(struct rw_ruleset *rs, const struct rw_rule_spec *r)
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
	unsigned int lineno = 0, max_rules = scope->max_rules ? scope->max_rules : RW_MAX_RULES;
	int ret = 0, got;

	while (!ret && (got = rw_next_line(f, buf, sizeof(buf), &lineno, &text, path, err,
					  errlen)) == 1) {
		struct rw_rule_spec r;

		if (rw_rule_parse(text, scope, &r, why, sizeof(why))) {
			ret = fail(err, errlen, "%s:%u: %s", path, lineno, why);
		} else if (rs.n >= max_rules) {
			ret = fail(err, errlen, "%s:%u: more than %u rules (--max-rules %u; at most %d)",
				   path, lineno, max_rules, max_rules, RW_MAX_RULES);
		} else {
			r.line = lineno;
			if (rw_ruleset_push(&rs, &r))
				ret = fail(err, errlen, "%s: out of memory", path);
		}
	}
	if (!ret && got < 0)
		ret = got; /* an overlong line, said by rw_next_line */
	if (!ret && ferror(f))
		ret = fail(err, errlen, "%s: read error", path);
	if (!ret) {
		long over = too_many_matches(&rs);

		if (over >= 0)
			ret = fail(err, errlen, "%s:%u: more than %d different matches (protocol, ports, "
				   "flags, type) in one rules file", path, rs.rule[over].line,
				   RW_MATCHES - 1);
	}
	/* The same prefix and match twice: the second would silently win; say where both are. */
	if (!ret && rs.n > 1) {
		struct rw_rule_spec *sorted = malloc(rs.n * sizeof(*sorted));

		if (!sorted) {
			ret = fail(err, errlen, "%s: out of memory", path);
		} else {
			memcpy(sorted, rs.rule, rs.n * sizeof(*sorted));
			qsort(sorted, rs.n, sizeof(*sorted), cmp_prefix);
			for (size_t i = 1; i < rs.n && !ret; i++) {
				if (rw_rule_same_prefix(&sorted[i - 1], &sorted[i]))
					ret = fail(err, errlen, "%s:%u: this prefix and match already have a rule on line %u",
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

const struct rw_rule_spec *rw_rule_of_key(const struct rw_ruleset *rs, const struct rw_key *key)
{
	const struct rw_rule_spec *best = NULL;

	for (size_t i = 0; rs && i < rs->n; i++) {
		const struct rw_rule_spec *r = &rs->rule[i];

		if (key->kind & RW_KIND_RULE) {
			if (r->id == key->rule)
				return r;
			continue;
		}
		if (rw_match_any(&r->match) || r->per || (best && best->plen >= r->plen) ||
		    !rw_key_within(key, &r->prefix, r->plen))
			continue;
		best = r;
	}
	return best;
}

bool rw_rule_id_of_key(const struct rw_ruleset *rs, const struct rw_key *key, uint32_t *id)
{
	const struct rw_rule_spec *rule = rw_rule_of_key(rs, key);

	if (!rule && !(key->kind & RW_KIND_RULE))
		return false;
	*id = rule ? rule->id : key->rule;
	return true;
}

void rw_rule_format(const struct rw_rule_spec *r, char *buf, size_t len)
{
	static const char *const per[] = { "", " per src", " per dst", " per pair" };
	char addr[RW_KEY_STRLEN], match[160], a[32], b[32];
	int n;

	rw_key_format(&r->prefix, addr, sizeof(addr));
	rw_match_format(&r->match, match, sizeof(match));
	n = snprintf(buf, len, "%s/%u%s%s %s", addr, r->plen, match[0] ? " " : "", match,
		     r->action == RW_RULE_ALLOW ? "allow" : r->action == RW_RULE_DENY ? "deny" : "limit");
	if (n < 0 || (size_t)n >= len || r->action != RW_RULE_LIMIT)
		return;
	a[0] = b[0] = '\0';
	if (r->pps)
		snprintf(a, sizeof(a), " %llupps", (unsigned long long)r->pps);
	if (r->bps)
		snprintf(b, sizeof(b), " %llubps", (unsigned long long)r->bps);
	n += snprintf(buf + n, len - (size_t)n, "%s%s", a, b);
	if (n < 0 || (size_t)n >= len)
		return;
	if (r->per_len)
		snprintf(buf + n, len - (size_t)n, " per /%u", r->per_len);
	else if (r->per <= RW_PER_PAIR)
		snprintf(buf + n, len - (size_t)n, "%s", per[r->per]);
}
