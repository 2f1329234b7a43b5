/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/probe/devices.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/probe/sampler.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "devices",
	.usage = "[options]",
	.summary = "List the CPU, GPUs and IPUs found here, and what can be "
		   "sampled.",
	.help = "Each device kind says how it was found (NVML, gc-info) or why "
		"nothing was. A suite's\ncases on an absent device are skipped "
		"with that reason (run --require-devices\nmakes them fail). "
		"Then each sampled metric source lists the fields that work\n"
		"here, and why the others do not.",
	.options = 0,
	.min_args = 0,
	.max_args = 0,
};

int cmd_devices(int argc, char **argv)
{
	struct cli_options opts;
	struct devices *devices = NULL;
	struct sampler *sampler = NULL;
	struct strbuf out = STRBUF_INIT;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	devices_probe(&devices);
	devices_describe(devices, &out);
	if ((error = sampler_new(&sampler, SAMPLER_SOURCES, 0)) < 0)
		goto done;
	strbuf_addstr(&out, "\nsampled metric sources (field names for "
			    "\"from\": SOURCE, \"field\": NAME):\n");
	sampler_describe(sampler, &out);
	terminal_write(stdout, out.buf, 0);
	error = OUTCOME_PASS;
done:
	sampler_free(sampler);
	devices_free(devices);
	strbuf_release(&out);
	return error;
}
