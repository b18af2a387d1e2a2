// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: command lines. The first byte picks the command (run, memory,
 * status, stop, rule, top, history); the rest is split at newlines into arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/historycli.h"
#include "cli/svccli.h"
#include "fuzz.h"

#define FUZZ_MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const commands[] = { "run", "memory", "status", "stop", "rule", "top",
						"history" };
	struct rw_history_args hist;
	char *argv[FUZZ_MAX_ARGS + 1], *s, err[256];
	struct rw_svc_args svc;
	struct rw_config cfg;
	uint32_t cpus = 0;
	int argc = 1, ret, which;

	if (size < 1)
		return 0;
	which = data[0] % 7;
	s = fuzz_cstring(data + 1, size - 1);
	if (!s)
		return 0;
	argv[0] = (char *)commands[which];
	for (char *tok = strtok(s, "\n"); tok && argc < FUZZ_MAX_ARGS; tok = strtok(NULL, "\n"))
		argv[argc++] = strncmp(tok, "--config", 8) == 0 ? "--top" : tok; /* no file reads */
	argv[argc] = NULL;
	if (which == 0)
		ret = rw_cli_parse_run(argc, argv, &cfg, err, sizeof(err));
	else if (which == 1)
		ret = rw_cli_parse_memory(argc, argv, &cfg, &cpus, err, sizeof(err));
	else if (which == 2)
		ret = rw_cli_parse_status(argc, argv, &svc, err, sizeof(err));
	else if (which == 3)
		ret = rw_cli_parse_stop(argc, argv, &svc, err, sizeof(err));
	else if (which == 4)
		ret = rw_cli_parse_rule(argc, argv, &svc, err, sizeof(err));
	else if (which == 5)
		ret = rw_cli_parse_top(argc, argv, &svc, err, sizeof(err));
	else
		ret = rw_cli_parse_history(argc, argv, 1795500000.0, &hist, err, sizeof(err));
	FUZZ_ASSERT(ret == 0 || ret == 1 || (ret == -EINVAL && err[0]));
	if (ret == 0 && which == 0) {
		FUZZ_ASSERT(cfg.nifaces >= 1 && cfg.nifaces <= RW_MAX_IFACES);
		FUZZ_ASSERT(rw_valid_instance_name(cfg.name));
		FUZZ_ASSERT(cfg.slots >= RW_MIN_SLOTS && cfg.slots <= RW_MAX_SLOTS);
		FUZZ_ASSERT(!(cfg.tui && cfg.json));
	}
	if (ret == 0 && which == 6)
		FUZZ_ASSERT(hist.path[0] && hist.top >= 1 && hist.since <= hist.until);
	if (ret == 0 && which == 5)
		FUZZ_ASSERT(svc.nifaces <= 1 && svc.interval_ns >= 10000000ULL);
	free(s);
	return 0;
}
