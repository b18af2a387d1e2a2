// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/svccli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/errmsg.h"
#include "model/instance.h"

/* Every parse error is EINVAL. */
#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

enum { OPT_JSON = 256, OPT_PIN_DIR, OPT_NAME, OPT_ALL, OPT_INTERVAL, OPT_SORT, OPT_LEVELS,
       OPT_NO_COLOR };

enum svc_cmd { CMD_STATUS, CMD_STOP, CMD_RULE, CMD_TOP };
#define ON(cmd) (1u << (cmd))
#define EVERY (ON(CMD_STATUS) | ON(CMD_STOP) | ON(CMD_RULE) | ON(CMD_TOP))

/* Every option, and the commands that take it: getopt sees only a command's own. */
static const struct svc_option {
	struct option o;
	unsigned int cmds;
} svc_options[] = {
	{ { "json", no_argument, NULL, OPT_JSON }, ON(CMD_STATUS) },
	{ { "pin-dir", required_argument, NULL, OPT_PIN_DIR }, EVERY },
	{ { "name", required_argument, NULL, OPT_NAME }, ON(CMD_STOP) | ON(CMD_RULE) | ON(CMD_TOP) },
	{ { "all", no_argument, NULL, OPT_ALL }, ON(CMD_STOP) },
	{ { "interval", required_argument, NULL, OPT_INTERVAL }, ON(CMD_TOP) },
	{ { "sort", required_argument, NULL, OPT_SORT }, ON(CMD_TOP) },
	{ { "levels", required_argument, NULL, OPT_LEVELS }, ON(CMD_TOP) },
	{ { "no-color", no_argument, NULL, OPT_NO_COLOR }, ON(CMD_TOP) },
	{ { "help", no_argument, NULL, 'h' }, EVERY },
};
#define SVC_OPTIONS (sizeof(svc_options) / sizeof(svc_options[0]))

/* The getopt table of one command, NULL-terminated. */
static void options_of(enum svc_cmd cmd, struct option out[SVC_OPTIONS + 1])
{
	size_t n = 0;

	for (size_t i = 0; i < SVC_OPTIONS; i++) {
		if (svc_options[i].cmds & ON(cmd))
			out[n++] = svc_options[i].o;
	}
	out[n] = (struct option){ NULL, 0, NULL, 0 };
}

_Static_assert(SVC_OPTIONS < RW_SVC_OPTIONS_MAX, "rw_cli_svc_options' array holds them");

int rw_cli_svc_options(const char *cmd, struct option out[RW_SVC_OPTIONS_MAX])
{
	static const char *const names[] = {
		[CMD_STATUS] = "status", [CMD_STOP] = "stop", [CMD_RULE] = "rule", [CMD_TOP] = "top",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(cmd, names[i]) == 0) {
			options_of((enum svc_cmd)i, out);
			return 0;
		}
	}
	return -1;
}

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
 * The four commands: `stop` takes interfaces, --name and --all; `status`
 * --json; `rule` an operation, --name and the rule's words; `top` an
 * interface or --name, and how to show it. An option of another command is
 * unknown here.
 */
static int parse(int argc, char **argv, enum svc_cmd cmd, struct rw_svc_args *a, char *err,
		 size_t errlen)
{
	bool stop = cmd == CMD_STOP;
	struct option options[SVC_OPTIONS + 1];
	int opt;

	*a = (struct rw_svc_args){ .pin_root = RW_DEFAULT_PIN_ROOT, .interval_ns = 1000000000ULL };
	err[0] = '\0';
	options_of(cmd, options);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		int e = 0;

		switch (opt) {
		case 'h':
			return 1;
		case ':':
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		case '?':
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		case OPT_PIN_DIR:
			if (optarg[0] != '/' || strlen(optarg) >= RW_PIN_ROOT_MAX)
				return fail(err, errlen, "--pin-dir: '%s' must be an absolute path "
					    "shorter than %d bytes", optarg, RW_PIN_ROOT_MAX);
			strcpy(a->pin_root, optarg);
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_NAME:
			if (!rw_valid_instance_name(optarg))
				return fail(err, errlen, "--name: '%s' is not an instance name", optarg);
			strcpy(a->name, optarg);
			break;
		case OPT_ALL:
			a->all = true;
			break;
		case OPT_INTERVAL:
			e = rw_cli_interval(optarg, &a->interval_ns, err, errlen);
			break;
		case OPT_SORT:
			e = rw_cli_sort(optarg, &a->sort, err, errlen);
			break;
		case OPT_LEVELS:
			e = rw_parse_levels(optarg, &a->levels, err, errlen);
			break;
		case OPT_NO_COLOR:
			a->no_color = true;
			break;
		}
		if (e)
			return -EINVAL;
	}
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
