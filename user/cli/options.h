/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The options of `ratewall run`, `memory`, `status`, `stop`, `rule` and `top`,
 * each declared once as a row of rw_options[] (options.c): its spelling,
 * argument type, the field it sets, range, default, help and the subcommands
 * that take it. The getopt tables, the parse, the defaults, the config-file
 * keys, each subcommand's --help, the man page's options and shell completion
 * are all made from the rows.
 */
#ifndef RW_OPTIONS_H
#define RW_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/config.h"

/* What an option's parse fills: the run's config, memory's --cpus and stop's --all. */
struct rw_cli_args {
	struct rw_config cfg;
	uint32_t cpus; /* memory --cpus; 0 = not given */
	bool all;      /* stop --all */
};

/* How an argument is spelled; every option of one type takes the same spellings. */
enum rw_opt_type {
	RW_OPT_SWITCH,   /* no argument: sets a bool */
	RW_OPT_RATE,     /* 10k, 1.5M, 2G (powers of 1000) */
	RW_OPT_SIZE,     /* 64K, 256M, 1G (powers of 1024) */
	RW_OPT_COUNT,    /* a whole number: 1000, 10k, 64Ki */
	RW_OPT_DURATION, /* 250us, 500ms, 2s, 1m, 1h, 7d */
	RW_OPT_CHOICE,   /* one of the row's names; the field gets its index */
	RW_OPT_PATH,     /* a file path into a char array */
	RW_OPT_CUSTOM,   /* the row's own parse function */
	RW_OPT_META,     /* --config and --help: acted on by the parser itself */
};

/*
 * Where an option applies, and what it is: the commands that take it from
 * RW_OPT_FIRST_COMMAND up, what it is below, so that a new flag of either kind
 * cannot take a bit of the other (the assertion after the enum).
 */
enum {
	RW_OPT_KEY = 1u << 0,     /* a config-file key */
	RW_OPT_PINNED = 1u << 1,  /* enforced by the data path: a pinned instance's differs only with --replace */
	RW_OPT_DASH = 1u << 2,    /* path: "-" is stdout */
	RW_OPT_ABSOLUTE = 1u << 3, /* path: must start with '/' */
	RW_OPT_DIR = 1u << 4,     /* completion: a directory */
	RW_OPT_INSTANCE = 1u << 5, /* completion: a pinned instance's name */
	RW_OPT_NO_DEFAULT = 1u << 6, /* def is shown in --help only: resolved later (max-flows) */
	RW_OPT_USER = 1u << 7,    /* completion: a user name */
	RW_OPT_FIRST_COMMAND = 1u << 16,
	RW_OPT_RUN = RW_OPT_FIRST_COMMAND << 0,    /* ratewall run takes it */
	RW_OPT_MEMORY = RW_OPT_FIRST_COMMAND << 1, /* ratewall memory takes it */
	RW_OPT_STATUS = RW_OPT_FIRST_COMMAND << 2, /* ratewall status takes it */
	RW_OPT_STOP = RW_OPT_FIRST_COMMAND << 3,   /* ratewall stop takes it */
	RW_OPT_RULE = RW_OPT_FIRST_COMMAND << 4,   /* ratewall rule takes it */
	RW_OPT_TOP = RW_OPT_FIRST_COMMAND << 5,    /* ratewall top takes it */
};
_Static_assert((RW_OPT_KEY | RW_OPT_PINNED | RW_OPT_DASH | RW_OPT_ABSOLUTE | RW_OPT_DIR |
		RW_OPT_INSTANCE | RW_OPT_NO_DEFAULT | RW_OPT_USER) < RW_OPT_FIRST_COMMAND,
	       "what an option is stays below the commands' bits");
#define RW_OPT_BOTH (RW_OPT_RUN | RW_OPT_MEMORY)
/* The commands on pinned instances: an option's other_help is theirs. */
#define RW_OPT_PINS (RW_OPT_STATUS | RW_OPT_STOP | RW_OPT_RULE | RW_OPT_TOP)
#define RW_OPT_COMMANDS (RW_OPT_BOTH | RW_OPT_PINS)

struct rw_opt;
typedef int (*rw_opt_parse_fn)(const struct rw_opt *o, const char *arg, struct rw_cli_args *a,
			       char *err, size_t errlen);

struct rw_opt {
	const char *name;           /* the long option, without "--"; also its config key */
	char short_name;            /* 0: none */
	enum rw_opt_type type;
	size_t offset, size;        /* the field in struct rw_cli_args */
	uint64_t min, max;          /* count, size, duration: inclusive range (max 0: none) */
	const char *const *choices; /* choice: NULL-terminated, in the field's enum order */
	rw_opt_parse_fn parse;      /* custom */
	const char *def;            /* the default as typed, applied through the parse; NULL: none */
	const char *arg;            /* the argument's placeholder in --help */
	const char *help;
	const char *other_help;     /* status, stop, rule, top: where it means more or less there */
	unsigned int flags;
};

/* Rows the table may hold (the parser's arrays); a unit test checks it. */
#define RW_OPTIONS_MAX 80

extern const struct rw_opt rw_options[];
/* --sort's names in enum rw_sort order, NULL-terminated (run and top). */
extern const char *const rw_sort_names[];
extern const size_t rw_options_count;

static inline bool rw_opt_takes_arg(const struct rw_opt *o)
{
	return o->type == RW_OPT_META ? o->arg != NULL : o->type != RW_OPT_SWITCH;
}

/* The command bit (RW_OPT_RUN...) of a subcommand's name; 0 for one not in the table. */
unsigned int rw_opt_command(const char *name);
/* The names of the commands in a set of flags, comma-joined ("run,memory"); "" for none. */
const char *rw_opt_commands_text(unsigned int flags, char *buf, size_t len);
/* The row of a long option, or NULL. */
const struct rw_opt *rw_opt_find(const char *name);
/* Applies one option's argument (NULL for a switch) through its type. 0 or -EINVAL. */
int rw_opt_apply(const struct rw_opt *o, const char *arg, struct rw_cli_args *a, char *err,
		 size_t errlen);
/* Zeroes a and applies every row's default. */
void rw_opt_defaults(struct rw_cli_args *a);
/*
 * The getopt table of the rows with a flag in cmds, NULL-terminated; each
 * entry's val is 256 + its row's index. out holds rw_options_count + 1.
 */
void rw_opt_getopt(unsigned int cmds, struct option *out);
/* The row a getopt val stands for, or NULL. */
const struct rw_opt *rw_opt_of_val(int val);
/* "RATE", "N", ... and "src|dst|pair|flow" for a choice (buf for the latter). */
const char *rw_opt_arg_text(const struct rw_opt *o, char *buf, size_t len);
/* v as --help writes a value of this type: 64Ki, 10k, 10ms, 1M. */
void rw_opt_format(enum rw_opt_type type, uint64_t v, char *buf, size_t len);
/*
 * The help of the rows with a flag in cmds and none in without, wrapped to 79
 * columns; '*' marks the pinned ones where cmds holds run.
 */
void rw_opt_print_help(FILE *out, unsigned int cmds, unsigned int without);
/*
 * The same rows as man page items (.TP, the option, its help); for run each
 * help line follows a comment `.\" @DETAIL@ NAME` that the man page's own
 * prose of that option replaces (tools/manpage.awk).
 */
void rw_opt_print_man(FILE *out, unsigned int cmds, unsigned int without);
/* A row's help for the commands in cmds: its other_help for the pinned instances' commands. */
const char *rw_opt_help_for(const struct rw_opt *o, unsigned int cmds);

#endif
