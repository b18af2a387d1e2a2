// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/key.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void rw_key_format(const struct rw_key *key, char *buf, size_t len)
{
	int af = key->family == RW_FAMILY_IPV4 ? AF_INET :
		 key->family == RW_FAMILY_IPV6 ? AF_INET6 : 0;

	if (!af || !inet_ntop(af, key->addr, buf, (socklen_t)len)) {
		snprintf(buf, len, "?");
		return;
	}
	/* A shared budget (limit ... per /LEN) is shown as its prefix. */
	if (RW_KEY_PREFIX_LEN(key)) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, "/%u", RW_KEY_PREFIX_LEN(key));
	}
}

bool rw_key_cut(const struct rw_key *key, unsigned int len, struct rw_key *out)
{
	unsigned int have = RW_KEY_PREFIX_LEN(key);

	if (have && len > have)
		return false;
	*out = *key;
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
