// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "kernel/meminfo.h"

#include <inttypes.h>

uint64_t rw_meminfo_available(FILE *meminfo)
{
	char line[256];
	uint64_t kib;

	while (fgets(line, sizeof(line), meminfo)) {
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1)
			return kib * 1024;
	}
	return 0;
}
