// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "service/persist.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/exit.h"
#include "kernel/enforced.h"
#include "kernel/multiprog.h"
#include "kernel/rules_maps.h"
#include "model/clock.h"
#include "ratewall.skel.h"
#include "service/actpins.h"
#include "service/pins.h"
#include "service/session.h"
#include "service/persist_multi.h"
#include "service/persist_pin.h"
#include "service/upgrade.h"

static bool pinned(const struct rw_session *s)
{
	return s->inst.meta_fd >= 0;
}

/* Keys of another kind or prefix mean nothing to the new program: its tables start afresh. */
static bool same_key(const struct rw_meta *m, const struct rw_session *s)
{
	return !rw_enforced_differs(&m->enforced, &s->lp.enforced, RW_ENFORCED_KEY);
}

/* Same flow-state layout: the maps can be kept and their contents mean the same. */
static bool same_layout(const struct rw_meta *m, const struct rw_session *s)
{
	return m->ncpus == s->ncpus &&
	       !rw_enforced_differs(&m->enforced, &s->lp.enforced, RW_ENFORCED_LAYOUT);
}

static bool same_ifaces(const struct rw_meta *m, const struct rw_session *s)
{
	if (m->nifaces != s->cfg->nifaces)
		return false;
	for (uint32_t i = 0; i < m->nifaces; i++) {
		if (strcmp(m->ifaces[i].name, s->cfg->ifnames[i]) != 0 ||
		    m->ifaces[i].ifindex != s->lp.ifindex[i])
			return false;
	}
	return true;
}

struct differences {
	char *buf;
	size_t len;
};

/* Appends "WHAT PINNED (pinned) -> ASKED" to the differences said so far. */
static void differs(const char *what, const char *was, const char *now, void *arg)
{
	struct differences *d = arg;
	size_t n = strlen(d->buf);

	snprintf(d->buf + n, d->len - n, "%s%s %s (pinned) -> %s", n ? "; " : "", what, was, now);
}

/* Says what the pinned program enforces differently, or where; empty when nothing. */
static void describe_differences(const struct rw_meta *m, const struct rw_session *s, char *buf,
				 size_t len)
{
	struct differences d = { buf, len };
	char a[RW_NAME_MAX], b[RW_NAME_MAX];

	buf[0] = '\0';
	rw_enforced_each_difference(&m->enforced, &s->lp.enforced, differs, &d);
	if (m->ncpus != s->ncpus) {
		snprintf(a, sizeof(a), "%u", m->ncpus);
		snprintf(b, sizeof(b), "%u", s->ncpus);
		differs("possible CPUs", a, b, &d);
	}
	if (!same_ifaces(m, s)) {
		a[0] = '\0';
		for (uint32_t i = 0; i < m->nifaces; i++)
			snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s%s#%u", i ? "+" : "",
				 m->ifaces[i].name, m->ifaces[i].ifindex);
		b[0] = '\0';
		for (uint32_t i = 0; i < s->cfg->nifaces; i++)
			snprintf(b + strlen(b), sizeof(b) - strlen(b), "%s%s#%u", i ? "+" : "",
				 s->cfg->ifnames[i], s->lp.ifindex[i]);
		differs("interfaces", a, b, &d);
	}
}

/* The pinned link of interface i when it is live there with program prog_id; else -1. */
static int live_link(const struct rw_session *s, uint32_t i, uint32_t prog_id)
{
	uint32_t on_prog = 0;
	int fd = rw_pin_open_link(s->inst.dir, s->cfg->ifnames[i]);

	if (fd < 0)
		return -1;
	if (rw_link_target(fd, &on_prog, NULL) == s->lp.ifindex[i] && on_prog == prog_id)
		return fd;
	close(fd);
	return -1;
}

