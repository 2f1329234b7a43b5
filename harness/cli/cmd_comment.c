/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/terminal.h"
#include "harness/forge/comment.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct comment_options comment;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STRING("provider", "github|gitlab", &args.comment.provider,
		       "where to comment (default: detected from the CI)"),
	CLI_OPT_STRING("body", "FILE", &args.comment.body_path,
		       "the Markdown to post, such as report.md"),
	CLI_OPT_STRING("repo", "REPO", &args.comment.repo,
		       "OWNER/NAME or GitLab project (default: the CI's)"),
	CLI_OPT_STRING("pr", "N", &args.comment.number,
		       "pull/merge request number (default: the CI's)"),
	CLI_OPT_STRING("api-url", "URL", &args.comment.api_url,
		       "API base URL (default: the CI's, else public)"),
	CLI_OPT_STRING("marker", "NAME", &args.comment.marker,
		       "one comment per NAME (default: the body's marker)"),
	CLI_OPT_SWITCH("dry-run", &args.comment.dry_run,
		       "print what would be sent; send nothing"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct strbuf summary = STRBUF_INIT;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_comment, &args.common, argc, argv);
	error = comment_upsert(&args.comment, &summary);
	if (!error && (args.comment.dry_run || !args.common.quiet))
		terminal_write(stdout, summary.buf, 0);
	strbuf_release(&summary);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_comment = {
	.name = "comment",
	.usage = "--provider github|gitlab --body FILE [options]",
	.summary = "create or update the pull/merge request comment with a "
		   "report",
	.help = "One living comment per suite: the comment whose body "
		"starts with the marker of\nthe body "
		"(<!-- benchgate:SUITE -->, as the Markdown report writes it) "
		"is\nedited in place.\n\n"
		"From the CI unless given as options: GITHUB_REPOSITORY,\n"
		"GITHUB_EVENT_PATH, GITHUB_API_URL, GITHUB_TOKEN; "
		"CI_PROJECT_ID,\nCI_MERGE_REQUEST_IID, CI_API_V4_URL, "
		"GITLAB_TOKEN or CI_JOB_TOKEN.\nThe token is never printed, "
		"not even in part, and goes over https://\nonly (plain "
		"http:// to loopback: 127.0.0.0/8, ::1, localhost)."
		"\n\n5xx answers and rate limits are retried with bounded "
		"backoff;\nBENCHGATE_HTTP_BACKOFF_SCALE (0 to 1) shortens "
		"every wait, for tests.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
