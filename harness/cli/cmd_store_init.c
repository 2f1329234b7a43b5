/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/store/store.h"
#include "harness/util/terminal.h"

#include <stdio.h>

static struct {
	struct cli_common common;
} args;

static const struct cli_opt options[] = {
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct strbuf report = STRBUF_INIT;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_store_init, &args.common, argc, argv);
	if ((error = store_init(args.common.args[0], &report)) == 0 &&
	    !args.common.quiet)
		terminal_print_line(stdout, "%s", report.buf);
	strbuf_release(&report);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_store_init = {
	.name = "store init",
	.usage = "URL [options]",
	.summary = "create or migrate the schema of a PostgreSQL result store",
	.help = "URL is a libpq connection URL, postgresql://[USER@]HOST/DB "
		"or postgres://...:\nits password comes from PGPASSWORD, "
		"~/.pgpass or the URL, and sslmode, service\nfiles and the "
		"other PG* variables work as for psql; no message prints the\n"
		"password. The database must exist and the user may create "
		"tables in it.\nA new database gets the schema of this "
		"benchgate; an older schema is migrated\nin one transaction "
		"(every command reading or writing the store refuses an\n"
		"older one and names this command); a current one is left "
		"as it is. The schema\nis documented in "
		"docs/reference/store-postgresql.md.",
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
