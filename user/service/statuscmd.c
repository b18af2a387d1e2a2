// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `ratewall status [--json]`: every pinned instance, read from bpffs alone. */
#include "cli/exit.h"
#include "service/svccmd.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/svccli.h"
#include "kernel/enforced.h"
#include "kernel/flowtab.h"
#include "kernel/loader.h"
#include "kernel/multiprog.h"
#include "kernel/table.h"
#include "model/clock.h"
#include "model/json.h"
#include "model/key.h"
#include "model/units.h"
#include "service/actpins.h"
#include "service/pins.h"
#include "views/actview.h"
#include "views/report.h"

/* What status shows of one instance, gathered before printing either form. */
struct rw_status {
	const char *name;
	struct rw_instance in;
	char error[512];       /* unreadable: why */
	uint32_t prog_id;
	bool attached[RW_MAX_IFACES];
	uint32_t link_id[RW_MAX_IFACES];
	struct rw_stats totals;
	bool have_totals;
	int64_t tracked;       /* -1: unknown */
	struct rw_act_record act; /* --on-event, --bgp: at_ns 0 without */
	bool alive;
	double heartbeat_age;  /* seconds, < 0: never */
	/* Pinned by another layout version (error says so): its links alone are read. */
	bool foreign;
	uint32_t nlinks;
	struct foreign_link {
		char ifname[IF_NAMESIZE];
		uint32_t ifindex, link_id, prog_id; /* ifindex 0: detached */
	} links[RW_MAX_IFACES];
};

struct status_ctx {
	const struct rw_svc_args *args;
	unsigned int n;
};

static void gather(struct rw_status *st)
{
	struct rw_instance *in = &st->in;
	const struct rw_meta *m = &in->meta;
	int fd;

	fd = rw_pin_open(in->dir, "prog");
	if (fd >= 0) {
		st->prog_id = rw_prog_id(fd);
		close(fd);
	}
	for (uint32_t i = 0; i < m->nifaces; i++) {
		uint32_t on_prog = 0;

		if (m->ifaces[i].mode & RW_XDP_IN_DISPATCHER) {
			/* libxdp pins the dispatcher's link: the program's link to it, if any. */
			st->link_id[i] = rw_multi_link_id(st->prog_id);
			st->attached[i] = st->link_id[i] != 0;
			continue;
		}
		fd = rw_pin_open_link(in->dir, m->ifaces[i].name);
		if (fd < 0)
			continue;
		st->attached[i] = rw_link_target(fd, &on_prog, &st->link_id[i]) ==
					  m->ifaces[i].ifindex && on_prog == st->prog_id;
		close(fd);
	}
	fd = rw_pin_open_map(in->dir, "stats");
	if (fd >= 0) {
		st->have_totals = rw_stats_read(fd, rw_possible_cpus(), &st->totals, NULL, 0) == 0;
		close(fd);
	}
	st->tracked = -1;
	/* Counted through a read-only mapping (the kernel maps a map only through a writable fd). */
	fd = rw_pin_open_map(in->dir, "keys");
	if (fd >= 0) {
		int64_t n = rw_table_count_keys(fd);

		st->tracked = n < 0 ? -1 : n;
		close(fd);
	}
	if (rw_act_pins_read(in->dir, &st->act))
		memset(&st->act, 0, sizeof(st->act));
	st->alive = rw_instance_loader_alive(in->dir_fd);
	st->heartbeat_age = m->heartbeat_ns ?
			    ((double)rw_clock_ns(CLOCK_REALTIME) - (double)m->heartbeat_ns) / 1e9 : -1;
}

static int foreign_link(const char *ifname, int link_fd, void *arg)
{
	struct rw_status *st = arg;
	struct foreign_link *l = &st->links[st->nlinks];

	if (st->nlinks == RW_MAX_IFACES)
		return 1;
	snprintf(l->ifname, sizeof(l->ifname), "%s", ifname);
	l->ifindex = rw_link_target(link_fd, &l->prog_id, &l->link_id);
	st->nlinks++;
	return 0;
}

/* Another version's instance: what it is, its links, and the two ways on. */
static void print_foreign(const struct rw_status *st)
{
	const struct rw_meta *m = &st->in.meta;

	printf("  layout       version %u, pinned by another ratewall (this one reads %u): `ratewall "
	       "run IFACE --persist --replace` swaps this one's program into its links; `ratewall "
	       "stop --name %s` removes it\n", m->layout, RW_LAYOUT_VERSION, st->name);
	for (uint32_t i = 0; i < st->nlinks; i++) {
		const struct foreign_link *l = &st->links[i];

		if (l->ifindex)
			printf("  %-12s %s (ifindex %u, attached, link id %u, program id %u)\n",
			       i ? "" : "interfaces", l->ifname, l->ifindex, l->link_id, l->prog_id);
		else
			printf("  %-12s %s (NOT attached)\n", i ? "" : "interfaces", l->ifname);
	}
	printf("  loader       %s\n", st->alive ? "running (of that version)" : "not running");
}

