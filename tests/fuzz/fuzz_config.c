// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: any bytes as a config file (every key, every value parser behind it). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rw_config cfg = { .window_ns = 1000000000ULL, .slots = 10, .top = 10 };
	char err[256] = "";
	FILE *f;

	f = fuzz_stream(data, size);
	if (!f)
		return 0;
	if (rw_config_apply_stream(f, "fuzz.conf", &cfg, err, sizeof(err)) == 0)
		FUZZ_ASSERT(err[0] == '\0'); /* success leaves no reason behind */
	else
		FUZZ_ASSERT(strncmp(err, "fuzz.conf:", 10) == 0 || strncmp(err, "--config", 8) == 0);
	fclose(f);
	return 0;
}
