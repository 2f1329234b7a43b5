/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/cli/manual.h"

static struct {
	struct cli_common common;
} args;

static const struct cli_opt options[] = {
	CLI_COMMON_OPTS(args.common),
};

/* man/benchgate-NAME.1 and docs/reference/commands/NAME.md, a
 * subcommand's NAME "group-sub". */
static int write_command_pages(const char *root, const struct cli_command *cmd)
{
	struct strbuf text = STRBUF_INIT, name = STRBUF_INIT;
	int error;

	manual_roff_command(&text, cmd);
	strbuf_addstr(&name, "benchgate-");
	cli_command_name_joined(cmd, '-', &name);
	strbuf_addstr(&name, ".1");
	if ((error = manual_write_page(root, "man", name.buf, &text,
				       args.common.quiet)) < 0)
		goto done;
	strbuf_reset(&text);
	strbuf_reset(&name);
	manual_markdown_command(&text, cmd);
	cli_command_name_joined(cmd, '-', &name);
	strbuf_addstr(&name, ".md");
	error = manual_write_page(root, "docs/reference/commands", name.buf,
				  &text, args.common.quiet);
done:
	strbuf_release(&text);
	strbuf_release(&name);
	return error;
}

static int run(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT;
	const char *root;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_generate_docs, &args.common, argc, argv);
	root = args.common.args[0];
	manual_roff_index(&text, cli_commands);
	error = manual_write_page(root, "man", "benchgate.1", &text,
				  args.common.quiet);
	strbuf_reset(&text);
	manual_markdown_index(&text, cli_commands);
	if (!error)
		error = manual_write_page(root, "docs/reference", "cli.md",
					  &text, args.common.quiet);
	for (size_t i = 0; !error && cli_commands[i]; i++) {
		const struct cli_command *cmd = cli_commands[i];

		if (cmd->hidden)
			continue;
		error = write_command_pages(root, cmd);
		for (size_t j = 0; !error && cmd->subcommands &&
				   cmd->subcommands[j];
		     j++)
			error = write_command_pages(root, cmd->subcommands[j]);
	}
	strbuf_release(&text);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_generate_docs = {
	.name = "generate-docs",
	.usage = "DIR",
	.summary = "write the man pages and command reference pages",
	.help = "Writes DIR/man/benchgate.1, DIR/man/benchgate-COMMAND.1,\n"
		"DIR/docs/reference/cli.md (the index) and\n"
		"DIR/docs/reference/commands/COMMAND.md from the commands' "
		"option tables,\nthe ones --help prints. Run it from the "
		"source tree as `benchgate generate-docs .`\nafter changing an "
		"option; a test fails while the committed pages differ.",
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
	.hidden = true,
};
