// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/report.h"
#include "views/actview.h"

#include <inttypes.h>
#include <time.h>

#include "model/instance.h"
#include "model/json.h"
#include "model/key.h"
#include "model/units.h"

/* The source's part of all traffic in the window, by what the ranking sorts on. */
static double share_of(const struct rw_report *r, const struct rw_rank_entry *e)
{
	return rw_share_pct(e->metric, rw_sort_metric(&r->tick.total, r->cfg->sort));
}

/* One ranking's block of the table: its heading, then a row per key. */
static void table_rows(FILE *out, const struct rw_report *r, uint8_t kind,
		       const struct rw_rank_entry *top, uint32_t n)
{
	const struct rw_kind_desc *d = rw_kind(kind);
	char a[32], b[32], c[32];

	fprintf(out, "%4s  %-*s %9s %9s %9s %8s  %-7s %4s\n", "RANK",
		d->table_cols + rw_text_extra_bytes(d->heading), d->heading, "PPS", "BPS",
		"DROP PPS", "TRAFFIC", "LIMITED", "CPUS");
	for (uint32_t i = 0; i < n; i++) {
		const struct rw_rank_entry *e = &top[i];
		char key[RW_KEY_STRLEN];

		rw_key_format(&e->key, key, sizeof(key));
		rw_format_si(rw_rate(e->sum.packets, r->span_ns), a, sizeof(a));
		rw_format_si(rw_rate(e->sum.bytes * 8, r->span_ns), b, sizeof(b));
		rw_format_si(rw_rate(e->sum.drop_packets, r->span_ns), c, sizeof(c));
		fprintf(out, "%4u  %-*s %9s %9s %9s %7.1f%%  %-7s %4u\n", i + 1,
			d->table_cols + rw_text_extra_bytes(key), key, a, b, c,
			share_of(r, e), e->sum.drop_packets ? "yes" : "no", e->sum.cpus);
	}
	if (n == 0)
		fprintf(out, "      (no traffic in the window)\n");
}

