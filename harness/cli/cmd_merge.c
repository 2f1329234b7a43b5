/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/store/shards.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "merge",
	.usage = "RESULT... [--out FILE | --store S]",
	.summary = "Combine the shard results of one run into one result.",
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
	.options = OPT_OUT_FILE | OPT_STORE,
	.min_args = 1,
	.max_args = 4096,
};

int cmd_merge(int argc, char **argv)
{
	struct strbuf where = STRBUF_INIT;
	struct cli_options opts;
	size_t cases_nr = 0;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (opts.out_dir && opts.store)
		return bg_input_error("merge: give --out FILE or --store, not "
				      "both");
	if ((error = shards_merge_into((const char *const *)opts.args,
				       (size_t)opts.args_nr, opts.out_dir,
				       opts.store, &where, &cases_nr)) < 0)
		goto done;
	if (!opts.quiet)
		terminal_print_line(stdout,
				    "merged %d result%s (%zu cases) into %s",
				    opts.args_nr, opts.args_nr == 1 ? "" : "s",
				    cases_nr, where.buf);
	error = OUTCOME_PASS;
done:
	strbuf_release(&where);
	return error;
}
