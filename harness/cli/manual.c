/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/manual.h"

#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int manual_write_page(const char *root, const char *dir, const char *name,
		      const struct strbuf *text, bool quiet)
{
	struct strbuf path = STRBUF_INIT;
	int error;

	strbuf_addf(&path, "%s/%s", root, dir);
	if (mkdir_p(path.buf) < 0) {
		error = bg_error("cannot create '%s'", path.buf);
		goto done;
	}
	strbuf_addf(&path, "/%s", name);
	if ((error = write_file_atomic(path.buf, text->buf, text->len)) == 0 &&
	    !quiet)
		terminal_print_line(stdout, "wrote %s", path.buf);
done:
	strbuf_release(&path);
	return error;
}

/* Text for roff: a backslash and a minus escaped, a line that would start
 * with a control character guarded. */
static void roff_escape_len(struct strbuf *out, const char *text,
			    size_t len)
{
	for (const char *p = text; p < text + len; p++) {
		if ((p == text || p[-1] == '\n') && (*p == '.' || *p == '\''))
			strbuf_addstr(out, "\\&");
		if (*p == '\\')
			strbuf_addstr(out, "\\e");
		else if (*p == '-')
			strbuf_addstr(out, "\\-");
		else
			strbuf_addch(out, *p);
	}
}

static void roff_escape(struct strbuf *out, const char *text)
{
	roff_escape_len(out, text, strlen(text));
}

/* Paragraphs (split at blank lines) as roff paragraphs. */
static void roff_paragraphs(struct strbuf *out, const char *text)
{
	strbuf_addstr(out, ".PP\n");
	for (const char *p = text; *p;) {
		const char *end = strstr(p, "\n\n");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		roff_escape_len(out, p, len);
		strbuf_addstr(out, end ? "\n.PP\n" : "\n");
		p += len + (end ? 2 : 0);
	}
}

static void roff_header(struct strbuf *out, const char *page)
{
	strbuf_addstr(out, ".TH ");
	for (const char *p = page; *p; p++)
		strbuf_addch(out, (char)toupper((unsigned char)*p));
	strbuf_addf(out, " 1 \"\" \"benchgate %s\" \"benchgate manual\"\n",
		    BENCHGATE_VERSION);
}

static void roff_options(struct strbuf *out, const struct cli_opt *opts)
{
	for (const struct cli_opt *opt = opts; opt->name; opt++) {
		if (!cli_opt_listed(opt))
			continue;
		strbuf_addstr(out, ".TP\n\\fB\\-\\-");
		roff_escape(out, opt->name);
		strbuf_addstr(out, "\\fR");
		if (opt->arg) {
			strbuf_addstr(out, " \\fI");
			roff_escape(out, opt->arg);
			strbuf_addstr(out, "\\fR");
		}
		strbuf_addch(out, '\n');
		roff_escape(out, opt->help);
		strbuf_addch(out, '\n');
	}
}

void manual_roff_command(struct strbuf *out, const struct cli_command *cmd)
{
	struct strbuf page = STRBUF_INIT;

	strbuf_addstr(&page, "benchgate-");
	cli_command_name_joined(cmd, '-', &page);
	roff_header(out, page.buf);
	strbuf_addstr(out, ".SH NAME\n");
	roff_escape(out, page.buf);
	strbuf_addstr(out, " \\- ");
	roff_escape(out, cmd->summary);
	strbuf_addf(out, "\n.SH SYNOPSIS\n.B benchgate %s\n", cmd->name);
	roff_escape(out, cmd->usage);
	strbuf_addstr(out, "\n.SH DESCRIPTION\n");
	roff_paragraphs(out, cmd->help ? cmd->help : cmd->summary);
	strbuf_addstr(out, ".SH OPTIONS\n");
	roff_options(out, cmd->options);
	strbuf_addstr(out, ".SH SEE ALSO\n.BR benchgate (1)\n");
	strbuf_release(&page);
}

static void roff_index_entry(struct strbuf *out, const struct cli_command *cmd)
{
	struct strbuf page = STRBUF_INIT;

	cli_command_name_joined(cmd, '-', &page);
	strbuf_addstr(out, ".TP\n.BR benchgate\\-");
	roff_escape(out, page.buf);
	strbuf_addstr(out, " (1)\n");
	roff_escape(out, cmd->summary);
	strbuf_addch(out, '\n');
	strbuf_release(&page);
}

void manual_roff_index(struct strbuf *out,
		       const struct cli_command *const *cmds)
{
	static struct cli_common common; /* only its table is read */
	static const struct cli_opt common_opts[] = {
		CLI_COMMON_OPTS(common),
	};

	roff_header(out, "benchgate");
	strbuf_addstr(out, ".SH NAME\nbenchgate \\- CI regression "
			   "benchmarking\n.SH SYNOPSIS\n.B benchgate\n"
			   "COMMAND [options]\n.SH DESCRIPTION\n");
	roff_paragraphs(out, cli_about);
	strbuf_addstr(out, ".SH COMMANDS\n");
	for (size_t i = 0; cmds[i]; i++) {
		if (cmds[i]->hidden)
			continue;
		roff_index_entry(out, cmds[i]);
		for (size_t j = 0; cmds[i]->subcommands &&
				   cmds[i]->subcommands[j];
		     j++)
			roff_index_entry(out, cmds[i]->subcommands[j]);
	}
	strbuf_addstr(out, ".SH OPTIONS\nEvery command takes these.\n");
	roff_options(out, common_opts);
	strbuf_addstr(out, ".SH EXIT STATUS\n");
	for (size_t i = 0; cli_exit_statuses[i]; i++) {
		const char *status = cli_exit_statuses[i];
		size_t len = strcspn(status, " ");

		strbuf_addstr(out, ".TP\n.B ");
		roff_escape_len(out, status, len);
		strbuf_addch(out, '\n');
		roff_escape(out, status + len + !!status[len]);
		strbuf_addch(out, '\n');
	}
}