void rw_report_table(FILE *out, const struct rw_report *r)
{
	char a[32], b[32], c[32], d[32], when[16];
	time_t now = (time_t)r->ts;
	struct tm tm;

	char ifaces[RW_NAME_MAX];

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	rw_format_si(rw_rate(r->tick.sketch_packets, r->span_ns), a, sizeof(a));
	rw_default_instance_name(r->cfg->ifnames, r->cfg->nifaces, ifaces);
	fprintf(out, "\n%s  %s  window %.3gs/%u slots  tracked %" PRIu64 "  sketch-only %s pps%s\n",
		when, ifaces, r->cfg->window_ns / 1e9, r->cfg->slots, r->tick.flows, a,
		r->cfg->dry_run ? "  DRY RUN: drops are what would be dropped" : "");
	table_rows(out, r, r->cfg->key_kind, r->top, r->ntop);
	/* --rank: each other kind's top-N under the main one, counted only (never limited). */
	for (uint32_t k = 0; k < r->nrankings; k++)
		table_rows(out, r, r->rankings[k].kind, r->rankings[k].top, r->rankings[k].n);
	rw_format_si(rw_rate(r->tick.total.packets, r->span_ns), a, sizeof(a));
	rw_format_si(rw_rate(r->tick.total.bytes * 8, r->span_ns), b, sizeof(b));
	rw_format_si(rw_rate(r->tick.total.drop_packets, r->span_ns), c, sizeof(c));
	fprintf(out, "total  window %s pps %s bps, dropping %s pps", a, b, c);
	rw_format_si((double)r->stats.rx_packets, a, sizeof(a));
	rw_format_si((double)rw_stats_passed(&r->stats), b, sizeof(b));
	rw_format_si((double)r->stats.dropped, c, sizeof(c));
	rw_format_si((double)(r->stats.malformed + r->stats.non_ip), d, sizeof(d));
	fprintf(out, " | since start rx %s passed %s dropped %s unkeyed %s\n", a, b, c, d);
	if (r->stats.crowd_drops) {
		rw_format_si((double)r->stats.crowd_drops, a, sizeof(a));
		fprintf(out, "crowd: %s dropped since start to hold untracked sources to their limits"
			" together (tracked %" PRIu64 " of --max-flows %u: raise it to limit each one"
			" exactly)\n", a, r->tick.flows, r->cfg->max_flows);
	}
	if (r->stats.tiny_frags || r->stats.long_chains) {
		rw_format_si((double)r->stats.tiny_frags, a, sizeof(a));
		rw_format_si((double)r->stats.long_chains, b, sizeof(b));
		fprintf(out, "hidden headers: %s tiny first fragments, %s IPv6 chains too long to "
			"follow since start (%s)\n", a, b, r->cfg->malformed_drop ? "dropped" :
			"passed to the rules of their class: --malformed drop drops them");
	}
	if (r->cfg->levels.n[0] || r->cfg->levels.n[1]) {
		fprintf(out, "heavy prefixes (>= %u%% of the window, net of heavier more-specific ones):",
			r->cfg->hhh_share_pct);
		for (uint32_t i = 0; i < r->nhhh; i++) {
			char key[RW_KEY_STRLEN];

			rw_key_format(&r->hhh[i].prefix, key, sizeof(key));
			fprintf(out, "%s %s %.1f%%", i ? "," : "", key,
				rw_share_pct(r->hhh[i].residual, r->tick.total.packets));
		}
		fprintf(out, "%s\n", r->nhhh ? "" : " none");
	}
	for (uint32_t i = 0; r->nifaces > 1 && i < r->nifaces; i++) {
		rw_format_si((double)r->iface[i].rx_packets, a, sizeof(a));
		rw_format_si((double)rw_stats_passed(&r->iface[i]), b, sizeof(b));
		rw_format_si((double)r->iface[i].dropped, c, sizeof(c));
		fprintf(out, "  %-16s since start rx %s passed %s dropped %s\n", r->cfg->ifnames[i],
			a, b, c);
	}
	fflush(out);
}

/*
 * The report as one JSON line (docs/json.md). It only prints: the figures
 * that need the rank and kernel rooms are taken first, then every key, rule
 * and name is put into words by model/ as it is printed.
 */
