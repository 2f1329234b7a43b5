/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running gnuplot (gnuplot.h): the one program the reports start.
 */
#include "reporters/gnuplot.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/process.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* gnuplot renders one chart in well under a second; a hung one must not
 * hang the CI job. */
#define GNUPLOT_TIMEOUT_S 120

/* The program to spawn: $BENCHGATE_GNUPLOT, else gnuplot from PATH. A
 * relative path is made absolute because gnuplot runs in charts/. */
char *gnuplot_program(void)
{
	const char *program = getenv("BENCHGATE_GNUPLOT");
	char *absolute;

	if (!program || !*program)
		return xstrdup("gnuplot");
	if (program[0] == '/' || !strchr(program, '/'))
		return xstrdup(program);
	absolute = realpath(program, NULL);
	return absolute ? absolute : xstrdup(program);
}

/* Whether program runs: spawning it is the only check that also catches
 * a broken installation, and it reuses process_run()'s PATH lookup. */
bool gnuplot_runs(const char *program)
{
	const char *argv[] = { program, "--version", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	bool runs;

	options.argv = argv;
	options.timeout_s = 10;
	process_outcome_init(&outcome);
	runs = process_run(&outcome, &options) == BG_OK &&
	       !process_outcome_failed(&outcome);
	process_outcome_release(&outcome);
	return runs;
}

/* Runs one gnuplot on scripts[0..nr), in order, in dir. */
int gnuplot_run_scripts(const char *program, const char *dir,
			const char *const *scripts, size_t nr)
{
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	struct strbuf why = STRBUF_INIT;
	const char **argv = xcalloc(nr + 2, sizeof(*argv));
	int error = BG_OK;

	argv[0] = program;
	memcpy(argv + 1, scripts, nr * sizeof(*scripts));
	options.argv = argv;
	options.cwd = dir;
	options.timeout_s = GNUPLOT_TIMEOUT_S;
	process_outcome_init(&outcome);
	if ((error = process_run(&outcome, &options)) < 0)
		goto done;
	if (process_outcome_failed(&outcome)) {
		process_outcome_describe(&outcome, &why);
		strbuf_rtrim(&outcome.err.text);
		error = bg_error("gnuplot failed on '%s/%s'%s: %s%s%s", dir,
				 scripts[0], nr > 1 ? " or a script after it" : "",
				 why.buf, outcome.err.text.len ? ": " : "",
				 outcome.err.text.buf);
	}
done:
	process_outcome_release(&outcome);
	strbuf_release(&why);
	free(argv);
	return error;
}

/* Scripts per gnuplot process: far below the argument list's limit, and
 * a failure still names a script near the one at fault. */
#define GNUPLOT_BATCH 64

int gnuplot_run(const char *dir, const char *const *scripts, size_t nr)
{
	char *program = gnuplot_program();
	int error = BG_OK;

	for (size_t i = 0; !error && i < nr; i += GNUPLOT_BATCH)
		error = gnuplot_run_scripts(program, dir, scripts + i,
					    nr - i < GNUPLOT_BATCH
						    ? nr - i
						    : GNUPLOT_BATCH);
	/* Probed only once a batch failed, to tell a missing gnuplot from a
	 * failing script: a probe up front would start gnuplot once more on
	 * every publish. A missing one fails the first batch, so nothing
	 * was drawn. */
	if (error < 0 && !gnuplot_runs(program))
		error = bg_notfound("gnuplot not found (tried '%s'): charts "
				    "skipped",
				    program);
	free(program);
	return error;
}

