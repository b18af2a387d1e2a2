// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/rule_match.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "model/errmsg.h"
#include "model/units.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

static const struct {
	const char *name;
	unsigned int proto;
} protos[] = {
	{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },   { "icmp", IPPROTO_ICMP },
	{ "icmpv6", IPPROTO_ICMPV6 }, { "sctp", IPPROTO_SCTP }, { "gre", IPPROTO_GRE },
	{ "esp", IPPROTO_ESP }, { "ah", IPPROTO_AH },
};

static const char *const flag_names[] = { "fin", "syn", "rst", "psh", "ack", "urg" };

/* The classes a match may name instead of a whole packet (enum rw_l4_class), by index. */
static const char *const class_names[RW_L4_CLASSES] = {
	[RW_L4_LATER] = "frag", [RW_L4_TINY] = "tiny-frag", [RW_L4_DEEP] = "long-chain",
};

static int class_parse(const char *word)
{
	for (int c = 1; c < RW_L4_CLASSES; c++) {
		if (strcmp(word, class_names[c]) == 0)
			return c;
	}
	return -1;
}

/* ICMP types by name: IPv4's value, IPv6's. */
static const struct {
	const char *name;
	unsigned int v4, v6;
} icmp_types[] = {
	{ "echo-reply", 0, 129 }, { "unreachable", 3, 1 }, { "echo-request", 8, 128 },
	{ "time-exceeded", 11, 3 },
};

int rw_proto_parse(const char *word)
{
	uint64_t v;

	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		if (strcmp(word, protos[i].name) == 0)
			return (int)protos[i].proto;
	}
	if (word[0] >= '0' && word[0] <= '9')
		return rw_parse_uint(word, 1, 255, &v) ? -1 : (int)v;
	return -1;
}

static const char *proto_name(unsigned int proto)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		if (protos[i].proto == proto)
			return protos[i].name;
	}
	return NULL;
}

/* "53", "1024-65535", "53,123,11211", "22,8000-8100": at most RW_MATCH_RANGES ranges. */
static int parse_ports(const char *what, const char *s, struct rw_port_range *r, uint8_t *n,
		       char *err, size_t errlen)
{
	char buf[128], *save = NULL;

	if (!s)
		return fail(err, errlen, "%s: give a port, a range or a list (e.g. 53, 1024-65535, 53,123)",
			    what);
	if (*n)
		return fail(err, errlen, "%s is given twice", what);
	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "%s: '%s' is too long", what, s);
	strcpy(buf, s);
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(p, '-');
		uint64_t lo, hi;

		if (*n == RW_MATCH_RANGES)
			return fail(err, errlen, "%s: at most %d ports or ranges", what, RW_MATCH_RANGES);
		if (dash)
			*dash = '\0';
		if (rw_parse_uint(p, 0, 65535, &lo) || (dash && rw_parse_uint(dash + 1, 0, 65535, &hi)))
			return fail(err, errlen, "%s: '%s' is not a port (0 to 65535) or a range of them",
				    what, s);
		if (!dash)
			hi = lo;
		if (hi < lo)
			return fail(err, errlen, "%s: the range %s-%s runs backwards", what, p, dash + 1);
		r[(*n)++] = (struct rw_port_range){ (uint16_t)lo, (uint16_t)hi };
	}
	if (!*n)
		return fail(err, errlen, "%s: '%s' names no port", what, s);
	return 0;
}

/* "syn" (SYN set, ACK clear), "rst", "syn,ack", "ack,!syn": names set, '!' names clear. */
static int parse_flags(const char *s, struct rw_match *m, char *err, size_t errlen)
{
	char buf[64], *save = NULL;
	bool ack_named = false;

	if (!s)
		return fail(err, errlen, "flags: give TCP flags, e.g. flags syn (fin syn rst psh ack urg, "
			    "!NAME for clear)");
	if (m->flags_set || m->flags_clear)
		return fail(err, errlen, "flags is given twice");
	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "flags: '%s' is too long", s);
	strcpy(buf, s);
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		bool clear = p[0] == '!';
		size_t k;

		p += clear;
		for (k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++) {
			if (strcmp(p, flag_names[k]) == 0)
				break;
		}
		if (k == sizeof(flag_names) / sizeof(flag_names[0]))
			return fail(err, errlen, "flags: '%s' is not a TCP flag (fin syn rst psh ack urg)", p);
		if ((m->flags_set | m->flags_clear) & (1u << k))
			return fail(err, errlen, "flags: '%s' is named twice", p);
		*(clear ? &m->flags_clear : &m->flags_set) |= (uint8_t)(1u << k);
		ack_named |= k == 4;
	}
	/* A SYN without ACK opens a connection: `syn` alone means that, not a SYN-ACK too. */
	if ((m->flags_set & RW_TCP_SYN) && !ack_named)
		m->flags_clear |= RW_TCP_ACK;
	return 0;
}

