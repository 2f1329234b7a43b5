/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/callgrind.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool callgrind_wanted(const struct benchmark *benchmark)
{
	for (size_t i = 0; i < benchmark->metrics_nr; i++)
		if (benchmark->metrics[i].from == SOURCE_CALLGRIND)
			return true;
	return false;
}

void callgrind_prepare(struct callgrind_run *run, const char *dir,
		       const char *stem)
{
	struct strbuf option = STRBUF_INIT;
	size_t n = 0;

	memset(run, 0, sizeof(*run));
	run->dir = xstrdup(dir);
	run->stem = xstrdup(stem);
	strbuf_addf(&option, "--callgrind-out-file=%s/%s.%%p", dir, stem);
	run->out_option = strbuf_detach(&option, NULL);
	run->prefix[n++] = "valgrind";
	run->prefix[n++] = "--tool=callgrind";
	/* valgrind's banner would bury the benchmark's own output */
	run->prefix[n++] = "--quiet";
	run->prefix[n++] = "--trace-children=yes";
	run->prefix[n++] = run->out_option;
	run->prefix[n] = NULL;
}

void callgrind_run_release(struct callgrind_run *run)
{
	free(run->dir);
	free(run->stem);
	free(run->out_option);
	memset(run, 0, sizeof(*run));
}

/* The index-th number of a "name: 1 2 3" line's values, if any. */
static bool nth_number(const char *values, size_t index, uint64_t *out)
{
	const char *p = values;
	char *end;

	for (size_t i = 0;; i++) {
		unsigned long long value;

		p += strspn(p, " \t");
		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		value = strtoull(p, &end, 10);
		if (errno)
			return false;
		if (i == index) {
			*out = value;
			return true;
		}
		p = end;
	}
}

/*
 * The total instructions (event "Ir") of one callgrind output file: its
 * "totals:" line, else its "summary:" line, at the position of Ir in the
 * "events:" line. BG_EINPUT naming `what` when there is none.
 */
static int parse_total(const char *text, size_t len, const char *what,
		       uint64_t *instructions)
{
	struct strbuf line = STRBUF_INIT;
	const char *p = text, *end = text + len;
	size_t ir = 0;
	bool has_ir = false, has_summary = false, has_totals = false;
	uint64_t summary = 0, totals = 0;

	while (p < end) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		size_t n = newline ? (size_t)(newline - p) : (size_t)(end - p);

		strbuf_reset(&line);
		strbuf_add(&line, p, n);
		if (!strncmp(line.buf, "events:", 7)) {
			/* the position of Ir among the events counted */
			const char *e = line.buf + 7;
			size_t index = 0;

			has_ir = false;
			while (*(e += strspn(e, " \t"))) {
				size_t word = strcspn(e, " \t");

				if (word == 2 && !strncmp(e, "Ir", 2)) {
					ir = index;
					has_ir = true;
					break;
				}
				index++;
				e += word;
			}
		} else if (!strncmp(line.buf, "summary:", 8)) {
			has_summary = has_ir &&
				      nth_number(line.buf + 8, ir, &summary);
		} else if (!strncmp(line.buf, "totals:", 7)) {
			has_totals = has_ir &&
				     nth_number(line.buf + 7, ir, &totals);
		}
		p = newline ? newline + 1 : end;
	}
	strbuf_release(&line);
	if (!has_totals && !has_summary)
		return bg_input_error("%s: no instruction total (no 'totals:' "
				      "or 'summary:' line for event Ir)",
				      what);
	*instructions = has_totals ? totals : summary;
	return BG_OK;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The output files of the run, sorted so that the order is stable. */
static int list_outputs(const struct callgrind_run *run, char ***out,
			size_t *out_nr)
{
	size_t stem_len = strlen(run->stem), nr = 0, alloc = 0;
	char **names = NULL;
	struct dirent *de;
	DIR *dir = opendir(run->dir);

	if (!dir)
		return bg_error("cannot read directory '%s': %s", run->dir,
				strerror(errno));
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, run->stem, stem_len) ||
		    de->d_name[stem_len] != '.')
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(dir);
	if (nr)
		qsort(names, nr, sizeof(*names), compare_names);
	*out = names;
	*out_nr = nr;
	return BG_OK;
}

static void push_instructions(const struct benchmark *benchmark,
			      struct result_case *rcase, uint64_t total)
{
	for (size_t i = 0; i < benchmark->metrics_nr; i++) {
		const struct metric_spec *spec = &benchmark->metrics[i];
		struct metric_samples *metric;

		if (spec->from != SOURCE_CALLGRIND ||
		    !metric_spec_on_device(spec, rcase->device))
			continue;
		metric = result_case_metric(rcase, spec->name);
		if (!metric->unit)
			metric->unit = xstrdup(spec->unit ? spec->unit
							  : "instructions");
		metric_spec_stamp(spec, metric);
		metric_samples_push(metric, (double)total);
		metric->runs++;
	}
}

/* Keeps the output beside the result: one file under a plain name. */
static void keep_outputs(const struct callgrind_run *run, char **names,
			 size_t nr, struct result_case *rcase, const char *base)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;

	for (size_t i = 0; i < nr; i++) {
		strbuf_reset(&from);
		strbuf_addf(&from, "%s/%s", run->dir, names[i]);
		strbuf_reset(&to);
		if (nr == 1)
			strbuf_addf(&to, "%s/callgrind.out", run->dir);
		if (nr == 1 && rename(from.buf, to.buf) < 0) {
			bg_warn("cannot rename '%s': %s", from.buf,
				strerror(errno));
			strbuf_reset(&to);
		}
		result_case_add_artifact(rcase, "callgrind",
					 to.len ? to.buf : from.buf, base);
	}
	strbuf_release(&from);
	strbuf_release(&to);
}

int callgrind_finish(struct callgrind_run *run,
		     const struct benchmark *benchmark,
		     struct result_case *rcase, bool keep, const char *base)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	char **names = NULL;
	size_t nr = 0;
	uint64_t total = 0;
	int error;

	if ((error = list_outputs(run, &names, &nr)) < 0)
		goto done;
	if (!nr) {
		error = bg_error("callgrind wrote no output ('%s/%s.*')",
				 run->dir, run->stem);
		goto done;
	}
	for (size_t i = 0; i < nr; i++) {
		uint64_t instructions = 0;

		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", run->dir, names[i]);
		strbuf_reset(&text);
		if ((error = strbuf_read_file(&text, path.buf)) < 0 ||
		    (error = parse_total(text.buf, text.len, path.buf,
					 &instructions)) < 0)
			goto done;
		total += instructions;
	}
	push_instructions(benchmark, rcase, total);
	if (keep)
		keep_outputs(run, names, nr, rcase, base);
done:
	for (size_t i = 0; i < nr; i++) {
		if (!keep || error) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s", run->dir, names[i]);
			unlink(path.buf);
		}
		free(names[i]);
	}
	free(names);
	strbuf_release(&path);
	strbuf_release(&text);
	return error;
}
