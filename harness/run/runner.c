/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/runner.h"

#include "harness/util/alloc.h"
#include "harness/run/callgrind.h"
#include "harness/run/collectors.h"
#include "harness/probe/devices.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/process.h"
#include "harness/util/scratch.h"
#include "harness/run/profile.h"
#include "harness/run/run_scratch.h"
#include "harness/probe/sampler.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A failure reason quotes this much of the end of the output. */
#define REASON_TAIL_LINES 20
#define REASON_TAIL_BYTES 4096

struct case_state {
	const struct plan_case *pcase;
	size_t result_index; /* result->cases may move: no pointer */
	int warmup;	     /* warmup runs to do */
	int runs;	     /* measured runs to do; adaptive: max_runs */
	int min_runs;	     /* adaptive: ask the caller from here on */
	bool adaptive;
	unsigned sampled; /* sampler sources of its measured runs */
	int warmups_done;
	int runs_done;
	bool finished;
	char *log_path; /* NULL: no log */
	bool log_started; /* its header is written, or pending */
	bool log_opened;  /* the file is made, and named in the result */
	bool log_failed;
	size_t log_written; /* output bytes, against the cap */
	/* what is not yet in the file: the log is written in large pieces,
	 * not at each run (flush_log()) */
	struct strbuf log_pending;
};

struct runner {
	struct result *result;
	const struct plan *plan;
	const struct runner_options *options;
	struct collectors *collectors;
	struct sampler *sampler; /* NULL: no benchmark samples */
	bool callgrind_told;	 /* that valgrind is missing */
	struct case_state *cases;
	size_t nr;
	struct scratch scratch;
	const char *tmp_dir; /* scratch.dir */
	unsigned long metrics_seq;
	struct run_scratch run_scratch; /* every run's (run_scratch.h) */
	double start;
	size_t log_cap;
	bool progress_shown; /* the progress line is on stderr */
	/* Where runner_step() is in the order: interleaved, the case whose
	 * warmups are next, then the position in the current round and its
	 * direction; sequential, the case being run. */
	size_t warming;
	size_t cursor;
	bool backward;
	bool round_ran;
	struct case_state *asking; /* set by the run that just ended */
};

