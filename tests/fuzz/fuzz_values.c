// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: rates, durations, sizes, counts and bounded integers as typed by an operator. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstring(data, size);
	uint64_t v = 0;

	if (!s)
		return 0;
	/* Each accepted value must be what the same text reads as again. */
	if (rw_parse_rate(s, &v) == 0)
		FUZZ_ASSERT(v > 0);
	if (rw_parse_duration(s, &v) == 0) {
		uint64_t again = 0;

		FUZZ_ASSERT(rw_parse_duration(s, &again) == 0 && again == v);
	}
	rw_parse_size(s, &v);
	if (rw_parse_count(s, &v) == 0) {
		uint64_t again = 0;

		FUZZ_ASSERT(rw_parse_count(s, &again) == 0 && again == v);
	}
	if (rw_parse_uint(s, 2, 32, &v) == 0)
		FUZZ_ASSERT(v >= 2 && v <= 32);
	free(s);
	return 0;
}
