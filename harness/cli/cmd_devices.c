/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/probe/devices.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/probe/sampler.h"

#include <stdio.h>

static struct {
	struct cli_common common;
} args;

static const struct cli_opt options[] = {
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct devices *devices = NULL;
	struct sampler *sampler = NULL;
	struct strbuf out = STRBUF_INIT;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_devices, &args.common, argc, argv);
	devices_probe(&devices);
	devices_describe(devices, &out);
	if ((error = sampler_new(&sampler, SAMPLER_SOURCES, 0)) < 0)
		goto done;
	strbuf_addstr(&out, "\nsampled metric sources (field names for "
			    "\"from\": SOURCE, \"field\": NAME):\n");
	sampler_describe(sampler, &out);
	if (!args.common.quiet)
		terminal_write(stdout, out.buf, 0);
	error = OUTCOME_PASS;
done:
	sampler_free(sampler);
	devices_free(devices);
	strbuf_release(&out);
	return error;
}

const struct cli_command cli_cmd_devices = {
	.name = "devices",
	.usage = "[options]",
	.summary = "list the CPU, GPUs and IPUs found here, and what can be "
		   "sampled",
	.help = "Each device kind says how it was found (NVML, gc-info) or why "
		"nothing was. A suite's\ncases on an absent device are skipped "
		"with that reason (run --require-devices\nmakes them fail). "
		"Then each sampled metric source lists the fields that work\n"
		"here, and why the others do not.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
