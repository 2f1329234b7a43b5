/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/store/store.h"
#include "harness/util/strbuf.h"
#include "harness/util/terminal.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	const char *store;
	bool dry_run;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.store),
	CLI_OPT_SWITCH("dry-run", &args.dry_run,
		       "print what would move; change nothing"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct strbuf spec = STRBUF_INIT;
	struct store_migration report;
	struct store *store = NULL;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_store_migrate, &args.common, argc, argv);
	if (args.store)
		strbuf_addstr(&spec, args.store);
	else
		store_default_spec(&spec, NULL);
	if ((error = store_open(&store, spec.buf)) < 0 ||
	    (error = store_migrate(store, args.dry_run,
				   args.common.quiet ? NULL : stdout,
				   &report)) < 0)
		goto done;
	if (!args.common.quiet)
		terminal_print_line(stdout,
				    "%s %zu flat commit folders into shards: "
				    "%zu files, %llu bytes; %zu left in place",
				    args.dry_run ? "would move" : "moved",
				    report.folders, report.files, report.bytes,
				    report.left);
	error = OUTCOME_PASS;
done:
	store_free(store);
	strbuf_release(&spec);
	return error;
}

const struct cli_command cli_cmd_store_migrate = {
	.name = "store migrate",
	.usage = "[--dry-run] [--store S]",
	.summary = "move results of the flat layout into commit shards",
	.help = "Stores keep each commit's results in a shard named by the "
		"first two hex\ndigits of its id, <shard>/<commit>/<machine>/, "
		"so that no directory holds\nmore than a few thousand entries. "
		"Stores written before shards keep\n<commit>/ at the root; "
		"every command reads both. This moves each flat\nfolder's "
		"files, unchanged, into its shard: a rename in a directory "
		"store\n(under its lock), one commit in a git: store. A file "
		"whose place in the\nshard holds other content stays where it "
		"is, with a warning; running\nit again finds nothing left to "
		"do. --dry-run prints what would move.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
