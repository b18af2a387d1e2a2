// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: what GoBGP's client answers (--bgp reads it): neighbours, a route looked up, an error. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bgp/gobgp.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rw_route r = { .family = AF_INET, .len = 32, .addr = { 198, 18, 0, 5 } };
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
	e = rw_gobgp_parse_lookup(s, &r);
	FUZZ_ASSERT(e == 0 || e == 1 || e == -EINVAL);
	/* A flow rule's lookup: its key in the flowspec table. */
	struct rw_route f = { .family = AF_INET6, .len = 64, .addr = { 0x20, 0x01, 0x0d, 0xb8, 0, 2 },
			      .kind = RW_ROUTE_FLOW, .dst_len = 48, .dst = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 } };

	e = rw_gobgp_parse_lookup(s, &f);
	FUZZ_ASSERT(e == 0 || e == 1 || e == -EINVAL);
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
