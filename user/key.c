// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "key.h"

#include <arpa/inet.h>
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
