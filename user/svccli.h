/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Arguments of `ratewall status` and `ratewall stop`. */
#ifndef RW_SVCCLI_H
#define RW_SVCCLI_H

#include <stdbool.h>
#include <stddef.h>
#include "config.h"

struct rw_svc_args {
	char pin_root[RW_PIN_ROOT_MAX];
	char name[RW_NAME_MAX]; /* stop --name */
	bool all;               /* stop --all */
	bool json;              /* status --json */
	char ifnames[RW_MAX_IFACES][IF_NAMESIZE]; /* stop IFACE... */
	uint32_t nifaces;
};

/* argv[0] is the command. 0, 1 for --help, or -EINVAL with the reason in err. */
int rw_cli_parse_status(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen);
int rw_cli_parse_stop(int argc, char **argv, struct rw_svc_args *a, char *err, size_t errlen);

#endif
