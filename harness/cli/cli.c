/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"
#include "harness/cli/version.h"

#include "harness/git/repo.h"
#include "harness/util/error.h"
#include "harness/util/process.h"
#include "harness/util/terminal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cli_command *const cli_commands[] = {
	&cli_cmd_run,	   &cli_cmd_compare, &cli_cmd_check,   &cli_cmd_report,
	&cli_cmd_baseline, &cli_cmd_comment, &cli_cmd_sync,    &cli_cmd_merge,
	&cli_cmd_validate, &cli_cmd_devices, &cli_cmd_history, &cli_cmd_bisect,
	&cli_cmd_import,   &cli_cmd_export,  &cli_cmd_publish, &cli_cmd_init,
	&cli_cmd_store,	   &cli_cmd_generate_docs, NULL,
};

const char cli_about[] = "CI regression benchmarking: run suites, store results "
			"by commit and machine,\ncompare against a baseline, "
			"and fail the build on a real regression.";

const char *const cli_exit_statuses[] = {
	"0 pass",
	"1 regression",
	"2 usage or input error (nothing run)",
	"3 a benchmark case failed",
	"4 measured but the result not stored (kept in the file named) or an "
	"output not written",
	NULL,
};

static void print_usage(FILE *to)
{
	fprintf(to, "usage: benchgate COMMAND [options]\n\n%s\n\ncommands:\n",
		cli_about);
	for (size_t i = 0; cli_commands[i]; i++)
		if (!cli_commands[i]->hidden)
			fprintf(to, "  %-10s %s\n", cli_commands[i]->name,
				cli_commands[i]->summary);
	fprintf(to, "\n'benchgate COMMAND --help' shows a command's options.\n"
		    "exit status:");
	for (size_t i = 0, column = 12; cli_exit_statuses[i]; i++) {
		size_t len = strlen(cli_exit_statuses[i]) + 2;
		bool wrap = column + len > 79;

		fprintf(to, "%s%s%s", i ? "," : "", wrap ? "\n" : " ",
			cli_exit_statuses[i]);
		column = wrap ? len - 1 : column + len;
	}
	fprintf(to, "\n");
}

/* The one place where outcomes become exit statuses. */
static int exit_status(int outcome)
{
	switch (outcome) {
	case OUTCOME_PASS:
		return EXIT_PASS;
	case OUTCOME_REGRESSION:
		return EXIT_REGRESSION;
	case OUTCOME_CASE_FAILED:
		return EXIT_CASE_FAILED;
	case OUTCOME_NOT_SAVED:
		return EXIT_NOT_SAVED;
	}
	assert(outcome < 0);
	terminal_print_error(bg_error_last());
	return EXIT_INPUT;
}

/* Runs cmd, or the subcommand of a group that argv[1] names: "store
 * init" for `benchgate store init`. A group's own run() says what it
 * has when none is named. */
static int run_command(const struct cli_command *cmd, int argc, char **argv)
{
	size_t len = strlen(cmd->name);

	for (size_t i = 0; argc > 1 && cmd->subcommands &&
			   cmd->subcommands[i];
	     i++) {
		const struct cli_command *sub = cmd->subcommands[i];

		if (!strncmp(sub->name, cmd->name, len) &&
		    sub->name[len] == ' ' && !strcmp(sub->name + len + 1, argv[1]))
			return sub->run(argc - 1, argv + 1);
	}
	return cmd->run(argc, argv);
}

int cli_main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	int status;

	if (!name || !strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		print_usage(name ? stdout : stderr);
		return name ? EXIT_PASS : EXIT_INPUT;
	}
	if (!strcmp(name, "--version")) {
		version_print(stdout);
		return EXIT_PASS;
	}
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *cmd = cli_commands[i];

		if (strcmp(cmd->name, name))
			continue;
		repo_libgit2_init();
		process_forward_termination();
		status = exit_status(run_command(cmd, argc - 1, argv + 1));
		/* said why above; now end as the signal would have */
		process_end_if_interrupted();
		return status;
	}
	bg_error("unknown command '%s' (see 'benchgate --help')", name);
	terminal_print_error(bg_error_last());
	return EXIT_INPUT;
}
