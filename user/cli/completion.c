// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli/completion.h"

#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "cli/historycli.h"
#include "cli/options.h"
#include "model/key.h"

/* What a value of an option is completed with. */
enum comp_value { V_NONE, V_WORDS, V_FILES, V_DIRS, V_INSTANCES, V_USERS, V_COUNT };

struct comp_opt {
	const char *name;
	bool takes_arg;
	enum comp_value value;
	const char *const *words; /* V_WORDS: NULL-terminated */
	const char *help;         /* NULL: none */
};

#define COMP_OPTS_MAX (RW_OPTIONS_MAX + 16) /* the table's, or history's */

static enum comp_value row_value(const struct rw_opt *o)
{
	if (!rw_opt_takes_arg(o))
		return V_NONE;
	if (o->choices)
		return V_WORDS;
	if (o->flags & RW_OPT_INSTANCE)
		return V_INSTANCES;
	if (o->flags & RW_OPT_DIR)
		return V_DIRS;
	if (o->flags & RW_OPT_USER)
		return V_USERS;
	return o->type == RW_OPT_PATH || o->type == RW_OPT_META ? V_FILES : V_NONE;
}

/* history's options that take a value worth completing. */
static enum comp_value getopt_value(const struct option *o, const char *const **words)
{
	if (strcmp(o->name, "name") == 0)
		return V_INSTANCES;
	if (strcmp(o->name, "pin-dir") == 0)
		return V_DIRS;
	if (strcmp(o->name, "sort") == 0)
		return *words = rw_sort_names, V_WORDS;
	if (strcmp(o->name, "kind") == 0)
		return *words = rw_key_kind_names, V_WORDS;
	return V_NONE;
}

/* The options of a command; 0 for one that takes none. */
static size_t command_options(const char *cmd, struct comp_opt out[COMP_OPTS_MAX])
{
	const struct option *g = NULL;
	unsigned int want = rw_opt_command(cmd);
	size_t n = 0;

	for (size_t i = 0; want && i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];

		if (o->flags & want)
			out[n++] = (struct comp_opt){ o->name, rw_opt_takes_arg(o), row_value(o),
						      o->choices, rw_opt_help_for(o, want) };
	}
	if (strcmp(cmd, "history") == 0)
		g = rw_cli_history_options();
	for (; g && g->name; g++) {
		const char *const *words = NULL;
		enum comp_value v = getopt_value(g, &words);

		out[n++] = (struct comp_opt){ g->name, g->has_arg == required_argument,
					      g->has_arg == required_argument ? v : V_NONE, words, NULL };
	}
	return n;
}

static void print_words(FILE *out, const char *const *words, const char *sep)
{
	for (size_t i = 0; words[i]; i++)
		fprintf(out, "%s%s", i ? sep : "", words[i]);
}

/* "--a|--b" for the options whose value completes as v; false when none does. */
static bool print_pattern(FILE *out, const struct comp_opt *o, size_t n, enum comp_value v,
			  const char *indent)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!o[i].takes_arg || o[i].value != v)
			continue;
		fprintf(out, "%s--%s", any ? "|" : indent, o[i].name);
		any = true;
	}
	if (any)
		fputs(") ", out);
	return any;
}

/* What each shell runs to offer a kind of value (words are per option). */
static const char *const bash_value[V_COUNT] = {
	[V_NONE] = "return ;;",
	[V_FILES] = "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;",
	[V_DIRS] = "COMPREPLY=($(compgen -d -- \"$cur\")); return ;;",
	[V_INSTANCES] = "COMPREPLY=($(compgen -W \"$(_ratewall_instances)\" -- \"$cur\")); return ;;",
	[V_USERS] = "COMPREPLY=($(compgen -u -- \"$cur\")); return ;;",
};
static const char *const zsh_value[V_COUNT] = {
	[V_NONE] = "return ;;",
	[V_FILES] = "_files; return ;;",
	[V_DIRS] = "_files -/; return ;;",
	[V_INSTANCES] = "_ratewall_instances; return ;;",
	[V_USERS] = "_users; return ;;",
};

