/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Arguments of `ratewall status`, `stop`, `rule` and `top`; their options are rows of options.c. */
#ifndef RW_SVCCLI_H
#define RW_SVCCLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include "cli/config.h"

#define RW_RULE_TEXT_MAX 512

struct rw_svc_args {
	char pin_root[RW_PIN_ROOT_MAX];
	char name[RW_NAME_MAX]; /* stop --name */
	bool all;               /* stop --all */
	bool json;              /* status --json */
	char ifnames[RW_MAX_IFACES][IF_NAMESIZE]; /* stop IFACE... */
	uint32_t nifaces;
	enum { RW_RULE_OP_ADD, RW_RULE_OP_DEL, RW_RULE_OP_LIST } rule_op; /* rule */
	char rule_text[RW_RULE_TEXT_MAX]; /* rule add: the rule; del: its CIDR */
	/* top */
	uint64_t interval_ns;
	enum rw_sort sort;
	struct rw_levels levels; /* prefix levels the view cycles through; none: its defaults */
	bool no_color;
};

/* argv[0] is the command. 0, 1 for --help, or -EINVAL with the reason in err. */
int rw_cli_parse_status(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen);
int rw_cli_parse_stop(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen);
/* `top [IFACE] [--name NAME] [--pin-dir DIR] [--interval D] [--sort S] [--levels L] [--no-color]`. */
int rw_cli_parse_top(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen);
/* `rule add RULE... | del CIDR | list` [--name NAME] [--pin-dir DIR]. */
int rw_cli_parse_rule(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen);

#endif
