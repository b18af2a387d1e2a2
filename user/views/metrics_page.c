// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "views/metrics_page.h"

#include <inttypes.h>
#include <stddef.h>

#include "cli/version.h"
#include "model/key.h"
#include "model/units.h"

/* Upper bounds of the tick histogram, seconds. */
static const double tick_le[RW_TICK_BUCKETS] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 1 };

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One counter per interface, from a field of struct rw_stats. */
static void per_iface(FILE *out, const struct rw_report *r, const char *name, const char *help,
		      size_t field_off, bool passed)
{
	head(out, name, "counter", help);
	for (uint32_t i = 0; i < r->nifaces; i++) {
		const struct rw_stats *st = &r->iface[i];
		uint64_t v = passed ? rw_stats_passed(st) : *(const uint64_t *)((const char *)st + field_off);

		fprintf(out, "%s{interface=\"", name);
		label(out, r->cfg->ifnames[i]);
		fprintf(out, "\"} %" PRIu64 "\n", v);
	}
}

/* A counter with a series for each rule in force. */
static void rule_counter(FILE *out, const struct rw_report *r, const char *name, const char *help,
			 bool drops)
{
	head(out, name, "counter", help);
	for (size_t i = 0; i < r->rules->n; i++) {
		const struct rw_rule_spec *rule = &r->rules->rule[i];
		char text[RW_RULE_STRLEN];

		rw_rule_format(rule, text, sizeof(text));
		fprintf(out, "%s{rule=\"%u\",text=\"", name, rule->id);
		label(out, text);
		fprintf(out, "\"} %" PRIu64 "\n", drops ? rule->drops : rule->packets);
	}
}

/* One ranking's series of a top-N gauge; what: pps, bps, drops/s, limited, banned. */
static void top_samples(FILE *out, const struct rw_report *r, const char *name, int what,
			uint8_t kind, const struct rw_rank_entry *top, uint32_t n)
{
	const struct rw_kind_desc *d = rw_kind(kind);

	for (uint32_t i = 0; i < n; i++) {
		const struct rw_rank_entry *e = &top[i];
		char key[RW_KEY_STRLEN];
		double v;

		rw_key_format(&e->key, key, sizeof(key));
		v = what == 0 ? rw_rate(e->sum.packets, r->span_ns) :
		    what == 1 ? rw_rate(e->sum.bytes, r->span_ns) :
		    what == 2 ? rw_rate(e->sum.drop_packets, r->span_ns) :
		    what == 3 ? (e->sum.drop_packets ? 1.0 : 0.0) :
				(e->banned ? 1.0 : 0.0);
		/* The key in `key` for every kind; a source also in `source`, as before kinds. */
		fprintf(out, "%s{kind=\"%s\",key=\"%s\"", name, d->name, key);
		if (d->metric_label)
			fprintf(out, ",%s=\"%s\"", d->metric_label, key);
		fprintf(out, "} %.10g\n", v);
	}
}

/* A top-N gauge: the main kind's N series, and N more for each --rank kind. */
static void top_gauge(FILE *out, const struct rw_report *r, const char *name, const char *help,
		      int what)
{
	head(out, name, "gauge", help);
	top_samples(out, r, name, what, r->cfg->key_kind, r->top, r->ntop + r->nover);
	for (uint32_t k = 0; k < r->nrankings; k++)
		top_samples(out, r, name, what, r->rankings[k].kind, r->rankings[k].top,
			    r->rankings[k].n + r->rankings[k].nover);
}

/*
 * The share bar's family, by --sort: the rate family whose fleet sums it
 * bounds. A host ranking by bytes bounds no packet sum, so it exports no
 * packet bar, and the rules count it among the hosts without one.
 */
static const char *const bar_family[] = {
	[RW_SORT_PPS] = "ratewall_metrics_share_bar_packets_per_second",
	[RW_SORT_BPS] = "ratewall_metrics_share_bar_bytes_per_second",
	[RW_SORT_DROPS] = "ratewall_metrics_share_bar_dropped_packets_per_second",
};

/*
 * --metrics-min-share: the share itself, and its bar this window as a rate
 * (a key missing from this page sends less than it here, so the hosts' bars
 * summed are exactly the most a fleet sum can miss); with --levels every
 * prefix over the share, its whole window traffic.
 */
