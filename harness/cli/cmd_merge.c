/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/store/shards.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	const char *out, *store;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.store),
	CLI_OPT_STRING("out", "FILE", &args.out,
		       "write the merged result to FILE instead of the store"),
	CLI_COMMON_OPTS(args.common),
};


static int run(int argc, char **argv)
{
	struct strbuf where = STRBUF_INIT;
	size_t cases_nr = 0;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_merge, &args.common, argc, argv);
	if (args.out && args.store)
		return bg_input_error("merge: give --out FILE or --store, not "
				      "both");
	if ((error = shards_merge_into((const char *const *)args.common.args,
				       (size_t)args.common.args_nr, args.out,
				       args.store, &where, &cases_nr)) < 0)
		goto done;
	if (!args.common.quiet)
		terminal_print_line(stdout,
				    "merged %d result%s (%zu cases) into %s",
				    args.common.args_nr, args.common.args_nr == 1 ? "" : "s",
				    cases_nr, where.buf);
	error = OUTCOME_PASS;
done:
	strbuf_release(&where);
	return error;
}

const struct cli_command cli_cmd_merge = {
	.name = "merge",
	.usage = "RESULT... [--out FILE | --store S]",
	.summary = "combine the shard results of one run (--shard I/N) into one",
	.help = "The results of `run --shard I/N` jobs (one commit, machine and "
		"suite) become the\nresult a single run would have stored: the "
		"cases of all, the earliest start and\nthe latest finish. A "
		"case in two results, or results of different commits,\n"
		"machines or suites, are refused. The result is written to "
		"--out FILE\n(atomically) or stored in the store (default "
		".benchgate/results). Keep the\nshards out of that store (run "
		"them with another --store): the newest shard\nwould otherwise "
		"be found before the merged result. The logs and artifacts\n"
		"beside each shard file are copied into the store with the "
		"merged result\n(with --out its paths point at the shards' "
		"files); give the stored shard files,\nnot `run --json` "
		"copies, whose files are elsewhere: merge warns about what\n"
		"it cannot carry.",
	.options = options,
	.min_args = 1,
	.max_args = 4096,
	.run = run,
};