static int parse_type(const char *s, struct rw_match *m, char *err, size_t errlen)
{
	bool v6 = m->proto == IPPROTO_ICMPV6;
	uint64_t v;

	if (!s)
		return fail(err, errlen, "type: give an ICMP type, a number or echo-request, echo-reply, "
			    "unreachable, time-exceeded");
	if (m->has_type)
		return fail(err, errlen, "type is given twice");
	for (size_t i = 0; i < sizeof(icmp_types) / sizeof(icmp_types[0]); i++) {
		if (strcmp(s, icmp_types[i].name) == 0) {
			m->type = (uint8_t)(v6 ? icmp_types[i].v6 : icmp_types[i].v4);
			m->has_type = 1;
			return 0;
		}
	}
	if (rw_parse_uint(s, 0, 255, &v))
		return fail(err, errlen, "type: '%s' is not an ICMP type (0 to 255, or echo-request, "
			    "echo-reply, unreachable, time-exceeded)", s);
	m->type = (uint8_t)v;
	m->has_type = 1;
	return 0;
}

/*
 * A class word (frag, tiny-frag, long-chain) at tok[*i]: the match takes only
 * packets of that class, which carry no ports, flags or type to read. 0 when
 * tok[*i] is none (nothing taken).
 */
static int parse_class(char **tok, int n, int *i, unsigned int family, struct rw_match *m,
		       char *err, size_t errlen)
{
	int c = *i < n ? class_parse(tok[*i]) : -1;

	if (c < 0)
		return 0;
	if (c == RW_L4_DEEP && family == RW_FAMILY_IPV4)
		return fail(err, errlen, "long-chain is IPv6's (a chain of extension headers)");
	if (c == RW_L4_DEEP && m->proto)
		return fail(err, errlen, "long-chain names no protocol: a chain not followed to its "
			    "end hides it");
	if (c == RW_L4_TINY && m->proto && !rw_l4_need(m->proto))
		return fail(err, errlen, "tiny-frag: only tcp, udp, icmp and icmpv6 have header "
			    "bytes a rule reads");
	m->cls = (uint8_t)c;
	(*i)++;
	if (*i < n && (class_parse(tok[*i]) >= 0 || rw_proto_parse(tok[*i]) >= 0 ||
		       !strcmp(tok[*i], "sport") || !strcmp(tok[*i], "dport") ||
		       !strcmp(tok[*i], "flags") || !strcmp(tok[*i], "type")))
		return fail(err, errlen, "'%s' after %s: a class takes no other match word", tok[*i],
			    class_names[c]);
	return 0;
}

int rw_match_parse(char **tok, int n, int *i, unsigned int family, struct rw_match *m, char *err,
		   size_t errlen)
{
	int proto;

	memset(m, 0, sizeof(*m));
	if (*i < n && class_parse(tok[*i]) >= 0)
		return parse_class(tok, n, i, family, m, err, errlen);
	if (*i >= n || (proto = rw_proto_parse(tok[*i])) < 0) {
		if (*i < n && strcmp(tok[*i], "allow") && strcmp(tok[*i], "deny") &&
		    strcmp(tok[*i], "limit"))
			return fail(err, errlen, "'%s' is not an action (allow, deny, limit), a protocol "
				    "(tcp, udp, icmp, icmpv6, sctp, gre, esp, ah, or 1 to 255) or a "
				    "class (frag, tiny-frag, long-chain)", tok[*i]);
		return 0;
	}
	if (proto == IPPROTO_ICMP && family == RW_FAMILY_IPV6)
		return fail(err, errlen, "icmp is IPv4's: an IPv6 prefix takes icmpv6");
	if (proto == IPPROTO_ICMPV6 && family == RW_FAMILY_IPV4)
		return fail(err, errlen, "icmpv6 is IPv6's: an IPv4 prefix takes icmp");
	m->proto = (uint8_t)proto;
	for ((*i)++; *i < n; (*i)++) {
		const char *w = tok[*i], *arg = *i + 1 < n ? tok[*i + 1] : NULL;
		bool ports = strcmp(w, "sport") == 0 || strcmp(w, "dport") == 0;
		int e;

		if (class_parse(w) >= 0) {
			if (rw_match_reads_l4(m))
				return fail(err, errlen, "%s: a class takes no ports, flags or type (a "
					    "packet of it has none to read)", w);
			return parse_class(tok, n, i, family, m, err, errlen);
		}
		if (ports && proto != IPPROTO_TCP && proto != IPPROTO_UDP)
			return fail(err, errlen, "%s: only tcp and udp have ports", w);
		if (strcmp(w, "flags") == 0 && proto != IPPROTO_TCP)
			return fail(err, errlen, "flags: only tcp has flags");
		if (strcmp(w, "type") == 0 && proto != IPPROTO_ICMP && proto != IPPROTO_ICMPV6)
			return fail(err, errlen, "type: only icmp and icmpv6 have a type");
		if (strcmp(w, "sport") == 0)
			e = parse_ports("sport", arg, m->sport, &m->nsport, err, errlen);
		else if (strcmp(w, "dport") == 0)
			e = parse_ports("dport", arg, m->dport, &m->ndport, err, errlen);
		else if (strcmp(w, "flags") == 0)
			e = parse_flags(arg, m, err, errlen);
		else if (strcmp(w, "type") == 0)
			e = parse_type(arg, m, err, errlen);
		else
			break;
		if (e)
			return e;
		(*i)++;
	}
	return 0;
}

