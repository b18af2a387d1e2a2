// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/levels.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/errmsg.h"

#define fail(err, len, ...) rw_fail(err, len, -EINVAL, __VA_ARGS__)

static int desc(const void *a, const void *b)
{
	return *(const uint8_t *)b - *(const uint8_t *)a;
}

int rw_parse_levels(const char *s, struct rw_levels *out, char *err, size_t errlen)
{
	char buf[256], *save = NULL;

	memset(out, 0, sizeof(*out));
	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "--levels: too long");
	strcpy(buf, s);
	for (char *t = strtok_r(buf, " \t;", &save); t; t = strtok_r(NULL, " \t;", &save)) {
		int f = strncmp(t, "v4:", 3) == 0 ? 0 : strncmp(t, "v6:", 3) == 0 ? 1 : -1;
		unsigned int max = f == 0 ? 32 : 128;
		char *save2 = NULL;

		if (f < 0)
			return fail(err, errlen, "--levels: '%s' is not v4:LEN,... or v6:LEN,...", t);
		if (out->n[f])
			return fail(err, errlen, "--levels: %s is given twice", f ? "v6" : "v4");
		for (char *l = strtok_r(t + 3, ",", &save2); l; l = strtok_r(NULL, ",", &save2)) {
			char *end;
			unsigned long v = strtoul(l, &end, 10);

			if (*l < '0' || *l > '9' || *end || v < 1 || v > max)
				return fail(err, errlen, "--levels: '%s' is not a prefix length 1 to %u",
					    l, max);
			if (out->n[f] == RW_HHH_LEVELS)
				return fail(err, errlen, "--levels: at most %d lengths a family",
					    RW_HHH_LEVELS);
			for (uint32_t i = 0; i < out->n[f]; i++) {
				if (out->len[f][i] == v)
					return fail(err, errlen, "--levels: /%lu is given twice", v);
			}
			out->len[f][out->n[f]++] = (uint8_t)v;
		}
		if (!out->n[f])
			return fail(err, errlen, "--levels: %s has no lengths", f ? "v6" : "v4");
		qsort(out->len[f], out->n[f], 1, desc);
	}
	if (!out->n[0] && !out->n[1])
		return fail(err, errlen, "--levels: give v4:LEN,... and/or v6:LEN,...");
	return 0;
}

