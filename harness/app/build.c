/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/build.h"

#include "harness/util/process.h"

/* Lines of a failed build's output kept in the reason. */
#define BUILD_TAIL_LINES 5

/* The last lines of a build's output, for the reason it failed. */
static void add_tail(struct strbuf *out, const struct strbuf *text)
{
	size_t start = text->len, lines = 0;

	while (start > 0 && lines <= BUILD_TAIL_LINES)
		if (text->buf[--start] == '\n' && start + 1 < text->len)
			lines++;
	if (start < text->len) {
		strbuf_addstr(out, ": ");
		strbuf_add(out, text->buf + start + (text->buf[start] == '\n'),
			   text->len - start - (text->buf[start] == '\n'));
		strbuf_rtrim(out);
	}
}

int build_run(const char *command, const char *dir, int timeout_s,
	      struct strbuf *why)
{
	struct process_options popts = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	struct strbuf output = STRBUF_INIT;
	int error;

	popts.shell = command;
	popts.cwd = dir;
	popts.timeout_s = timeout_s;
	process_outcome_init(&outcome);
	if ((error = process_run(&outcome, &popts)) < 0)
		goto done;
	if (!process_outcome_failed(&outcome))
		goto done;
	strbuf_addstr(why, "the build ");
	process_outcome_describe(&outcome, why);
	strbuf_add(&output, outcome.out.text.buf, outcome.out.text.len);
	strbuf_add(&output, outcome.err.text.buf, outcome.err.text.len);
	add_tail(why, &output);
	error = 1;
done:
	process_outcome_release(&outcome);
	strbuf_release(&output);
	return error;
}
