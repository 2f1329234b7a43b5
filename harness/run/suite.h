#ifndef BENCHGATE_SUITE_H
#define BENCHGATE_SUITE_H

#include "harness/store/result.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * A benchmark suite file ("benchgate": 1, DESIGN.md), loaded and checked.
 *
 * suite_load() accepts only a fully valid suite: every unknown key, wrong
 * type, duplicate name, unknown ${variable}, bad duration or percentage and
 * empty matrix is an input error naming the file, the line:column and the
 * key path ("suite.json:8:3: benchmarks[0].metrics[2].from: ...", as
 * jsonread.h reads every input document).
 * That includes a metric's "per" that is not a string, that names no
 * metric of its benchmark, the metric itself, a metric with a "per" of its
 * own (no chains) or a callgrind metric, or that is given on a callgrind
 * metric.
 */

enum metric_source {
	SOURCE_WALL,   /* harness: monotonic wall time of the run, seconds */
	SOURCE_RUSAGE, /* harness: field utime | stime (s) | maxrss (bytes) */
	SOURCE_PERF,   /* harness: field instructions | cycles */
	SOURCE_NVML,   /* harness: GPU field */
	SOURCE_RAPL,   /* harness: CPU package energy */
	SOURCE_SYSTEM, /* harness: machine CPU utilisation */
	SOURCE_CALLGRIND, /* harness: instructions under valgrind, in a
			     run of its own (callgrind.h) */
	SOURCE_METRICS,	  /* benchmark: the metrics file, by key */
	SOURCE_STDOUT,	  /* benchmark: regex with one capture group */
	SOURCE_STDERR,
	SOURCE_FILE, /* benchmark: a JSON file and a key path */
};

const char *metric_source_name(enum metric_source source);

struct metric_spec {
	char *name;
	enum metric_source from;
	char *key;   /* metrics: key in the metrics file (default: name);
			   file: dotted key path in the JSON file */
	char *regex; /* stdout / stderr: POSIX extended, one group */
	char *field; /* rusage / perf / nvml / rapl / system field */
	char *path;  /* file: path template (may use ${variables}) */
	/* "per": the name of another metric of the benchmark whose value in
	 * a run counts the samples (inference items) that run processed;
	 * each value of this metric is divided by it (collectors.h). NULL:
	 * the values as collected. Never names itself, another "per"
	 * metric or a callgrind metric (suite_load() checks). */
	char *per;
	char *unit; /* NULL when not declared and not implied */
	enum better better;
	bool exact;
	double tolerance;
};

struct name_value {
	char *name;
	char *value;
};

/* Settings that "defaults" declares and each benchmark may override. */
struct suite_settings {
	int warmup;
	int runs;	/* fixed number of measured runs */
	bool runs_auto; /* "runs": "auto": adaptive sampling */
	int min_runs, max_runs;
	double precision; /* adaptive: half-width of the median CI, rel. */
	double timeout_s; /* 0: none */
	double threshold; /* minimum practical effect, fraction */
	double confidence;
	struct name_value *env; /* set in the benchmark's environment */
	/* "profile": 1 (true): a profiling run per case (profile.h) in
	 * every `benchgate run`; 0 (false): none, even with --profile;
	 * -1 (not set): only with --profile. */
	int profile;
	size_t env_nr;
};

struct variant {
	char *name;
	struct name_value *vars;
	size_t vars_nr;
};

struct benchmark {
	char *name;
	char **command; /* argv templates; NULL when shell is set */
	size_t command_nr;
	char *shell; /* explicit opt-in: run through /bin/sh -c */
	struct metric_spec *metrics;
	size_t metrics_nr;
	struct suite_settings settings; /* defaults merged with overrides */
};

struct suite {
	char *path; /* as given */
	char *dir;  /* absolute directory of the suite file */
	char *name;
	char *description; /* may be NULL */
	char sha256[65];   /* of the file's bytes */
	struct suite_settings defaults;
	char **devices;
	size_t devices_nr;
	struct variant *variants;
	size_t variants_nr;
	struct benchmark *benchmarks;
	size_t benchmarks_nr;
};

/* Loads and validates the suite at path. The caller owns *out and frees it
 * with suite_free(). BG_EINPUT (message as above) or BG_ERROR (I/O). */
int suite_load(struct suite **out, const char *path);

/* Same from text in memory; `path` is only used in messages and for dir. */
int suite_parse(struct suite **out, const char *path, const char *text,
		size_t len);

void suite_free(struct suite *suite);

/* The variable names a command may use besides the variant's own vars. */
extern const char *const suite_builtin_vars[];

#endif
