/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PROFILE_H
#define BENCHGATE_PROFILE_H

#include "harness/suite/plan.h"
#include "harness/util/process.h"
#include "harness/model/result.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * Profiling runs (`benchgate run --profile`, or "profile": true in a suite):
 * one extra run of a case, after its measured runs and never counted as a
 * sample, with a profiler watching. What it leaves goes into the case's
 * artifact directory beside the result file
 * (<store>/<commit>/<machine>/artifacts/<result name>/<case>/) and is
 * listed in the case's `artifacts` (result.h), from where the HTML and
 * Markdown reports link it.
 *
 * Every device: BENCHGATE_PROFILE_DIR is set to the artifact directory (an
 * absolute path, created), only in the profiling run, for the benchmark's
 * own profiler hooks.
 *
 * Every device, Python: PYTHONPATH starts with a directory where
 * benchgate wrote its Python sampler (python/benchgate_profile.py,
 * compiled in) as sitecustomize.py (run->python_dir), so every Python process of the run
 * samples its stacks and, at exit, leaves python-<pid>.folded; when it
 * imports torch, torch.profiler's operator table goes to torch-ops.txt,
 * and where CUDA is present a memory snapshot to cuda-memory.pickle.
 * After the run the folded files are merged into folded-python.txt and
 * the sampler's directory is removed. A benchmark's own PyTorch hooks
 * still work (docs/how-to/profile.md):
 *
 *     out = os.environ.get("BENCHGATE_PROFILE_DIR")
 *     if out:
 *         trace = torch.profiler.tensorboard_trace_handler(out)
 *         with torch.profiler.profile(on_trace_ready=trace):
 *             run_batches()
 *     else:
 *         run_batches()
 *
 * Device "ipu": POPLAR_ENGINE_OPTIONS gets "autoReport.all": "true" and
 * "autoReport.directory": "<artifact directory>/poplar", merged into the
 * options the user already set (the benchmark's env, else benchgate's own
 * environment; a JSON object) in place of the user's values of those two
 * keys, every other option kept in its order, so the PopVision Graph
 * Analyser opens the reports.
 *
 * Devices other than "gpu", "cuda" and "ipu" (whose time is spent off the
 * CPU): `perf record -g` samples the run, on the cpu-clock event where the
 * machine has no hardware cycle counter, at 999 Hz; the samples are folded
 * (folded.txt, stacks.h); perf.data stays for `perf report -i`. Stacks
 * are walked through frame pointers: build the benchmark with
 * -fno-omit-frame-pointer for whole stacks. Where the run left Python
 * stacks, they are the profile: the interpreter's native frames say
 * nothing of which Python function ran, so perf's are not folded.
 *
 * This module only records: the flame graph (flamegraph.svg beside
 * folded.txt) is drawn from the folded stacks after every case has run and
 * before the result is stored, by the use case that drives the session
 * (harness/app/profiles.h: app_draw_flamegraphs()) between its finish and
 * store steps (session.h), so that the run layer never calls a reporter.
 *
 * Where profiling is impossible (perf not installed or not permitted,
 * user options that are not JSON) the case gets a one-line
 * `profile_note` saying why, a warning is printed, and the run goes on:
 * a profile is never a reason to fail a case.
 */

/* A profiled run may take this many times the benchmark's timeout: perf
 * slows the program down a little, and writes its samples at the end. */
#define PROFILE_TIMEOUT_FACTOR 2

/* What this machine can record; probed once, on first need. Made by
 * whoever outlives the runs (the session), as the step that draws the
 * flame graphs after them asks it how they were recorded. */
struct profiler;

void profiler_new(struct profiler **out);
void profiler_free(struct profiler *profiler);

/*
 * How perf samples stacks on this machine, for a flame graph's caption:
 * appends "perf record -g -e cpu-clock -F 999" (or "-e cycles" where the
 * hardware counter works). BG_ENOTFOUND, appending nothing, when perf
 * cannot record here or no profiling run has asked yet: then no run left
 * folded stacks either.
 */
int profiler_describe_perf(const struct profiler *profiler, struct strbuf *out);

/* How the Python sampler samples (python/benchgate_profile.py's
 * INTERVAL), for the caption of a flame graph of Python stacks. */
#define PROFILE_PYTHON_SAMPLING                                   \
	"benchgate's Python sampler (sys._current_frames() of " \
	"every thread every 5 ms of wall-clock time)"

/* How many argv entries a profiling run may put before the command's. */
#define PROFILE_PREFIX_MAX 16

/* One profiling run of one case. */
struct profile_run {
	char *dir;	   /* the case's artifact directory, absolute */
	char *perf_data;   /* "<dir>/perf.data"; NULL: no perf */
	const char *event; /* perf's event: "cpu-clock" or "cycles" */
	/* argv to put before the command's; empty (prefix[0] NULL): none */
	const char *prefix[PROFILE_PREFIX_MAX];
	/* "NAME=VALUE" entries for the run's environment, NULL-terminated */
	char *env[3];
	/* the directory of the Python sampler's sitecustomize.py, to go
	 * first on the run's PYTHONPATH, before the benchmark's (expanded)
	 * or benchgate's own; NULL: none */
	char *python_dir;
	const char *perf_why;	/* why perf cannot record here (borrowed
				 * from the profiler); NULL: it can */
	char *note; /* why something is missing; NULL: nothing */
	bool told;  /* the note was printed already */
};

/*
 * Sets up the profiling run of pcase with artifacts in dir (created).
 * BG_OK: run the command with run->prefix and run->env, and
 * run->python_dir first on its PYTHONPATH. BG_ENOTFOUND: nothing to run; run->note says why (the user's POPLAR_ENGINE_OPTIONS is
 * not a JSON object, the directory cannot be created). A perf that cannot
 * record here is not a reason to skip the run (the benchmark's own hooks
 * still get their directory): run->note says so and prefix stays empty.
 * Release the run with profile_run_release() either way.
 */
int profile_prepare(struct profile_run *run, struct profiler *profiler,
		    const struct plan_case *pcase, const char *dir);

/*
 * After the run (outcome NULL: none, profile_prepare() said why not):
 * merges the Python processes' stacks into folded-python.txt, or where
 * there were none folds perf's samples into folded.txt (stacks.h), and
 * adds the artifacts to rcase (paths relative to base, the result file's
 * directory), in this order: "python-folded" or "folded", "perf"
 * (perf.data), "torch-ops" (torch.profiler's table), "cuda-memory" (the
 * snapshot), "poplar" (when the benchmark wrote Poplar reports),
 * "profile" (the directory). The flame graph drawn from the stacks
 * later goes before them (app_draw_flamegraphs()).
 * Anything that went wrong, the run itself included, becomes
 * rcase->profile_note. Never fails.
 */
void profile_finish(struct profile_run *run, const struct plan_case *pcase,
		    const struct process_outcome *outcome,
		    struct result_case *rcase, const char *base);

void profile_run_release(struct profile_run *run);

#endif