/* A new instance: load, pin the maps and program, attach and pin links, then the record. */
static int create(struct rw_session *s, const struct rw_memplan *plan)
{
	int e = rw_session_load(s, plan);

	if (e >= 0) { /* refused: the directory this start made goes too */
		rw_act_pins_remove(s->inst.dir);
		return e;
	}
	if (rw_first_thresholds(s) || rw_session_rules(s, false) || rw_persist_pin_maps(s, NULL) ||
	    rw_persist_pin_as(s, s->prog_fd, "prog"))
		goto undo;
	for (s->nat = 0; s->nat < s->cfg->nifaces; s->nat++) {
		if (rw_persist_attach_pinned(s, s->nat, s->cfg->xdp_mode))
			goto undo;
	}
	if (rw_persist_new_meta(s) || rw_persist_pin_as(s, s->inst.meta_fd, "meta")) {
		fprintf(stderr, "ratewall: cannot pin the instance record in %s: %s\n", s->inst.dir,
			strerror(errno));
		goto undo;
	}
	fprintf(stderr, "ratewall: created instance %s in %s (program id %u)\n", s->cfg->name,
		s->inst.dir, rw_prog_id(s->prog_fd));
	return -1;
undo:
	/* Nothing half-made stays behind: detach what was attached, remove every pin (a journal of routes stays). */
	rw_multi_leave_all(s);
	rw_act_pins_remove(s->inst.dir);
	if (s->inst.meta_fd >= 0)
		close(s->inst.meta_fd);
	s->inst.meta_fd = -1;
	s->nat = 0;
	return RW_EXIT_RUNTIME;
}

/* Same options: take over the pinned maps and links as they are. */
static int adopt(struct rw_session *s)
{
	struct rw_meta *m = &s->inst.meta;
	uint32_t prog_id;

	s->maps.table.dir = rw_pin_open_map(s->inst.dir, "dir");
	s->maps.table.keys = rw_pin_open_map(s->inst.dir, "keys");
	s->maps.table.hot = rw_pin_open_map(s->inst.dir, "hot");
	s->maps.table.hist = rw_pin_open_map(s->inst.dir, "hist");
	s->maps.window = rw_pin_open_map(s->inst.dir, "window");
	s->maps.stats = rw_pin_open_map(s->inst.dir, "stats");
	s->maps.thresholds = rw_pin_open_map(s->inst.dir, "thresholds");
	s->maps.rules = rw_pin_open_map(s->inst.dir, "rules");
	s->maps.rule_hint = rw_pin_open_map(s->inst.dir, "rule_hint");
	s->maps.match_index = rw_pin_open_map(s->inst.dir, "match_index");
	s->maps.rule_ports = rw_pin_open_map(s->inst.dir, "rule_ports");
	s->maps.rule_stats = rw_pin_open_map(s->inst.dir, "rule_stats");
	s->maps.samples = rw_pin_open_map(s->inst.dir, "samples");
	s->maps.events = rw_pin_open_map(s->inst.dir, "events");
	s->maps.pcap_keys = rw_pin_open_map(s->inst.dir, "pcap_keys");
	s->maps.pcap_ring = rw_pin_open_map(s->inst.dir, "pcap_ring");
	s->maps.pcap_nets = rw_pin_open_map(s->inst.dir, "pcap_nets");
	s->prog_fd = rw_pin_open(s->inst.dir, "prog");
	if (s->maps.table.dir < 0 || s->maps.table.keys < 0 || s->maps.table.hot < 0 ||
	    s->maps.table.hist < 0 || s->maps.window < 0 || s->maps.stats < 0 ||
	    s->maps.thresholds < 0 || s->maps.rules < 0 ||
	    s->maps.rule_hint < 0 || s->maps.match_index < 0 || s->maps.rule_ports < 0 ||
	    s->maps.rule_stats < 0 || s->maps.samples < 0 || s->maps.events < 0 ||
	    s->maps.pcap_keys < 0 || s->maps.pcap_ring < 0 || s->maps.pcap_nets < 0 ||
	    s->prog_fd < 0) {
		fprintf(stderr, "ratewall: instance %s in %s is missing pinned maps or its program; "
			"remove it with: ratewall stop --name %s\n", m->name, s->inst.dir, m->name);
		return RW_EXIT_RUNTIME;
	}
	s->bss = rw_prog_bss_map(s->prog_fd, sizeof(*s->bss));
	if (!s->bss && s->cfg->samples_dir[0])
		fprintf(stderr, "ratewall: the adopted program's counters cannot be read: "
			"--samples' copied and lost read 0\n");
	prog_id = rw_prog_id(s->prog_fd);
	for (s->nat = 0; s->nat < s->cfg->nifaces; s->nat++) {
		uint32_t i = s->nat;
		bool multi = m->ifaces[i].mode & RW_XDP_IN_DISPATCHER;
		int fd = multi ? -1 : live_link(s, i, prog_id);

		s->lp.multi = multi;
		if (multi && rw_multi_attached(prog_id, (int)s->lp.ifindex[i])) {
			s->at[i] = (struct rw_attachment){ .ifindex = (int)s->lp.ifindex[i],
							   .link_fd = -1, .multi = true, .keep = true,
							   .prog_id = prog_id,
							   .mode = (enum rw_xdp_mode)(m->ifaces[i].mode &
										  ~RW_XDP_IN_DISPATCHER) };
			continue;
		}
		if (fd >= 0) {
			s->at[i] = (struct rw_attachment){ .ifindex = (int)s->lp.ifindex[i],
							   .link_fd = fd,
							   .mode = (enum rw_xdp_mode)m->ifaces[i].mode };
			continue;
		}
		/* The link is gone (a crash while creating it): attach the pinned program again. */
		fprintf(stderr, "ratewall: %s had no live link of this instance; attaching again\n",
			s->cfg->ifnames[i]);
		if (rw_persist_attach_pinned(s, i, (enum rw_xdp_mode)m->ifaces[i].mode))
			return RW_EXIT_RUNTIME;
		m->ifaces[i].mode = rw_xdp_stored_mode(&s->at[i]);
	}
	s->lp.hash_seed = m->hash_seed;
	s->start_ns = m->start_clock_ns;
	s->inherited = true;
	if (rw_session_rules(s, false))
		return RW_EXIT_RUNTIME;
	rw_persist_meta_loader(m);
	m->interval_ns = s->cfg->interval_ns;
	if (rw_persist_write_meta(s))
		return RW_EXIT_RUNTIME;
	fprintf(stderr, "ratewall: adopted instance %s (program id %u): its flows and windows go on\n",
		m->name, prog_id);
	return -1;
}

