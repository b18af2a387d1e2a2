// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/key.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * One address: with its port (port >= 0; an IPv6 one in brackets), or with
 * the key's prefix length when it stands for a prefix.
 */
static int format_addr(const struct rw_key *key, const uint8_t *addr, int port, char *buf,
		       size_t len)
{
	char a[INET6_ADDRSTRLEN];
	bool v6 = key->family == RW_FAMILY_IPV6;

	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, addr, a, sizeof(a)))
		return -1;
	if (port >= 0)
		return snprintf(buf, len, v6 ? "[%s]:%d" : "%s:%d", a, port);
	if (RW_KEY_PREFIX_LEN(key))
		return snprintf(buf, len, "%s/%u", a, RW_KEY_PREFIX_LEN(key));
	return snprintf(buf, len, "%s", a);
}

static const char *proto_name(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_ICMP: return "icmp";
	case IPPROTO_ICMPV6: return "icmpv6";
	case IPPROTO_SCTP: return "sctp";
	case IPPROTO_GRE: return "gre";
	case IPPROTO_ESP: return "esp";
	default: return NULL;
	}
}

int rw_text_extra_bytes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) == 0x80; /* a continuation byte */
	return n;
}

/* Cuts s to at most cols columns, the last one '~' when anything went. */
static void cut_cols(char *s, int cols)
{
	int c = 0;
	char *p = s;

	if ((int)strlen(s) - rw_text_extra_bytes(s) <= cols)
		return;
	if (cols <= 0) {
		s[0] = '\0';
		return;
	}
	for (; *p && c < cols - 1; p++) {
		if (((unsigned char)p[1] & 0xc0) != 0x80)
			c++; /* the last byte of a character */
	}
	p[0] = '~';
	p[1] = '\0';
}

void rw_key_fit(char *text, int cols)
{
	char left[RW_KEY_STRLEN], right[RW_KEY_STRLEN];
	const char *arrow = strstr(text, " → ") ? " → " : strstr(text, " -> ") ? " -> " : NULL;
	int acols, room, lw, rw, ln, rn;
	char *at;

	if ((int)strlen(text) - rw_text_extra_bytes(text) <= cols)
		return;
	at = arrow ? strstr(text, arrow) : NULL;
	acols = arrow ? (int)strlen(arrow) - rw_text_extra_bytes(arrow) : 0;
	room = cols - acols;
	if (!at || room < 8 || (size_t)(at - text) >= sizeof(left)) {
		cut_cols(text, cols);
		return;
	}
	snprintf(left, sizeof(left), "%.*s", (int)(at - text), text);
	snprintf(right, sizeof(right), "%s", at + strlen(arrow));
	ln = (int)strlen(left);
	rn = (int)strlen(right);
	/*
	 * The shorter side whole when the other keeps 8 columns (a destination
	 * with its port is what a cut would lose first), else half the room each.
	 */
	if (rn <= ln && rn <= room - 8) {
		rw = rn;
		lw = room - rn;
	} else if (ln < rn && ln <= room - 8) {
		lw = ln;
		rw = room - ln;
	} else {
		lw = room / 2;
		rw = room - lw;
	}
	cut_cols(left, lw);
	cut_cols(right, rw);
	/* Both sides now fit in cols columns: the text never grows. */
	if (snprintf(text, RW_KEY_STRLEN, "%s%s%s", left, arrow, right) >= RW_KEY_STRLEN)
		cut_cols(text, cols);
}

void rw_key_format(const struct rw_key *key, char *buf, size_t len)
{
	rw_key_format_as(key, true, buf, len);
}

static void format_plain(const struct rw_key *key, const char *arrow, char *buf, size_t len);

void rw_key_format_as(const struct rw_key *key, bool utf8, char *buf, size_t len)
{
	const char *arrow = utf8 ? "→" : "->";

	/* A rule's budget: the key of its kind, and the rule ("198.19.0.10 dst [rule 3]"). */
	if (key->kind & RW_KIND_RULE) {
		struct rw_key plain = *key;
		size_t n;

		plain.kind &= (uint8_t)~RW_KIND_RULE;
		plain.rule = 0;
		rw_key_format_as(&plain, utf8, buf, len);
		n = strlen(buf);
		/* One address is a source unless it says otherwise: a destination names its kind. */
		if (n < len && rw_kind_of(key) == RW_KIND_DST)
			n += (size_t)snprintf(buf + n, len - n, " %s", rw_key_kind_name(RW_KIND_DST));
		if (n < len)
			snprintf(buf + n, len - n, " [rule %u]", key->rule);
		return;
	}
	format_plain(key, arrow, buf, len);
}

/* Any key but a rule's budget: its kind's ends, and its protocol and ports if it has them. */
static void format_plain(const struct rw_key *key, const char *arrow, char *buf, size_t len)
{
	const struct rw_kind_desc *d = rw_kind(rw_kind_of(key));
	char a[64], b[64], p[16];
	bool ports;

	if ((key->family != RW_FAMILY_IPV4 && key->family != RW_FAMILY_IPV6) ||
	    rw_kind_of(key) >= RW_KIND_COUNT) {
		snprintf(buf, len, "?");
		return;
	}
	ports = d->ports && (key->sport || key->dport);
	if (format_addr(key, key->addr, ports ? ntohs(key->sport) : -1, a, sizeof(a)) < 0) {
		snprintf(buf, len, "?");
		return;
	}
	if (d->ends == 1) {
		snprintf(buf, len, "%s", a);
		return;
	}
	format_addr(key, key->addr2, ports ? ntohs(key->dport) : -1, b, sizeof(b));
	if (!d->ports) {
		snprintf(buf, len, "%s %s %s", a, arrow, b);
		return;
	}
	if (proto_name(key->proto))
		snprintf(p, sizeof(p), "%s", proto_name(key->proto));
	else
		snprintf(p, sizeof(p), "proto %u", key->proto);
	snprintf(buf, len, "%s %s %s %s", p, a, arrow, b);
}

bool rw_key_cut(const struct rw_key *key, unsigned int len, struct rw_key *out)
{
	unsigned int have = RW_KEY_PREFIX_LEN(key);

	if (have && len > have)
		return false;
	*out = (struct rw_key){ .family = key->family,
				.kind = rw_kind_of(key) == RW_KIND_DST ? RW_KIND_DST : RW_KIND_SRC };
	memcpy(out->addr, key->addr, sizeof(out->addr));
	for (unsigned int i = 0; i < 16; i++) {
		int keep = (int)len - 8 * (int)i;

		if (keep < 8)
			out->addr[i] &= keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
	RW_KEY_PREFIX_LEN(out) = (uint8_t)len;
	return true;
}

bool rw_key_within(const struct rw_key *key, const struct rw_key *prefix, unsigned int plen)
{
	struct rw_key c;

	return key->family == prefix->family && rw_key_cut(key, plen, &c) &&
	       memcmp(c.addr, prefix->addr, sizeof(c.addr)) == 0;
}
