/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/baseline.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

#include <stdio.h>
#include <string.h>

static const struct cli_command_spec spec = {
	.name = "baseline",
	.usage = "save RESULT [--to FILE] [--force]",
	.summary = "Copy a result into baselines/<suite>/<machine>.json (or "
		   "--to FILE).",
	.help = "A committed baseline is what `check --baseline auto` falls "
		"back to when the\nstore has no result on the target branch's "
		"history. An existing baseline is\nreplaced only with --force.",
	.options = OPT_TO | OPT_FORCE,
	.min_args = 2,
	.max_args = 2,
};

int cmd_baseline(int argc, char **argv)
{
	struct strbuf saved = STRBUF_INIT;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (strcmp(opts.args[0], "save"))
		return bg_input_error("baseline: unknown action '%s'; expected "
				      "'save'",
				      opts.args[0]);
	error = baseline_save(opts.args[1], opts.to, NULL, opts.force, &saved);
	if (!error)
		terminal_print_line(stdout, "saved %s", saved.buf);
	strbuf_release(&saved);
	return error < 0 ? error : OUTCOME_PASS;
}