struct reuse_ctx {
	const struct rw_session *s;
	bool layout, ifaces;
	bool kept[32]; /* per non-internal map, in object order */
};

/* Before the new program loads: point its maps at the pinned ones that still fit. */
static int reuse_pinned(struct ratewall_bpf *skel, void *arg)
{
	struct reuse_ctx *rc = arg;
	struct bpf_map *map;
	int i = 0;

	bpf_object__for_each_map(map, skel->obj) {
		bool keep;
		int fd, e;

		if (bpf_map__is_internal(map))
			continue;
		if (i >= (int)(sizeof(rc->kept) / sizeof(rc->kept[0])))
			return -E2BIG;
		/*
		 * Rules are kept whatever changes (their per-window limits are
		 * recomputed after the load); stats is indexed by interface;
		 * everything else is the flow state.
		 */
		if (rw_is_rule_map(bpf_map__name(map)))
			keep = true;
		else if (strcmp(bpf_map__name(map), "stats") == 0)
			keep = rc->ifaces;
		else
			keep = rc->layout;
		rc->kept[i++] = keep;
		if (!keep)
			continue;
		fd = rw_pin_open_map(rc->s->inst.dir, bpf_map__name(map));
		if (fd < 0)
			return fd;
		e = bpf_map__reuse_fd(map, fd);
		close(fd);
		if (e)
			return e;
	}
	return 0;
}

