/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/suite/plan.h"
#include "harness/suite/suite.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "validate",
	.usage = "SUITE [options]",
	.summary = "Check a suite file and print its expanded plan without "
		   "running anything.",
	.help = "Every error names the file, line and column or key path and "
		"what was expected;\nthe exit status is 2 when the suite is not "
		"valid.",
	.options = OPT_SELECT | OPT_BUILD_DIR,
	.min_args = 1,
	.max_args = 1,
};

int cmd_validate(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	struct cli_options opts;
	struct suite *suite = NULL;
	struct plan *plan = NULL;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if ((error = suite_load(&suite, opts.args[0])) < 0 ||
	    (error = plan_build(&plan, suite, &opts.filter, opts.build_dir)) <
		    0)
		goto done;
	error = plan_describe(plan, &out);
	terminal_write(stdout, out.buf, 0);
done:
	plan_free(plan);
	suite_free(suite);
	strbuf_release(&out);
	return error < 0 ? error : OUTCOME_PASS;
}