static void share_metrics(FILE *out, const struct rw_report *r)
{
	const char *bar = bar_family[r->cfg->sort];

	head(out, "ratewall_metrics_min_share", "gauge",
	     "--metrics-min-share as a ratio: every key (and prefix) with at least this share of the "
	     "window's traffic is exported beside the top-N.");
	fprintf(out, "ratewall_metrics_min_share %.6g\n", r->cfg->metrics_min_share_ppm / 1e6);
	head(out, bar, "gauge",
	     "The share bar: the rate over the window (in the --sort order) a key needs to be "
	     "exported beside the top-N; a key missing from this page sends less here, so the "
	     "hosts' bars summed bound what a fleet sum misses.");
	fprintf(out, "%s %.10g\n", bar, rw_rate(r->share_bar, r->span_ns));
	if (!r->cfg->levels.n[0] && !r->cfg->levels.n[1])
		return;
	head(out, "ratewall_prefix_packets_per_second", "gauge",
	     "Packets per second over the window of each --levels prefix with at least "
	     "--metrics-min-share of the window's traffic (all of its traffic: sums over hosts).");
	for (uint32_t i = 0; i < r->nprefixes_over; i++) {
		const struct rw_hhh_item *p = &r->prefixes_over[i];
		char key[RW_KEY_STRLEN];

		rw_key_format(&p->prefix, key, sizeof(key));
		fprintf(out, "ratewall_prefix_packets_per_second{prefix=\"%s\",level=\"%u\"} %.10g\n",
			key, RW_KEY_PREFIX_LEN(&p->prefix), rw_rate(p->packets, r->span_ns));
	}
}

/* --on-event and --bgp: what they did. */
static void act_metrics(FILE *out, const struct rw_act_counts *c)
{
	const struct rw_hook_counts *h = &c->hook;
	const struct rw_bgp_counts *b = &c->bgp;

	if (c->hook_on) {
		head(out, "ratewall_on_event_commands_total", "counter",
		     "--on-event commands by how they ended; not_run: events over its bounds.");
		fprintf(out, "ratewall_on_event_commands_total{result=\"ok\"} %" PRIu64 "\n"
			"ratewall_on_event_commands_total{result=\"failed\"} %" PRIu64 "\n"
			"ratewall_on_event_commands_total{result=\"timed_out\"} %" PRIu64 "\n"
			"ratewall_on_event_commands_total{result=\"not_run\"} %" PRIu64 "\n",
			h->ok, h->failed, h->timed_out, h->dropped);
		head(out, "ratewall_on_event_last_exit_status", "gauge",
		     "Exit status of the last --on-event command that ended (128 + signal when "
		     "killed, -1: none yet or it could not start).");
		fprintf(out, "ratewall_on_event_last_exit_status %d\n", h->last_status);
		head(out, "ratewall_on_event_running", "gauge", "--on-event commands running now.");
		fprintf(out, "ratewall_on_event_running %u\n", h->running);
	}
	if (c->bgp_on) {
		head(out, "ratewall_bgp_speaker_up", "gauge",
		     "1 when the BGP speaker answers and a session is established.");
		fprintf(out, "ratewall_bgp_speaker_up %d\n", b->state == RW_BGP_UP);
		head(out, "ratewall_bgp_sessions_established", "gauge",
		     "The speaker's BGP sessions established.");
		fprintf(out, "ratewall_bgp_sessions_established %u\n", b->established);
		head(out, "ratewall_bgp_routes_announced", "gauge",
		     "Routes (flow rules and blackholes) the speaker holds from ratewall now.");
		fprintf(out, "ratewall_bgp_routes_announced %u\n", b->announced);
		head(out, "ratewall_bgp_routes_over_max", "gauge",
		     "Routes wanted beyond --bgp-max, not announced.");
		fprintf(out, "ratewall_bgp_routes_over_max %u\n", b->over_max);
		head(out, "ratewall_bgp_failures_total", "counter",
		     "Commands to the BGP speaker that failed.");
		fprintf(out, "ratewall_bgp_failures_total %" PRIu64 "\n", b->failures);
	}
}

/* --samples: what became of the frames. */
static void samples_metrics(FILE *out, const struct rw_samples_health *s)
{
	head(out, "ratewall_samples_frames_total", "counter",
	     "Frames written into --samples files.");
	fprintf(out, "ratewall_samples_frames_total %" PRIu64 "\n", s->frames);
	head(out, "ratewall_samples_not_written_total", "counter",
	     "Sampled frames not written: the data path's ring was full (lost), or the loader "
	     "could not write them (a tick's budget, --samples-max, a file refused).");
	fprintf(out, "ratewall_samples_not_written_total{cause=\"lost\"} %" PRIu64 "\n"
		"ratewall_samples_not_written_total{cause=\"loader\"} %" PRIu64 "\n", s->lost,
		s->not_written);
	head(out, "ratewall_samples_bytes", "gauge", "Bytes the --samples files take now.");
	fprintf(out, "ratewall_samples_bytes %" PRIu64 "\n", s->bytes);
}