/* --replace with other options: a new program swapped into the same links. */
static int swap(struct rw_session *s, const struct rw_memplan *plan, const char *why)
{
	struct rw_meta *m = &s->inst.meta;
	struct reuse_ctx rc = { .s = s, .layout = same_layout(m, s), .ifaces = same_ifaces(m, s) };
	bool new_key = !same_key(m, s);
	int old_prog = rw_pin_open(s->inst.dir, "prog"), e;
	uint32_t old_id = old_prog >= 0 ? rw_prog_id(old_prog) : 0, new_id;

	if (old_prog < 0) {
		fprintf(stderr, "ratewall: instance %s has no pinned program; remove it with: "
			"ratewall stop --name %s\n", m->name, m->name);
		return RW_EXIT_RUNTIME;
	}
	if (rw_multi_pinned(m)) {
		close(old_prog);
		return rw_multi_no_swap(m->name);
	}
	s->lp.hash_seed = rc.layout ? m->hash_seed : 0;
	s->lp.prepare = reuse_pinned;
	s->lp.prepare_arg = &rc;
	e = rw_session_load(s, plan);
	s->lp.prepare = NULL;
	if (e >= 0) {
		close(old_prog);
		return e;
	}
	new_id = rw_prog_id(s->prog_fd);
	/* Before the links switch: the new program must meet its rules from its first packet. */
	if ((!rc.layout && rw_first_thresholds(s)) ||
	    rw_session_rules(s, m->window_ns != s->cfg->window_ns || m->slots != s->lp.slots ||
				m->ncpus != s->ncpus || new_key))
		goto fail;
	for (s->nat = 0; s->nat < s->cfg->nifaces; s->nat++) {
		LIBBPF_OPTS(bpf_link_update_opts, uo, .flags = BPF_F_REPLACE, .old_prog_fd = old_prog);
		uint32_t i = s->nat;
		int fd = live_link(s, i, old_id);

		if (fd >= 0) {
			/* Atomic: the next packet on this interface meets the new program. */
			if (bpf_link_update(fd, s->prog_fd, &uo)) {
				fprintf(stderr, "ratewall: cannot swap the program on %s: %s\n",
					s->cfg->ifnames[i], strerror(errno));
				close(fd);
				goto fail;
			}
			s->at[i] = (struct rw_attachment){ .ifindex = (int)s->lp.ifindex[i],
							   .link_fd = fd,
							   .mode = RW_XDP_NATIVE };
			for (uint32_t j = 0; j < m->nifaces; j++) {
				if (strcmp(m->ifaces[j].name, s->cfg->ifnames[i]) == 0)
					s->at[i].mode = (enum rw_xdp_mode)m->ifaces[j].mode;
			}
			continue;
		}
		if (rw_persist_attach_pinned(s, i, s->cfg->xdp_mode))
			goto fail;
	}
	/* Interfaces no longer listed: their links go. */
	for (uint32_t j = 0; j < m->nifaces; j++) {
		bool listed = false;
		char name[32], path[PATH_MAX];
		int fd;

		for (uint32_t i = 0; i < s->cfg->nifaces; i++)
			listed |= strcmp(m->ifaces[j].name, s->cfg->ifnames[i]) == 0;
		if (listed)
			continue;
		rw_pin_link_name(name, sizeof(name), m->ifaces[j].name);
		fd = rw_pin_open(s->inst.dir, name);
		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
		if (!rw_pin_path(path, sizeof(path), s->inst.dir, name))
			unlink(path);
	}
	close(old_prog);
	/* The links run the new program: its maps and it replace the old ones' pins. */
	if (rw_persist_pin_maps(s, rc.kept) || rw_persist_pin_as(s, s->prog_fd, "prog"))
		goto fail_pinned;
	rw_persist_meta_options(m, s);
	if (!rc.layout)
		m->start_clock_ns = rw_clock_ns(s->clock);
	s->start_ns = m->start_clock_ns;
	s->inherited = rc.layout;
	rw_persist_meta_loader(m);
	if (rw_persist_write_meta(s))
		goto fail_pinned;
	fprintf(stderr, "ratewall: replaced program id %u with %u on instance %s (%s); flow state %s\n",
		old_id, new_id, m->name, why,
		rc.layout ? "kept" : !new_key ? "started afresh (its layout changed)"
				   : "started afresh (its key changed: new tables)");
	return -1;
fail:
	close(old_prog);
fail_pinned:
	fprintf(stderr, "ratewall: the swap did not complete; see: ratewall status\n");
	return RW_EXIT_RUNTIME;
}

