/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/profile.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/run/stacks.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Samples per second: enough for a clear graph of a one-second run, few
 * enough that a minute-long one stays a few megabytes. Odd, so that it
 * does not beat with periodic work (flamegraph.pl's advice). */
#define PERF_FREQUENCY "999"

/* python/benchgate_profile.py, compiled in (CMakeLists.txt). */
extern const char profile_python_sampler[];

/* Seconds perf may take to start, or to turn a profile into text. */
#define PERF_PROBE_TIMEOUT  30
#define PERF_SCRIPT_TIMEOUT 600

struct profiler {
	bool probed;
	char *perf_why; /* NULL: perf records here */
	const char *event;
};

void profiler_new(struct profiler **out)
{
	*out = xcalloc(1, sizeof(**out));
}

void profiler_free(struct profiler *profiler)
{
	if (!profiler)
		return;
	free(profiler->perf_why);
	free(profiler);
}

/* Whether the CPU has a cycle counter the kernel lets us sample; where it
 * has not (virtual machines, most CI runners), perf needs the software
 * cpu-clock event instead. */
static bool hardware_cycles_work(void)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* The first line of text, for a one-line reason. */
static void add_first_line(struct strbuf *out, const char *text)
{
	text += strspn(text, " \t\r\n");
	strbuf_add(out, text, strcspn(text, "\r\n"));
}

/* Records nothing, to learn once whether perf is there and allowed to
 * sample, with perf's own words when it is not. */
static void probe_perf(struct profiler *profiler)
{
	const char *argv[] = { "perf", "record",    "-q", "-e",	  NULL,
			       "-o",   "/dev/null", "--", "true", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	struct strbuf why = STRBUF_INIT;

	profiler->probed = true;
	profiler->event = hardware_cycles_work() ? "cycles" : "cpu-clock";
	argv[4] = profiler->event;
	options.argv = argv;
	options.timeout_s = PERF_PROBE_TIMEOUT;
	process_outcome_init(&outcome);
	if (process_run(&outcome, &options) < 0) {
		strbuf_addf(&why, "perf cannot be started: %s",
			    bg_error_last());
	} else if (outcome.status == PROCESS_SPAWN_FAILED &&
		   outcome.spawn_errno == ENOENT) {
		strbuf_addstr(&why,
			      "perf is not installed (no 'perf' on PATH; "
			      "Debian and Ubuntu package it as linux-perf)");
	} else if (process_outcome_failed(&outcome)) {
		strbuf_addstr(&why, "perf record does not work here: ");
		if (outcome.err.text.len)
			add_first_line(&why, outcome.err.text.buf);
		else
			process_outcome_describe(&outcome, &why);
	}
	if (why.len) {
		profiler->perf_why = strbuf_detach(&why, NULL);
		bg_warn("no flame graphs: %s", profiler->perf_why);
	}
	process_outcome_release(&outcome);
	strbuf_release(&why);
}

int profiler_describe_perf(const struct profiler *profiler, struct strbuf *out)
{
	if (!profiler->probed || profiler->perf_why)
		return BG_ENOTFOUND;
	strbuf_addf(out, "perf record -g -e %s -F %s", profiler->event,
		    PERF_FREQUENCY);
	return BG_OK;
}

/* Accelerators do their work off the CPU: sampling the host would show
 * the benchmark waiting, not what got slower. */
static bool profiles_cpu(const char *device)
{
	return strcmp(device, "gpu") && strcmp(device, "cuda") &&
	       strcmp(device, "ipu");
}

/* The value a run would see: the benchmark's env wins over benchgate's
 * own environment, as in the runner. */
static const char *case_env(const struct plan_case *pcase, const char *name)
{
	const struct suite_settings *settings = &pcase->benchmark->settings;

	for (size_t i = settings->env_nr; i > 0; i--)
		if (!strcmp(settings->env[i - 1].name, name))
			return settings->env[i - 1].value;
	return getenv(name);
}

/* Sets key to a string value in place (keeping its position), or adds it;
 * duplicates of key, which cJSON keeps, go, so no old value can win. */
static void set_option(cJSON *options, const char *key, const char *value)
{
	cJSON *item = options->child, *next;
	bool seen = false;

	for (; item; item = next) {
		next = item->next;
		if (!item->string || strcmp(item->string, key))
			continue;
		if (seen)
			cJSON_Delete(cJSON_DetachItemViaPointer(options, item));
		seen = true;
	}
	if (seen)
		cJSON_ReplaceItemInObjectCaseSensitive(
			options, key, cJSON_CreateString(value));
	else
		cJSON_AddStringToObject(options, key, value);
}

/*
 * The POPLAR_ENGINE_OPTIONS value of a profiling run: the user's options
 * (`user`, a JSON object; NULL or blank: none) with "autoReport.all" set to
 * "true" and "autoReport.directory" to report_dir, replacing the user's
 * values for those two keys and keeping every other option and its order.
 * Appends compact JSON to out. BG_EINPUT, with a message naming the
 * variable and what is wrong, when `user` is not a JSON object; out is
 * then unchanged.
 */
static int poplar_options(struct strbuf *out, const char *user,
			  const char *report_dir)
{
	cJSON *options = NULL;
	const char *end = NULL;
	char *text;

	if (user && user[strspn(user, " \t\r\n")]) {
		options = cJSON_ParseWithOpts(user, &end, 1);
		if (!options) {
			size_t at = end && end >= user ? (size_t)(end - user)
						       : 0;

			return bg_input_error("POPLAR_ENGINE_OPTIONS is not "
					      "valid JSON (at byte %zu of "
					      "'%s'); expected an object such "
					      "as {\"debug.instrument\": "
					      "\"true\"}",
					      at, user);
		}
		if (!cJSON_IsObject(options)) {
			cJSON_Delete(options);
			return bg_input_error("POPLAR_ENGINE_OPTIONS is JSON "
					      "but not an object ('%s'); "
					      "expected {\"option\": "
					      "\"value\", ...}",
					      user);
		}
	} else {
		options = cJSON_CreateObject();
	}
	set_option(options, "autoReport.all", "true");
	set_option(options, "autoReport.directory", report_dir);
	text = cJSON_PrintUnformatted(options);
	if (!text) {
		fputs("benchgate: fatal: out of memory serialising JSON\n",
		      stderr);
		abort();
	}
	strbuf_addstr(out, text);
	free(text);
	cJSON_Delete(options);
	return BG_OK;
}

static void set_note(struct profile_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The first reason is the one worth reading: later ones follow from it. */
static void set_note(struct profile_run *run, const char *fmt, ...)
{
	struct strbuf note = STRBUF_INIT;
	va_list ap;

	if (run->note)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&note, fmt, ap);
	va_end(ap);
	run->note = strbuf_detach(&note, NULL);
}

static void add_env(struct profile_run *run, const char *name,
		    const char *value)
{
	struct strbuf entry = STRBUF_INIT;
	size_t n = 0;

	while (run->env[n])
		n++;
	assert(n + 1 < sizeof(run->env) / sizeof(*run->env));
	strbuf_addf(&entry, "%s=%s", name, value);
	run->env[n] = strbuf_detach(&entry, NULL);
}

/* Where the sampler goes: hidden in the artifact directory, and removed
 * after the run (profile_finish()). */
#define PYTHON_SAMPLER_DIR ".benchgate-python"

/* The Python sampler as the run's sitecustomize, in run->python_dir,
 * which the runner puts first on PYTHONPATH. */
static void add_python_sampler(struct profile_run *run)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/" PYTHON_SAMPLER_DIR, run->dir);
	run->python_dir = xstrdup(path.buf);
	strbuf_addstr(&path, "/sitecustomize.py");
	if (mkdir_p(run->python_dir) < 0 ||
	    write_file_atomic(path.buf, profile_python_sampler,
			      strlen(profile_python_sampler)) < 0) {
		set_note(run, "no Python stacks: %s", bg_error_last());
		remove_tree(run->python_dir);
		free(run->python_dir);
		run->python_dir = NULL;
	}
	strbuf_release(&path);
}

int profile_prepare(struct profile_run *run, struct profiler *profiler,
		    const struct plan_case *pcase, const char *dir)
{
	struct strbuf value = STRBUF_INIT, path = STRBUF_INIT;
	size_t n = 0;
	int error = BG_OK;

	memset(run, 0, sizeof(*run));
	run->dir = xstrdup(dir);
	/* checked first: a run that cannot be profiled leaves no directory */
	if (!strcmp(pcase->device, "ipu")) {
		strbuf_addf(&path, "%s/poplar", dir);
		if (poplar_options(&value,
				   case_env(pcase, "POPLAR_ENGINE_OPTIONS"),
				   path.buf) < 0) {
			set_note(run, "not profiled: %s", bg_error_last());
			error = BG_ENOTFOUND;
			goto done;
		}
	}
	if (mkdir_p(dir) < 0) {
		set_note(run, "not profiled: %s", bg_error_last());
		error = BG_ENOTFOUND;
		goto done;
	}
	add_env(run, "BENCHGATE_PROFILE_DIR", dir);
	if (value.len)
		add_env(run, "POPLAR_ENGINE_OPTIONS", value.buf);
	add_python_sampler(run);
	if (!profiles_cpu(pcase->device))
		goto done;
	if (!profiler->probed)
		probe_perf(profiler);
	if (profiler->perf_why) {
		/* said in profile_finish() unless Python stacks stand in */
		run->perf_why = profiler->perf_why;
		goto done;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/perf.data", dir);
	run->perf_data = strbuf_detach(&path, NULL);
	run->event = profiler->event;
	run->prefix[n++] = "perf";
	run->prefix[n++] = "record";
	run->prefix[n++] = "-q";
	run->prefix[n++] = "-g";
	run->prefix[n++] = "-F";
	run->prefix[n++] = PERF_FREQUENCY;
	run->prefix[n++] = "-e";
	run->prefix[n++] = run->event;
	run->prefix[n++] = "-o";
	run->prefix[n++] = run->perf_data;
	run->prefix[n++] = "--";
	run->prefix[n] = NULL;
done:
	strbuf_release(&value);
	strbuf_release(&path);
	return error;
}

/* perf script's text, into a file: a long profile is far more than a
 * child's captured output may hold. */
static int perf_script(const struct profile_run *run, const char *out_path)
{
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	struct strbuf shell = STRBUF_INIT, why = STRBUF_INIT;
	int error;

	strbuf_addstr(&shell, "exec perf script -i ");
	strbuf_add_shell_quoted(&shell, run->perf_data);
	strbuf_addstr(&shell, " > ");
	strbuf_add_shell_quoted(&shell, out_path);
	options.shell = shell.buf;
	options.timeout_s = PERF_SCRIPT_TIMEOUT;
	process_outcome_init(&outcome);
	if ((error = process_run(&outcome, &options)) < 0)
		goto done;
	if (process_outcome_failed(&outcome)) {
		process_outcome_describe(&outcome, &why);
		if (outcome.err.text.len) {
			strbuf_addstr(&why, ": ");
			add_first_line(&why, outcome.err.text.buf);
		}
		error = bg_error("perf script %s", why.buf);
	}
done:
	process_outcome_release(&outcome);
	strbuf_release(&shell);
	strbuf_release(&why);
	return error;
}

/* The samples of perf.data as folded stacks, folded.txt, for the flame
 * graph drawn after the run (the flamegraph reporter) and for FlameGraph's
 * own tools. */
static int write_folded(struct profile_run *run, struct result_case *rcase,
			const char *base)
{
	struct stacks stacks = STACKS_INIT;
	struct strbuf script = STRBUF_INIT, folded = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	FILE *in = NULL;
	int error;

	strbuf_addf(&script, "%s/perf.script", run->dir);
	if ((error = perf_script(run, script.buf)) < 0)
		goto done;
	if (!(in = fopen(script.buf, "r"))) {
		error = bg_error("cannot read '%s': %s", script.buf,
				 strerror(errno));
		goto done;
	}
	if ((error = stacks_fold_perf_script(&stacks, in)) < 0)
		goto done;
	if (!stacks.total)
		set_note(run, "perf recorded no samples: the run took less "
			      "than a sampling period");
	stacks_write_folded(&stacks, &folded);
	strbuf_addf(&path, "%s/folded.txt", run->dir);
	if ((error = write_file_atomic(path.buf, folded.buf, folded.len)) < 0)
		goto done;
	result_case_add_artifact(rcase, "folded", path.buf, base);
done:
	if (in)
		fclose(in);
	/* the text is many times the size of perf.data, which stays */
	unlink(script.buf);
	stacks_release(&stacks);
	strbuf_release(&script);
	strbuf_release(&folded);
	strbuf_release(&path);
	return error;
}

static bool is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether name is "python-<pid>.folded", as the sampler names its files. */
static bool is_python_stacks(const char *name)
{
	size_t len = strlen(name), suffix = strlen(".folded");

	return !strncmp(name, "python-", strlen("python-")) && len > suffix &&
	       !strcmp(name + len - suffix, ".folded");
}

/* The python-<pid>.folded of every Python process of the run merged into
 * folded-python.txt (listed as "python-folded"), and removed: true when
 * there were any stacks. A file that cannot be read is a note. */
static bool merge_python_stacks(struct profile_run *run,
				struct result_case *rcase, const char *base)
{
	struct stacks stacks = STACKS_INIT;
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	DIR *listing = opendir(run->dir);
	const struct dirent *entry;
	bool found = false;

	while (listing && (entry = readdir(listing))) {
		if (!is_python_stacks(entry->d_name))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", run->dir, entry->d_name);
		strbuf_reset(&text);
		if (strbuf_read_file(&text, path.buf) < 0 ||
		    stacks_parse_folded(&stacks, text.buf, text.len) < 0)
			set_note(run, "Python stacks left out: %s",
				 bg_error_last());
		unlink(path.buf);
	}
	if (listing)
		closedir(listing);
	if (!stacks.total)
		goto done;
	strbuf_reset(&text);
	stacks_write_folded(&stacks, &text);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/folded-python.txt", run->dir);
	if (write_file_atomic(path.buf, text.buf, text.len) < 0) {
		set_note(run, "no flame graph: %s", bg_error_last());
		goto done;
	}
	result_case_add_artifact(rcase, "python-folded", path.buf, base);
	found = true;
done:
	stacks_release(&stacks);
	strbuf_release(&path);
	strbuf_release(&text);
	return found;
}

/* dir/name as an artifact of kind, when the run left it. */
static void add_if_present(struct profile_run *run, struct result_case *rcase,
			   const char *base, const char *name, const char *kind)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s", run->dir, name);
	if (access(path.buf, F_OK) == 0)
		result_case_add_artifact(rcase, kind, path.buf, base);
	strbuf_release(&path);
}

void profile_finish(struct profile_run *run, const struct plan_case *pcase,
		    const struct process_outcome *outcome,
		    struct result_case *rcase, const char *base)
{
	struct strbuf why = STRBUF_INIT, path = STRBUF_INIT;
	bool python = false;
	struct stat st;

	if (outcome && process_outcome_failed(outcome)) {
		process_outcome_describe(outcome, &why);
		set_note(run, "the profiling run %s", why.buf);
	}
	if (run->python_dir) {
		remove_tree(run->python_dir);
		python = merge_python_stacks(run, rcase, base);
	}
	/* a run that failed may still have left samples worth a look */
	if (run->perf_data && stat(run->perf_data, &st) == 0 && st.st_size) {
		if (!python && write_folded(run, rcase, base) < 0)
			set_note(run, "no flame graph: %s", bg_error_last());
		result_case_add_artifact(rcase, "perf", run->perf_data, base);
	} else if (run->perf_data && !python) {
		set_note(run, "no flame graph: perf wrote no profile");
	} else if (run->perf_why && !python && !run->note) {
		set_note(run, "no flame graph: %s", run->perf_why);
		run->told = true; /* the probe said it, once for all */
	}
	add_if_present(run, rcase, base, "torch-ops.txt", "torch-ops");
	add_if_present(run, rcase, base, "cuda-memory.pickle", "cuda-memory");
	strbuf_addf(&path, "%s/poplar", run->dir);
	if (is_directory(path.buf))
		result_case_add_artifact(rcase, "poplar", path.buf, base);
	/* last: readers are after the files in it, the flame graph first */
	if (is_directory(run->dir))
		result_case_add_artifact(rcase, "profile", run->dir, base);
	if (run->note) {
		if (!run->told)
			bg_warn("%s: %s", pcase->id, run->note);
		free(rcase->profile_note);
		rcase->profile_note = xstrdup(run->note);
	}
	strbuf_release(&why);
	strbuf_release(&path);
}

void profile_run_release(struct profile_run *run)
{
	free(run->dir);
	free(run->python_dir);
	free(run->perf_data);
	for (size_t i = 0; run->env[i]; i++)
		free(run->env[i]);
	free(run->note);
	memset(run, 0, sizeof(*run));
}
