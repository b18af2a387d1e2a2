// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "svccli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "errmsg.h"

/* Every parse error is EINVAL. */
#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

enum { OPT_JSON = 256, OPT_PIN_DIR, OPT_NAME, OPT_ALL, OPT_INTERVAL, OPT_SORT, OPT_LEVELS,
       OPT_NO_COLOR };

static const struct option svc_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "pin-dir", required_argument, NULL, OPT_PIN_DIR },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "levels", required_argument, NULL, OPT_LEVELS },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum svc_cmd { CMD_STATUS, CMD_STOP, CMD_RULE, CMD_TOP };

/* top's own options: 0 done, 1 not one of them, -EINVAL. */
static int top_option(int opt, struct rw_svc_args *a, char *err, size_t errlen)
{
	switch (opt) {
	case OPT_INTERVAL:
		return rw_cli_interval(optarg, &a->interval_ns, err, errlen);
	case OPT_SORT:
		return rw_cli_sort(optarg, &a->sort, err, errlen);
	case OPT_LEVELS:
		return rw_parse_levels(optarg, &a->levels, err, errlen);
	case OPT_NO_COLOR:
		a->no_color = true;
		return 0;
	}
	return 1;
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
		return fail(err, errlen, "rule takes add RULE, del CIDR or list");
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
			    op == RW_RULE_OP_ADD ? "a rule: CIDR allow|deny|limit ..." : "a CIDR");
	return 0;
}

/*
 * The three commands: `stop` takes interfaces, --name and --all; `status`
 * --json; `rule` an operation, --name and the rule's words.
 */
static int parse(int argc, char **argv, enum svc_cmd cmd, struct rw_svc_args *a, char *err,
		 size_t errlen)
{
	bool stop = cmd == CMD_STOP;

	int opt;

	*a = (struct rw_svc_args){ .pin_root = RW_DEFAULT_PIN_ROOT, .interval_ns = 1000000000ULL };
	err[0] = '\0';
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", svc_options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			return 1;
		case ':':
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		case OPT_PIN_DIR:
			if (optarg[0] != '/' || strlen(optarg) >= RW_PIN_ROOT_MAX)
				return fail(err, errlen, "--pin-dir: '%s' must be an absolute path "
					    "shorter than %d bytes", optarg, RW_PIN_ROOT_MAX);
			strcpy(a->pin_root, optarg);
			continue;
		case OPT_JSON:
			if (cmd != CMD_STATUS)
				break;
			a->json = true;
			continue;
		case OPT_INTERVAL:
		case OPT_SORT:
		case OPT_LEVELS:
		case OPT_NO_COLOR:
			if (cmd != CMD_TOP)
				break;
			if (top_option(opt, a, err, errlen))
				return -EINVAL;
			continue;
		case OPT_NAME:
			if (cmd == CMD_STATUS)
				break;
			if (!rw_valid_instance_name(optarg))
				return fail(err, errlen, "--name: '%s' is not an instance name", optarg);
			strcpy(a->name, optarg);
			continue;
		case OPT_ALL:
			if (!stop)
				break;
			a->all = true;
			continue;
		}
		/* An option with its value as the next word: the option is the word before. */
		return fail(err, errlen, "unknown option '%s'",
			    optarg && optind >= 2 && argv[optind - 1] == optarg ? argv[optind - 2]
										: argv[optind - 1]);
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
