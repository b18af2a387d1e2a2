// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/actcounts.h"

#include <inttypes.h>

#include "model/json.h"

const char *rw_bgp_state_name(enum rw_bgp_state s)
{
	static const char *const names[] = { "starting", "down", "no session", "up", "dry run" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void rw_act_json(FILE *out, const struct rw_act_counts *c)
{
	const struct rw_hook_counts *h = &c->hook;
	const struct rw_bgp_counts *b = &c->bgp;

	if (c->hook_on)
		fprintf(out, ", \"on_event\": {\"started\": %" PRIu64 ", \"ok\": %" PRIu64
			", \"failed\": %" PRIu64 ", \"timed_out\": %" PRIu64 ", \"dropped\": %" PRIu64
			", \"running\": %u, \"queued\": %u, \"last_exit\": %d}", h->started, h->ok,
			h->failed, h->timed_out, h->dropped, h->running, h->queued, h->last_status);
	if (c->bgp_on) {
		fprintf(out, ", \"bgp\": {\"state\": \"%s\", \"peers\": %u, \"established\": %u"
			", \"wanted\": %u, \"announced\": %u, \"over_max\": %u, \"never\": %" PRIu64
			", \"announces\": %" PRIu64 ", \"withdraws\": %" PRIu64 ", \"failures\": %"
			PRIu64 ", \"last_error\": ", rw_bgp_state_name(b->state), b->peers,
			b->established, b->wanted, b->announced, b->over_max, b->never, b->announces,
			b->withdraws, b->failures);
		rw_json_string(out, b->last_error);
		fprintf(out, "}");
	}
}
