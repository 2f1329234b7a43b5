/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/terminal.h"
#include "harness/forge/comment.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "comment",
	.usage = "--provider github|gitlab --body FILE [options]",
	.summary = "Create the pull/merge request comment, or update the one "
		   "posted before.",
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
	.options = OPT_COMMENT,
	.min_args = 0,
	.max_args = 0,
};

int cmd_comment(int argc, char **argv)
{
	struct strbuf summary = STRBUF_INIT;
	struct cli_options opts;
	struct comment_options comment;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	comment = (struct comment_options){
		.provider = opts.provider,
		.body_path = opts.body,
		.repo = opts.repo,
		.number = opts.pr,
		.api_url = opts.api_url,
		.marker = opts.marker,
		.dry_run = opts.dry_run,
	};
	error = comment_upsert(&comment, &summary);
	if (!error && (opts.dry_run || !opts.quiet))
		terminal_write(stdout, summary.buf, 0);
	strbuf_release(&summary);
	return error < 0 ? error : OUTCOME_PASS;
}
