/* SPDX-License-Identifier: Apache-2.0 */
/* The `command` metric source; the contract is in extractor.h. */
#include "harness/run/extractor.h"

#include "harness/suite/suite.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The stderr lines quoted when an extractor fails. */
#define STDERR_TAIL_LINES 5

/* Writes the run's captured stdout then stderr to <run_dir>/output.log,
 * marking where the capture left bytes out. */
static int write_run_log(const struct extractor_run *req, struct strbuf *path)
{
	const struct process_capture *streams[] = { &req->outcome->out,
						    &req->outcome->err };
	struct strbuf text = STRBUF_INIT;
	int error;

	strbuf_addf(path, "%s/output.log", req->run_dir);
	for (size_t i = 0; i < 2; i++) {
		const struct process_capture *c = streams[i];

		strbuf_add(&text, c->text.buf, c->dropped_at);
		if (c->dropped)
			strbuf_addf(&text, "\n[... %zu bytes dropped]\n",
				    c->dropped);
		strbuf_add(&text, c->text.buf + c->dropped_at,
			   c->text.len - c->dropped_at);
	}
	error = write_file_atomic(path->buf, text.buf, text.len);
	strbuf_release(&text);
	return error;
}

static void add_env(char ***env, size_t *nr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_env(char ***env, size_t *nr, const char *fmt, ...)
{
	struct strbuf entry = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&entry, fmt, ap);
	va_end(ap);
	(*env)[(*nr)++] = strbuf_detach(&entry, NULL);
}

/* The last lines of text, for a one-line message: joined by " | ". */
static void add_tail(struct strbuf *out, const struct strbuf *text)
{
	size_t end = text->len, start;
	int lines = 0;

	while (end && isspace((unsigned char)text->buf[end - 1]))
		end--;
	for (start = end; start > 0; start--)
		if (text->buf[start - 1] == '\n' &&
		    ++lines == STDERR_TAIL_LINES)
			break;
	for (size_t i = start; i < end; i++)
		if (text->buf[i] == '\n')
			strbuf_addstr(out, " | ");
		else
			strbuf_addch(out, text->buf[i]);
}

/* The failure of an extractor that ran. */
static int extractor_failed(const char *name,
			    const struct process_outcome *outcome,
			    size_t max_output)
{
	struct strbuf why = STRBUF_INIT;
	int error;

	if (outcome->out.dropped) {
		strbuf_addf(&why, "printed more than %zu bytes", max_output);
	} else {
		process_outcome_describe(outcome, &why);
		if (outcome->err.text.len) {
			strbuf_addstr(&why, "; its stderr ends: ");
			add_tail(&why, &outcome->err.text);
		}
	}
	error = bg_error("extractor '%s' %s", name, why.buf);
	strbuf_release(&why);
	return error;
}

int extractor_run(const struct extractor_run *req, struct strbuf *output)
{
	const struct suite_settings *settings = &req->pcase->benchmark->settings;
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	struct strbuf log_path = STRBUF_INIT;
	char **argv = NULL, **env;
	size_t argc = 0, env_nr = 0;
	int error = BG_OK;

	while (req->argv_templates[argc])
		argc++;
	argv = xcalloc(argc + 1, sizeof(*argv));
	env = xcalloc(settings->env_nr + 8, sizeof(*env));
	process_outcome_init(&outcome);
	for (size_t i = 0; i < argc && error >= 0; i++) {
		struct strbuf arg = STRBUF_INIT;

		error = plan_case_expand(req->pcase, req->plan, req->run,
					 req->argv_templates[i], &arg);
		argv[i] = strbuf_detach(&arg, NULL);
	}
	if (error < 0 || (error = write_run_log(req, &log_path)) < 0)
		goto done;
	for (size_t i = 0; i < settings->env_nr; i++)
		add_env(&env, &env_nr, "%s=%s", settings->env[i].name,
			settings->env[i].value);
	add_env(&env, &env_nr, "BENCHGATE_RUN_DIR=%s", req->run_dir);
	add_env(&env, &env_nr, "BENCHGATE_RUN_LOG=%s", log_path.buf);
	add_env(&env, &env_nr, "BENCHGATE_METRICS_FILE=%s", req->metrics_path);
	add_env(&env, &env_nr, "BENCHGATE_BENCHMARK=%s",
		req->pcase->benchmark->name);
	add_env(&env, &env_nr, "BENCHGATE_VARIANT=%s",
		req->pcase->variant->name);
	add_env(&env, &env_nr, "BENCHGATE_DEVICE=%s", req->pcase->device);
	add_env(&env, &env_nr, "BENCHGATE_RUN=%d", req->run);
	options.argv = (const char *const *)argv;
	options.env = (const char *const *)env;
	options.cwd = req->pcase->suite->dir;
	options.pass_env = (const char *const *)req->pcase->suite->pass_env;
	options.timeout_s = EXTRACTOR_TIMEOUT_S;
	/* one byte over the limit tells a flood from a full answer */
	options.capture_cap = 2 * (req->max_output + 1);
	if ((error = process_run(&outcome, &options)) < 0)
		goto done;
	if (process_outcome_failed(&outcome) || outcome.out.dropped ||
	    outcome.out.text.len > req->max_output)
		error = extractor_failed(argv[0], &outcome, req->max_output);
	else
		strbuf_add(output, outcome.out.text.buf, outcome.out.text.len);
done:
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	for (size_t i = 0; i < env_nr; i++)
		free(env[i]);
	free(argv);
	free(env);
	process_outcome_release(&outcome);
	strbuf_release(&log_path);
	return error;
}