struct env_list {
	char **items;
	size_t nr, alloc;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void env_add(struct env_list *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void env_add(struct env_list *env, const char *fmt, ...)
{
	struct strbuf entry = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&entry, fmt, ap);
	va_end(ap);
	ALLOC_GROW(env->items, env->nr + 2, env->alloc);
	env->items[env->nr++] = strbuf_detach(&entry, NULL);
	env->items[env->nr] = NULL;
}

static void env_release(struct env_list *env)
{
	for (size_t i = 0; i < env->nr; i++)
		free(env->items[i]);
	free(env->items);
	memset(env, 0, sizeof(*env));
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static struct result_case *case_result(struct runner *runner,
				       const struct case_state *cs)
{
	return &runner->result->cases[cs->result_index];
}

/* "bench/variant/device" -> "bench__variant__device", with anything a
 * file name should not hold replaced: the case's log and artifact
 * directory are named so. '@', which no name may hold, keeps a baseline
 * twin's ("...@baseline") apart from every other case's. */
static void add_case_file_name(struct strbuf *out, const char *id)
{
	for (const char *p = id; *p; p++) {
		if (*p == '/')
			strbuf_addstr(out, "__");
		else if (isalnum((unsigned char)*p) || strchr("._+-@", *p))
			strbuf_addch(out, *p);
		else
			strbuf_addch(out, '_');
	}
}

static char *relative_to(const char *path, const char *base)
{
	size_t len = base ? strlen(base) : 0;

	while (len > 1 && base[len - 1] == '/')
		len--;
	if (base && len && !strncmp(path, base, len) && path[len] == '/')
		return xstrdup(path + len + 1);
	return xstrdup(path);
}

/* The session's scratch, "$TMPDIR/benchgate-run-XXXXXX", claimed
 * (scratch.h): a benchgate killed with kill -9 leaves one, which the next
 * one removes. */
static int make_tmp_dir(struct runner *runner)
{
	int error = scratch_claim(&runner->scratch, "run");

	runner->tmp_dir = runner->scratch.dir;
	return error;
}

/* Removes the temporary directory and what benchmarks left in it. */
static void remove_tmp_dir(struct runner *runner)
{
	scratch_release(&runner->scratch);
	runner->tmp_dir = NULL;
}

/* The sources of the benchmark's metrics that the sampler measures. */
static unsigned sampled_sources(const struct benchmark *benchmark)
{
	unsigned sources = 0;

	for (size_t m = 0; m < benchmark->metrics_nr; m++)
		sources |= SAMPLER_SOURCE(benchmark->metrics[m].from);
	return sources & SAMPLER_SOURCES;
}

static int setup_cases(struct runner *runner)
{
	const struct runner_options *options = runner->options;
	const struct plan *plan = runner->plan;
	struct strbuf path = STRBUF_INIT;
	int error = BG_OK;

	if (options->log_dir && (error = mkdir_p(options->log_dir)) < 0)
		return error;
	runner->nr = plan->nr;
	runner->cases = xcalloc(plan->nr + 1, sizeof(*runner->cases));
	for (size_t i = 0; i < plan->nr; i++) {
		const struct plan_case *pcase = &plan->cases[i];
		const struct suite_settings *settings =
			&pcase->benchmark->settings;
		struct case_state *cs = &runner->cases[i];
		struct result_case *rcase;
		const char *skip = NULL;

		cs->pcase = pcase;
		strbuf_init(&cs->log_pending, 0);
		cs->sampled = sampled_sources(pcase->benchmark);
		cs->result_index = runner->result->cases_nr;
		rcase = result_add_case(runner->result, pcase->benchmark->name,
					pcase->variant->name, pcase->device);
		suite_settings_stamp(settings, rcase);
		cs->warmup = options->warmup >= 0 ? options->warmup
						  : settings->warmup;
		if (options->runs >= 0) {
			cs->runs = options->runs;
		} else if (settings->runs_auto) {
			cs->adaptive = true;
			cs->runs = settings->max_runs;
			cs->min_runs = settings->min_runs;
		} else {
			cs->runs = settings->runs;
		}
		if (options->skip)
			skip = options->skip(pcase, options->payload);
		if (skip) {
			result_case_fail(rcase, CASE_SKIPPED, skip);
			cs->finished = true;
			continue;
		}
		if (options->log_dir) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/", options->log_dir);
			add_case_file_name(&path, pcase->id);
			strbuf_addstr(&path, ".log");
			cs->log_path = xstrdup(path.buf);
		}
	}
	strbuf_release(&path);
	return error;
}

static bool case_has_more(const struct case_state *cs)
{
	return !cs->finished &&
	       (cs->warmups_done < cs->warmup || cs->runs_done < cs->runs);
}

static void add_duration(struct strbuf *out, double seconds)
{
	long s = (long)(seconds + 0.5);

	if (s < 60)
		strbuf_addf(out, "%lds", s);
	else if (s < 3600)
		strbuf_addf(out, "%ldm%02lds", s / 60, s % 60);
	else
		strbuf_addf(out, "%ldh%02ldm", s / 3600, s % 3600 / 60);
}

static void show_progress(struct runner *runner, const struct case_state *cs)
{
	struct strbuf line = STRBUF_INIT;
	long planned = 0, done = 0;
	double elapsed = now_s() - runner->start;

	for (size_t i = 0; i < runner->nr; i++) {
		const struct case_state *other = &runner->cases[i];
		long other_done = other->warmups_done + other->runs_done;

		done += other_done;
		planned += other->finished ? other_done
					   : other->warmup + other->runs;
	}
	strbuf_addf(&line, "\rcase %zu/%zu run %d/%d elapsed ",
		    (size_t)(cs - runner->cases) + 1, runner->nr,
		    cs->warmups_done + cs->runs_done + 1,
		    cs->warmup + cs->runs);
	add_duration(&line, elapsed);
	if (done) {
		strbuf_addstr(&line, " ETA ");
		add_duration(&line,
			     elapsed / (double)done * (double)(planned - done));
	}
	/* erase what a longer previous line left */
	strbuf_addstr(&line, "\033[K");
	fputs(line.buf, stderr);
	fflush(stderr);
	runner->progress_shown = true;
	strbuf_release(&line);
}

static void clear_progress(struct runner *runner)
{
	if (runner->progress_shown)
		fputs("\r\033[K", stderr);
	runner->progress_shown = false;
}

static void describe_run(struct strbuf *out, const struct case_state *cs,
			 bool warmup, int index)
{
	if (warmup)
		strbuf_addf(out, "warmup run %d/%d", index + 1, cs->warmup);
	else
		strbuf_addf(out, "measured run %d/%d", index + 1, cs->runs);
}

/* Appends the last lines of stderr, or of stdout when stderr is empty. */
static void add_output_tail(struct strbuf *reason,
			    const struct process_outcome *outcome)
{
	const struct process_capture *capture =
		outcome->err.text.len ? &outcome->err : &outcome->out;
	const char *text = capture->text.buf;
	size_t end = capture->text.len, start;
	int lines = 0;

	while (end && text[end - 1] == '\n')
		end--;
	if (!end)
		return;
	for (start = end; start > 0; start--) {
		if (text[start - 1] == '\n' && ++lines == REASON_TAIL_LINES)
			break;
		if (end - start >= REASON_TAIL_BYTES)
			break;
	}
	strbuf_addf(reason, "\nlast lines of %s:\n%s",
		    capture == &outcome->err ? "stderr" : "stdout",
		    start && text[start - 1] != '\n' ? "..." : "");
	strbuf_add(reason, text + start, end - start);
}

static void fail_case(struct runner *runner, struct case_state *cs,
		      enum case_status status, const char *what,
		      const char *which, const struct process_outcome *outcome)
{
	struct strbuf reason = STRBUF_INIT;

	strbuf_addf(&reason, "%s (%s)", what, which);
	if (outcome)
		add_output_tail(&reason, outcome);
	result_case_fail(case_result(runner, cs), status, reason.buf);
	cs->finished = true;
	strbuf_release(&reason);
}

static void end_line(struct strbuf *block)
{
	if (block->len && block->buf[block->len - 1] != '\n')
		strbuf_addch(block, '\n');
}

/*
 * Adds one stream of a run to the log block: as much of the head as the
 * case's cap leaves room for, then the end of the tail, and between them
 * one note for everything left out, by the capture or by the cap.
 */
static void log_stream(struct runner *runner, struct case_state *cs,
		       struct strbuf *block, const char *name,
		       const struct process_capture *capture)
{
	const char *text = capture->text.buf;
	size_t head_len = capture->dropped_at;
	size_t tail_len = capture->text.len - head_len;
	size_t room = runner->log_cap - cs->log_written;
	size_t head_take, tail_take, dropped;

	if (!capture->text.len && !capture->dropped)
		return;
	head_take = head_len < room ? head_len : room;
	room -= head_take;
	tail_take = tail_len < room ? tail_len : room;
	dropped =
		head_len - head_take + capture->dropped + tail_len - tail_take;
	cs->log_written += head_take + tail_take;

	strbuf_addf(block, "--- %s ---\n", name);
	strbuf_add(block, text, head_take);
	if (dropped) {
		end_line(block);
		strbuf_addf(block, "[... %zu bytes dropped]\n", dropped);
	}
	strbuf_add(block, text + capture->text.len - tail_take, tail_take);
	end_line(block);
}

/* The log's pending part is written in one piece at this size, and once
 * the runs are over (runner_finish()). */
#define RUNNER_LOG_CHUNK (64 * 1024)

/* Appends what is pending of the case's log to its file. */
static void flush_log(struct runner *runner, struct case_state *cs)
{
	int fd;

	if (!cs->log_pending.len || cs->log_failed)
		return;
	fd = open(cs->log_path,
		  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
			  (cs->log_opened ? 0 : O_TRUNC),
		  0644);
	if (fd < 0 ||
	    write_in_full(fd, cs->log_pending.buf, cs->log_pending.len) < 0) {
		/* the log helps a human; losing it must not lose the run */
		bg_warn("cannot write log '%s': %s", cs->log_path,
			strerror(errno));
		cs->log_failed = true;
	} else if (!cs->log_opened) {
		/* a case that never ran has no log to point to */
		case_result(runner, cs)->log =
			relative_to(cs->log_path, runner->options->log_base);
	}
	if (fd >= 0)
		close(fd);
	cs->log_opened = true;
	strbuf_reset(&cs->log_pending);
}

static void flush_logs(struct runner *runner)
{
	for (size_t i = 0; i < runner->nr; i++)
		flush_log(runner, &runner->cases[i]);
}

static void log_run(struct runner *runner, struct case_state *cs,
		    const char *which, int index, bool warmup,
		    char *const *argv, const char *shell,
		    const struct process_outcome *outcome)
{
	/* straight into what is pending: no buffer of its own */
	struct strbuf *block = &cs->log_pending;

	if (!cs->log_path || cs->log_failed)
		return;
	if (!cs->log_started)
		strbuf_addf(block, "# benchgate case %s\n", cs->pcase->id);
	strbuf_addf(block, "=== %s (BENCHGATE_RUN=%d%s): ", which, index,
		    warmup ? ", BENCHGATE_WARMUP=1" : "");
	process_outcome_describe(outcome, block);
	if (outcome->status != PROCESS_SPAWN_FAILED)
		strbuf_addf(block, " in %.3fs", outcome->wall_s);
	strbuf_addstr(block, " ===\n$");
	if (shell)
		strbuf_addf(block, " /bin/sh -c %s", shell);
	for (size_t i = 0; !shell && argv && argv[i]; i++)
		strbuf_addf(block, " %s", argv[i]);
	strbuf_addch(block, '\n');
	log_stream(runner, cs, block, "stdout", &outcome->out);
	log_stream(runner, cs, block, "stderr", &outcome->err);

	cs->log_started = true;
	if (cs->log_pending.len >= RUNNER_LOG_CHUNK)
		flush_log(runner, cs);
}

/* suite_env: the suite's entries, expanded (plan_case_env()). */
static void build_env(struct env_list *env, char *const *suite_env,
		      const struct plan_case *pcase, bool warmup, int index,
		      const char *metrics_path, const char *run_dir)
{
	for (size_t i = 0; suite_env && suite_env[i]; i++)
		env_add(env, "%s", suite_env[i]);
	/* after the suite's entries: the protocol's own values win */
	env_add(env, "BENCHGATE_METRICS_FILE=%s", metrics_path);
	env_add(env, "BENCHGATE_RUN_DIR=%s", run_dir);
	env_add(env, "BENCHGATE_SUITE=%s", pcase->suite->name);
	env_add(env, "BENCHGATE_BENCHMARK=%s", pcase->benchmark->name);
	env_add(env, "BENCHGATE_VARIANT=%s", pcase->variant->name);
	env_add(env, "BENCHGATE_DEVICE=%s", pcase->device);
	env_add(env, "BENCHGATE_RUN=%d", index);
	/* a bare name removes one inherited from an enclosing run */
	env_add(env, "%s", warmup ? "BENCHGATE_WARMUP=1" : "BENCHGATE_WARMUP");
}

/* Only maxrss needs the launcher (utime and stime are the child's own
 * either way): benchmarks without it pay nothing for one. */
static bool measures_maxrss(const struct benchmark *benchmark)
{
	for (size_t m = 0; m < benchmark->metrics_nr; m++)
		if (benchmark->metrics[m].from == SOURCE_RUSAGE &&
		    !strcmp(benchmark->metrics[m].field, "maxrss"))
			return true;
	return false;
}

bool runner_wants_launcher(const struct plan *plan)
{
	for (size_t i = 0; i < plan->nr; i++)
		if (measures_maxrss(plan->cases[i].benchmark))
			return true;
	return false;
}

/* What every run of a benchmark shares, measured or not: it runs in its
 * suite's directory (a baseline twin's in the baseline tree). */
static void set_process_options(struct process_options *process,
				const struct runner *runner,
				const struct plan_case *pcase, double timeout_s)
{
	process->cwd = pcase->suite->dir;
	/* credentials stay out of its environment, but those it names */
	process->pass_env = (const char *const *)pcase->suite->pass_env;
	process->timeout_s = timeout_s;
	process->grace_s = runner->options->grace_s;
	process->capture_cap = runner->options->capture_cap;
}

/* After a measured run: the case is done at its last run; an adaptive
 * one from min_runs on asks the caller (runner_step()). */
static void check_done(struct runner *runner, struct case_state *cs)
{
	if (cs->runs_done >= cs->runs)
		cs->finished = true;
	else if (cs->adaptive && cs->runs_done >= cs->min_runs)
		runner->asking = cs;
}

/* Runs the case's next run, warmup or measured. BG_ERROR only when the
 * harness failed; the case's own failures are recorded in its result. */
static int run_next(struct runner *runner, struct case_state *cs)
{
	const struct runner_options *options = runner->options;
	const struct plan_case *pcase = cs->pcase;
	const struct suite_settings *settings = &pcase->benchmark->settings;
	struct process_options process = PROCESS_OPTIONS_INIT;
	bool warmup = cs->warmups_done < cs->warmup;
	int index = warmup ? cs->warmups_done : cs->runs_done;
	struct strbuf which = STRBUF_INIT;
	struct strbuf what = STRBUF_INIT;
	struct process_outcome outcome;
	struct env_list env = { NULL, 0, 0 };
	char **argv = NULL, *shell = NULL, **suite_env = NULL;
	int error = BG_OK;

	process_outcome_init(&outcome);
	describe_run(&which, cs, warmup, index);
	if (plan_case_command(pcase, runner->plan, index, &argv, &shell) < 0 ||
	    plan_case_env(pcase, runner->plan, index, &suite_env) < 0) {
		strbuf_addstr(&what, bg_error_last());
		fail_case(runner, cs, CASE_FAILED, what.buf, which.buf, NULL);
		goto done;
	}
	if ((error = run_scratch_prepare(&runner->run_scratch)) < 0)
		goto done;
	build_env(&env, suite_env, pcase, warmup, index,
		  runner->run_scratch.metrics_path.buf,
		  runner->run_scratch.dir.buf);

	process.argv = (const char *const *)argv;
	process.shell = shell;
	process.env = (const char *const *)env.items;
	set_process_options(&process, runner, pcase, settings->timeout_s);
	/* warmups too: they run exactly as the measured runs do */
	if (measures_maxrss(pcase->benchmark))
		process.launcher = options->launcher;
	collectors_watch(runner->collectors, pcase->benchmark, &process);
	if (options->progress)
		show_progress(runner, cs);
	/* around the measured run only, and nothing else in between */
	if (!warmup && cs->sampled) {
		struct gpu_visible visible;

		suite_gpu_visible(pcase->benchmark, &visible);
		sampler_start(runner->sampler, cs->sampled, &visible,
			      pcase->suite->dir);
	}
	error = process_run(&outcome, &process);
	if (!warmup && cs->sampled)
		sampler_stop(runner->sampler);
	if (error < 0)
		goto done;
	log_run(runner, cs, which.buf, index, warmup, argv, shell, &outcome);

	if (warmup)
		cs->warmups_done++;
	if (process_outcome_failed(&outcome)) {
		process_outcome_describe(&outcome, &what);
		fail_case(runner, cs,
			  outcome.timed_out ? CASE_TIMEOUT : CASE_FAILED,
			  what.buf, which.buf, &outcome);
	} else if (!warmup) {
		struct collect_run run = { runner->plan, pcase, index, &outcome,
					   runner->run_scratch.metrics_path.buf,
					   runner->run_scratch.dir.buf };
		struct result_case *rcase = case_result(runner, cs);

		if (collectors_collect(runner->collectors, rcase, &run) < 0) {
			strbuf_addstr(&what, bg_error_last());
			fail_case(runner, cs, CASE_FAILED, what.buf, which.buf,
				  &outcome);
			goto done;
		}
		rcase->runs = (size_t)++cs->runs_done;
		check_done(runner, cs);
	}

done:
	run_scratch_tidy(&runner->run_scratch);
	process_outcome_release(&outcome);
	env_release(&env);
	free_argv(argv);
	free_argv(suite_env);
	free(shell);
	strbuf_release(&which);
	strbuf_release(&what);
	return error;
}

/* One sampler for every case that needs one, opened on this thread: the
 * perf counters follow the children of the thread that opens them. */
static int open_sampler(struct runner *runner)
{
	unsigned sources = 0;
	int error;

	for (size_t i = 0; i < runner->nr; i++)
		if (!runner->cases[i].finished)
			sources |= runner->cases[i].sampled;
	if (!sources)
		return BG_OK;
	if ((error = sampler_new(&runner->sampler, sources,
				 runner->options->sample_interval_s)) < 0)
		return error;
	collectors_set_sampler(runner->collectors, runner->sampler);
	return BG_OK;
}

/* A run outside the measurement, under a tool (callgrind.h, profile.h). */
struct extra_run {
	const char *which;	   /* "callgrind run": log and reason */
	const char *const *prefix; /* argv before the command's; NULL:
					 * none */
	char *const *env;	   /* "NAME=VALUE" after the protocol's;
					 * NULL: none */
	double timeout_factor;	   /* of the benchmark's timeout */
	const char *python_path;   /* a directory to put first on
				    * PYTHONPATH; NULL: none */
	bool fixed_layout;	   /* process_options.fixed_layout */
};

/* The case's directory for artifacts, "<artifact_dir>/<case>". */
static void add_artifact_dir(struct strbuf *out, const struct runner *runner,
			     const struct case_state *cs)
{
	strbuf_addf(out, "%s/", runner->options->artifact_dir);
	add_case_file_name(out, cs->pcase->id);
}

/* PYTHONPATH with dir first, then the benchmark's own (its "env",
 * expanded) or else benchgate's. */
static void add_python_path(struct env_list *env, char *const *suite_env,
			    const char *dir)
{
	const char *user = getenv("PYTHONPATH");

	for (size_t i = 0; suite_env && suite_env[i]; i++)
		if (!strncmp(suite_env[i], "PYTHONPATH=", strlen("PYTHONPATH=")))
			user = suite_env[i] + strlen("PYTHONPATH=");
	if (user && *user)
		env_add(env, "PYTHONPATH=%s:%s", dir, user);
	else
		env_add(env, "PYTHONPATH=%s", dir);
}

/*
 * Runs the case's command once more, under extra's prefix and environment,
 * with ${run} and BENCHGATE_RUN one past the last measured run, and logs
 * it. BG_ENOTFOUND when the command could not be expanded (the case is
 * failed and nothing ran); BG_ERROR only when the harness failed.
 */
static int run_extra(struct runner *runner, struct case_state *cs,
		     const struct extra_run *extra,
		     struct process_outcome *outcome)
{
	const struct plan_case *pcase = cs->pcase;
	struct process_options process = PROCESS_OPTIONS_INIT;
	struct env_list env = { NULL, 0, 0 };
	const char **full = NULL;
	char **argv = NULL, *shell = NULL, **suite_env = NULL;
	size_t nr = 0, alloc = 0;
	int index = cs->runs_done, error = BG_OK;

