/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GNUPLOT_H
#define BENCHGATE_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * gnuplot, run as an external program on the scripts that charts.c
 * writes (report.h): the reports' charts and the dashboard's
 * (harness/app/publish.h). Runs go through util/process.h, one at a time.
 */

/* The program to spawn: $BENCHGATE_GNUPLOT, else "gnuplot" (found on
 * PATH); a relative path is made absolute, as gnuplot runs in the charts'
 * directory. The caller frees it. */
char *gnuplot_program(void);

/* Whether program runs ("program --version" exits 0): the only check
 * that also catches a broken installation. */
bool gnuplot_runs(const char *program);

/* Runs one program process on scripts[0..nr) (names relative to dir), in
 * order, in dir. BG_ERROR with its stderr, naming the first script, when
 * it fails. */
int gnuplot_run_scripts(const char *program, const char *dir,
			const char *const *scripts, size_t nr);

/*
 * Runs gnuplot_program() in dir on the scripts, several per process:
 * starting gnuplot costs more than drawing a chart. BG_ENOTFOUND, nothing
 * drawn, when gnuplot cannot be run; BG_ERROR with its stderr when a
 * script fails.
 */
int gnuplot_run(const char *dir, const char *const *scripts, size_t nr);

#endif
