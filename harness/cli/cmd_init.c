/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/init.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	bool python;
	const char *command;
	bool force;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_SWITCH("python", &args.python,
		       "a Python benchmark using the metrics helper (the "
		       "default)"),
	CLI_OPT_STRING("command", "CMD", &args.command,
		       "time the shell command line CMD instead"),
	CLI_OPT_SWITCH("force", &args.force, "replace files that exist"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct init_options opts = { .kind = INIT_PYTHON };
	struct strbuf written = STRBUF_INIT, out = STRBUF_INIT;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_init, &args.common, argc, argv);
	if (args.python && args.command)
		return bg_input_error("init: give --python or --command, not "
				      "both");
	if (args.command) {
		if (!*args.command)
			return bg_input_error("init: --command: expected a "
					      "command line, found ''");
		opts.kind = INIT_COMMAND;
		opts.command = args.command;
	}
	opts.force = args.force;
	if ((error = init_write(".", &opts, &written)) < 0)
		goto done;
	if (!args.common.quiet) {
		strbuf_addf(&out,
			    "wrote %s\n"
			    "next: measure it (the result is stored under "
			    "this commit), then, after a change,\n"
			    "compare with that result (both read "
			    INIT_SUITE_FILE " when no suite is named):\n"
			    "  benchgate run\n"
			    "  benchgate check\n",
			    written.buf);
		terminal_write(stdout, out.buf, 0);
	}
	error = OUTCOME_PASS;
done:
	strbuf_release(&written);
	strbuf_release(&out);
	return error;
}

const struct cli_command cli_cmd_init = {
	.name = "init",
	.usage = "[--python | --command CMD] [options]",
	.summary = "write a first suite (and a Python benchmark) that runs "
		   "at once",
	.help = "Writes " INIT_SUITE_FILE ", a commented suite, into the "
		"current directory; with --python\n(the default) also "
		"bench.py, a benchmark timing a stand-in function, and\n"
		"benchgate.py, the metrics helper it imports: nothing else is "
		"needed, not even\na git repository. With --command CMD the "
		"suite times the shell command line CMD.\nFiles that exist "
		"are left alone unless --force is given. Then it prints the\n"
		"commands that measure the suite and check a change.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
