/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"

#include <stdio.h>

static struct {
	struct cli_common common;
} args;

static const struct cli_opt options[] = {
	CLI_COMMON_OPTS(args.common),
};

/* The group's subcommands, each in its own cmd_store_NAME.c. */
static const struct cli_command *const subcommands[] = {
	&cli_cmd_store_init,
	&cli_cmd_store_copy,
	&cli_cmd_store_prune,
	&cli_cmd_store_compact,
	&cli_cmd_store_migrate,
	NULL,
};

/* Reached only when no subcommand was named (cli.c runs those). */
static int run(int argc, char **argv)
{
	CLI_PARSE_OR_RETURN(&cli_cmd_store, &args.common, argc, argv);
	if (args.common.args_nr)
		return bg_input_error("store: unknown subcommand '%s' (see "
				      "'benchgate store --help')",
				      args.common.args[0]);
	return bg_input_error("store: name a subcommand (see 'benchgate "
			      "store --help')");
}

const struct cli_command cli_cmd_store = {
	.name = "store",
	.usage = "SUBCOMMAND [options]",
	.summary = "manage result stores: prepare, copy, prune, compact, "
		   "migrate",
	.help = "Subcommands (each has its own --help and man page):\n"
		"  store init URL    create or migrate the schema of a "
		"PostgreSQL store\n"
		"  store copy        copy every result of one store into "
		"another\n"
		"  store prune       remove old results\n"
		"  store compact     keep a bounded subsample of each "
		"metric's samples\n"
		"  store migrate     move results of the flat layout into "
		"commit shards\n"
		"A store is a directory, git:BRANCH or a postgresql:// URL "
		"(docs/reference/store.md).",
	.options = options,
	.min_args = 0,
	.max_args = 64,
	.run = run,
	.subcommands = subcommands,
};
