/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/opt.h"
#include "harness/cli/version.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

#include <assert.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_opt_show_help(void *value, const char *option, const char *text)
{
	(void)value, (void)option, (void)text;
	return CLI_OPT_SHOW_HELP;
}

int cli_opt_show_version(void *value, const char *option, const char *text)
{
	(void)value, (void)option, (void)text;
	return CLI_OPT_SHOW_VERSION;
}

bool cli_opt_listed(const struct cli_opt *opt)
{
	return !opt->replaced_by;
}

int cli_opt_whole_number(const char *option, const char *text, int min,
			 int *out)
{
	char *end;
	long value = strtol(text, &end, 10);

	if (end == text || *end || value < min || value > 1000000)
		return bg_input_error("--%s: expected a whole number of at "
				      "least %d, found '%s'",
				      option, min, text);
	*out = (int)value;
	return BG_OK;
}

void cli_print_command_help(const struct cli_command *cmd)
{
	printf("usage: benchgate %s %s\n\n%s\n", cmd->name, cmd->usage,
	       cmd->summary);
	if (cmd->help)
		printf("\n%s\n", cmd->help);
	printf("\noptions:\n");
	for (const struct cli_opt *opt = cmd->options; opt->name; opt++) {
		char left[64];

		if (!cli_opt_listed(opt))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", opt->name,
			 opt->arg ? " " : "", opt->arg ? opt->arg : "");
		printf("  %-28s %s\n", left, opt->help);
	}
}

/* Applies option opt with its value text (NULL for a switch): a BG_*
 * code, or CLI_OPT_SHOW_HELP or _VERSION. */
static int apply(const struct cli_command *cmd, const struct cli_opt *opt,
		 const char *text)
{
	if (opt->replaced_by)
		return bg_input_error("%s: '--%s' was replaced by %s",
				      cmd->name, opt->name, opt->replaced_by);
	if (opt->parse)
		return opt->parse(opt->value, opt->name, text);
	if (opt->arg)
		*(const char **)opt->value = text;
	else
		*(bool *)opt->value = true;
	return BG_OK;
}

static int refuse(const struct cli_command *cmd, int id, const char *bad)
{
	return bg_input_error("%s: %s '%s' (see 'benchgate %s --help')",
			      cmd->name,
			      id == ':' ? "missing value for" : "unknown option",
			      bad, cmd->name);
}

static void derive(struct cli_common *common, int argc, char **argv)
{
	const char *no_color = getenv("NO_COLOR");

	common->args = argv + optind;
	common->args_nr = argc - optind;
	common->color = isatty(STDOUT_FILENO) && !common->no_color &&
			!(no_color && *no_color);
	common->progress = !common->quiet && isatty(STDERR_FILENO);
	/* --quiet: errors and the verdict line only */
	terminal_quiet_warnings(common->quiet);
}

int cli_parse(const struct cli_command *cmd, struct cli_common *common,
	      int argc, char **argv)
{
	struct option *longopts;
	size_t nr = 0;
	int id, error = 0;

	while (cmd->options[nr].name)
		nr++;
	longopts = xcalloc(nr + 1, sizeof(*longopts));
	for (size_t i = 0; i < nr; i++) {
		const struct cli_opt *opt = &cmd->options[i];

		longopts[i] = (struct option){
			.name = opt->name,
			.has_arg = opt->replaced_by ? optional_argument
				   : opt->arg	    ? required_argument
						    : no_argument,
			.val = 256 + (int)i,
		};
	}
	optind = 1;
	opterr = 0;
	/* GNU argument permutation: options may follow the suite path, as
	 * users type them. */
	while (!error &&
	       (id = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (id < 256)
			error = refuse(cmd, id, argv[optind - 1]);
		else
			error = apply(cmd, &cmd->options[id - 256], optarg);
	}
	free(longopts);
	if (error == CLI_OPT_SHOW_HELP)
		cli_print_command_help(cmd);
	if (error == CLI_OPT_SHOW_VERSION)
		version_print(stdout);
	if (error)
		return error > 0 ? 1 : error;
	derive(common, argc, argv);
	if (common->args_nr < cmd->min_args || common->args_nr > cmd->max_args)
		return bg_input_error("usage: benchgate %s %s", cmd->name,
				      cmd->usage);
	return 0;
}

void cli_command_name_joined(const struct cli_command *cmd, char sep,
			     struct strbuf *out)
{
	for (const char *p = cmd->name; *p; p++)
		strbuf_addch(out, *p == ' ' ? sep : *p);
}