static void format_time(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* What the program enforces, as the options that set it, wrapped under their heading. */
static void print_options(const struct rw_enforced *e)
{
	char text[512];
	const char *at = text;

	rw_enforced_options_text(e, text, sizeof(text));
	while (*at) {
		const char *cut = at + strlen(at);

		/* Lines up to 80 columns, cut between an option and the one before it. */
		if (cut - at > 80 - 15) {
			cut = at + (80 - 15);
			while (cut > at && strncmp(cut, " --", 3) != 0)
				cut--;
			if (cut == at)
				cut = at + strlen(at);
		}
		printf("  %-12s %.*s\n", at == text ? "enforces" : "", (int)(cut - at), at);
		at = *cut ? cut + 1 : cut;
	}
}

static void print_text(const struct rw_status *st)
{
	const struct rw_meta *m = &st->in.meta;
	char a[32], b[32], c[32], when[40];

	printf("instance %s (%s)\n", st->name, st->in.dir);
	if (st->foreign) {
		print_foreign(st);
		return;
	}
	if (st->error[0]) {
		printf("  unusable     %s\n", st->error);
		return;
	}
	for (uint32_t i = 0; i < m->nifaces; i++)
		printf("  %-12s %s (ifindex %u, %s XDP, %s, link id %u)\n", i ? "" : "interfaces",
		       m->ifaces[i].name, m->ifaces[i].ifindex,
		       rw_xdp_mode_name(m->ifaces[i].mode),
		       st->attached[i] ? "attached" : "NOT attached", st->link_id[i]);
	rw_key_kinds_text(m->rank_mask, a, sizeof(a));
	printf("  keys         %s (IPv6 addresses by /%u); also ranked: %s\n",
	       rw_key_kind_name(m->key_kind), m->v6_prefix, a);
	print_options(&m->enforced);
	printf("  program      id %u\n", st->prog_id);
	format_time(m->created_ns, when, sizeof(when));
	printf("  since        %s (%u loader%s)\n", when, m->loads, m->loads == 1 ? "" : "s");
	if (st->have_totals) {
		rw_format_si((double)st->totals.rx_packets, a, sizeof(a));
		rw_format_si((double)rw_stats_passed(&st->totals), b, sizeof(b));
		rw_format_si((double)st->totals.dropped, c, sizeof(c));
		printf("  totals       rx %s passed %s dropped %s packets\n", a, b, c);
	}
	printf("  tracked      %" PRId64 " flows\n", st->tracked);
	if (st->alive)
		printf("  loader       running, pid %u, last heartbeat %.1f s ago\n", m->loader_pid,
		       st->heartbeat_age);
	else if (m->loader_pid)
		printf("  loader       not running: pid %u ended without leaving (last heartbeat "
		       "%.1f s ago); the kernel enforces on its own\n", m->loader_pid,
		       st->heartbeat_age);
	else
		printf("  loader       not running: the last one left %.1f s ago; the kernel enforces "
		       "on its own\n", st->heartbeat_age);
	if (st->act.at_ns)
		rw_act_text(stdout, &st->act.counts, st->act.hook_command, st->act.bgp.api);
	if (!m->nerrors)
		printf("  errors       none\n");
	for (uint32_t k = 0; k < m->nerrors && k < RW_META_ERRORS; k++) {
		const struct rw_meta_error *e = &m->errors[(m->nerrors - 1 - k) % RW_META_ERRORS];

		format_time(e->at_ns, when, sizeof(when));
		printf("  %-12s %s  %s\n", k ? "" : "errors", when, e->msg);
	}
}

static void print_json(const struct rw_status *st, bool first)
{
	const struct rw_meta *m = &st->in.meta;

	printf("%s{\"name\": ", first ? "" : ", ");
	rw_json_string(stdout, st->name);
	printf(", \"dir\": ");
	rw_json_string(stdout, st->in.dir);
	if (st->error[0]) {
		printf(", \"error\": ");
		rw_json_string(stdout, st->error);
		if (st->foreign) {
			printf(", \"layout\": %u, \"interfaces\": [", m->layout);
			for (uint32_t i = 0; i < st->nlinks; i++) {
				printf("%s{\"name\": ", i ? ", " : "");
				rw_json_string(stdout, st->links[i].ifname);
				printf(", \"ifindex\": %u, \"attached\": %s, \"link_id\": %u}",
				       st->links[i].ifindex, st->links[i].ifindex ? "true" : "false",
				       st->links[i].link_id);
			}
			printf("], \"prog_id\": %u, \"loader\": {\"alive\": %s}",
			       st->nlinks ? st->links[0].prog_id : 0, st->alive ? "true" : "false");
		}
		printf("}");
		return;
	}
	printf(", \"layout\": %u, \"interfaces\": [", m->layout);
	for (uint32_t i = 0; i < m->nifaces; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		rw_json_string(stdout, m->ifaces[i].name);
		printf(", \"ifindex\": %u, \"mode\": \"%s\", \"attached\": %s, \"link_id\": %u}",
		       m->ifaces[i].ifindex, rw_xdp_mode_name(m->ifaces[i].mode),
		       st->attached[i] ? "true" : "false", st->link_id[i]);
	}
	printf("], \"key_kind\": \"%s\", \"v6_prefix\": %u, \"rank\": [", rw_key_kind_name(m->key_kind),
	       m->v6_prefix);
	for (unsigned int k = 0, n = 0; k < RW_KIND_COUNT; k++) {
		if (m->rank_mask & (1u << k))
			printf("%s\"%s\"", n++ ? ", " : "", rw_key_kind_name(k));
	}
	printf("]");
	printf(", \"limit\": {\"pps\": %" PRIu64 ", \"bps\": %" PRIu64 "}, \"window_ms\": %.10g"
	       ", \"slots\": %u, \"max_flows\": %u, \"dry_run\": %s, \"malformed\": \"%s\""
	       ", \"prog_id\": %u, \"since\": %.3f, \"loads\": %u",
	       m->pps, m->bps, m->window_ns / 1e6, m->slots, m->max_flows,
	       m->dry_run ? "true" : "false", m->malformed_drop ? "drop" : "pass", st->prog_id,
	       m->created_ns / 1e9, m->loads);
	if (st->have_totals)
		printf(", \"totals\": {\"rx_packets\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
		       ", \"passed\": %" PRIu64 ", \"dropped\": %" PRIu64 "}",
		       (uint64_t)st->totals.rx_packets, (uint64_t)st->totals.rx_bytes,
		       (uint64_t)rw_stats_passed(&st->totals), (uint64_t)st->totals.dropped);
	printf(", \"tracked_flows\": %" PRId64 ", \"loader\": {\"alive\": %s, \"pid\": %u"
	       ", \"heartbeat_age_s\": %.3f}, \"errors\": [", st->tracked, st->alive ? "true" : "false",
	       m->loader_pid, st->heartbeat_age);
	for (uint32_t k = 0; k < m->nerrors && k < RW_META_ERRORS; k++) {
		const struct rw_meta_error *e = &m->errors[(m->nerrors - 1 - k) % RW_META_ERRORS];

		printf("%s{\"ts\": %.3f, \"msg\": ", k ? ", " : "", e->at_ns / 1e9);
		rw_json_string(stdout, e->msg);
		printf("}");
	}
	printf("], \"errors_total\": %u", m->nerrors);
	if (st->act.at_ns)
		rw_act_json(stdout, &st->act.counts);
	printf("}");
}

static int show_one(const char *name, void *arg)
{
	struct status_ctx *ctx = arg;
	struct rw_status st = { .name = name };
	int e = rw_instance_open(ctx->args->pin_root, name, &st.in, st.error, sizeof(st.error));

	if (e && !st.error[0])
		snprintf(st.error, sizeof(st.error), "%s", strerror(-e));
	if (!e)
		gather(&st);
	if (e == -EPROTO && rw_meta_foreign(&st.in.meta)) {
		st.foreign = true;
		rw_instance_links_each(st.in.dir, foreign_link, &st);
		st.alive = rw_instance_loader_alive(st.in.dir_fd);
	}
	if (ctx->args->json)
		print_json(&st, ctx->n == 0);
	else
		print_text(&st);
	ctx->n++;
	rw_instance_close(&st.in);
	return 0;
}

int rw_status_command(int argc, char **argv)
{
	struct rw_svc_args args;
	struct status_ctx ctx = { .args = &args };
	char err[256];
	int ret = rw_cli_outcome(rw_cli_parse_status(argc, argv, &args, err, sizeof(err)),
				 argv[0], err);

	if (ret >= 0)
		return ret;
	if (args.json)
		printf("{\"instances\": [");
	ret = rw_instances_each(args.pin_root, show_one, &ctx);
	if (args.json)
		printf("]}\n");
	else if (!ret && !ctx.n)
		printf("no pinned ratewall instances in %s\n", args.pin_root);
	if (ret) {
		fprintf(stderr, "ratewall: cannot list %s: %s\n", args.pin_root, strerror(-ret));
		return RW_EXIT_RUNTIME;
	}
	return 0;
}
