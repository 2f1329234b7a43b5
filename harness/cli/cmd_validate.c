#include "harness/cli/cli.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/run/plan.h"
#include "harness/run/suite.h"

#include <stdio.h>
#include <stdlib.h>

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

static void print_settings(const struct suite_settings *settings)
{
	if (settings->runs_auto)
		printf("    runs: auto (%d to %d, precision %g%%)",
		       settings->min_runs, settings->max_runs,
		       settings->precision * 100);
	else
		printf("    runs: %d", settings->runs);
	printf(", warmup %d, timeout %gs, threshold %g%%, confidence %g\n",
	       settings->warmup, settings->timeout_s, settings->threshold * 100,
	       settings->confidence);
}

static int print_case(const struct plan *plan, const struct plan_case *pcase)
{
	struct strbuf line = STRBUF_INIT;
	char **argv = NULL, *shell = NULL;
	int error;

	if ((error = plan_case_command(pcase, plan, 0, &argv, &shell)) < 0)
		return error;
	if (shell) {
		strbuf_addstr(&line, "/bin/sh -c ");
		strbuf_add_shell_quoted(&line, shell);
	}
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			strbuf_addch(&line, ' ');
		strbuf_add_shell_quoted(&line, argv[i]);
		free(argv[i]);
	}
	printf("  %s\n    command: %s\n", pcase->id, line.buf);
	print_settings(&pcase->benchmark->settings);
	printf("    metrics:");
	for (size_t i = 0; i < pcase->benchmark->metrics_nr; i++) {
		const struct metric_spec *metric =
			&pcase->benchmark->metrics[i];

		printf(" %s (%s%s%s%s%s)", metric->name,
		       metric_source_name(metric->from),
		       metric->unit ? ", " : "",
		       metric->unit ? metric->unit : "",
		       metric->per ? ", per " : "",
		       metric->per ? metric->per : "");
	}
	printf("\n");
	free(argv);
	free(shell);
	strbuf_release(&line);
	return BG_OK;
}

int cmd_validate(int argc, char **argv)
{
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
	printf("suite %s: valid, %zu case%s (%zu benchmark%s x %zu variant%s "
	       "x %zu device%s)\n",
	       suite->name, plan->nr, plan->nr == 1 ? "" : "s",
	       suite->benchmarks_nr, suite->benchmarks_nr == 1 ? "" : "s",
	       suite->variants_nr, suite->variants_nr == 1 ? "" : "s",
	       suite->devices_nr, suite->devices_nr == 1 ? "" : "s");
	for (size_t i = 0; i < plan->nr && !error; i++)
		error = print_case(plan, &plan->cases[i]);
done:
	plan_free(plan);
	suite_free(suite);
	return error < 0 ? error : OUTCOME_PASS;
}