	if (plan_case_command(pcase, runner->plan, index, &argv, &shell) < 0 ||
	    plan_case_env(pcase, runner->plan, index, &suite_env) < 0) {
		struct strbuf what = STRBUF_INIT;

		strbuf_addstr(&what, bg_error_last());
		fail_case(runner, cs, CASE_FAILED, what.buf, extra->which,
			  NULL);
		strbuf_release(&what);
		error = BG_ENOTFOUND;
		goto done;
	}
	for (size_t i = 0; extra->prefix && extra->prefix[i]; i++) {
		ALLOC_GROW(full, nr + 1, alloc);
		full[nr++] = extra->prefix[i];
	}
	if (shell) {
		/* a tool runs an argv: the shell becomes one */
		ALLOC_GROW(full, nr + 3, alloc);
		full[nr++] = "/bin/sh";
		full[nr++] = "-c";
		full[nr++] = shell;
	}
	for (size_t i = 0; argv && argv[i]; i++) {
		ALLOC_GROW(full, nr + 1, alloc);
		full[nr++] = argv[i];
	}
	ALLOC_GROW(full, nr + 1, alloc);
	full[nr] = NULL;

	if ((error = run_scratch_prepare(&runner->run_scratch)) < 0)
		goto done;
	build_env(&env, suite_env, pcase, false, index,
		  runner->run_scratch.metrics_path.buf,
		  runner->run_scratch.dir.buf);
	for (size_t i = 0; extra->env && extra->env[i]; i++)
		env_add(&env, "%s", extra->env[i]);
	if (extra->python_path)
		add_python_path(&env, suite_env, extra->python_path);
	process.argv = full;
	process.env = (const char *const *)env.items;
	process.fixed_layout = extra->fixed_layout;
	set_process_options(&process, runner, pcase,
			    pcase->benchmark->settings.timeout_s *
				    extra->timeout_factor);
	if ((error = process_run(outcome, &process)) < 0)
		goto done;
	log_run(runner, cs, extra->which, index, false, (char *const *)full,
		NULL, outcome);
done:
	run_scratch_tidy(&runner->run_scratch);
	env_release(&env);
	free(full);
	free_argv(argv);
	free_argv(suite_env);
	free(shell);
	return error;
}

/* One count of the case's instructions under valgrind (callgrind.h). */
static int callgrind_case(struct runner *runner, struct case_state *cs)
{
	/* an instruction count must not vary with where things are */
	struct extra_run extra = { .which = "callgrind run",
				   .timeout_factor = CALLGRIND_TIMEOUT_FACTOR,
				   .fixed_layout = true };
	struct strbuf dir = STRBUF_INIT, stem = STRBUF_INIT;
	struct strbuf what = STRBUF_INIT;
	struct callgrind_run callgrind;
	struct process_outcome outcome;
	bool keep = runner->options->artifact_dir != NULL;
	int error;

	if (keep) {
		add_artifact_dir(&dir, runner, cs);
		strbuf_addstr(&stem, "callgrind.out");
		if (mkdir_p(dir.buf) < 0) {
			bg_warn("%s", bg_error_last());
			keep = false;
		}
	}
	if (!keep) {
		strbuf_reset(&dir);
		strbuf_addstr(&dir, runner->tmp_dir);
		strbuf_addf(&stem, "callgrind-%lu", ++runner->metrics_seq);
	}
	callgrind_prepare(&callgrind, dir.buf, stem.buf);
	extra.prefix = callgrind.prefix;
	process_outcome_init(&outcome);
	if ((error = run_extra(runner, cs, &extra, &outcome)) < 0) {
		error = error == BG_ENOTFOUND ? BG_OK : error;
		goto done;
	}
	if (outcome.status == PROCESS_SPAWN_FAILED &&
	    outcome.spawn_errno == ENOENT) {
		/* a collector that cannot work here leaves its metrics out */
		if (!runner->callgrind_told)
			bg_warn("valgrind is not installed: metrics from "
				"source 'callgrind' are left out of the "
				"result");
		runner->callgrind_told = true;
	} else if (process_outcome_failed(&outcome)) {
		process_outcome_describe(&outcome, &what);
		fail_case(runner, cs,
			  outcome.timed_out ? CASE_TIMEOUT : CASE_FAILED,
			  what.buf, extra.which, &outcome);
	} else if (callgrind_finish(&callgrind, cs->pcase->benchmark,
				    case_result(runner, cs), keep,
				    runner->options->log_base) < 0) {
		strbuf_addstr(&what, bg_error_last());
		fail_case(runner, cs, CASE_FAILED, what.buf, extra.which, NULL);
	}
done:
	process_outcome_release(&outcome);
	callgrind_run_release(&callgrind);
	strbuf_release(&dir);
	strbuf_release(&stem);
	strbuf_release(&what);
	return error;
}

static bool profile_wanted(const struct runner *runner,
			   const struct case_state *cs)
{
	int setting = cs->pcase->benchmark->settings.profile;

	if (!runner->options->artifact_dir || !runner->options->profiler)
		return false;
	return setting > 0 || (setting < 0 && runner->options->profile);
}

/* One profiling run of the case (profile.h); never fails the case. */
static int profile_case(struct runner *runner, struct case_state *cs)
{
	struct extra_run extra = { .which = "profiling run",
				   .timeout_factor = PROFILE_TIMEOUT_FACTOR };
	struct result_case *rcase = case_result(runner, cs);
	struct strbuf dir = STRBUF_INIT;
	struct process_outcome outcome;
	struct profile_run profile;
	int error = BG_OK;

	add_artifact_dir(&dir, runner, cs);
	process_outcome_init(&outcome);
	if (profile_prepare(&profile, runner->options->profiler, cs->pcase,
			    dir.buf) < 0) {
		profile_finish(&profile, cs->pcase, NULL, rcase,
			       runner->options->log_base);
		goto done;
	}
	extra.prefix = profile.prefix[0] ? profile.prefix : NULL;
	extra.env = profile.env;
	extra.python_path = profile.python_dir;
	if ((error = run_extra(runner, cs, &extra, &outcome)) < 0) {
		error = error == BG_ENOTFOUND ? BG_OK : error;
		goto done;
	}
	profile_finish(&profile, cs->pcase, &outcome, rcase,
		       runner->options->log_base);
done:
	process_outcome_release(&outcome);
	profile_run_release(&profile);
	strbuf_release(&dir);
	return error;
}

/* Runs outside the measurement, once every measured run is done: they
 * become no timing sample and disturb none. */
static int run_extras(struct runner *runner)
{
	int error;

	for (size_t i = 0; i < runner->nr; i++) {
		struct case_state *cs = &runner->cases[i];

		if (case_result(runner, cs)->status == CASE_OK &&
		    callgrind_wanted(cs->pcase->benchmark) &&
		    (error = callgrind_case(runner, cs)) < 0)
			return error;
		if (case_result(runner, cs)->status == CASE_OK &&
		    profile_wanted(runner, cs) &&
		    (error = profile_case(runner, cs)) < 0)
			return error;
	}
	return BG_OK;
}

/*
 * The case whose run is next, or NULL when no run is left. Interleaved:
 * every case's warmups first; then each round goes the other way round
 * from the last (a, b, b, a, a, b, ...): a linear drift then reaches every
 * case alike, and of two neighbours, a baseline twin and its candidate,
 * neither is always first. Whether a case has more is asked when its turn
 * comes, so a case stopped meanwhile is passed over.
 */
static struct case_state *next_case(struct runner *runner)
{
	if (runner->options->order == RUNNER_SEQUENTIAL) {
		for (; runner->cursor < runner->nr; runner->cursor++)
			if (case_has_more(&runner->cases[runner->cursor]))
				return &runner->cases[runner->cursor];
		return NULL;
	}
	for (; runner->warming < runner->nr; runner->warming++) {
		struct case_state *cs = &runner->cases[runner->warming];

		if (!cs->finished && cs->warmups_done < cs->warmup)
			return cs;
	}
	for (;;) {
		while (runner->cursor < runner->nr) {
			size_t k = runner->cursor++;
			size_t i = runner->backward ? runner->nr - 1 - k : k;

			if (case_has_more(&runner->cases[i])) {
				runner->round_ran = true;
				return &runner->cases[i];
			}
		}
		if (!runner->round_ran)
			return NULL;
		runner->backward = !runner->backward;
		runner->cursor = 0;
		runner->round_ran = false;
	}
}

int runner_new(struct runner **out, struct result *result,
	       const struct plan *plan, const struct runner_options *options)
{
	struct runner *runner = xcalloc(1, sizeof(*runner));
	int error;

	*out = runner;
	runner->result = result;
	runner->plan = plan;
	runner->options = options;
	runner->log_cap = options->log_cap ? options->log_cap
					   : RUNNER_LOG_CAP_DEFAULT;
	runner->start = now_s();
	runner->scratch.owner_fd = -1;
	if ((error = collectors_new(&runner->collectors, plan->suite)) < 0 ||
	    (plan->baseline_suite &&
	     (error = collectors_add_suite(runner->collectors,
					   plan->baseline_suite)) < 0) ||
	    (error = make_tmp_dir(runner)) < 0)
		return error;
	run_scratch_init(&runner->run_scratch, runner->tmp_dir);
	if ((error = setup_cases(runner)) < 0)
		return error;
	return open_sampler(runner);
}

int runner_step(struct runner *runner, size_t *asking)
{
	struct case_state *cs = next_case(runner);
	int error;

	*asking = RUNNER_NO_CASE;
	if (!cs)
		return 0;
	runner->asking = NULL;
	if ((error = run_next(runner, cs)) < 0)
		return error;
	if (runner->asking)
		*asking = (size_t)(runner->asking - runner->cases);
	return 1;
}

void runner_stop_case(struct runner *runner, size_t index)
{
	assert(index < runner->nr);
	runner->cases[index].finished = true;
}

int runner_finish(struct runner *runner)
{
	int error = run_extras(runner);

	flush_logs(runner);
	clear_progress(runner);
	return error;
}

void runner_free(struct runner *runner)
{
	if (!runner)
		return;
	clear_progress(runner);
	run_scratch_release(&runner->run_scratch);
	remove_tmp_dir(runner);
	for (size_t i = 0; i < runner->nr; i++) {
		free(runner->cases[i].log_path);
		strbuf_release(&runner->cases[i].log_pending);
	}
	free(runner->cases);
	collectors_free(runner->collectors);
	sampler_free(runner->sampler);
	free(runner);
}
