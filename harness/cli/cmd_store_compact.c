/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/store/maintain.h"
#include "harness/util/terminal.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct store_maintain_options compact;
} args = { .compact = { .action = STORE_COMPACT, .older_than_s = -1,
			.samples = 64 } };

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.compact.store),
	CLI_OPT_VALUE("samples", "N", &args.compact.samples, cli_opt_count,
		      "samples kept per metric (default 64)"),
	CLI_OPT_VALUE("older-than", "AGE", &args.compact.older_than_s,
		      cli_opt_age,
		      "only results whose run started longer ago than AGE "
		      "(default: all)"),
	CLI_OPT_SWITCH("keep-tagged", &args.compact.keep_tagged,
		       "leave the results of commits a tag points at whole"),
	CLI_OPT_SWITCH("dry-run", &args.compact.dry_run,
		       "print what would be compacted and the bytes saved; "
		       "change nothing"),
	CLI_OPT_SWITCH("squash", &args.compact.squash,
		       "git store: rewrite the branch as one commit, so "
		       "that git gc can drop the old documents"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct store_maintain_report report;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_store_compact, &args.common, argc, argv);
	args.compact.listing = args.common.quiet ? NULL : stdout;
	if ((error = store_maintain(&args.compact, &report)) < 0)
		return error;
	if (!args.common.quiet)
		terminal_print_line(
			stdout,
			"%s %zu of %zu results (%zu kept as tagged): %llu -> "
			"%llu bytes",
			args.compact.dry_run ? "would compact" : "compacted",
			report.selected, report.results, report.kept_tagged,
			(unsigned long long)report.bytes_before,
			(unsigned long long)report.bytes_after);
	if (!args.common.quiet && report.database_sizes)
		terminal_print_line(stdout, "%s",
				    STORE_MAINTAIN_DATABASE_SIZES);
	return OUTCOME_PASS;
}

const struct cli_command cli_cmd_store_compact = {
	.name = "store compact",
	.usage = "[--samples N] [--older-than AGE] [--keep-tagged] [--dry-run] "
		 "[--squash] [--store S]",
	.summary = "keep a bounded subsample of each metric's samples",
	.help = "Replaces the samples of every metric with more than --samples "
		"of them by a\ndeterministic subsample: evenly spaced order "
		"statistics of each run's samples\n(its median when one per "
		"run is left), so that medians, intervals and\nverdicts hold "
		"while a result of thousands of per-iteration samples "
		"shrinks.\nThe metric records how many samples it had "
		"(compacted_from), and compare,\ncheck and history say that a "
		"result was compacted. --older-than and\n--keep-tagged select "
		"as for `store prune`; --dry-run prints each result and\nits "
		"size before and after. In a PostgreSQL store the new "
		"documents and their\nmetric summaries replace the old in one "
		"transaction.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
