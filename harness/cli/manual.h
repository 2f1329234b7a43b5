/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CLI_MANUAL_H
#define BENCHGATE_CLI_MANUAL_H

#include "harness/cli/opt.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * The manual, written from the commands' tables (opt.h), so that it says
 * what --help says: man pages in roff (man/benchgate.1,
 * man/benchgate-COMMAND.1) and the reference pages in Markdown
 * (docs/reference/commands/COMMAND.md). `benchgate generate-docs DIR`
 * writes them; a test fails when the committed ones differ. The same
 * tables always give the same bytes: no date, the version only.
 */

/* Writes text to ROOT/DIR/NAME atomically (DIR created if missing), and
 * says "wrote PATH" on stdout unless quiet. */
int manual_write_page(const char *root, const char *dir, const char *name,
		      const struct strbuf *text, bool quiet);

/* benchgate.1: what it is, the commands, the common options, the exit
 * statuses. cmds ends with NULL; hidden ones are left out. */
void manual_roff_index(struct strbuf *out,
		       const struct cli_command *const *cmds);

/* benchgate-COMMAND.1. */
void manual_roff_command(struct strbuf *out, const struct cli_command *cmd);

/* docs/reference/cli.md: the commands, each linking its page, the
 * options every command takes and the exit statuses, as benchgate.1 has
 * them. cmds ends with NULL; hidden ones are left out. */
void manual_markdown_index(struct strbuf *out,
			   const struct cli_command *const *cmds);

/* docs/reference/commands/COMMAND.md. */
void manual_markdown_command(struct strbuf *out,
			     const struct cli_command *cmd);

#endif