void rw_report_json(FILE *out, const struct rw_report *r)
{
	const struct rw_stats *s = &r->stats;
	uint64_t whole = rw_sort_metric(&r->tick.total, r->cfg->sort), passed = rw_stats_passed(s);
	uint64_t iface_passed[RW_MAX_IFACES];
	char ifaces[RW_NAME_MAX];

	for (uint32_t i = 0; i < r->nifaces && i < RW_MAX_IFACES; i++)
		iface_passed[i] = rw_stats_passed(&r->iface[i]);
	rw_default_instance_name(r->cfg->ifnames, r->cfg->nifaces, ifaces);
	fprintf(out, "{\"ts\": %.3f, \"epoch\": %" PRIu64 ", \"iface\": ", r->ts, r->epoch);
	rw_json_string(out, ifaces);
	fprintf(out, ", \"key_kind\": \"%s\", \"v6_prefix\": %u", rw_key_kind_name(r->cfg->key_kind),
		r->cfg->v6_prefix);
	fprintf(out,
		", \"dry_run\": %s, \"malformed\": \"%s\", \"window_ms\": %.10g, \"slots\": %u, "
		"\"limit\": {\"pps\": %" PRIu64 ", \"bps\": %" PRIu64 "}, "
		"\"totals\": {\"rx_packets\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
		", \"passed\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"flows\": %" PRIu64
		", \"dropped_bytes\": %" PRIu64 ", \"malformed\": %" PRIu64 ", \"non_ip\": %" PRIu64
		", \"new_flows\": %" PRIu64 ", \"failed_inserts\": %" PRIu64
		", \"window_packets\": %" PRIu64 ", \"window_bytes\": %" PRIu64
		", \"window_dropped\": %" PRIu64 ", \"idle_deleted\": %" PRIu64
		", \"tracked_flows\": %" PRIu64 ", \"window_sketch_packets\": %" PRIu64
		", \"window_sketch_bytes\": %" PRIu64 ", \"capped_drops\": %" PRIu64
		", \"sketch_packets\": %" PRIu64 ", \"cross_cpu_checks\": %" PRIu64
		", \"paced_drops\": %" PRIu64 ", \"met_drops\": %" PRIu64 ", \"stalled_drops\": %" PRIu64
		", \"l4_unread\": %" PRIu64 ", \"crowd_drops\": %" PRIu64
		", \"frag_first\": %" PRIu64 ", \"frag_later\": %" PRIu64
		", \"frag_unmatched\": %" PRIu64 ", \"tiny_frags\": %" PRIu64
		", \"long_chains\": %" PRIu64 ", \"sketch_noise\": %" PRIu64 "}"
		", \"promotion\": {\"packets\": %" PRIu64 ", \"bytes\": %" PRIu64
		", \"free\": %" PRId64 "}, \"tick_ms\": %.3f, \"top\": [",
		r->cfg->dry_run ? "true" : "false", r->cfg->malformed_drop ? "drop" : "pass",
		r->cfg->window_ns / 1e6, r->cfg->slots, r->cfg->pps, r->cfg->bps,
		(uint64_t)s->rx_packets, (uint64_t)s->rx_bytes, passed,
		(uint64_t)s->dropped, r->tick.flows, (uint64_t)s->dropped_bytes,
		(uint64_t)s->malformed, (uint64_t)s->non_ip, (uint64_t)s->new_flows,
		(uint64_t)s->failed_inserts, (uint64_t)r->tick.total.packets,
		(uint64_t)r->tick.total.bytes, (uint64_t)r->tick.total.drop_packets, r->tick.deleted,
		r->tick.flows, r->tick.sketch_packets, r->tick.sketch_bytes, (uint64_t)s->capped_drops,
		(uint64_t)s->sketch_packets, (uint64_t)s->cross_cpu_checks, (uint64_t)s->paced_drops,
		(uint64_t)s->met_drops, (uint64_t)s->stalled_drops, (uint64_t)s->l4_unread,
		(uint64_t)s->crowd_drops, (uint64_t)s->frag_first, (uint64_t)s->frag_later,
		(uint64_t)s->frag_unmatched, (uint64_t)s->tiny_frags, (uint64_t)s->long_chains,
		r->tick.sketch_noise, (uint64_t)r->tick.next.promote_packets,
		(uint64_t)r->tick.next.promote_bytes,
		(int64_t)r->tick.next.free_promotions, r->tick_ns / 1e6);
	/* The main kind's ranking ("top"), then each --rank kind's ("rankings"), row by row. */
	for (uint32_t k = 0; k <= r->nrankings; k++) {
		const struct rw_rank_entry *top = k ? r->rankings[k - 1].top : r->top;
		uint32_t n = k ? r->rankings[k - 1].n : r->ntop;

		if (k)
			fprintf(out, "%s\"%s\": [", k == 1 ? "], \"rankings\": {" : "], ",
				rw_key_kind_name(r->rankings[k - 1].kind));
		for (uint32_t i = 0; i < n; i++) {
			const struct rw_rank_entry *e = &top[i];
			uint32_t rule;
			char key[RW_KEY_STRLEN];

			rw_key_format(&e->key, key, sizeof(key));
			fprintf(out,
				"%s{\"rank\": %u, \"key\": \"%s\", \"packets\": %" PRIu64
				", \"bytes\": %" PRIu64 ", \"dropped\": %" PRIu64
				", \"pps\": %.1f, \"bps\": %.1f, \"limited\": %s"
				", \"dropped_bytes\": %" PRIu64 ", \"drop_pps\": %.1f, \"share\": %.2f"
				", \"cpus\": %u, \"banned\": %s",
				i ? ", " : "", i + 1, key, (uint64_t)e->sum.packets,
				(uint64_t)e->sum.bytes, (uint64_t)e->sum.drop_packets,
				rw_rate(e->sum.packets, r->span_ns), rw_rate(e->sum.bytes * 8, r->span_ns),
				e->sum.drop_packets ? "true" : "false", (uint64_t)e->sum.drop_bytes,
				rw_rate(e->sum.drop_packets, r->span_ns), rw_share_pct(e->metric, whole),
				e->sum.cpus, e->banned ? "true" : "false");
			/* The rule that governs it, by id (the report's rules[] says what it is). */
			if (rw_rule_id_of_key(r->rules, &e->key, &rule))
				fprintf(out, ", \"rule\": %u", rule);
			fputc('}', out);
		}
	}
	fprintf(out, r->nrankings ? "]}" : "], \"rankings\": {}");
	fprintf(out, ", \"hhh\": [");
	for (uint32_t i = 0; i < r->nhhh; i++) {
		const struct rw_hhh_item *h = &r->hhh[i];
		char key[RW_KEY_STRLEN];

		rw_key_format(&h->prefix, key, sizeof(key));
		fprintf(out,
			"%s{\"prefix\": \"%s\", \"level\": %u, \"packets\": %" PRIu64
			", \"residual\": %" PRIu64 ", \"share\": %.2f}",
			i ? ", " : "", key, RW_KEY_PREFIX_LEN(&h->prefix), h->packets, h->residual,
			rw_share_pct(h->residual, r->tick.total.packets));
	}
	fprintf(out, "], \"rules\": [");
	for (size_t i = 0; r->rules && i < r->rules->n; i++) {
		const struct rw_rule_spec *rule = &r->rules->rule[i];
		char text[RW_RULE_STRLEN];

		rw_rule_format(rule, text, sizeof(text));
		fprintf(out, "%s{\"id\": %u, \"rule\": ", i ? ", " : "", rule->id);
		rw_json_string(out, text);
		fprintf(out, ", \"packets\": %" PRIu64 ", \"dropped\": %" PRIu64 "}", rule->packets,
			rule->drops);
	}
	fprintf(out, "], \"sample_lost\": %" PRIu64 ", \"events_lost\": %" PRIu64
		", \"events_not_written\": %" PRIu64 ", \"interfaces\": [", r->tick.sample_lost,
		r->tick.event_lost, r->events_not_written);
	for (uint32_t i = 0; i < r->nifaces; i++) {
		const struct rw_stats *st = &r->iface[i];

		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		rw_json_string(out, r->cfg->ifnames[i]);
		fprintf(out,
			", \"mode\": \"%s\", \"rx_packets\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
			", \"passed\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"dropped_bytes\": %" PRIu64
			"}",
			rw_xdp_mode_name(rw_xdp_stored_mode(&r->at[i])), (uint64_t)st->rx_packets,
			(uint64_t)st->rx_bytes, iface_passed[i], (uint64_t)st->dropped,
			(uint64_t)st->dropped_bytes);
	}
	fprintf(out, "]");
	if (r->samples)
		fprintf(out, ", \"samples\": {\"copied\": %" PRIu64 ", \"frames\": %" PRIu64
			", \"files\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"removed\": %" PRIu64 ", \"not_written\": %" PRIu64
			", \"lost\": %" PRIu64 "}", r->samples->copied, r->samples->frames, r->samples->files,
			r->samples->bytes, r->samples->removed, r->samples->not_written, r->samples->lost);
	if (r->act)
		rw_act_json(out, r->act);
	fprintf(out, "}\n");
	fflush(out);
}
