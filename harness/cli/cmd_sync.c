/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/store/sync.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "sync",
	.usage = "[--remote NAME] [--branch B]",
	.summary = "Fetch the results branch from a remote, merge, and push "
		   "it back.",
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
		"and after `run` or `check` to publish yours.",
	.options = OPT_REMOTE,
	.min_args = 0,
	.max_args = 0,
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

int cmd_sync(int argc, char **argv)
{
	struct sync_options sync_opts = { .backoff_scale = -1 };
	struct sync_report report;
	struct cli_options opts;
	struct strbuf line = STRBUF_INIT;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	sync_opts.remote = opts.remote;
	sync_opts.branch = opts.branch;
	if ((error = sync_run(&sync_opts, &report)) < 0)
		return error;
	if (!opts.quiet) {
		strbuf_addf(&line, "%s with %s: %s",
			    opts.branch ? opts.branch : "benchgate-results",
			    opts.remote ? opts.remote : "origin",
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
