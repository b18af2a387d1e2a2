// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The end of `ratewall run`: what it holds freed, what it attached detached
 * (a pinned link stays), its routes withdrawn unless the kernel still
 * enforces their bans.
 */
#include "run_end.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ratewall.skel.h"
#include "run_say.h"
#include "service/actpins.h"
#include "service/persist.h"

void rw_run_end(struct rw_session *s, int exit_status)
{
	if (s->watch) {
		rw_watch_close(s->watch);
		free(s->watch);
		s->watch = NULL; /* what is said from here on goes to stderr */
		fputs(s->said, stderr);
	}
	/* A run that ends its enforcement withdraws its routes; a pinned instance's stay. */
	if (s->inst.meta_fd >= 0 && s->act.bgp && s->act.counts.bgp.announced)
		fprintf(stderr, "ratewall: its %u BGP routes stay announced while the kernel enforces "
			"their bans (ratewall stop --name %s withdraws them)\n",
			s->act.counts.bgp.announced, s->cfg->name);
	rw_act_stop(&s->act, s->inst.meta_fd < 0, rw_run_act_say, s);
	rw_persist_act(s); /* the final counts */
	if (s->act_fd >= 0)
		close(s->act_fd);
	if (s->bgp_journal_fd >= 0)
		close(s->bgp_journal_fd);
	/* Closing a pinned link's fd leaves it attached: that is --persist. */
	for (uint32_t i = 0; i < s->nat; i++)
		rw_xdp_detach(&s->at[i]);
	rw_persist_leave(s, exit_status);
	free(s->top);
	rw_ranker_free(&s->ranker);
	for (uint32_t k = 0; k < RW_KIND_COUNT; k++) {
		free(s->ranked[k].top);
		rw_ranker_free(&s->ranked[k].ranker);
	}
	rw_flowtab_free(&s->flowtab);
	if (s->pnets) /* before the maps close: nothing armed stays copied for no reader */
		rw_pcap_nets_stop(s->pnets);
	free(s->pnets);
	s->pnets = NULL;
	if (s->skel)
		ratewall_bpf__destroy(s->skel);
	else
		rw_persist_close_maps(s);
	if (s->heavy_fd >= 0)
		close(s->heavy_fd);
	rw_ruleset_free(&s->rules);
	rw_ruleset_free(&s->tick_rules);
	ring_buffer__free(s->samples);
	ring_buffer__free(s->event_rb);
	if (s->pcap) {
		/* The frames still in the ring, then the files closed. */
		rw_pcap_tick_begin(s->pcap, s->pcap->wall_minus_clock);
		ring_buffer__consume(s->pcap_rb);
		ring_buffer__free(s->pcap_rb);
		rw_pcap_stop(s->pcap);
		free(s->pcap);
		s->pcap = NULL;
	}
	if (s->metrics.daemon)
		rw_metrics_stop(&s->metrics);
	rw_events_close(&s->events);
	rw_history_close(&s->history);
	rw_hhh_free(s->hhh);
	free(s->hhh_items);
}
