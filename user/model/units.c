// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "model/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Splits "1.5M" into 1.5 and "M". Rejects empty input, signs, hex, inf/nan and
 * exponents: strtod accepts all of them and none is something an operator means.
 */
static int split_number(const char *s, double *value, const char **suffix)
{
	const char *p = s;
	int digits = 0, dots = 0;
	char *end;

	if (!s)
		return -EINVAL;
	for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
		if (*p == '.')
			dots++;
		else
			digits++;
	}
	if (digits == 0 || dots > 1)
		return -EINVAL;
	errno = 0;
	*value = strtod(s, &end);
	if (errno || end != p || !isfinite(*value))
		return -EINVAL;
	*suffix = p;
	return 0;
}

static int scale_to_u64(double value, double mult, uint64_t *out)
{
	double v = value * mult;

	if (!(v >= 1.0) || v >= 18446744073709551615.0)
		return -ERANGE;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

struct unit {
	const char *suffix;
	double scale;
};

/* A number followed by exactly one of the suffixes in units. */
static int parse_scaled(const char *s, const struct unit *units, size_t n, uint64_t *out)
{
	const char *suf;
	double v;
	int err;

	err = split_number(s, &v, &suf);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(suf, units[i].suffix) == 0)
			return scale_to_u64(v, units[i].scale, out);
	}
	return -EINVAL;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

int rw_parse_rate(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "k", 1e3 }, { "K", 1e3 }, { "m", 1e6 }, { "M", 1e6 },
		{ "g", 1e9 }, { "G", 1e9 },
	};

	return parse_scaled(s, units, ARRAY_LEN(units), out);
}

int rw_parse_duration(const char *s, uint64_t *ns)
{
	static const struct unit units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "", 1e9 }, { "m", 60e9 }, { "h", 3600e9 }, { "d", 86400e9 },
	};

	return parse_scaled(s, units, ARRAY_LEN(units), ns);
}

int rw_parse_size(const char *s, uint64_t *bytes)
{
#define KI 1024.0
	static const struct unit units[] = {
		{ "", 1 }, { "B", 1 },
		{ "k", KI }, { "K", KI }, { "KB", KI }, { "KiB", KI },
		{ "m", KI * KI }, { "M", KI * KI }, { "MB", KI * KI }, { "MiB", KI * KI },
		{ "g", KI * KI * KI }, { "G", KI * KI * KI }, { "GB", KI * KI * KI }, { "GiB", KI * KI * KI },
	};
#undef KI

	return parse_scaled(s, units, ARRAY_LEN(units), bytes);
}

int rw_parse_share_ppm(const char *s, uint64_t *ppm)
{
	static const struct unit units[] = { { "", 1e4 }, { "%", 1e4 } };

	return parse_scaled(s, units, ARRAY_LEN(units), ppm);
}

/* The multiplier a count's suffix stands for, or 0. */
static uint64_t count_scale(const char *suffix)
{
	static const struct {
		const char *suffix;
		uint64_t scale;
	} units[] = {
		{ "", 1 }, { "k", 1000 }, { "K", 1000 }, { "m", 1000000 }, { "M", 1000000 },
		{ "g", 1000000000 }, { "G", 1000000000 },
		{ "Ki", 1ULL << 10 }, { "Mi", 1ULL << 20 }, { "Gi", 1ULL << 30 },
	};

	for (size_t i = 0; i < ARRAY_LEN(units); i++) {
		if (strcmp(suffix, units[i].suffix) == 0)
			return units[i].scale;
	}
	return 0;
}

/*
 * Exact, in integers: 1.5k is 1500 and 1.0005k no count at all. At most 18
 * digits after the point keep the fraction's scale within 64 bits.
 */
int rw_parse_count(const char *s, uint64_t *out)
{
	unsigned __int128 whole = 0, frac = 0, frac_scale = 1, v;
	int digits = 0, frac_digits = 0;
	uint64_t scale;

	if (!s)
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++, digits++) {
		whole = whole * 10 + (unsigned int)(*s - '0');
		if (whole > UINT64_MAX)
			return -ERANGE;
	}
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, digits++) {
			if (++frac_digits > 18)
				return -EINVAL;
			frac = frac * 10 + (unsigned int)(*s - '0');
			frac_scale *= 10;
		}
	}
	scale = count_scale(s);
	if (!digits || !scale || frac * scale % frac_scale)
		return -EINVAL;
	v = whole * scale + frac * scale / frac_scale;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

int rw_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end != '\0')
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

void rw_format_si(double v, char *buf, size_t len)
{
	static const char *suffix[] = { "", "k", "M", "G", "T" };
	int i = 0;

	/* Decided on the value as it will be rounded: 999.7 is 1.00k, 9.998k is 10.0k. */
	while (fabs(v) >= 999.5 && i < 4) {
		v /= 1000.0;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*f%s", fabs(v) < 9.995 ? 2 : fabs(v) < 99.95 ? 1 : 0, v,
			 suffix[i]);
}

void rw_format_bytes(double v, char *buf, size_t len)
{
	static const char *suffix[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (v >= 1024.0 && i < 4) {
		v /= 1024.0;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, suffix[i]);
}
