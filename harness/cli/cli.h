/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CLI_H
#define BENCHGATE_CLI_H

#include "harness/app/outcome.h"
#include "harness/cli/options.h"

/*
 * The command line: the command table, the option groups several commands
 * share, and the one place where outcomes become exit statuses.
 *
 * A command (harness/cli/cmd_NAME.c) is its option table bound to its own
 * argument struct, and `int run(int argc, char **argv)` that parses them,
 * makes one call into the use cases (harness/app/) and returns an outcome:
 * a negative BG_* code (the message recorded with bg_error) or an
 * app_outcome (harness/app/outcome.h). cli_main() prints the error and maps
 * the outcome to the exit status of DESIGN.md, here only.
 */

enum cli_exit {
	EXIT_PASS = 0,
	EXIT_REGRESSION = 1,
	EXIT_INPUT = 2,
	EXIT_CASE_FAILED = 3,
	EXIT_NOT_SAVED = 4,
};

/* The commands, in `benchgate --help`'s order, ending with NULL. */
extern const struct cli_command *const cli_commands[];

/* What benchgate is, and its exit statuses ("0 pass", ...): `benchgate
 * --help` and the manual (manual.h) say them alike. */
extern const char cli_about[];
extern const char *const cli_exit_statuses[];

/* Runs the whole program; returns the exit status. */
int cli_main(int argc, char **argv);

/* Parses a command line into its table (cli_parse()) and returns from the
 * command: --help and --version pass, a bad option is its error. */
#define CLI_PARSE_OR_RETURN(cmd, common, argc, argv)                         \
	do {                                                                  \
		int parsed_ = cli_parse((cmd), (common), (argc), (argv));     \
		if (parsed_)                                                  \
			return parsed_ > 0 ? OUTCOME_PASS : parsed_;          \
	} while (0)

/* The commands' tables (harness/cli/cmd_NAME.c). */
extern const struct cli_command cli_cmd_run, cli_cmd_compare, cli_cmd_check,
	cli_cmd_report, cli_cmd_baseline, cli_cmd_comment, cli_cmd_sync,
	cli_cmd_merge, cli_cmd_validate, cli_cmd_devices, cli_cmd_history,
	cli_cmd_bisect, cli_cmd_import, cli_cmd_export, cli_cmd_publish,
	cli_cmd_init, cli_cmd_store, cli_cmd_generate_docs;

/* The subcommands of `benchgate store` (cmd_store.c lists them; each is
 * in its own cmd_store_NAME.c). */
extern const struct cli_command cli_cmd_store_init, cli_cmd_store_copy,
	cli_cmd_store_prune, cli_cmd_store_compact, cli_cmd_store_migrate;

#endif
