// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/svccli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "model/errmsg.h"

/* Every parse error is EINVAL. */
#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

enum svc_cmd { CMD_STATUS, CMD_STOP, CMD_RULE, CMD_TOP };
/* Each command's bit in the options' table (options.h): its rows are its options. */
static const unsigned int cmd_bit[] = {
	[CMD_STATUS] = RW_OPT_STATUS, [CMD_STOP] = RW_OPT_STOP, [CMD_RULE] = RW_OPT_RULE,
	[CMD_TOP] = RW_OPT_TOP,
};

/* After the options: the operation, then the rule's words joined by blanks. */
static int rule_words(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen)
{
	static const char *const ops[] = { "add", "del", "list" };
	size_t n = 0;
	int op = -1;

	if (optind < argc) {
		for (int i = 0; i < 3; i++) {
			if (strcmp(argv[optind], ops[i]) == 0)
				op = i;
		}
	}
	if (op < 0)
		return fail(err, errlen, "rule takes add RULE, del CIDR [MATCH] or list");
	a->rule_op = op;
	for (int i = optind + 1; i < argc; i++) {
		size_t len = strlen(argv[i]);

		if (n + len + 2 > sizeof(a->rule_text))
			return fail(err, errlen, "the rule is longer than %zu bytes",
				    sizeof(a->rule_text) - 1);
		if (n)
			a->rule_text[n++] = ' ';
		memcpy(a->rule_text + n, argv[i], len + 1);
		n += len;
	}
	if (op == RW_RULE_OP_LIST && n)
		return fail(err, errlen, "rule list takes no rule ('%s')", a->rule_text);
	if (op != RW_RULE_OP_LIST && !n)
		return fail(err, errlen, "rule %s needs %s", ops[op],
			    op == RW_RULE_OP_ADD ? "a rule: CIDR [MATCH] allow|deny|limit ..."
						 : "a CIDR (and the rule's match)");
	return 0;
}

/*
 * The options of cmd, through the table's rows and their parse, into a's
 * fields. 0, 1 for --help, or -EINVAL.
 */
static int parse_options(int argc, char **argv, enum svc_cmd cmd, struct rw_svc_args *a,
			 char *err, size_t errlen)
{
	struct option options[RW_OPTIONS_MAX + 1];
	struct rw_cli_args o;
	int opt;

	rw_opt_getopt(cmd_bit[cmd], options);
	rw_opt_defaults(&o);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		const struct rw_opt *row = rw_opt_of_val(opt);

		if (opt == ':')
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		if (!row || !(row->flags & cmd_bit[cmd]))
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		if (row->type == RW_OPT_META)
			return 1; /* --help, the only one these commands take */
		if (rw_opt_apply(row, optarg, &o, err, errlen))
			return -EINVAL;
	}
	*a = (struct rw_svc_args){ .all = o.all, .json = o.cfg.json, .interval_ns = o.cfg.interval_ns,
				   .sort = o.cfg.sort, .levels = o.cfg.levels,
				   .no_color = o.cfg.no_color };
	strcpy(a->pin_root, o.cfg.pin_root);
	strcpy(a->name, o.cfg.name);
	return 0;
}

/*
 * The four commands: `stop` takes interfaces, --name and --all; `status`
 * --json; `rule` an operation, --name and the rule's words; `top` an
 * interface or --name, and how to show it. An option of another command is
 * unknown here.
 */
static int parse(int argc, char **argv, enum svc_cmd cmd, struct rw_svc_args *a, char *err,
		 size_t errlen)
{
	bool stop = cmd == CMD_STOP;
	int ret;

	err[0] = '\0';
	ret = parse_options(argc, argv, cmd, a, err, errlen);
	if (ret)
		return ret;
	if (cmd == CMD_RULE)
		return rule_words(argc, argv, a, err, errlen);
	if (cmd == CMD_TOP) {
		if (argc - optind > 1)
			return fail(err, errlen, "top watches one instance: one IFACE, not '%s'",
				    argv[optind + 1]);
		if (optind < argc && rw_cli_ifaces(1, argv + optind, a->ifnames, &a->nifaces, err,
						   errlen))
			return -EINVAL;
		if (a->nifaces && a->name[0])
			return fail(err, errlen, "top takes IFACE or --name, not both");
		return 0;
	}
	if (!stop) {
		if (optind < argc)
			return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
		return 0;
	}
	if (optind < argc && rw_cli_ifaces(argc - optind, argv + optind, a->ifnames, &a->nifaces,
					   err, errlen))
		return -EINVAL;
	if ((a->nifaces > 0) + (a->name[0] != '\0') + a->all != 1)
		return fail(err, errlen, "stop takes interfaces, --name NAME or --all (one of them)");
	return 0;
}

int rw_cli_parse_status(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen)
{
	return parse(argc, argv, CMD_STATUS, a, err, errlen);
}

int rw_cli_parse_stop(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen)
{
	return parse(argc, argv, CMD_STOP, a, err, errlen);
}

int rw_cli_parse_rule(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen)
{
	return parse(argc, argv, CMD_RULE, a, err, errlen);
}

int rw_cli_parse_top(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen)
{
	return parse(argc, argv, CMD_TOP, a, err, errlen);
}
