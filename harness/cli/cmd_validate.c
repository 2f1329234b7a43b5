/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/init.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/suite/plan.h"
#include "harness/suite/suite.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct plan_filter filter;
	const char *build_dir;
} args;

static const struct cli_opt options[] = {
	CLI_OPTS_SELECT(args.filter),
	CLI_OPT_BUILD_DIR(args.build_dir),
	CLI_COMMON_OPTS(args.common),
};


static int run(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	struct suite *suite = NULL;
	struct plan *plan = NULL;
	int error;

	args.build_dir = cli_default_build_dir();
	CLI_PARSE_OR_RETURN(&cli_cmd_validate, &args.common, argc, argv);
	if ((error = suite_load(&suite, args.common.args_nr
							  ? args.common.args[0]
							  : INIT_SUITE_FILE)) < 0 ||
	    (error = plan_build(&plan, suite, &args.filter,
				  args.build_dir)) <
		    0)
		goto done;
	error = plan_describe(plan, &out);
	if (!args.common.quiet) /* the exit status says it is valid */
		terminal_write(stdout, out.buf, 0);
done:
	plan_free(plan);
	suite_free(suite);
	strbuf_release(&out);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_validate = {
	.name = "validate",
	.usage = "[SUITE] [options]",
	.summary = "check a suite file and print its expanded plan without running it",
	.help = "Every error names the file, line and column or key path and "
		"what was expected;\nthe exit status is 2 when the suite is not "
		"valid.\n"
		"SUITE defaults to " INIT_SUITE_FILE ", the file init writes.",
	.options = options,
	.min_args = 0,
	.max_args = 1,
	.run = run,
};
