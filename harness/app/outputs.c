/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/outputs.h"

#include "harness/gate/compare.h"
#include "harness/store/store.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"
#include "reporters/report.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int app_store_open(struct store **out, const char *spec)
{
	struct strbuf text = STRBUF_INIT;
	int error;

	if (spec)
		strbuf_addstr(&text, spec);
	else
		store_default_spec(&text, NULL);
	error = store_open(out, text.buf);
	strbuf_release(&text);
	return error;
}

static int machine_stdout = -1; /* the real stdout, once claimed */

void app_claim_stdout(void)
{
	if (machine_stdout >= 0)
		return;
	fflush(stdout);
	machine_stdout = dup(STDOUT_FILENO);
	/* without a spare descriptor the lines mix, as before */
	if (machine_stdout >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
}

bool app_output_is_stdout(const char *path)
{
	struct stat file, out, null;

	if (!path)
		return false;
	if (!strcmp(path, "-"))
		return true;
	/* output thrown away is not output moved: --json /dev/null with
	 * stdout at /dev/null keeps the prose on stdout */
	if (stat(path, &file) == 0 && stat("/dev/null", &null) == 0 &&
	    file.st_dev == null.st_dev && file.st_ino == null.st_ino)
		return false;
	/* /dev/stdout, /proc/self/fd/1, or the file stdout was redirected
	 * to: the same file, so the same stream (once claimed, the real
	 * stdout is the kept descriptor) */
	return stat(path, &file) == 0 &&
	       fstat(machine_stdout >= 0 ? machine_stdout : STDOUT_FILENO,
		     &out) == 0 &&
	       file.st_dev == out.st_dev && file.st_ino == out.st_ino;
}

int app_write_output(const char *path, const struct strbuf *text)
{
	if (!app_output_is_stdout(path))
		return write_file_atomic(path, text->buf, text->len);
	app_claim_stdout();
	if (write_in_full(machine_stdout >= 0 ? machine_stdout : STDOUT_FILENO,
			  text->buf, text->len) < 0)
		return bg_error("cannot write to stdout: %s", strerror(errno));
	return BG_OK;
}

int app_write_output_produced(const char *path, file_producer *produce,
			      void *ctx)
{
	if (!app_output_is_stdout(path))
		return write_file_atomic_produced(path, produce, ctx);
	app_claim_stdout();
	if (write_fd_produced(machine_stdout >= 0 ? machine_stdout
						  : STDOUT_FILENO,
			      produce, ctx) < 0)
		return bg_error("cannot write to stdout: %s", strerror(errno));
	return BG_OK;
}

/* Creates dir and its parents, and proves a file can be made in it. */
static int prepare_directory(const char *option, const char *path,
			     const char *dir)
{
	struct strbuf probe = STRBUF_INIT;
	int fd, error = BG_OK;

	if (mkdir_p(dir) < 0) {
		error = bg_input_error("%s '%s': cannot create the directory "
				       "'%s': %s",
				       option, path, dir, bg_error_last());
		goto done;
	}
	strbuf_addf(&probe, "%s/.benchgate-probe-XXXXXX", dir);
	if ((fd = mkstemp(probe.buf)) < 0) {
		error = bg_input_error("%s '%s': cannot write into '%s': %s",
				       option, path, dir, strerror(errno));
		goto done;
	}
	close(fd);
	unlink(probe.buf);
done:
	strbuf_release(&probe);
	return error;
}

int app_prepare_outputs(const char *json_path, const char *report_dir)
{
	int error = BG_OK;

	if (json_path && !app_output_is_stdout(json_path)) {
		struct strbuf dir = STRBUF_INIT;
		const char *slash = strrchr(json_path, '/');
		struct stat st;

		if (slash)
			strbuf_add(&dir, json_path,
				   slash == json_path
					   ? 1
					   : (size_t)(slash - json_path));
		else
			strbuf_addch(&dir, '.');
		if (!stat(json_path, &st) && S_ISDIR(st.st_mode))
			error = bg_input_error("--json '%s' is a directory",
					       json_path);
		else
			error = prepare_directory("--json", json_path, dir.buf);
		strbuf_release(&dir);
	}
	if (!error && report_dir)
		error = prepare_directory("--report", report_dir, report_dir);
	return error;
}

int app_write_outputs(const struct report_model *model, const char *json_path,
		      const char *report_dir, bool quiet)
{
	struct strbuf text = STRBUF_INIT, json_error = STRBUF_INIT;
	int error = BG_OK, failed = BG_OK;

	/* each output is written even when another could not be */
	if (json_path) {
		struct comparison_json_pieces pieces;

		/* written as it is made: 20,000 cases make 70 MB */
		comparison_json_pieces_init(&pieces, model->comparison);
		if ((failed = app_write_output_produced(
			     json_path, comparison_json_piece, &pieces)) < 0)
			strbuf_addstr(&json_error, bg_error_last());
	}
	if (report_dir) {
		strbuf_reset(&text);
		error = report_write_all(model, report_dir, REPORT_ALL, &text);
		if (!error && !quiet)
			terminal_print_line(stdout, "reports in %s",
					    report_dir);
	}
	/* the caller prints the last error: the other one here */
	if (failed < 0 && error < 0)
		terminal_print_error(json_error.buf);
	else if (failed < 0)
		error = bg_error("%s", json_error.buf);
	strbuf_release(&text);
	strbuf_release(&json_error);
	return error;
}
