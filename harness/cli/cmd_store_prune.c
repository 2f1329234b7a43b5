/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/store/maintain.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct store_maintain_options prune;
} args = { .prune = { .action = STORE_PRUNE, .older_than_s = -1 } };

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.prune.store),
	CLI_OPT_VALUE("older-than", "AGE", &args.prune.older_than_s,
		      cli_opt_age,
		      "remove results whose run started longer ago than AGE, "
		      "such as 90d"),
	CLI_OPT_SWITCH("keep-tagged", &args.prune.keep_tagged,
		       "keep the results of commits a tag points at"),
	CLI_OPT_SWITCH("dry-run", &args.prune.dry_run,
		       "print what would be removed and the bytes saved; "
		       "change nothing"),
	CLI_OPT_SWITCH("squash", &args.prune.squash,
		       "git store: rewrite the branch as one commit, so "
		       "that git gc can drop what was removed"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct store_maintain_report report;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_store_prune, &args.common, argc, argv);
	if (args.prune.older_than_s < 0)
		return bg_input_error("store prune: --older-than AGE is needed");
	args.prune.listing = args.common.quiet ? NULL : stdout;
	if ((error = store_maintain(&args.prune, &report)) < 0)
		return error;
	if (!args.common.quiet)
		terminal_print_line(
			stdout, "%s %zu of %zu results (%zu kept as tagged), "
				"%llu bytes with their logs and artifacts",
			args.prune.dry_run ? "would remove" : "removed",
			report.selected, report.results, report.kept_tagged,
			(unsigned long long)report.bytes_before);
	if (!args.common.quiet && report.database_sizes)
		terminal_print_line(stdout, "%s",
				    STORE_MAINTAIN_DATABASE_SIZES);
	return OUTCOME_PASS;
}

const struct cli_command cli_cmd_store_prune = {
	.name = "store prune",
	.usage = "--older-than AGE [--keep-tagged] [--dry-run] [--squash] "
		 "[--store S]",
	.summary = "remove old results from a store",
	.help = "Removes every result whose run started longer ago than "
		"--older-than, with its\nlogs and artifacts; --keep-tagged "
		"keeps those of tagged commits (a release's\nnumbers). Other "
		"results are never touched. In a git:BRANCH store the "
		"removal\nis one new commit: the old files stay in the "
		"branch's history until --squash\nrewrites the branch as one "
		"commit and `git gc` drops them (see\ndocs/how-to/"
		"small-git-store.md). In a PostgreSQL store the removal is one\n"
		"transaction, summaries and files included. --dry-run prints "
		"each result it\nwould remove and the bytes that would save "
		"(a PostgreSQL store's: octet_length\nof the documents and "
		"files).",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
