// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/actview.h"

#include <inttypes.h>

void rw_act_text(FILE *out, const struct rw_act_counts *c, const char *command, const char *api)
{
	const struct rw_hook_counts *h = &c->hook;
	const struct rw_bgp_counts *b = &c->bgp;

	if (c->hook_on) {
		fprintf(out, "  on-event     %s: %" PRIu64 " run, %" PRIu64 " ok, %" PRIu64
			" failed, %" PRIu64 " timed out, %" PRIu64 " not run (over the bounds)",
			command, h->started, h->ok, h->failed, h->timed_out, h->dropped);
		if (h->last_status >= 0)
			fprintf(out, "; last exit %d", h->last_status);
		fprintf(out, "\n");
	}
	if (c->bgp_on) {
		fprintf(out, "  bgp          speaker %s %s, %u of %u sessions established; %u routes "
			"announced, %u over --bgp-max, %" PRIu64 " kept out (never announced); %"
			PRIu64 " announces, %" PRIu64 " withdraws, %" PRIu64 " failed\n", api,
			rw_bgp_state_name(b->state), b->established, b->peers, b->announced,
			b->over_max, b->never, b->announces, b->withdraws, b->failures);
		if (b->last_error[0])
			fprintf(out, "               last error: %s\n", b->last_error);
	}
}
