// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ratewall rule add RULE | del CIDR | list` on a pinned instance: the rules
 * maps are edited in place, so a change is in force at the next packet, with
 * no reload of the program. A loader started with --rules puts its file back
 * on SIGHUP: the file stays the source of truth for those.
 */
#include "cli/exit.h"
#include "service/svccmd.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/svccli.h"
#include "kernel/loader.h"
#include "kernel/rules_maps.h"
#include "service/pick.h"
#include "service/pins.h"

static int list_rules(const struct rw_rule_env *env)
{
	struct rw_ruleset rs = { 0 };
	char text[RW_RULE_STRLEN];
	int e = rw_rules_read(env, &rs);

	if (e) {
		fprintf(stderr, "ratewall: cannot read the rules: %s\n", strerror(-e));
		return RW_EXIT_RUNTIME;
	}
	/*
	 * The rules in the order they tie in, each with what it decided and
	 * dropped since it went in, after a `#`: the list is a rules file.
	 */
	for (size_t i = 0; i < rs.n; i++) {
		rw_rule_format(&rs.rule[i], text, sizeof(text));
		printf("%-48s # rule %u: %" PRIu64 " packets, %" PRIu64 " dropped\n", text,
		       rs.rule[i].id, rs.rule[i].packets, rs.rule[i].drops);
	}
	rw_ruleset_free(&rs);
	return 0;
}

static int edit_rules(const struct rw_svc_args *a, const struct rw_rule_env *env,
		      const struct rw_meta *meta, const char *name)
{
	/* The instance's key: a rule finer than it is refused as in a rules file. */
	const struct rw_rule_scope scope = { meta->key_kind, meta->v6_prefix,
					     rw_rules_capacity(env) };
	struct rw_rule_spec r;
	char err[256], text[RW_RULE_STRLEN];
	int e;

	if (a->rule_op == RW_RULE_OP_ADD) {
		if (rw_rule_parse(a->rule_text, &scope, &r, err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			return RW_EXIT_USAGE;
		}
		e = rw_rules_add(env, &r);
	} else {
		if (rw_rule_parse_selector(a->rule_text, &r, err, sizeof(err))) {
			fprintf(stderr, "ratewall: %s\n", err);
			return RW_EXIT_USAGE;
		}
		e = rw_rules_del(env, &r);
	}
	if (e == -ENOENT) {
		fprintf(stderr, "ratewall: %s has no rule for %s\n", name, a->rule_text);
		return RW_EXIT_RUNTIME;
	}
	if (e == -E2BIG || e == -ENOSPC) {
		fprintf(stderr, "ratewall: %s has %u rules already (its --max-rules)\n", name,
			rw_rules_capacity(env));
		return RW_EXIT_RUNTIME;
	}
	if (e) {
		fprintf(stderr, "ratewall: cannot change the rules of %s: %s\n", name, strerror(-e));
		return RW_EXIT_RUNTIME;
	}
	if (a->rule_op == RW_RULE_OP_ADD) {
		rw_rule_format(&r, text, sizeof(text));
		fprintf(stderr, "ratewall: %s: %s (in force now)\n", name, text);
	} else {
		fprintf(stderr, "ratewall: %s: rule for %s deleted\n", name, a->rule_text);
	}
	return 0;
}

int rw_rule_command(int argc, char **argv)
{
	struct rw_svc_args args;
	struct rw_instance in;
	struct rw_rule_env env;
	char err[512], name[RW_NAME_MAX];
	int ret = rw_cli_outcome(rw_cli_parse_rule(argc, argv, &args, err, sizeof(err)),
				 argv[0], err);

	if (ret >= 0)
		return ret;
	if (rw_instance_pick(args.pin_root, args.name[0] ? args.name : NULL, NULL,
			     "rules are edited on", name))
		return RW_EXIT_RUNTIME;
	ret = rw_instance_open(args.pin_root, name, &in, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ratewall: instance %s cannot be used: %s\n", name,
			ret == -EPROTO || ret == -ENODATA ? err : strerror(-ret));
		rw_instance_close(&in);
		return RW_EXIT_RUNTIME;
	}
	env = (struct rw_rule_env){ .window_ns = in.meta.slot_ns * in.meta.slots,
				    .ncpus = in.meta.ncpus };
	if (rw_rule_env_open(&env, rw_pin_open_map, in.dir)) {
		fprintf(stderr, "ratewall: instance %s has no pinned rules maps\n", name);
		ret = RW_EXIT_RUNTIME;
	} else {
		ret = args.rule_op == RW_RULE_OP_LIST ? list_rules(&env)
						      : edit_rules(&args, &env, &in.meta, name);
		rw_rule_env_close(&env);
	}
	rw_instance_close(&in);
	return ret;
}
