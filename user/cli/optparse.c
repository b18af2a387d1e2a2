// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parse of an option by its type: every rate, size, count, duration,
 * choice and path is read the same way and refused with the same words, and
 * lands in the field its row names. Also the defaults and the getopt table.
 */
#include "cli/options.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "model/errmsg.h"
#include "model/units.h"

#define fail(err, errlen, ...) rw_fail(err, errlen, -EINVAL, __VA_ARGS__)

static void *field(const struct rw_opt *o, struct rw_cli_args *a)
{
	return (char *)a + o->offset;
}

/* A number into its field, whatever its width (bool and uint8_t alike are one byte). */
static void store(const struct rw_opt *o, struct rw_cli_args *a, uint64_t v)
{
	void *f = field(o, a);

	switch (o->size) {
	case 1: *(uint8_t *)f = (uint8_t)v; break;
	case 2: *(uint16_t *)f = (uint16_t)v; break;
	case 4: *(uint32_t *)f = (uint32_t)v; break;
	default: *(uint64_t *)f = v; break;
	}
}

static bool in_range(const struct rw_opt *o, uint64_t v)
{
	return v >= o->min && (!o->max || v <= o->max);
}

/* "a, b, c": the names of a choice, for its error message. */
static void choice_list(const struct rw_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; o->choices[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->choices[i]);
}

static int apply_choice(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
			size_t errlen)
{
	char names[128];

	for (size_t i = 0; o->choices[i]; i++) {
		if (strcmp(arg, o->choices[i]) == 0) {
			store(o, a, i);
			return 0;
		}
	}
	choice_list(o, names, sizeof(names));
	return fail(err, errlen, "--%s: '%s' is not one of %s", o->name, arg, names);
}

static int apply_path(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		      size_t errlen)
{
	bool dash = strcmp(arg, "-") == 0;

	if (o->flags & RW_OPT_ABSOLUTE) {
		if (arg[0] != '/' || strlen(arg) >= o->size)
			return fail(err, errlen, "--%s: '%s' must be an absolute path shorter than %zu "
				    "bytes", o->name, arg, o->size);
	} else if (!arg[0] || strlen(arg) >= o->size || (dash && !(o->flags & RW_OPT_DASH))) {
		return fail(err, errlen, "--%s: give a file path%s shorter than %zu bytes", o->name,
			    o->flags & RW_OPT_DASH ? " (or -)" : "", o->size);
	}
	strcpy(field(o, a), arg);
	return 0;
}

/* The words a refused number of this type gets. */
static int refuse_number(const struct rw_opt *o, const char *arg, char *err, size_t errlen)
{
	static const char *const noun[] = {
		[RW_OPT_RATE] = "a rate", [RW_OPT_SIZE] = "a size", [RW_OPT_DURATION] = "a duration",
	};
	static const char *const examples[] = {
		[RW_OPT_RATE] = "1000, 10k, 1.5M", [RW_OPT_SIZE] = "64M, 1G",
		[RW_OPT_DURATION] = "500ms, 2s, 5m",
	};
	char lo[32];

	if (o->type == RW_OPT_COUNT) {
		/* plain digits: the bounds read the same whatever spellings are known */
		return fail(err, errlen, "--%s: '%s' must be a whole number from %llu to %llu", o->name,
			    arg, (unsigned long long)o->min, (unsigned long long)o->max);
	}
	if (o->min > 1) {
		rw_opt_format(o->type, o->min, lo, sizeof(lo));
		return fail(err, errlen, "--%s: '%s' must be %s of at least %s (e.g. %s)", o->name, arg,
			    noun[o->type], lo, examples[o->type]);
	}
	return fail(err, errlen, "--%s: '%s' is not %s (e.g. %s)", o->name, arg, noun[o->type],
		    examples[o->type]);
}

static int apply_number(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
			size_t errlen)
{
	uint64_t v;
	int e;

	switch (o->type) {
	case RW_OPT_RATE: e = rw_parse_rate(arg, &v); break;
	case RW_OPT_SIZE: e = rw_parse_size(arg, &v); break;
	case RW_OPT_DURATION: e = rw_parse_duration(arg, &v); break;
	default: e = rw_parse_count(arg, &v); break;
	}
	if (e || !in_range(o, v))
		return refuse_number(o, arg, err, errlen);
	store(o, a, v);
	return 0;
}

int rw_opt_apply(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		 size_t errlen)
{
	switch (o->type) {
	case RW_OPT_SWITCH:
		store(o, a, 1);
		return 0;
	case RW_OPT_CHOICE:
		return apply_choice(o, arg, a, err, errlen);
	case RW_OPT_PATH:
		return apply_path(o, arg, a, err, errlen);
	case RW_OPT_CUSTOM:
		return o->parse(o, arg, a, err, errlen);
	case RW_OPT_RATE:
	case RW_OPT_SIZE:
	case RW_OPT_COUNT:
	case RW_OPT_DURATION:
		return apply_number(o, arg, a, err, errlen);
	case RW_OPT_META:
		break;
	}
	return fail(err, errlen, "internal: --%s is not applied to a field", o->name);
}

void rw_opt_defaults(struct rw_cli_args *a)
{
	char err[160];

	*a = (struct rw_cli_args){ 0 };
	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];

		/* a default the parse refuses is a bug of the table, caught by the unit tests */
		if (o->def && !(o->flags & RW_OPT_NO_DEFAULT))
			rw_opt_apply(o, o->def, a, err, sizeof(err));
	}
}

void rw_opt_getopt(unsigned int cmds, struct option *out)
{
	size_t n = 0;

	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];

		if (!(o->flags & cmds))
			continue;
		out[n++] = (struct option){ o->name, rw_opt_takes_arg(o) ? required_argument : no_argument, NULL,
					    256 + (int)i };
	}
	out[n] = (struct option){ NULL, 0, NULL, 0 };
}

const struct rw_opt *rw_opt_of_val(int val)
{
	for (size_t i = 0; i < rw_options_count; i++) {
		if (val == 256 + (int)i || (rw_options[i].short_name && val == rw_options[i].short_name))
			return &rw_options[i];
	}
	return NULL;
}
