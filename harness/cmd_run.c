#include "harness/cli.h"

#include "harness/error.h"

static const struct cli_command_spec spec = {
	.name = "run",
	.usage = "SUITE [options]",
	.summary = "Run a suite, store a result file, print a summary.",
	.options = OPT_STORE | OPT_RUNS | OPT_WARMUP | OPT_SELECT | OPT_ORDER |
		   OPT_BUILD_DIR | OPT_JSON,
	.min_args = 1,
	.max_args = 1,
};

int cmd_run(int argc, char **argv)
{
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	return bg_error("run: not wired yet");
}
