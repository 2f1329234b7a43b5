/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/store/copy.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct store_copy_options copy;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STRING("from", "STORE", &args.copy.from,
		       "the store to copy from: a directory, git:BRANCH, "
		       "git:URL#BRANCH or postgresql://..."),
	CLI_OPT_STRING("to", "STORE", &args.copy.to,
		       "the store to copy into, created by the first result "
		       "written"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct store_copy_report report;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_store_copy, &args.common, argc, argv);
	if (!args.copy.from || !args.copy.to)
		return bg_input_error("store copy: both --from and --to are "
				      "needed");
	args.copy.progress = !args.common.quiet;
	error = store_copy(&args.copy, &report);
	if (!args.common.quiet && !error)
		terminal_print_line(
			stdout,
			"%zu result%s: %zu copied (%zu renamed), %zu already "
			"there, %zu unreadable; %zu log and artifact files, "
			"%llu bytes; all verified",
			report.results, report.results == 1 ? "" : "s",
			report.copied, report.renamed, report.present,
			report.unreadable, report.files,
			(unsigned long long)report.bytes);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_store_copy = {
	.name = "store copy",
	.usage = "--from STORE --to STORE",
	.summary = "copy every result of one store into another",
	.help = "Copies each result of --from, oldest first, with its logs "
		"and artifacts, into\n--to: a directory, git:BRANCH, "
		"git:URL#BRANCH or a PostgreSQL database, in any\n"
		"direction. The documents are copied byte for byte, so a "
		"round trip gives\nidentical files. Into a branch, each "
		"100 results are one commit, and a results\nrepository is "
		"pushed to once, at the end. A result --to "
		"already\nholds (the same commit, machine, suite, start and "
		"content) is skipped, so a\ncopy that was interrupted is "
		"finished by running it again. At the end every\nresult of "
		"--from is looked for in --to, and one missing is an error. "
		"Progress\ngoes to stderr (--quiet: none).",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
