// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* strptime */
#include "cli/historycli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "model/errmsg.h"
#include "model/instance.h"
#include "model/key.h"
#include "model/rules.h"
#include "model/units.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

void rw_history_usage(FILE *out)
{
	fprintf(out,
		"usage: ratewall history FILE [--since WHEN] [--until WHEN] [--top N]\n"
		"                        [--key ADDR|CIDR] [--kind src|dst|pair|flow]\n"
		"                        [--name NAME] [--sum] [--json]\n"
		"\n"
		"Read what run --history FILE kept: each window's totals and top keys, oldest\n"
		"first, or with --sum each key's totals over the range, ranked, with the most\n"
		"a key could have sent in the windows whose top-N did not list it.\n"
		"\n"
		"  --since, --until WHEN  a duration back from now (15m, 2h, 7d), a local\n"
		"                      time ('2026-11-24 03:00', '03:00' today) or @UNIXTIME\n"
		"  --top N             keys shown a window, or in the --sum (default 10)\n"
		"  --key ADDR|CIDR     only keys whose own address lies in it\n"
		"  --kind KIND         which ranking (default: each window's --key kind)\n"
		"  --name NAME         one instance's windows (default: every instance)\n"
		"  --sum               totals over the range, one row a key\n"
		"  --json              one JSON object a window (or one for the --sum)\n"
		"\n"
		"It reads while a loader writes, and never blocks it.\n");
}

/* s read as fmt over the fields of base (what fmt leaves out), a local time. */
static bool local_time(const char *s, const char *fmt, const struct tm *base, double *out)
{
	struct tm tm = *base;
	const char *end = strptime(s, fmt, &tm);
	time_t t;

	if (!end || *end)
		return false;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return false;
	*out = (double)t;
	return true;
}

int rw_parse_when(const char *s, double now, double *out)
{
	static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
					       "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d" };
	static const char *const times[] = { "%H:%M:%S", "%H:%M" };
	uint64_t ns;
	struct tm tm;
	time_t t;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '@') {
		char *end;
		double v = strtod(s + 1, &end);

		if (end == s + 1 || *end || !isfinite(v) || v < 0)
			return -EINVAL;
		*out = v;
		return 0;
	}
	if (!rw_parse_duration(s, &ns) && strchr("0123456789.", s[strlen(s) - 1]) == NULL) {
		*out = now - ns / 1e9; /* "15m": that long ago (a bare number is no duration here) */
		return 0;
	}
	/* A date (and time), or a time of today, local. */
	memset(&tm, 0, sizeof(tm));
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (local_time(s, formats[i], &tm, out))
			return 0;
	}
	t = (time_t)now;
	localtime_r(&t, &tm);
	tm.tm_sec = 0;
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (local_time(s, times[i], &tm, out))
			return 0;
	}
	return -EINVAL;
}

enum { OPT_SINCE = 256, OPT_UNTIL, OPT_TOP, OPT_KEY, OPT_KIND, OPT_NAME, OPT_SUM, OPT_JSON };

static const struct option options[] = {
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "sum", no_argument, NULL, OPT_SUM },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct option *rw_cli_history_options(void)
{
	return options;
}

static int parse_one(int opt, const char *arg, double now, struct rw_history_args *a, char *err,
		     size_t errlen)
{
	char why[160];
	uint64_t v;

	switch (opt) {
	case OPT_SINCE:
	case OPT_UNTIL:
		if (rw_parse_when(arg, now, opt == OPT_SINCE ? &a->since : &a->until))
			return fail(err, errlen, "--%s: '%s' is not a time (e.g. 15m, 2h, 03:00, "
				    "'2026-11-24 03:00', @1700000000)", opt == OPT_SINCE ? "since" : "until",
				    arg);
		return 0;
	case OPT_TOP:
		if (rw_parse_count(arg, &v) || v < 1 || v > RW_MAX_TOP)
			return fail(err, errlen, "--top: '%s' must be a whole number from 1 to %d", arg,
				    RW_MAX_TOP);
		a->top = (uint32_t)v;
		return 0;
	case OPT_KEY:
		if (rw_parse_cidr(arg, &a->key, &a->key_len, why, sizeof(why)))
			return fail(err, errlen, "--key: %s", why);
		a->has_key = true;
		return 0;
	case OPT_KIND:
		a->kind = rw_key_kind_parse(arg);
		if (a->kind < 0) {
			char kinds[64];

			rw_key_kind_choices(kinds, sizeof(kinds));
			return fail(err, errlen, "--kind: '%s' is not one of %s", arg, kinds);
		}
		return 0;
	case OPT_NAME:
		if (!rw_valid_instance_name(arg))
			return fail(err, errlen, "--name: '%s' is not an instance name", arg);
		snprintf(a->name, sizeof(a->name), "%s", arg);
		return 0;
	case OPT_SUM:
		a->sum = true;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	}
	return fail(err, errlen, "internal: unhandled option %d", opt);
}

int rw_cli_parse_history(int argc, char **argv, double now, struct rw_history_args *a, char *err,
			 size_t errlen)
{
	int opt, ret;

	*a = (struct rw_history_args){ .until = INFINITY, .top = 10, .kind = -1 };
	err[0] = '\0';
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == ':')
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		if (opt == '?')
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		ret = parse_one(opt, optarg, now, a, err, errlen);
		if (ret)
			return ret;
	}
	if (optind >= argc)
		return fail(err, errlen, "missing FILE: ratewall history FILE [options]");
	if (optind + 1 < argc)
		return fail(err, errlen, "unexpected argument '%s'", argv[optind + 1]);
	if (!argv[optind][0] || strlen(argv[optind]) >= sizeof(a->path))
		return fail(err, errlen, "FILE: give a path shorter than %zu bytes", sizeof(a->path));
	snprintf(a->path, sizeof(a->path), "%s", argv[optind]);
	if (a->since > a->until)
		return fail(err, errlen, "--since is after --until: nothing lies between");
	return 0;
}
