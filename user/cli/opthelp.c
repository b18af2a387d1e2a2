// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --help's list of options, written from the table and wrapped; the man page's, in troff. */
#include "cli/options.h"

#include <stdbool.h>
#include <string.h>

#define HELP_COLUMN 22
#define HELP_WIDTH 79

void rw_opt_format(enum rw_opt_type type, uint64_t v, char *buf, size_t len)
{
	static const struct {
		enum rw_opt_type type;
		const char *suffix;
		uint64_t scale;
	} units[] = {
		{ RW_OPT_DURATION, "d", 86400000000000ULL }, { RW_OPT_DURATION, "h", 3600000000000ULL },
		{ RW_OPT_DURATION, "m", 60000000000ULL }, { RW_OPT_DURATION, "s", 1000000000ULL },
		{ RW_OPT_DURATION, "ms", 1000000ULL }, { RW_OPT_DURATION, "us", 1000ULL },
		{ RW_OPT_DURATION, "ns", 1 },
		{ RW_OPT_SIZE, "G", 1ULL << 30 }, { RW_OPT_SIZE, "M", 1ULL << 20 },
		{ RW_OPT_SIZE, "K", 1ULL << 10 },
		/* counts: a suffix only from five digits on, where it reads easier */
		{ RW_OPT_COUNT, "Gi", 1ULL << 30 }, { RW_OPT_COUNT, "Mi", 1ULL << 20 },
		{ RW_OPT_COUNT, "Ki", 1ULL << 10 }, { RW_OPT_COUNT, "G", 1000000000ULL },
		{ RW_OPT_COUNT, "M", 1000000ULL }, { RW_OPT_COUNT, "k", 1000ULL },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].type != type || v % units[i].scale || v < units[i].scale ||
		    (type == RW_OPT_COUNT && v < 10000))
			continue;
		snprintf(buf, len, "%llu%s", (unsigned long long)(v / units[i].scale), units[i].suffix);
		return;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

const char *rw_opt_arg_text(const struct rw_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	if (!rw_opt_takes_arg(o))
		return NULL;
	if (o->arg || o->type != RW_OPT_CHOICE)
		return o->arg ? o->arg : "VALUE";
	buf[0] = '\0';
	for (size_t i = 0; o->choices[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", o->choices[i]);
	return buf;
}

const char *rw_opt_help_for(const struct rw_opt *o, unsigned int cmds)
{
	return o->other_help && !(cmds & RW_OPT_BOTH) ? o->other_help : o->help;
}

/* The row's help for cmds and, in brackets, its range and default. */
static void help_text(const struct rw_opt *o, unsigned int cmds, char *buf, size_t len)
{
	const char *help = rw_opt_help_for(o, cmds);

	char range[64] = "", lo[24], hi[24];

	rw_opt_format(o->type, o->min, lo, sizeof(lo));
	rw_opt_format(o->type, o->max, hi, sizeof(hi));
	if (o->type == RW_OPT_COUNT && o->max)
		snprintf(range, sizeof(range), "%s..%s", lo, hi);
	else if (o->min > 1)
		snprintf(range, sizeof(range), "at least %s", lo);
	if (!range[0] && !o->def)
		snprintf(buf, len, "%s", help);
	else
		snprintf(buf, len, "%s (%s%s%s%s)", help, range, range[0] && o->def ? ", " : "",
			 o->def ? "default " : "", o->def ? o->def : "");
}

/*
 * Words of text from column col on (where a line starts: no blank before
 * its first word), wrapped at HELP_WIDTH and indented to HELP_COLUMN.
 */
static void print_wrapped(FILE *out, const char *text, int col)
{
	bool line_start = true;

	while (*text) {
		int word = (int)strcspn(text, " ");

		if (!line_start && col + 1 + word > HELP_WIDTH) {
			fprintf(out, "\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
			line_start = true;
		}
		col += fprintf(out, "%s%.*s", line_start ? "" : " ", word, text);
		line_start = false;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

static void print_row(FILE *out, const struct rw_opt *o, unsigned int cmds)
{
	char head[128], arg[96], text[640], short_name[8] = "";
	const char *a = rw_opt_arg_text(o, arg, sizeof(arg));
	int col;

	if (o->short_name)
		snprintf(short_name, sizeof(short_name), "-%c, ", o->short_name);
	/* '*' marks an option a pinned instance holds to (said under the list) */
	col = snprintf(head, sizeof(head), "%c %s--%s%s%s",
		       (o->flags & RW_OPT_PINNED) && (cmds & RW_OPT_RUN) ? '*' : ' ', short_name,
		       o->name, a ? " " : "", a ? a : "");
	help_text(o, cmds, text, sizeof(text));
	/* a head too long for its column leaves two blanks and goes on on its line */
	if (col <= HELP_COLUMN - 2)
		col = fprintf(out, "%-*s", HELP_COLUMN, head);
	else
		col = fprintf(out, "%s  ", head);
	print_wrapped(out, text, col);
}

void rw_opt_print_help(FILE *out, unsigned int cmds, unsigned int without)
{
	for (size_t i = 0; i < rw_options_count; i++) {
		if ((rw_options[i].flags & cmds) && !(rw_options[i].flags & without))
			print_row(out, &rw_options[i], cmds);
	}
}

/* text for troff: '-' and '\\' escaped, a line never opened by '.' or '\''. */
static void put_roff(FILE *out, const char *text)
{
	if (text[0] == '.' || text[0] == '\'')
		fputs("\\&", out);
	for (; *text; text++) {
		if (*text == '-')
			fputs("\\-", out);
		else if (*text == '\\')
			fputs("\\e", out);
		else
			fputc(*text, out);
	}
}

void rw_opt_print_man(FILE *out, unsigned int cmds, unsigned int without)
{
	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];
		char arg[96], text[640];
		const char *a = rw_opt_arg_text(o, arg, sizeof(arg));

		if (!(o->flags & cmds) || (o->flags & without))
			continue;
		fputs(".TP\n", out);
		if (o->short_name)
			fprintf(out, ".BR \\-%c \", \" ", o->short_name);
		else
			fputs(a ? ".BI " : ".B ", out);
		fputs("\\-\\-", out);
		put_roff(out, o->name);
		if (a && !o->short_name) {
			fputs(" \" ", out);
			put_roff(out, a);
			fputc('"', out);
		}
		fputc('\n', out);
		/* where run's item has prose of its own (dist/ratewall.8), it takes this line's place */
		if (cmds & RW_OPT_RUN)
			fprintf(out, ".\\\" @DETAIL@ %s\n", o->name);
		help_text(o, cmds, text, sizeof(text));
		put_roff(out, text);
		fputc('\n', out);
	}
}
