/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/baseline.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

#include <stdio.h>
#include <string.h>

static struct {
	struct cli_common common;
	const char *to;
	bool force;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STRING("to", "FILE", &args.to,
		       "save into FILE instead of "
		       "baselines/<suite>/<machine>.json"),
	CLI_OPT_SWITCH("force", &args.force, "replace an existing file"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct strbuf saved = STRBUF_INIT;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_baseline, &args.common, argc, argv);
	if (strcmp(args.common.args[0], "save"))
		return bg_input_error("baseline: unknown action '%s'; expected "
				      "'save'",
				      args.common.args[0]);
	error = baseline_save(args.common.args[1], args.to, NULL, args.force,
			      &saved);
	if (!error && !args.common.quiet)
		terminal_print_line(stdout, "saved %s", saved.buf);
	strbuf_release(&saved);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_baseline = {
	.name = "baseline",
	.usage = "save RESULT [--to FILE] [--force]",
	.summary = "save a result as the committed baseline of its suite",
	.help = "Copies a result into baselines/<suite>/<machine>.json (or "
		"--to FILE).\nA committed baseline is what `check --baseline "
		"auto` falls back to when the\nstore has no result on the "
		"target branch's history. An existing baseline is\nreplaced "
		"only with --force.",
	.options = options,
	.min_args = 2,
	.max_args = 2,
	.run = run,
};