static int format_ports(char *buf, size_t len, const char *what, const struct rw_port_range *r,
			unsigned int n)
{
	int k = n ? snprintf(buf, len, " %s ", what) : 0;

	for (unsigned int i = 0; i < n && k >= 0 && (size_t)k < len; i++) {
		if (r[i].lo == r[i].hi)
			k += snprintf(buf + k, len - (size_t)k, "%s%u", i ? "," : "", r[i].lo);
		else
			k += snprintf(buf + k, len - (size_t)k, "%s%u-%u", i ? "," : "", r[i].lo, r[i].hi);
	}
	return k;
}

void rw_match_format(const struct rw_match *m, char *buf, size_t len)
{
	const char *name = proto_name(m->proto);
	int k;

	buf[0] = '\0';
	if (!rw_match_any(m))
		return;
	if (!m->proto)
		k = 0;
	else
		k = name ? snprintf(buf, len, "%s", name) : snprintf(buf, len, "%u", m->proto);
	if (m->cls && k >= 0 && (size_t)k < len) {
		snprintf(buf + k, len - (size_t)k, "%s%s", k ? " " : "",
			 class_names[m->cls % RW_L4_CLASSES]);
		return;
	}
	if (k >= 0 && (size_t)k < len)
		k += format_ports(buf + k, len - (size_t)k, "sport", m->sport, m->nsport);
	if (k >= 0 && (size_t)k < len)
		k += format_ports(buf + k, len - (size_t)k, "dport", m->dport, m->ndport);
	if ((m->flags_set || m->flags_clear) && k >= 0 && (size_t)k < len) {
		bool syn_only = m->flags_set == RW_TCP_SYN && m->flags_clear == RW_TCP_ACK;
		bool first = true;

		k += snprintf(buf + k, len - (size_t)k, " flags ");
		for (unsigned int b = 0; b < 6 && k >= 0 && (size_t)k < len; b++) {
			bool set = m->flags_set & (1u << b), clear = m->flags_clear & (1u << b);

			if (!set && !(clear && !syn_only))
				continue;
			k += snprintf(buf + k, len - (size_t)k, "%s%s%s", first ? "" : ",", set ? "" : "!",
				      flag_names[b]);
			first = false;
		}
	}
	if (m->has_type && k >= 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " type %u", m->type);
}

bool rw_match_equal(const struct rw_match *a, const struct rw_match *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

bool rw_match_any(const struct rw_match *m)
{
	return m->proto || m->cls;
}

bool rw_match_reads_l4(const struct rw_match *m)
{
	return m->nsport || m->ndport || m->flags_set || m->flags_clear || m->has_type;
}

static bool in_ranges(const struct rw_port_range *r, unsigned int n, unsigned int port)
{
	if (!n)
		return true;
	for (unsigned int i = 0; i < n; i++) {
		if (port >= r[i].lo && port <= r[i].hi)
			return true;
	}
	return false;
}

bool rw_match_meets(const struct rw_match *m, unsigned int proto, unsigned int sport,
		    unsigned int dport, unsigned int flags, unsigned int type)
{
	if (m->proto != proto || m->cls)
		return false;
	if (!in_ranges(m->sport, m->nsport, sport) || !in_ranges(m->dport, m->ndport, dport))
		return false;
	if ((flags & m->flags_set) != m->flags_set || (flags & m->flags_clear))
		return false;
	return !m->has_type || m->type == type;
}