/* The case on the word before the cursor: an option's value. */
static void print_value_cases(FILE *out, const struct comp_opt *o, size_t n, bool zsh)
{
	const char *const *run = zsh ? zsh_value : bash_value;

	fputs("\t\tcase $prev in\n", out);
	for (size_t i = 0; i < n; i++) {
		if (!o[i].takes_arg || o[i].value != V_WORDS)
			continue;
		fprintf(out, "\t\t--%s) %s", o[i].name, zsh ? "compadd -- " : "COMPREPLY=($(compgen -W '");
		print_words(out, o[i].words, " ");
		fputs(zsh ? "; return ;;\n" : "' -- \"$cur\")); return ;;\n", out);
	}
	for (int v = V_NONE; v < V_COUNT; v++) {
		if (v != V_WORDS && print_pattern(out, o, n, (enum comp_value)v, "\t\t"))
			fprintf(out, "%s\n", run[v]);
	}
	fputs("\t\tesac\n", out);
}

/* zsh's _describe takes "name:description": a colon in either is escaped. */
static void print_zsh_item(FILE *out, const char *name, const char *help)
{
	fprintf(out, " '%s", name);
	if (help) {
		/* the first clause of the help: what fits on a menu line */
		size_t len = strcspn(help, ";:(");

		fputc(':', out);
		for (size_t i = 0; i < len && i < 60; i++) {
			if (help[i] == '\'')
				fputs("'\\''", out);
			else
				fputc(help[i], out);
		}
	}
	fputc('\'', out);
}

static void print_command_case(FILE *out, const struct rw_comp_command *c, bool zsh)
{
	struct comp_opt o[COMP_OPTS_MAX];
	size_t n = command_options(c->name, o);

	fprintf(out, "\t%s)\n\t\topts=(", c->name);
	for (size_t i = 0; i < n; i++) {
		if (zsh) {
			char name[64];

			snprintf(name, sizeof(name), "--%s", o[i].name);
			print_zsh_item(out, name, o[i].help);
		} else {
			fprintf(out, " --%s", o[i].name);
		}
	}
	fputs(" )\n", out);
	if (n)
		print_value_cases(out, o, n, zsh);
	fprintf(out, "\t\targs='%s' ;;\n", c->args);
}

static const char bash_head[] =
	"# bash completion for ratewall(8); made by: ratewall completion bash\n"
	"\n"
	"# The instances pinned under --pin-dir (as given so far) or the default root.\n"
	"_ratewall_instances()\n"
	"{\n"
	"\tlocal root=" RW_DEFAULT_PIN_ROOT " i d\n"
	"\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
	"\t\t[[ ${COMP_WORDS[i]} == --pin-dir ]] && root=${COMP_WORDS[i + 1]}\n"
	"\tdone\n"
	"\tfor d in \"$root\"/*/; do\n"
	"\t\t[[ -d $d ]] || continue\n"
	"\t\td=${d%/}\n"
	"\t\tprintf '%s\\n' \"${d##*/}\"\n"
	"\tdone\n"
	"}\n"
	"\n"
	"_ratewall_ifaces()\n"
	"{\n"
	"\tlocal d\n"
	"\tfor d in /sys/class/net/*; do\n"
	"\t\t[[ -e $d ]] && printf '%s\\n' \"${d##*/}\"\n"
	"\tdone\n"
	"}\n"
	"\n"
	"_ratewall()\n"
	"{\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\tlocal cmd=${COMP_WORDS[1]} args= opts\n"
	"\tCOMPREPLY=()\n"
	"\t[[ $prev == = ]] && prev=${COMP_WORDS[COMP_CWORD - 2]} # --opt=value\n";

static const char bash_tail[] =
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"${opts[*]}\" -- \"$cur\"))\n"
	"\telif [[ $args == @ifaces ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$(_ratewall_ifaces)\" -- \"$cur\"))\n"
	"\telif [[ $args == @files ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\telif [[ -n $args && $COMP_CWORD -eq 2 ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$args\" -- \"$cur\"))\n"
	"\tfi\n"
	"}\n"
	"complete -F _ratewall ratewall\n";