/* --history: how its writes go. */
static void history_metrics(FILE *out, const struct rw_history_health *h)
{
	head(out, "ratewall_history_up", "gauge",
	     "1 when the last --history write went in, 0 while writes fail.");
	fprintf(out, "ratewall_history_up %d\n", h->up);
	head(out, "ratewall_history_windows_written_total", "counter",
	     "Windows written into the --history database.");
	fprintf(out, "ratewall_history_windows_written_total %" PRIu64 "\n", h->written);
	head(out, "ratewall_history_write_errors_total", "counter",
	     "Ticks whose --history write failed: the window lost, or the trimming after it.");
	fprintf(out, "ratewall_history_write_errors_total %" PRIu64 "\n", h->errors);
}

void rw_metrics_render(FILE *out, const struct rw_tick_histogram *h, const struct rw_report *r)
{
	head(out, "ratewall_build_info", "gauge", "Version of the running ratewall; always 1.");
	fprintf(out, "ratewall_build_info{version=\"%s\"} 1\n", RATEWALL_VERSION);
	per_iface(out, r, "ratewall_received_packets_total", "Packets the XDP program saw.",
		  offsetof(struct rw_stats, rx_packets), false);
	per_iface(out, r, "ratewall_received_bytes_total", "Bytes the XDP program saw.",
		  offsetof(struct rw_stats, rx_bytes), false);
	per_iface(out, r, "ratewall_passed_packets_total",
		  "Packets passed on to the stack (with --dry-run: all of them would have been).", 0,
		  true);
	per_iface(out, r, "ratewall_dropped_packets_total",
		  "Packets dropped: over a limit, denied, banned, malformed with --malformed drop.",
		  offsetof(struct rw_stats, dropped), false);
	per_iface(out, r, "ratewall_dropped_bytes_total", "Bytes of the dropped packets.",
		  offsetof(struct rw_stats, dropped_bytes), false);
	per_iface(out, r, "ratewall_paced_drops_total",
		  "Of the dropped packets: a key ahead of its limit's schedule (--burst), its window "
		  "not full.",
		  offsetof(struct rw_stats, paced_drops), false);
	per_iface(out, r, "ratewall_met_drops_total",
		  "Of the dropped packets: refills of one key on several CPUs at once, its window "
		  "without room for what they may not have seen of each other.",
		  offsetof(struct rw_stats, met_drops), false);
	per_iface(out, r, "ratewall_stalled_drops_total",
		  "Of the dropped packets: untracked, under their cap, and an insert into their bucket "
		  "on another CPU outlasted the wait.",
		  offsetof(struct rw_stats, stalled_drops), false);
	per_iface(out, r, "ratewall_capped_drops_total",
		  "Of the dropped packets: untracked (no room in the table) and over their share of "
		  "the limit on one CPU by their own estimate.",
		  offsetof(struct rw_stats, capped_drops), false);
	per_iface(out, r, "ratewall_crowd_drops_total",
		  "Of the dropped packets: untracked, held with the other untracked keys to their "
		  "distinct count times the limit (a botnet bigger than the table): raise --max-flows.",
		  offsetof(struct rw_stats, crowd_drops), false);
	per_iface(out, r, "ratewall_l4_unread_packets_total",
		  "Whole packets of a protocol a rule's match names whose ports, flags or type were cut "
		  "short: only protocol-only rules meet them.",
		  offsetof(struct rw_stats, l4_unread), false);
	per_iface(out, r, "ratewall_first_fragments_total",
		  "First fragments of a datagram that has more: read as whole packets when they hold "
		  "what rules read.",
		  offsetof(struct rw_stats, frag_first), false);
	per_iface(out, r, "ratewall_later_fragments_total",
		  "Fragments after the first: charged to the rule their first fragment met.",
		  offsetof(struct rw_stats, frag_later), false);
	per_iface(out, r, "ratewall_later_fragments_unmatched_total",
		  "Of the later fragments a rule with a match covers: their first not seen on the CPU "
		  "lately; only protocol-only and `frag` rules meet them.",
		  offsetof(struct rw_stats, frag_unmatched), false);
	per_iface(out, r, "ratewall_tiny_fragments_total",
		  "First fragments too short for the header bytes a rule reads (`tiny-frag` rules; "
		  "dropped with --malformed drop).",
		  offsetof(struct rw_stats, tiny_frags), false);
	per_iface(out, r, "ratewall_long_chains_total",
		  "IPv6 packets with more extension headers than the parser follows (`long-chain` "
		  "rules; dropped with --malformed drop).",
		  offsetof(struct rw_stats, long_chains), false);
	per_iface(out, r, "ratewall_malformed_packets_total",
		  "Frames whose IPv4/IPv6 headers do not hold together (never keyed).",
		  offsetof(struct rw_stats, malformed), false);
	per_iface(out, r, "ratewall_non_ip_packets_total", "Frames that are not IP (passed).",
		  offsetof(struct rw_stats, non_ip), false);
	head(out, "ratewall_tracked_sources", "gauge", "Sources counted exactly now.");
	fprintf(out, "ratewall_tracked_sources %" PRIu64 "\n", r->tick.flows);
	head(out, "ratewall_window_packets", "gauge", "Keyed packets in the sliding window.");
	fprintf(out, "ratewall_window_packets %" PRIu64 "\n", (uint64_t)r->tick.total.packets);
	head(out, "ratewall_window_sketch_packets", "gauge",
	     "Of the window's packets, those counted in the sketch only (untracked sources).");
	fprintf(out, "ratewall_window_sketch_packets %" PRIu64 "\n", r->tick.sketch_packets);
	head(out, "ratewall_window_dropped_packets", "gauge", "Packets dropped in the window.");
	fprintf(out, "ratewall_window_dropped_packets %" PRIu64 "\n",
		(uint64_t)r->tick.total.drop_packets);
	/* A stalled loop leaves both as they were while the scrapes go on: the tick is late. */
	head(out, "ratewall_last_tick_timestamp_seconds", "gauge",
	     "When the last tick rendered this page, seconds since the epoch.");
	fprintf(out, "ratewall_last_tick_timestamp_seconds %.3f\n", r->ts);
	head(out, "ratewall_interval_seconds", "gauge", "The time between ticks (--interval).");
	fprintf(out, "ratewall_interval_seconds %.9g\n", r->cfg->interval_ns / 1e9);
	head(out, "ratewall_tick_duration_seconds", "histogram",
	     "What reading, wiping and ranking took each interval.");
	for (int i = 0; i < RW_TICK_BUCKETS; i++) /* each bucket counts every tick <= its bound */
		fprintf(out, "ratewall_tick_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n", tick_le[i],
			h->bucket[i]);
	fprintf(out, "ratewall_tick_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
		h->count);
	fprintf(out, "ratewall_tick_duration_seconds_sum %.9f\n", h->sum);
	fprintf(out, "ratewall_tick_duration_seconds_count %" PRIu64 "\n", h->count);
	top_gauge(out, r, "ratewall_source_packets_per_second",
		  "Offered packets per second over the window, for the top-N sources only.", 0);
	top_gauge(out, r, "ratewall_source_bytes_per_second",
		  "Offered bytes per second over the window, for the top-N sources only.", 1);
	top_gauge(out, r, "ratewall_source_dropped_packets_per_second",
		  "Dropped packets per second over the window, for the top-N sources only.", 2);
	top_gauge(out, r, "ratewall_source_limited",
		  "1 when a top-N source had packets dropped in the window.", 3);
	if (r->cfg->ban_ns)
		top_gauge(out, r, "ratewall_source_banned",
			  "1 when a top-N source serves a --ban: every packet of it dropped.", 4);
	if (r->rules && r->rules->n) {
		rule_counter(out, r, "ratewall_rule_packets_total",
			     "Packets each rule decided since it went in (rule: its id; text: the rule).",
			     false);
		rule_counter(out, r, "ratewall_rule_dropped_packets_total",
			     "Of them, the packets each rule dropped: denied, or over its limit.", true);
	}
	if (r->cfg->levels.n[0] || r->cfg->levels.n[1]) {
		head(out, "ratewall_prefix_packets", "gauge",
		     "Heavy prefixes (--levels): window packets net of their heavy more-specific "
		     "prefixes.");
		for (uint32_t i = 0; i < r->nhhh; i++) {
			char key[RW_KEY_STRLEN];

			rw_key_format(&r->hhh[i].prefix, key, sizeof(key));
			fprintf(out, "ratewall_prefix_packets{prefix=\"%s\",level=\"%u\"} %" PRIu64 "\n",
				key, RW_KEY_PREFIX_LEN(&r->hhh[i].prefix), r->hhh[i].residual);
		}
	}
	if (r->cfg->metrics_min_share_ppm)
		share_metrics(out, r);
	if (r->history)
		history_metrics(out, r->history);
	if (r->samples)
		samples_metrics(out, r->samples);
	if (r->act)
		act_metrics(out, r->act);
}

void rw_metrics_count_tick(struct rw_tick_histogram *h, uint64_t tick_ns)
{
	double secs = tick_ns / 1e9;

	for (int i = 0; i < RW_TICK_BUCKETS; i++)
		h->bucket[i] += secs <= tick_le[i];
	h->count++;
	h->sum += secs;
}