/* Opens or makes ROOT/NAME and takes its lock; tells whether it was there before. */
static int open_dir(struct rw_session *s, bool *existed)
{
	const struct rw_config *cfg = s->cfg;

	if (snprintf(s->inst.dir, sizeof(s->inst.dir), "%s/%s", cfg->pin_root, cfg->name) >=
	    (int)sizeof(s->inst.dir)) {
		fprintf(stderr, "ratewall: --pin-dir and --name make too long a path\n");
		return RW_EXIT_USAGE;
	}
	*existed = mkdir(s->inst.dir, 0700) != 0;
	if (*existed && errno != EEXIST) {
		fprintf(stderr, "ratewall: cannot create %s: %s\n", s->inst.dir, strerror(errno));
		return RW_EXIT_RUNTIME;
	}
	s->inst.dir_fd = open(s->inst.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->inst.dir_fd < 0) {
		fprintf(stderr, "ratewall: cannot open %s: %s\n", s->inst.dir, strerror(errno));
		return RW_EXIT_RUNTIME;
	}
	if (!rw_instance_lock(s->inst.dir_fd)) {
		struct rw_instance other;
		char err[256];
		uint32_t pid = 0;

		char who[64] = "of another layout version";

		if (rw_instance_open(cfg->pin_root, cfg->name, &other, err, sizeof(err)) == 0)
			pid = other.meta.loader_pid;
		if (pid || !rw_meta_foreign(&other.meta))
			snprintf(who, sizeof(who), "pid %u", pid);
		rw_instance_close(&other);
		fprintf(stderr, "ratewall: instance %s is run by another loader (%s); stop that "
			"one first (it leaves the kernel enforcing)\n", cfg->name, who);
		return RW_EXIT_RUNTIME;
	}
	return -1;
}

/*
 * A pinned instance keeps the rules' counts it was created with (rule_stats,
 * a slot per rule id), through adoptions and --replace alike: rules in force
 * keep their ids and counts. Another --max-rules is said, not silently dropped.
 */
static void say_rules_capacity(const struct rw_session *s)
{
	int fd = rw_pin_open_map_ro(s->inst.dir, "rule_stats");
	unsigned int kept;

	if (fd < 0)
		return;
	kept = rw_rules_capacity_of(fd);
	if (kept != s->cfg->max_rules)
		fprintf(stderr, "ratewall: --max-rules %u: instance %s keeps the %u it was created "
			"with (rules keep their ids and counts); to change it: ratewall stop --name "
			"%s, then start again\n", s->cfg->max_rules, s->cfg->name, kept, s->cfg->name);
	close(fd);
}

int rw_persist_start(struct rw_session *s, const struct rw_memplan *plan)
{
	const struct rw_config *cfg = s->cfg;
	char err[512], diff[512];
	bool existed;
	int e;

	if (rw_pins_root(cfg->pin_root, err, sizeof(err))) {
		fprintf(stderr, "ratewall: %s\n", err);
		return RW_EXIT_RUNTIME;
	}
	e = open_dir(s, &existed);
	if (e >= 0)
		return e;
	if (!existed)
		return create(s, plan);
	e = rw_pin_open(s->inst.dir, "meta");
	if (e == -ENOENT) {
		/*
		 * A start that died before its record was pinned: nothing in it is
		 * complete, but for a journal of routes still announced (a stop the
		 * speaker did not answer), which this start adopts.
		 */
		long kept;

		fprintf(stderr, "ratewall: %s holds an unfinished start; removing it\n", s->inst.dir);
		kept = rw_act_pins_remove(s->inst.dir);
		if (kept > 0)
			fprintf(stderr, "ratewall: ... but for %ld BGP routes a stop could not withdraw: "
				"this start takes them over\n", kept);
		close(s->inst.dir_fd);
		s->inst.dir_fd = -1;
		e = open_dir(s, &existed);
		return e >= 0 ? e : create(s, plan);
	}
	if (e < 0) {
		fprintf(stderr, "ratewall: cannot open %s/meta: %s\n", s->inst.dir, strerror(-e));
		return RW_EXIT_RUNTIME;
	}
	s->inst.meta_fd = e;
	e = rw_meta_read(s->inst.meta_fd, &s->inst.meta, err, sizeof(err));
	if (e == -EPROTO && rw_meta_foreign(&s->inst.meta))
		return rw_foreign_start(s, plan);
	if (e) {
		fprintf(stderr, "ratewall: refusing the pinned instance in %s: %s%s; remove it with "
			"the ratewall that made it, or: ratewall stop --name %s --pin-dir %s\n",
			s->inst.dir, err, e == -EPROTO ? "" : strerror(-e), cfg->name, cfg->pin_root);
		close(s->inst.meta_fd);
		s->inst.meta_fd = -1;
		return RW_EXIT_RUNTIME;
	}
	if (s->inst.meta.netns_ino != rw_netns_ino()) {
		fprintf(stderr, "ratewall: instance %s belongs to interfaces of another network "
			"namespace; give another --name\n", cfg->name);
		close(s->inst.meta_fd);
		s->inst.meta_fd = -1;
		return RW_EXIT_USAGE;
	}
	describe_differences(&s->inst.meta, s, diff, sizeof(diff));
	if (!diff[0] || cfg->replace)
		say_rules_capacity(s);
	if (!diff[0])
		return adopt(s);
	if (cfg->replace)
		return swap(s, plan, diff);
	fprintf(stderr, "ratewall: instance %s is pinned with other options: %s. Its program keeps "
		"enforcing; restart with --replace to swap it, or remove it: ratewall stop --name %s\n",
		cfg->name, diff, cfg->name);
	close(s->inst.meta_fd);
	s->inst.meta_fd = -1;
	return RW_EXIT_USAGE;
}

