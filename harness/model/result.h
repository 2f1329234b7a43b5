/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_RESULT_H
#define BENCHGATE_RESULT_H

#include "harness/model/model_summary.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The result of one `benchgate run`: what ran, where, at which commit, and
 * every measured sample. Serialised as the "benchgate_result": 1 document of
 * DESIGN.md; result_to_json() and result_load() round-trip it exactly.
 */

enum better {
	BETTER_LOWER = 0,
	BETTER_HIGHER = 1
};

/* "lower", "higher", by value, then NULL: the names documents use. */
extern const char *const better_names[];

enum case_status {
	CASE_OK = 0,
	CASE_FAILED,
	CASE_TIMEOUT,
	CASE_SKIPPED,
};

/* "ok", "failed", "timeout", "skipped". */
const char *case_status_name(enum case_status status);

/* The roles a metric plays in the variant table (suite key "role"):
 * "speed", "size", "accuracy", then NULL. */
extern const char *const metric_role_names[];

/* One metric of one case: its samples in run order (pooled across runs when a
 * benchmark reports several per run). */
struct metric_samples {
	char *name;
	char *unit; /* may be NULL */
	enum better better;
	bool exact; /* compared against `tolerance`, not statistics */
	double tolerance;
	double *samples;
	size_t nr, alloc;
	size_t runs; /* measured runs that contributed samples */
	bool gate;   /* false: recorded and reported, never fails the gate;
			true (the default) when result_case_metric() makes it */
	char *role;  /* one of metric_role_names, or NULL */
	/* How many independent values the samples hold: 0, every run is
	 * one (as the runner measures); else that many, as a bridge
	 * (harness/bridge/) knows it: 1 for a peer's summary, one per run
	 * for each of a peer's runs. The gate counts no more (compare.h). */
	size_t independent;
	/* How many samples the metric had before `store compact` kept
	 * these (a subsample per run, maintain.h); 0: never compacted. */
	size_t compacted_from;
};

/* A file or directory a case left beside the result: a flame graph, the
 * directory of a profiling run, callgrind's output (profile.h,
 * callgrind.h). */
struct result_artifact {
	char *kind; /* "profile", "flamegraph", "folded", "python-folded",
		       "perf", "torch-ops", "cuda-memory", "poplar",
		       "callgrind" */
	char *path; /* relative to the result file's directory,
				   or absolute */
};

struct result_case {
	char *benchmark;
	char *variant;
	char *device;
	enum case_status status;
	char *reason; /* why failed/timeout/skipped; NULL when ok */
	char *log;    /* log path relative to the result file */
	size_t runs;  /* measured runs done (adaptive sampling) */
	struct metric_samples *metrics;
	size_t metrics_nr, metrics_alloc;
	struct result_artifact *artifacts; /* in the order made */
	size_t artifacts_nr, artifacts_alloc;
	char *profile_note; /* why a profile is missing; NULL: none is */
	/* the model's layers, as the benchmark reported them; NULL: none */
	struct model_summary *model;
	/* The gate's settings the suite resolved for the case's benchmark
	 * ("threshold", the minimum practical effect as a fraction, and
	 * "confidence"), recorded so that compare, check and the reports
	 * judge the result alike (docs/gate-settings.md); NAN when not
	 * recorded: a result written before benchgate recorded them, or
	 * one a bridge imported. better, exact and tolerance are the
	 * metrics' own (struct metric_samples). */
	double threshold, confidence;
};

struct git_meta {
	char commit[41]; /* 40 hex, or "unknown" outside a repository */
	char *branch;	 /* NULL when detached */
	bool dirty;
	char *commit_time; /* ISO 8601, NULL when unknown */
	char *subject;
	char **parents; /* 40-hex strings */
	size_t parents_nr;
};

struct machine_info {
	char id[65]; /* 16 hex, stable across runs on one machine,
				   or BENCHGATE_MACHINE_ID (up to 64) */
	char *hostname;
	char *os;
	char *cpu;
	int cores;
	uint64_t memory_bytes;
	char **gpus;
	size_t gpus_nr;
	char **ipus;
	size_t ipus_nr;
};

/* The longest id that fits machine_info.id. */
#define MACHINE_ID_MAX (sizeof(((struct machine_info *)0)->id) - 1)

/*
 * Whether `id` may key the store: 1 to MACHINE_ID_MAX characters of
 * [A-Za-z0-9._-], not starting with '.', since it names a directory of the
 * store and a git ref. The store checks every id it reads or writes with
 * it; machine.h holds BENCHGATE_MACHINE_ID to it.
 */
bool result_machine_id_valid(const char *id);

/* Another process busy on the machine while a measurement ran. */
struct busy_process {
	int pid;
	char *command; /* its /proc/PID/comm, NULL when unknown */
	double cpu;    /* cores it kept busy meanwhile: 0.5 is half of one */
};

