// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What every way of starting a run shares, below both the run (run.c) and the
 * pinned-instance paths (persist.c, upgrade.c): loading the program into the session,
 * the thresholds a fresh flow state starts with, and the rules.
 */
#include "service/session.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/exit.h"
#include "kernel/flowtab.h"
#include "kernel/multiprog.h"
#include "kernel/rules_maps.h"
#include "model/units.h"
#include "rank/thresholds.h"
#include "ratewall.skel.h"

struct rw_rule_env rw_session_rule_env(const struct rw_session *s)
{
	return (struct rw_rule_env){ .rules_fd = s->maps.rules, .hint_fd = s->maps.rule_hint,
				     .index_fd = s->maps.match_index, .ports_fd = s->maps.rule_ports,
				     .stats_fd = s->maps.rule_stats,
				     .window_ns = s->lp.slot_ns * s->lp.slots, .ncpus = s->ncpus };
}

/*
 * Rules added at runtime stay across --replace; a new --key or --v6-prefix
 * may make one finer than the key. Each is checked as a rule typed now
 * (what `rule list` prints parses back to it), before anything changes.
 */
static int kept_rules_fit(const struct rw_session *s, const struct rw_ruleset *rs)
{
	const struct rw_rule_scope scope = rw_config_rule_scope(s->cfg);
	char text[RW_RULE_STRLEN], err[512];
	struct rw_rule_spec again;

	for (size_t i = 0; i < rs->n; i++) {
		rw_rule_format(&rs->rule[i], text, sizeof(text));
		if (rw_rule_parse(text, &scope, &again, err, sizeof(err))) {
			fprintf(stderr, "ratewall: a rule in force does not fit the new options, "
				"the rules stay as they were: %s (or first: ratewall rule del)\n", err);
			return -EINVAL;
		}
	}
	return 0;
}

int rw_session_rules(struct rw_session *s, bool recompute)
{
	struct rw_rule_env env = rw_session_rule_env(s);
	struct rw_ruleset in_kernel = { 0 };
	int e;

	if (s->cfg->rules_path[0]) {
		e = rw_rules_install(&env, &s->rules);
		if (!e)
			fprintf(stderr, "ratewall: %zu rules in force from %s\n", s->rules.n,
				s->cfg->rules_path);
	} else if (recompute) {
		/* Rules added at runtime stay; their per-window limits follow the new window and key. */
		e = rw_rules_read(&env, &in_kernel);
		if (!e && kept_rules_fit(s, &in_kernel)) {
			rw_ruleset_free(&in_kernel);
			return -EINVAL; /* said */
		}
		if (!e)
			e = rw_rules_install(&env, &in_kernel);
		rw_ruleset_free(&in_kernel);
	} else {
		return 0;
	}
	if (e)
		fprintf(stderr, "ratewall: cannot put the rules in the kernel: %s\n", strerror(-e));
	return e;
}

/* Whether kernel release rel (uname's: "6.1.0-50-amd64") is older than major.minor. */
static bool rw_kernel_before(const char *rel, int major, int minor)
{
	int a = 0, b = 0;

	if (sscanf(rel, "%d.%d", &a, &b) != 2)
		return false;
	return a < major || (a == major && b < minor);
}

static int rw_load_failed(const struct rw_session *s, const struct rw_memplan *plan, int e,
			  uint32_t insns)
{
	struct utsname u;

	/* E2BIG is also the verifier's: past its limit, the kernel is the cause, not the maps. */
	if (e == -E2BIG && insns > RW_VERIFIER_INSNS_LIMIT) {
		fprintf(stderr, "ratewall: Linux %s cannot load the program: its verifier gave up after "
			"%u instructions (limit %u); ratewall is tested on Linux 6.12 and 6.18 "
			"(Debian bookworm: linux-image-6.12-amd64)\n",
			uname(&u) ? "?" : u.release, insns, RW_VERIFIER_INSNS_LIMIT);
	} else if (e == -EACCES && !uname(&u) && rw_kernel_before(u.release, 6, 12)) {
		/* Refused, not given up on: 6.1 verifies it all, then counts the stack otherwise. */
		fprintf(stderr, "ratewall: Linux %s cannot load the program: its verifier refused it "
			"(-v shows why); ratewall is tested on Linux 6.12 and 6.18 "
			"(Debian bookworm: linux-image-6.12-amd64)\n", u.release);
	} else if (e == -EPERM && s->lp.multi) {
		/* Root and still refused: a kernel that allows no extension (tracing) program. */
		fprintf(stderr, "ratewall: Linux %s refuses the extension (freplace) program that "
			"libxdp's dispatcher runs, so ratewall cannot share %s with other XDP "
			"programs here; without --xdp-mode multi it takes an interface of its own\n",
			uname(&u) ? "?" : u.release, s->cfg->nifaces > 1 ? "the interfaces" : "the interface");
	} else if (e == -ENOMEM || e == -E2BIG) {
		char mem[32];

		rw_format_bytes((double)plan->total, mem, sizeof(mem));
		fprintf(stderr, "ratewall: cannot allocate the maps (%u tracked flows, %s): %s; "
			"lower --max-flows or --max-memory\n", s->max_flows, mem, strerror(-e));
	} else {
		fprintf(stderr, "ratewall: cannot load the BPF program: %s%s\n", strerror(-e),
			s->cfg->verbose ? "" : " (run with -v for the kernel's log)");
	}
	return RW_EXIT_RUNTIME;
}

int rw_first_thresholds(const struct rw_session *s)
{
	/* Until the first tick, sources are tracked from their first packet, within the budget. */
	struct rw_thresholds first = rw_next_thresholds(NULL, 0, s->cfg->top, s->cfg->sort, s->ncpus,
							0, s->max_flows, 0, 0, 0);
	int e = 0;

	/* The main kind's, and each --rank kind's (its own top-N sets its own bar). */
	for (uint32_t k = 0; k < RW_KIND_COUNT && !e; k++)
		e = rw_thresholds_write(s->maps.thresholds, k, &first);

	if (e)
		fprintf(stderr, "ratewall: cannot set the promotion thresholds: %s\n", strerror(-e));
	return e;
}

int rw_session_load(struct rw_session *s, const struct rw_memplan *plan)
{
	uint32_t insns;
	int e;

	s->lp.verified_insns = &insns;
	s->lp.multi = rw_multi_wanted(s->cfg->xdp_mode, s->lp.ifindex, s->cfg->nifaces);
	s->lp.xdp_priority = s->cfg->xdp_priority;
	e = rw_bpf_load(&s->lp, &s->skel);
	s->lp.verified_insns = NULL;
	if (e)
		return rw_load_failed(s, plan, e, insns);
	rw_maps_of(s->skel, &s->maps);
	s->bss = s->skel->bss;
	s->prog_fd = bpf_program__fd(s->skel->progs.ratewall_xdp);
	s->lp.hash_seed = s->skel->rodata->cfg_hash_seed;
	return -1;
}

void rw_session_say_attached(const struct rw_session *s, uint32_t i)
{
	const struct rw_attachment *at = &s->at[i];

	if (at->native_err)
		fprintf(stderr, "ratewall: native XDP is not available on %s (%s); using generic XDP, "
			"which runs later in the stack and costs more per packet\n",
			s->cfg->ifnames[i], strerror(-at->native_err));
}
