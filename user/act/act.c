// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "act/act.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/errmsg.h"
#include "model/json.h"
#include "model/key.h"
#include "model/kinds.h"
#include "views/report.h"

/* Lines said a tick at most about commands that failed (the rest are counted in one line). */
#define RW_ACT_SAY_PER_TICK 3
/* How long the commands still running get at the end before they are killed. */
#define RW_ACT_STOP_GRACE_NS 2000000000ULL

/* A key's own address (a destination for --key dst; a source otherwise) as a prefix. */
static struct rw_route route_of_key(const struct rw_key *key)
{
	return rw_route_of_key(key, key->prefix_len);
}

/* Whether destination d lies whole inside a --bgp-own prefix. */
static bool ours(const struct rw_act *a, const struct rw_route *d)
{
	const struct rw_bgp_config *b = &a->cfg->bgp;

	for (uint32_t i = 0; i < b->nown; i++)
		if (rw_route_within(d, &b->own[i]))
			return true;
	return false;
}

/*
 * A flow rule: all of source s's traffic to destination d, discarded
 * upstream, or with --bgp-flowspec-rate held to --bps there (FlowSpec's
 * traffic-rate counts bytes).
 */
static struct rw_route flow_rule(const struct rw_act *a, const struct rw_route *s,
				 const struct rw_route *d)
{
	struct rw_route r = *s;
	uint64_t rate = a->cfg->bgp.flowspec_rate ? a->cfg->bps / 8 : 0;

	r.kind = RW_ROUTE_FLOW;
	r.dst_len = d->len;
	memcpy(r.dst, d->addr, sizeof(r.dst));
	r.rate = rate > UINT32_MAX ? UINT32_MAX : (uint32_t)rate;
	return r;
}

/*
 * What of a rule's match a flow rule can carry: its protocol, and a port
 * when the rule names one port (a range, TCP flags or an ICMP type are left
 * out: the rule upstream is broader, never narrower, than the one here).
 */
static void add_rule_match(struct rw_route *r, const struct rw_match *m)
{
	r->proto = m->proto;
	if (m->nsport == 1 && m->sport[0].lo == m->sport[0].hi)
		r->sport = m->sport[0].lo;
	if (m->ndport == 1 && m->dport[0].lo == m->dport[0].hi)
		r->dport = m->dport[0].lo;
}

/*
 * A key's protocol and ports in its flow rule: a flow key's own, or the
 * match of the rule whose budget it is.
 */
static void add_key_match(const struct rw_act *a, const struct rw_key *key, struct rw_route *r)
{
	const struct rw_rule_spec *rule;

	if (rw_kind_of(key) == RW_KIND_FLOW) {
		r->proto = key->proto;
		r->sport = ntohs(key->sport);
		r->dport = ntohs(key->dport);
	} else if ((key->kind & RW_KIND_RULE) && (rule = rw_rule_of_key(a->rules, key))) {
		add_rule_match(r, &rule->match);
	}
}