static void print_bash(FILE *out, const struct rw_comp_command *cmds, size_t ncmds)
{
	fputs(bash_head, out);
	fputs("\tif ((COMP_CWORD == 1)); then\n\t\tCOMPREPLY=($(compgen -W '", out);
	for (size_t i = 0; i < ncmds; i++)
		fprintf(out, "%s%s", i ? " " : "", cmds[i].name);
	fputs("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n", out);
	for (size_t i = 0; i < ncmds; i++)
		print_command_case(out, &cmds[i], false);
	fputs("\t*) return ;;\n\tesac\n", out);
	fputs(bash_tail, out);
}

static const char zsh_head[] =
	"#compdef ratewall\n"
	"# zsh completion for ratewall(8); made by: ratewall completion zsh\n"
	"\n"
	"# The instances pinned under --pin-dir (as given so far) or the default root.\n"
	"_ratewall_instances() {\n"
	"\tlocal root=" RW_DEFAULT_PIN_ROOT " i\n"
	"\tfor ((i = 3; i < CURRENT; i++)); do\n"
	"\t\t[[ $words[i] == --pin-dir ]] && root=$words[i+1]\n"
	"\tdone\n"
	"\tcompadd -- $root/*(N/:t)\n"
	"}\n"
	"\n"
	"_ratewall() {\n"
	"\tlocal cur=$words[CURRENT] prev=$words[CURRENT-1] cmd=$words[2] args=\n"
	"\tlocal -a opts cmds\n";

static const char zsh_tail[] =
	"\tif [[ $cur == -* ]]; then\n"
	"\t\t_describe -t options option opts\n"
	"\telif [[ $args == @ifaces ]]; then\n"
	"\t\tcompadd -- /sys/class/net/*(N:t)\n"
	"\telif [[ $args == @files ]]; then\n"
	"\t\t_files\n"
	"\telif [[ -n $args ]] && (( CURRENT == 3 )); then\n"
	"\t\tcompadd -- ${=args}\n"
	"\tfi\n"
	"}\n"
	"\n"
	"_ratewall \"$@\"\n";

static void print_zsh(FILE *out, const struct rw_comp_command *cmds, size_t ncmds)
{
	fputs(zsh_head, out);
	fputs("\tif (( CURRENT == 2 )); then\n\t\tcmds=(", out);
	for (size_t i = 0; i < ncmds; i++)
		print_zsh_item(out, cmds[i].name, cmds[i].help);
	fputs(" )\n\t\t_describe -t commands command cmds\n\t\treturn\n\tfi\n\tcase $cmd in\n", out);
	for (size_t i = 0; i < ncmds; i++)
		print_command_case(out, &cmds[i], true);
	fputs("\t*) return ;;\n\tesac\n", out);
	fputs(zsh_tail, out);
}

int rw_completion_print(FILE *out, const char *shell, const struct rw_comp_command *cmds,
			size_t ncmds)
{
	if (strcmp(shell, "bash") == 0)
		print_bash(out, cmds, ncmds);
	else if (strcmp(shell, "zsh") == 0)
		print_zsh(out, cmds, ncmds);
	else
		return -1;
	return 0;
}

void rw_completion_table(FILE *out)
{
	static const char *const types[] = {
		[RW_OPT_SWITCH] = "switch", [RW_OPT_RATE] = "rate", [RW_OPT_SIZE] = "size",
		[RW_OPT_COUNT] = "count", [RW_OPT_DURATION] = "duration", [RW_OPT_CHOICE] = "choice",
		[RW_OPT_PATH] = "path", [RW_OPT_CUSTOM] = "custom", [RW_OPT_META] = "meta",
	};

	for (size_t i = 0; i < rw_options_count; i++) {
		const struct rw_opt *o = &rw_options[i];
		char buf[96], cmds[64];
		const char *arg = rw_opt_arg_text(o, buf, sizeof(buf));

		fprintf(out, "%s\t--%s\t%s\t%s\t%s\t%s\n",
			rw_opt_commands_text(o->flags, cmds, sizeof(cmds)), o->name, arg ? arg : "-",
			types[o->type], o->flags & RW_OPT_KEY ? "key" : "-",
			o->flags & RW_OPT_PINNED ? "pinned" : "-");
	}
}