/* How quiet the machine was while the measurement ran, as `run` and
 * `check` saw it once they held the machine lock (harness/run/quiet.h).
 * observed is false in results made before benchgate recorded it. */
struct machine_load {
	bool observed;
	double loadavg[3]; /* /proc/loadavg: over 1, 5 and 15 minutes */
	double cpu_busy;   /* cores busy meanwhile, all processes together */
	struct busy_process *busy; /* the busiest, busiest first */
	size_t busy_nr;
};

/* Other processes kept this much of a core busy, or more: the machine was
 * not quiet. */
#define MACHINE_LOAD_BUSY_CPU 0.25

/* Whether load says the machine was quiet: not observed, or less than
 * MACHINE_LOAD_BUSY_CPU of a core busy. */
bool machine_load_quiet(const struct machine_load *load);

/* Frees what load holds and clears it. */
void machine_load_release(struct machine_load *load);

struct result {
	char *suite;
	char suite_sha256[65];
	struct git_meta git;
	struct machine_info machine;
	char *started_at; /* ISO 8601 UTC */
	char *finished_at;
	char *harness_version;
	char *reference; /* the variant the others are compared with in the
			    variant table; NULL means "original" */
	struct machine_load load; /* "load_at_start" */
	/* The suite's default confidence ("confidence"), the level of a
	 * comparison as a whole (compare.h); NAN when not recorded. */
	double confidence;
	struct result_case *cases;
	size_t cases_nr, cases_alloc;
};

/* Allocates an empty result; free with result_free(). */
struct result *result_new(void);
void result_free(struct result *result);

/* Appends a case (strings copied), its gate settings not recorded (NAN),
 * and returns it, borrowed from result. */
struct result_case *result_add_case(struct result *result,
				    const char *benchmark, const char *variant,
				    const char *device);

/*
 * Moves the cases whose take[i] is true (i < result->cases_nr) out of
 * result into a new result *out with the same suite, commit, machine and
 * times; both keep their cases' order. Free *out with result_free().
 * BG_EINPUT only when result does not survive its own JSON document.
 */
int result_split(struct result *result, const bool *take, struct result **out);

/* The case with these names, or NULL. Borrowed. */
struct result_case *result_find_case(const struct result *result,
				     const char *benchmark, const char *variant,
				     const char *device);

/* The metric of that name in the case, created (strings copied) if absent.
 * Borrowed from the case. */
struct metric_samples *result_case_metric(struct result_case *rcase,
					  const char *name);
const struct metric_samples *
result_case_find_metric(const struct result_case *rcase, const char *name);

void metric_samples_push(struct metric_samples *metric, double value);

/* Lists an artifact of the case (strings copied): path is stored relative
 * to base when it is inside base (NULL: as given). */
void result_case_add_artifact(struct result_case *rcase, const char *kind,
			      const char *path, const char *base);

/* Sets the case's failure state; the first failure reason wins. */
void result_case_fail(struct result_case *rcase, enum case_status status,
		      const char *reason);

/* Serialises the result as pretty-printed JSON into out. */
void result_to_json(const struct result *result, struct strbuf *out);

/*
 * Parses a result document (len bytes of text, no NUL needed after them).
 * BG_EINPUT when the file is not a valid result, with "path:line:col:
 * key.path: what was expected" (jsonread.h), or "path: key: expected ..."
 * for a value it lacks. A document from elsewhere is held to what a run
 * of a valid suite writes: benchmark, variant, device and metric names to
 * the suite loader's rule, units and the suite's name to printable text
 * (util/name.h), counts to whole numbers in range, `better` to lower or
 * higher, and no key twice in an object.
 */
int result_parse(struct result **out, const char *text, size_t len,
		 const char *path);

/*
 * result_to_json() appended to out, then read back with result_parse():
 * what a writer stores must be what every reader accepts, so a value that
 * slipped past the checks where it entered (a unit from a bridge, a
 * number JSON cannot hold) fails the write, naming `name`, instead of
 * the reads after it. BG_ERROR, out as it was, when it does not read back.
 */
int result_to_json_checked(const struct result *r, struct strbuf *out,
			   const char *name);

/* result_parse() of the file at path, which must be a regular file of at
 * most RESULT_MAX_BYTES (a FIFO or a link to a device named like a result
 * is an error, not a hang). */
#define RESULT_MAX_BYTES ((size_t)1 << 30)
int result_load(struct result **out, const char *path);

/* Fills git_meta / machine_info helpers' string fields free. */
void git_meta_release(struct git_meta *git);
/* Fills `out` (overwritten: release an old value first) with a copy of
 * `from`. */
void git_meta_copy(struct git_meta *out, const struct git_meta *from);
void machine_info_release(struct machine_info *machine);

#endif
