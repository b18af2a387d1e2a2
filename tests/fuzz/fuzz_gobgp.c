// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: what GoBGP's client and the session answer (--bgp reads them): neighbours, a route listed, an error. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bgp/gobgp.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rw_route r;
	struct rw_capture c = { .status = 1 };
	struct rw_gobgp_peers p;
	char *s = fuzz_cstring(data, size), why[128];
	int e;

	if (!s)
		return 0;
	e = rw_gobgp_parse_peers(s, &p);
	FUZZ_ASSERT(e == 0 || e == -EINVAL);
	if (e == 0)
		FUZZ_ASSERT(p.established <= p.peers && strlen(p.down) < sizeof(p.down));
	/* A route the session lists, in each table: a prefix of the table's family, or two. */
	for (int t = 0; t < 4; t++) {
		int family = t & 1 ? AF_INET6 : AF_INET;
		bool flow = t & 2;

		if (rw_gobgp_route_of_words(s, family, flow, &r))
			FUZZ_ASSERT(r.family == family && (r.kind == RW_ROUTE_FLOW) == flow &&
				    r.len <= (family == AF_INET ? 32 : 128) &&
				    (!flow || r.dst_len <= (family == AF_INET ? 32 : 128)));
	}
	/* The same text as its stdout, then as its stderr: one line, always ended. */
	c.out = s;
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	FUZZ_ASSERT(strlen(why) < sizeof(why) && !strchr(why, '\n'));
	c.out = NULL;
	snprintf(c.err, sizeof(c.err), "%s", s);
	rw_gobgp_reason(&c, 5000000000ULL, why, sizeof(why));
	FUZZ_ASSERT(strlen(why) < sizeof(why) && !strchr(why, '\n'));
	free(s);
	return 0;
}