void rw_persist_heartbeat(struct rw_session *s)
{
	if (pinned(s))
		rw_persist_write_meta(s);
}

int rw_persist_heavy_start(struct rw_session *s, bool levels)
{
	char path[PATH_MAX];
	int e;

	if (!pinned(s))
		return 0;
	if (!levels) {
		/* A record no loader updates would show a former run's prefixes as now. */
		if (rw_pin_path(path, sizeof(path), s->inst.dir, "heavy") == 0)
			unlink(path);
		return 0;
	}
	s->heavy_fd = rw_heavy_create();
	if (s->heavy_fd < 0)
		return s->heavy_fd;
	e = rw_persist_pin_as(s, s->heavy_fd, "heavy");
	if (e) {
		close(s->heavy_fd);
		s->heavy_fd = -1;
	}
	return e;
}

void rw_persist_heavy(struct rw_session *s, const struct rw_hhh_item *item, uint32_t n,
		      uint64_t total_packets)
{
	struct rw_heavy_record r = { .at_ns = rw_clock_ns(CLOCK_REALTIME),
				     .total_packets = total_packets,
				     .share_pct = s->cfg->hhh_share_pct };

	if (s->heavy_fd < 0)
		return;
	r.n = n < RW_HEAVY_MAX ? n : RW_HEAVY_MAX;
	memcpy(r.item, item, r.n * sizeof(*item));
	rw_heavy_write(s->heavy_fd, &r);
}

void rw_persist_error(struct rw_session *s, const char *msg)
{
	if (!pinned(s))
		return;
	rw_meta_error(&s->inst.meta, msg);
	rw_persist_write_meta(s);
}

void rw_persist_leave(struct rw_session *s, int exit_status)
{
	char ifaces[RW_NAME_MAX];

	if (pinned(s) && s->inst.meta.loader_pid == (uint32_t)getpid()) {
		s->inst.meta.loader_pid = 0;
		rw_persist_write_meta(s);
		rw_default_instance_name(s->cfg->ifnames, s->cfg->nifaces, ifaces);
		if (s->nat)
			fprintf(stderr, "ratewall: %s goes on enforcing on %s without a loader%s "
				"(ratewall stop --name %s removes it)\n", s->cfg->name, ifaces,
				exit_status ? " after the error above" : "", s->cfg->name);
	}
	rw_instance_close(&s->inst);
}

void rw_persist_close_maps(struct rw_session *s)
{
	int *fds[] = { &s->maps.table.dir, &s->maps.table.keys, &s->maps.table.hot,
		       &s->maps.table.hist, &s->maps.window, &s->maps.stats, &s->maps.thresholds,
		       &s->maps.rules, &s->maps.rule_hint, &s->maps.match_index, &s->maps.rule_ports,
		       &s->maps.rule_stats, &s->maps.samples, &s->maps.events,
		       &s->maps.pcap_keys, &s->maps.pcap_ring, &s->maps.pcap_nets,
		       &s->prog_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	rw_prog_bss_unmap(s->bss, sizeof(*s->bss));
	s->bss = NULL;
}