/* The addresses of the run's interfaces (never announced: they are ours). */
static void find_own(struct rw_act *a)
{
	const uint32_t cap = sizeof(a->own) / sizeof(a->own[0]);
	struct ifaddrs *all, *i;

	if (getifaddrs(&all))
		return;
	for (i = all; i && a->nown < cap; i = i->ifa_next) {
		struct rw_route *r = &a->own[a->nown];
		bool ours = false;

		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		for (uint32_t k = 0; k < a->cfg->nifaces; k++)
			ours |= strcmp(i->ifa_name, a->cfg->ifnames[k]) == 0;
		if (!ours)
			continue;
		memset(r, 0, sizeof(*r));
		r->family = (uint8_t)i->ifa_addr->sa_family;
		if (r->family == AF_INET) {
			memcpy(r->addr, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
			r->len = 32;
		} else {
			memcpy(r->addr, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
			r->len = 128;
		}
		a->nown++;
	}
	freeifaddrs(all);
}

int rw_act_start(struct rw_act *a, const struct rw_config *cfg, int journal_fd,
		 rw_act_say_fn say, void *say_arg, char *err, size_t errlen)
{
	char why[256];

	memset(a, 0, sizeof(*a));
	a->cfg = cfg;
	a->window_s = (double)cfg->window_ns / 1e9;
	a->levels = cfg->levels.n[0] || cfg->levels.n[1];
	if (cfg->hook.command[0]) {
		a->pending = calloc(RW_ACT_PENDING, sizeof(*a->pending));
		if (!a->pending)
			return rw_fail(err, errlen, -ENOMEM, "--on-event: out of memory");
		if (rw_hook_check(&cfg->hook, why, sizeof(why)) < 0) {
			char msg[400];

			snprintf(msg, sizeof(msg), "--on-event: %s; enforcement goes on, and each "
				 "event for it is counted as failed", why);
			say(say_arg, true, msg);
		}
		/* Under --tui the terminal is the view's: the commands' stderr goes nowhere. */
		a->hook = rw_hook_start(&cfg->hook, cfg->tui, why, sizeof(why));
		if (!a->hook)
			return rw_fail(err, errlen, -EINVAL, "--on-event: %s", why);
		a->counts.hook_on = true;
	}
	if (cfg->bgp.api[0]) {
		/* A dry run bans (the kernel counts what a ban would drop) but announces nothing. */
		struct rw_bgp_config bgp = cfg->bgp;

		bgp.dry_run = bgp.dry_run || cfg->dry_run;
		find_own(a);
		a->bgp = rw_bgp_start(&bgp, journal_fd, why, sizeof(why));
		if (!a->bgp) {
			rw_act_stop(a, false, say, say_arg);
			return rw_fail(err, errlen, -EINVAL, "--bgp: %s", why);
		}
		a->counts.bgp_on = true;
	}
	return 0;
}

void rw_act_event(void *arg, uint32_t type, const struct rw_key *key, double ts, int cpu,
		  double until, const char *sample)
{
	struct rw_act *a = arg;
	struct rw_act_pending *p;

	if (!a->hook || !(a->cfg->hook.kinds & RW_EV_BIT(type)))
		return;
	if (a->npending == RW_ACT_PENDING) {
		a->pending_lost++;
		return;
	}
	p = &a->pending[a->npending++];
	*p = (struct rw_act_pending){ .type = type, .cpu = cpu, .ts = ts, .until = until,
				      .key = *key };
	if (sample)
		snprintf(p->sample, sizeof(p->sample), "%s", sample);
	if (type != RW_EV_HEAVY && type != RW_EV_LIGHT)
		rw_keyset_add(&a->pending_keys, key);
}

/*
 * --bgp: a route more for this tick, unless it is one never to announce.
 * weight orders them (--bgp-max keeps the first): banned keys by their
 * window's packets, then heavy prefixes by theirs.
 */
static void want_route(struct rw_act *a, const struct rw_route *r, uint64_t weight)
{
	const struct rw_bgp_config *b = &a->cfg->bgp;

	for (uint32_t i = 0; i < b->nnever; i++)
		if (rw_route_overlaps(r, &b->never[i]))
			goto never;
	for (uint32_t i = 0; i < a->nown; i++)
		if (rw_route_overlaps(r, &a->own[i]))
			goto never;
	for (size_t i = 0; a->rules && i < a->rules->n; i++) {
		const struct rw_rule_spec *rule = &a->rules->rule[i];
		struct rw_route allow = rw_route_of_key(&rule->prefix, rule->plen);

		allow.len = rule->plen; /* 0.0.0.0/0 allow: all of it */
		if (rule->action == RW_RULE_ALLOW && rw_route_overlaps(r, &allow))
			goto never;
	}
	if (a->nwant == a->capwant) {
		uint32_t cap = a->capwant ? 2 * a->capwant : 64;
		struct rw_route *w = realloc(a->want, cap * sizeof(*w));
		struct rw_act_route *c = realloc(a->candidate, cap * sizeof(*c));

		if (c)
			a->candidate = c;
		if (w)
			a->want = w;
		if (!w || !c)
			return; /* wanted again next tick */
		a->capwant = cap;
	}
	a->candidate[a->nwant++] = (struct rw_act_route){ .weight = weight, .route = *r };
	return;
never:
	a->never++;
}

/*
 * The routes a key (banned, or a heavy prefix) asks for, each a destination
 * of --bgp-own: a destination key is blackholed (RTBH: the victim given up
 * to save the link); a source, or a source prefix, gets a flow rule to each
 * --bgp-own prefix of its family; a pair or a flow key one to its
 * destination; each with a flow key's protocol and ports, or those of the
 * rule whose budget the key is. Never a source with BLACKHOLE: a spoofed source would name a
 * third party to blackhole. A key with no destination of ours: none.
 */
static void want_routes_of(struct rw_act *a, const struct rw_key *key, uint64_t weight)
{
	const struct rw_bgp_config *b = &a->cfg->bgp;
	struct rw_route s = route_of_key(key), d, r;

	switch (rw_kind_of(key)) {
	case RW_KIND_DST:
		if (!ours(a, &s))
			break;
		want_route(a, &s, weight);
		return;
	case RW_KIND_PAIR:
	case RW_KIND_FLOW: {
		struct rw_key to = *key;

		/* A pair's IPv6 destination is cut to --v6-prefix, as its source is; a flow's is whole. */
		memcpy(to.addr, key->addr2, sizeof(to.addr));
		d = rw_route_of_key(&to, rw_kind_of(key) == RW_KIND_PAIR && s.family == AF_INET6 ?
					      a->cfg->v6_prefix : 0);
		if (!ours(a, &d))
			break;
		r = flow_rule(a, &s, &d);
		add_key_match(a, key, &r);
		want_route(a, &r, weight);
		return;
	}
	default: {
		bool any = false;

		for (uint32_t i = 0; i < b->nown; i++) {
			if (b->own[i].family != s.family)
				continue;
			r = flow_rule(a, &s, &b->own[i]);
			add_key_match(a, key, &r);
			want_route(a, &r, weight);
			any = true;
		}
		if (any)
			return;
	}
	}
	a->never++; /* none of its destinations is ours */
}

void rw_act_flow(struct rw_act *a, const struct rw_key *key, const struct rw_window_sum *sum,
		 bool banned)
{
	/* Above every heavy prefix's weight: a ban is announced first. */
	if (banned && a->bgp)
		want_routes_of(a, key, UINT64_MAX / 2 + sum->packets / 2);
	if (!a->npending || !rw_keyset_has(&a->pending_keys, key))
		return;
	for (uint32_t i = 0; i < a->npending; i++) {
		struct rw_act_pending *p = &a->pending[i];

		if (!p->seen && memcmp(&p->key, key, sizeof(*key)) == 0) {
			p->sum = *sum;
			p->seen = true;
		}
	}
}

static bool same_prefix(const struct rw_hhh_item *x, const struct rw_hhh_item *y)
{
	return memcmp(&x->prefix, &y->prefix, sizeof(x->prefix)) == 0;
}

static bool listed(const struct rw_hhh_item *item, const struct rw_hhh_item *list, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (same_prefix(item, &list[i]))
			return true;
	return false;
}

/*
 * --levels: a prefix that entered the heavy list is `heavy`, one that left it
 * `light` (into the events output, which hands them on to rw_act_event).
 */
static void heavy_edges(struct rw_act *a, struct rw_events_out *ev, const struct rw_hhh_item *hhh,
			uint32_t n, uint64_t total, uint64_t now)
{
	uint32_t first = a->npending;
	struct rw_hhh_item *keep;

	for (uint32_t i = 0; i < n; i++) {
		if (listed(&hhh[i], a->heavy, a->nheavy))
			continue;
		if (a->on_prefix)
			a->on_prefix(a->on_prefix_arg, RW_EV_HEAVY, &hhh[i].prefix, now);
		rw_events_prefix(ev, RW_EV_HEAVY, &hhh[i].prefix, now);
	}
	for (uint32_t i = 0; i < a->nheavy; i++) {
		if (listed(&a->heavy[i], hhh, n))
			continue;
		if (a->on_prefix)
			a->on_prefix(a->on_prefix_arg, RW_EV_LIGHT, &a->heavy[i].prefix, now);
		rw_events_prefix(ev, RW_EV_LIGHT, &a->heavy[i].prefix, now);
	}
	/* The events just queued get their prefix's counts. */
	for (uint32_t i = first; i < a->npending; i++) {
		struct rw_act_pending *p = &a->pending[i];
		const struct rw_hhh_item *list = p->type == RW_EV_HEAVY ? hhh : a->heavy;
		uint32_t m = p->type == RW_EV_HEAVY ? n : a->nheavy;

		for (uint32_t j = 0; j < m; j++) {
			if (memcmp(&list[j].prefix, &p->key, sizeof(p->key)))
				continue;
			p->prefix_packets = list[j].packets;
			p->share = 100.0 * (double)list[j].residual / (double)(total ? total : 1);
		}
	}
	keep = n ? realloc(a->heavy, n * sizeof(*keep)) : a->heavy;
	if (n && !keep)
		return; /* the old list stays: edges are found again next tick */
	a->heavy = keep;
	if (n)
		memcpy(a->heavy, hhh, n * sizeof(*hhh));
	a->nheavy = n;
}

/* The object the command gets on its stdin. */
static void event_json(const struct rw_act *a, const struct rw_act_pending *p, char *buf,
		       size_t len)
{
	const struct rw_config *cfg = a->cfg;
	FILE *f = fmemopen(buf, len, "w");
	char key[RW_KEY_STRLEN];
	uint32_t rule;

	if (!f) {
		snprintf(buf, len, "{}");
		return;
	}
	rw_key_format(&p->key, key, sizeof(key));
	fprintf(f, "{\"ts\": %.6f, \"event\": \"%s\", \"kind\": \"%s\", \"key\": ", p->ts,
		rw_event_name(p->type), rw_key_kind_name(rw_kind_of(&p->key)));
	rw_json_string(f, key);
	if (rw_rule_id_of_key(a->rules, &p->key, &rule))
		fprintf(f, ", \"rule\": %u", rule);
	if (p->type == RW_EV_HEAVY || p->type == RW_EV_LIGHT) {
		fprintf(f, ", \"prefix_len\": %u, \"packets\": %llu, \"pps\": %.1f",
			RW_KEY_PREFIX_LEN(&p->key), (unsigned long long)p->prefix_packets,
			(double)p->prefix_packets / a->window_s);
		if (p->type == RW_EV_HEAVY)
			fprintf(f, ", \"share_pct\": %.2f", p->share);
	} else {
		/* The key's window as the scan of this tick read it (zeros: gone from the table). */
		fprintf(f, ", \"pps\": %.1f, \"bps\": %.1f, \"window\": {\"seconds\": %.3f, "
			"\"packets\": %llu, \"bytes\": %llu, \"drop_packets\": %llu, "
			"\"drop_bytes\": %llu}",
			(double)p->sum.packets / a->window_s, 8.0 * (double)p->sum.bytes / a->window_s,
			a->window_s, (unsigned long long)p->sum.packets,
			(unsigned long long)p->sum.bytes, (unsigned long long)p->sum.drop_packets,
			(unsigned long long)p->sum.drop_bytes);
	}
	if (p->until > 0)
		fprintf(f, ", \"%s\": %.6f", p->type == RW_EV_BANNED ? "until" : "was_until",
			p->until);
	if (p->cpu >= 0)
		fprintf(f, ", \"cpu\": %d", p->cpu);
	if (p->sample[0])
		fprintf(f, ", \"sample\": \"%s\"", p->sample);
	fprintf(f, ", \"interfaces\": [");
	for (uint32_t i = 0; i < cfg->nifaces; i++) {
		fprintf(f, i ? ", " : "");
		rw_json_string(f, cfg->ifnames[i]);
	}
	fprintf(f, "], \"instance\": ");
	rw_json_string(f, cfg->name);
	fprintf(f, "}");
	if (fclose(f) || !memchr(buf, '\0', len))
		snprintf(buf, len, "{}");
}

/* The pending events to the command; the ones it ended into the events output, and said. */
static void run_hook(struct rw_act *a, struct rw_events_out *ev, uint64_t now, rw_act_say_fn say,
		     void *say_arg)
{
	struct rw_hook_result res[64];
	struct rw_hook_counts *c = &a->counts.hook;
	char json[RW_HOOK_JSON_MAX], key[RW_KEY_STRLEN], msg[512];
	uint32_t said = 0, more = 0;
	size_t n;

	for (uint32_t i = 0; i < a->npending; i++) {
		const struct rw_act_pending *p = &a->pending[i];

		event_json(a, p, json, sizeof(json));
		rw_key_format(&p->key, key, sizeof(key));
		rw_hook_offer(a->hook, p->type, key, json);
	}
	a->npending = 0;
	rw_keyset_free(&a->pending_keys);
	while ((n = rw_hook_results(a->hook, res, sizeof(res) / sizeof(res[0]))) > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct rw_hook_result *r = &res[i];
			const char *error = r->status < 0 ? strerror(r->start_errno) : NULL;

			rw_events_hook(ev, r->type, r->key, r->status, r->timed_out, error, r->seconds,
				       now);
			if (r->status == 0)
				continue;
			if (said++ >= RW_ACT_SAY_PER_TICK) {
				more++;
				continue;
			}
			if (r->timed_out)
				snprintf(msg, sizeof(msg), "--on-event: killed after %.1f s (the timeout) "
					 "for %s %s", r->seconds, rw_event_name(r->type), r->key);
			else if (error)
				snprintf(msg, sizeof(msg), "--on-event: could not start for %s %s: %s",
					 rw_event_name(r->type), r->key, error);
			else
				snprintf(msg, sizeof(msg), "--on-event: exited %d for %s %s", r->status,
					 rw_event_name(r->type), r->key);
			say(say_arg, true, msg);
		}
	}
	if (more) {
		snprintf(msg, sizeof(msg), "--on-event: %u more commands failed this tick", more);
		say(say_arg, true, msg);
	}
	rw_hook_counts(a->hook, c);
	c->dropped += a->pending_lost;
	if (c->dropped > a->dropped_said) {
		snprintf(msg, sizeof(msg), "--on-event: %llu events not run (over --on-event-rate %u "
			 "a second, %d waiting, or the end of one not run; %llu in all)",
			 (unsigned long long)(c->dropped - a->dropped_said), a->cfg->hook.rate,
			 RW_HOOK_QUEUE, (unsigned long long)c->dropped);
		say(say_arg, false, msg);
		a->dropped_said = c->dropped;
	}
}

static int heavier_first(const void *x, const void *y)
{
	const struct rw_act_route *a = x, *b = y;

	return a->weight < b->weight ? 1 : a->weight > b->weight ? -1 : 0;
}

/* The candidates heaviest first, into want. */
static void order_by_weight(struct rw_act *a)
{
	qsort(a->candidate, a->nwant, sizeof(*a->candidate), heavier_first);
	for (uint32_t i = 0; i < a->nwant; i++)
		a->want[i] = a->candidate[i].route;
}

/* The prefix's entry in a->prefixes, added (not heavy yet, wanted since now) when new; NULL: no memory. */
static struct rw_act_prefix *prefix_entry(struct rw_act *a, const struct rw_key *prefix,
					  uint64_t now)
{
	for (uint32_t i = 0; i < a->nprefixes; i++)
		if (memcmp(&a->prefixes[i].prefix, prefix, sizeof(*prefix)) == 0)
			return &a->prefixes[i];
	if (a->nprefixes == a->capprefixes) {
		uint32_t cap = a->capprefixes ? 2 * a->capprefixes : 16;
		struct rw_act_prefix *p = realloc(a->prefixes, cap * sizeof(*p));

		if (!p)
			return NULL;
		a->prefixes = p;
		a->capprefixes = cap;
	}
	a->prefixes[a->nprefixes] = (struct rw_act_prefix){ .prefix = *prefix, .since_ns = now };
	return &a->prefixes[a->nprefixes++];
}

void rw_act_victim(struct rw_act *a, const struct rw_key *key, const struct rw_window_sum *sum,
		   uint64_t now)
{
	bool limited = a->cfg->ban_ns && sum->drop_packets,
	     floor = a->cfg->bgp.victim_floor && !(key->kind & RW_KIND_RULE) &&
		     (double)sum->packets / a->window_s >= (double)a->cfg->bgp.victim_floor;
	struct rw_act_prefix *p;

	if (!a->bgp || (!limited && !floor))
		return;
	p = prefix_entry(a, key, now);
	if (p)
		p->heavy = true;
	/* Limited under --ban, it weighs as a banned key does (rw_act_flow): announced first. */
	want_routes_of(a, key, limited ? UINT64_MAX / 2 + sum->packets / 2 : sum->packets / 2);
}

/*
 * --bgp-prefixes: each heavy prefix that sends at least --bgp-prefix-floor
 * is wanted, by its weight, as the victims of --bgp-victim-floor were in the
 * scan (rw_act_victim); one wanted less than --bgp-hold ago stays wanted
 * (last of all) after it turns light or falls under its floor, so that a
 * route at the edge is not announced and withdrawn tick after tick.
 */
static void want_prefixes(struct rw_act *a, const struct rw_hhh_item *hhh, uint32_t nhhh,
			  uint64_t now)
{
	const struct rw_bgp_config *b = &a->cfg->bgp;
	uint32_t kept = 0;

	for (uint32_t i = 0; b->prefixes && i < nhhh; i++) {
		struct rw_act_prefix *p;

		if ((double)hhh[i].residual / a->window_s < (double)b->prefix_floor)
			continue;
		p = prefix_entry(a, &hhh[i].prefix, now);
		if (p)
			p->heavy = true;
		want_routes_of(a, &hhh[i].prefix, hhh[i].residual / 2);
	}
	for (uint32_t i = 0; i < a->nprefixes; i++) {
		struct rw_act_prefix *p = &a->prefixes[i];

		if (!p->heavy && now - p->since_ns >= b->hold_ns)
			continue; /* light, and held long enough: let go */
		if (!p->heavy)
			want_routes_of(a, &p->prefix, 0);
		a->prefixes[kept] = *p;
		a->prefixes[kept++].heavy = false; /* heavy again next tick, or held */
	}
	a->nprefixes = kept;
}

/* --bgp: the routes of this tick, heavy prefixes after the banned keys, to the thread. */
static void feed_bgp(struct rw_act *a, const struct rw_hhh_item *hhh, uint32_t nhhh,
		     uint64_t now, rw_act_say_fn say, void *say_arg)
{
	char msg[RW_BGP_MSG_LEN];

	want_prefixes(a, hhh, nhhh, now);
	order_by_weight(a);
	rw_bgp_want(a->bgp, a->want, a->nwant, a->never);
	a->nwant = 0;
	a->never = 0;
	/* Said, not kept as errors: the pinned record keeps the speaker's state and last error. */
	while (rw_bgp_messages(a->bgp, &msg, 1))
		say(say_arg, false, msg);
	rw_bgp_counts(a->bgp, &a->counts.bgp);
}

void rw_act_tick(struct rw_act *a, struct rw_events_out *ev, const struct rw_hhh_item *hhh,
		 uint32_t nhhh, uint64_t total, uint64_t now_clock_ns, rw_act_say_fn say,
		 void *say_arg)
{
	if (a->levels && (rw_events_on(ev) || a->on_prefix))
		heavy_edges(a, ev, hhh, nhhh, total, now_clock_ns);
	if (a->hook)
		run_hook(a, ev, now_clock_ns, say, say_arg);
	if (a->bgp)
		feed_bgp(a, hhh, nhhh, now_clock_ns, say, say_arg);
}

void rw_act_stop(struct rw_act *a, bool withdraw, rw_act_say_fn say, void *say_arg)
{
	char msg[RW_BGP_MSG_LEN];

	if (a->hook) {
		struct rw_hook_counts *c = &a->counts.hook;
		uint64_t failed = c->failed, dropped = c->dropped;

		/* What the end cost is said: commands killed, events never run. */
		rw_hook_end(a->hook, RW_ACT_STOP_GRACE_NS);
		rw_hook_counts(a->hook, c);
		c->dropped += a->pending_lost;
		if (c->failed > failed || c->dropped > dropped) {
			snprintf(msg, sizeof(msg), "--on-event: at the end, %llu commands were killed "
				 "or failed and %llu events were not run",
				 (unsigned long long)(c->failed - failed),
				 (unsigned long long)(c->dropped - dropped));
			say(say_arg, false, msg);
		}
		rw_hook_stop(a->hook, 0);
	}
	if (a->bgp) {
		/* What the last withdrawals did (and what is left announced) is said. */
		rw_bgp_end(a->bgp, withdraw);
		while (rw_bgp_messages(a->bgp, &msg, 1))
			say(say_arg, false, msg);
		rw_bgp_stop(a->bgp, withdraw);
	}
	a->hook = NULL;
	a->bgp = NULL;
	free(a->pending);
	free(a->heavy);
	free(a->want);
	free(a->candidate);
	free(a->prefixes);
	a->prefixes = NULL;
	rw_keyset_free(&a->pending_keys);
	a->candidate = NULL;
	a->pending = NULL;
	a->heavy = NULL;
	a->want = NULL;
}
