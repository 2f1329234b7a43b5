/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/store/sync.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct sync_options sync;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STRING("branch", "B", &args.sync.branch,
		       "the results branch to sync, the B of --store git:B "
		       "(default benchgate-results)"),
	CLI_OPT_STRING("remote", "NAME|URL", &args.sync.remote,
		       "the remote to sync with, or the URL or path of a "
		       "results repository (default origin)"),
	CLI_COMMON_OPTS(args.common),
};


static const char *action_text(enum sync_action action)
{
	switch (action) {
	case SYNC_NOTHING:
		return "does not exist locally or remotely";
	case SYNC_UP_TO_DATE:
		return "up to date";
	case SYNC_FETCHED:
		return "fetched";
	case SYNC_PUSHED:
		return "pushed";
	case SYNC_MERGED:
		return "merged and pushed";
	}
	return "?";
}

static int run(int argc, char **argv)
{
	struct sync_report report;
	struct strbuf line = STRBUF_INIT;
	int error;

	args.sync.backoff_scale = -1;
	CLI_PARSE_OR_RETURN(&cli_cmd_sync, &args.common, argc, argv);
	if ((error = sync_run(&args.sync, &report)) < 0)
		return error;
	if (!args.common.quiet) {
		strbuf_addf(&line, "%s with %s: %s",
			    args.sync.branch ? args.sync.branch : "benchgate-results",
			    args.sync.remote ? args.sync.remote : "origin",
			    action_text(report.action));
		if (report.action == SYNC_MERGED)
			strbuf_addf(&line,
				    ", %u file%s re-applied (%u renamed)",
				    report.added, report.added == 1 ? "" : "s",
				    report.renamed);
		if (report.pushes > 1)
			strbuf_addf(&line, ", after %u rejected push%s",
				    report.pushes - 1,
				    report.pushes == 2 ? "" : "es");
		if (report.tip[0])
			strbuf_addf(&line, " (%.12s)", report.tip);
		terminal_print_line(stdout, "%s", line.buf);
	}
	strbuf_release(&line);
	return OUTCOME_PASS;
}

const struct cli_command cli_cmd_sync = {
	.name = "sync",
	.usage = "[--remote NAME|URL] [--branch B]",
	.summary = "fetch, merge and push the results branch of a git:BRANCH store",
	.help = "Shares a `--store git:B` store (--branch B, default "
		"benchgate-results) "
		"between CI runners:\nfetches the remote's branch; when both "
		"sides have new results, commits them\ntogether on top of the "
		"remote's (each runner writes only its machine's paths, so\n"
		"nothing conflicts and nothing is lost); pushes. A push "
		"rejected because another\nrunner pushed first is retried on "
		"top of it, up to 6 times with growing pauses\n"
		"(BENCHGATE_SYNC_BACKOFF_SCALE multiplies them). Credentials "
		"for https remotes\ncome from GITHUB_TOKEN, or GITLAB_TOKEN or "
		"CI_JOB_TOKEN, each sent only to its\nown forge; ssh uses the "
		"agent. Run it before `check` to see other runners'\nresults, "
		"and after `run` or `check` to publish yours. A --remote that "
		"is a URL or\na path keeps the results in a repository of "
		"their own, which clones of the\ncode never fetch.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
