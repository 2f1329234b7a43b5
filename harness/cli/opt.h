/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CLI_OPT_H
#define BENCHGATE_CLI_OPT_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Option tables, as libgit2's src/cli has them: each command declares its
 * options in one table bound to its own argument struct; the same table
 * parses the command line, prints `benchgate CMD --help` and generates
 * the man and reference pages (cmd_docs.c). An option has one meaning
 * per command: two commands that take `--out` each say what it is.
 */

/* How an option's value reaches its field. */
typedef int (*cli_opt_parse_fn)(void *value, const char *option,
				const char *text);

struct cli_opt {
	const char *name;     /* "store" for --store */
	const char *arg;      /* the value in --help, "DIR"; NULL: a switch */
	void *value;	      /* the field it sets, of the type parse takes */
	cli_opt_parse_fn parse; /* NULL: a switch sets a bool, a value is
				 * stored as a const char * */
	const char *help;     /* one line, lower case, no full stop */
	/* An option that is gone: refused, naming this replacement; never
	 * listed. */
	const char *replaced_by;
};

/* A switch setting *value (bool) to true. */
#define CLI_OPT_SWITCH(name_, value_, help_)                              \
	{                                                                 \
		.name = (name_), .value = (value_), .help = (help_)       \
	}
/* An option whose value is kept as given: *value is a const char *. */
#define CLI_OPT_STRING(name_, arg_, value_, help_)                        \
	{                                                                 \
		.name = (name_), .arg = (arg_), .value = (value_),        \
		.help = (help_)                                           \
	}
/* An option whose value parse_ checks and converts into *value. */
#define CLI_OPT_VALUE(name_, arg_, value_, parse_, help_)                 \
	{                                                                 \
		.name = (name_), .arg = (arg_), .value = (value_),        \
		.parse = (parse_), .help = (help_)                        \
	}

/* What every command takes; its argument struct embeds one. */
struct cli_common {
	bool quiet;	/* --quiet: only errors and the verdict */
	bool no_color;	/* --no-color */
	bool color;	/* derived: stdout a TTY, no --no-color, no NO_COLOR */
	bool progress;	/* derived: stderr a TTY and not --quiet */
	char **args;	/* the positional arguments, borrowed from argv */
	int args_nr;
};

/* The parsers of --help and --version: they return CLI_OPT_SHOW_HELP and
 * CLI_OPT_SHOW_VERSION, which cli_parse() acts on. */
enum { CLI_OPT_SHOW_HELP = 1, CLI_OPT_SHOW_VERSION = 2 };
int cli_opt_show_help(void *value, const char *option, const char *text);
int cli_opt_show_version(void *value, const char *option, const char *text);

/* The options every command takes, ending the table. */
#define CLI_COMMON_OPTS(common)                                               \
	CLI_OPT_SWITCH("quiet", &(common).quiet,                              \
		       "print only errors and the verdict"),                  \
	CLI_OPT_SWITCH("no-color", &(common).no_color,                        \
		       "no colours (also when NO_COLOR is set)"),             \
	CLI_OPT_VALUE("help", NULL, NULL, cli_opt_show_help,                  \
		      "show this help"),                                      \
	CLI_OPT_VALUE("version", NULL, NULL, cli_opt_show_version,            \
		      "print the version"),                                   \
	{ .name = NULL }

/* A command: its table, its words for --help, the man page and the
 * reference page, and how many positional arguments it takes. */
struct cli_command {
	const char *name;
	const char *usage;   /* "SUITE [options]" */
	const char *summary; /* one line, lower case: `benchgate --help`,
			      * `benchgate CMD --help`, NAME in the man page */
	const char *help;    /* paragraphs after the summary */
	const struct cli_opt *options; /* ends with CLI_COMMON_OPTS */
	int min_args, max_args;
	int (*run)(int argc, char **argv);
	bool hidden; /* left out of `benchgate --help` and the manual */
	/* a command group ("store"): its subcommands, named "store init",
	 * ..., ending with NULL; `benchgate store init ...` runs one with
	 * argv[0] "init". NULL for a plain command. */
	const struct cli_command *const *subcommands;
};

/* Appends the command's name with each space replaced by `sep`: a man
 * page's "store-init", a source file's "store_init". */
void cli_command_name_joined(const struct cli_command *cmd, char sep,
			     struct strbuf *out);

/*
 * Parses argv (argv[0] is the command's name) by the command's table into
 * the fields it binds, and the positional arguments and derived fields
 * into common. Options may follow positional arguments and take
 * `--opt=value`, as getopt_long does. Returns 1 when --help or --version
 * was printed (the command then ends, passing), 0 on success, or
 * BG_EINPUT naming the bad option or value.
 */
int cli_parse(const struct cli_command *cmd, struct cli_common *common,
	      int argc, char **argv);

/* Prints `benchgate CMD --help`. */
void cli_print_command_help(const struct cli_command *cmd);

/* Whether the option is listed (--help, the manual): not replaced. */
bool cli_opt_listed(const struct cli_opt *opt);

/* Parses a whole number from min to 1000000 into *out (int); BG_EINPUT
 * naming --option otherwise. */
int cli_opt_whole_number(const char *option, const char *text, int min,
			 int *out);

#endif
