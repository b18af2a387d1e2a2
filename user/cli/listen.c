// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "model/errmsg.h"
#include "model/units.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

int rw_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		    size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 1] = RW_LISTEN_DEFAULT_ADDR;
	const char *port = s, *colon;
	uint64_t p;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') { /* [IPv6]:PORT */
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof(host))
			return fail(err, errlen, "--metrics: '%s' is not [ADDR]:PORT", s);
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		port = close + 2;
	} else if ((colon = strrchr(s, ':'))) {
		if ((size_t)(colon - s) >= sizeof(host) || colon == s)
			return fail(err, errlen, "--metrics: '%s' is not ADDR:PORT", s);
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port = colon + 1;
		if (strchr(host, ':')) /* ::1:9477 could be read two ways */
			return fail(err, errlen, "--metrics: '%s': an IPv6 address goes in [ ], "
				    "e.g. [::1]:9477", s);
	}
	if (rw_parse_uint(port, 1, 65535, &p))
		return fail(err, errlen, "--metrics: '%s' is not a port from 1 to 65535", port);
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)p);
		*len = sizeof(*in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*in6);
		return 0;
	}
	return fail(err, errlen, "--metrics: '%s' is not an IPv4 or IPv6 address (IPv6 in [ ])",
		    host);
}

void rw_format_listen(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	}
}
