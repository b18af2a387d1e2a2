// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How every part of the generator refuses what it was asked: one line on
 * stderr, exit 2. Its own file, so the parts need nothing of rwgen.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/units.h"
#include "opts.h"

void rwgen_die(const char *fmt, ...)
{
	va_list ap;

	fputs("rwgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

uint64_t rwgen_parse_u64_or_die(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (rw_parse_uint(s, min, max, &v))
		rwgen_die("%s: '%s' must be a whole number from %llu to %llu", opt, s,
		    (unsigned long long)min, (unsigned long long)max);
	return v;
}

