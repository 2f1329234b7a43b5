/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SUITE_H
#define BENCHGATE_SUITE_H

#include "harness/bridge/bridge.h"
#include "harness/model/result.h"
#include "harness/probe/gpu.h"
#include "harness/probe/source.h"

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
 * metric. And the matrix: a device that is neither a known kind (cpu,
 * gpu, cuda, ipu) nor declared, a variant's or a metric's device the suite
 * does not have, an "exclude" pattern that matches no variant/device pair,
 * a "reference" that names no variant, two metrics of one role.
 * The file may hold // and block comments (JSONC, positions unchanged)
 * and a "$schema" string for editors; a comma before a closing bracket is
 * reported at the comma.
 */

/* Whether source reads a peer's document; its format into *format. */
bool metric_source_bridge(enum metric_source source,
			  enum bridge_format *format);

struct metric_spec {
	char *name;
	enum metric_source from;
	char *key;   /* metrics: key in the metrics file (default: name);
			   file: dotted key path in the JSON file */
	char *regex; /* stdout / stderr: POSIX extended, one group */
	char *field; /* rusage / perf / nvml / rapl / system field */
	char *path;  /* file: path template (may use ${variables}) */
	char **command; /* command: argv templates, NULL-terminated */
	size_t command_nr;
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
	/* "devices": the devices the metric exists on (a GPU's allocator
	 * peak); on the others it is not collected, so never "missing".
	 * NULL: every device. */
	char **devices;
	size_t devices_nr;
	/* "gate": false: recorded, reported and charted, but never fails
	 * the gate. Defaults to false for the collector fields that have no
	 * worse direction (utilisation, power, load), else true. */
	bool gate;
	/* "role": one of metric_role_names (result.h), the column of the
	 * variant table the metric fills; NULL: none. At most one metric of
	 * a benchmark has each role. */
	const char *role;
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
	/* "runs" is set, in "defaults" or the benchmark: `check` samples
	 * adaptively where it is not (session_options.auto_unless_set) */
	bool runs_given;
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
	/* "devices": the suite's devices this variant runs on (dynamic int8
	 * quantization is CPU-only); NULL: all of them. */
	char **devices;
	size_t devices_nr;
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
	/* "declared_devices": device names besides the known kinds (cpu,
	 * gpu or its alias cuda, ipu) that "devices" may use; benchgate
	 * takes them as present (devices.h). */
	char **declared_devices;
	size_t declared_devices_nr;
	/* "exclude": fnmatch() patterns of "variant/device" pairs that
	 * cannot exist; each matches at least one pair. */
	char **exclude;
	size_t exclude_nr;
	/* "reference": the variant the variant table compares the others
	 * with; NULL: "original" (which then need not exist). */
	char *reference;
	/* "pass_env": names of variables the benchmarks and the build
	 * commands get although they are CI credentials, which benchgate
	 * otherwise removes from every child's environment
	 * (util/process.h); NULL-terminated, NULL for none. */
	char **pass_env;
	size_t pass_env_nr;
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

/* Whether the case of variant on device can exist: the variant's "devices"
 * list names device (or it has none), and no "exclude" pattern matches
 * "variant/device". plan_build() plans no other case. */
bool suite_case_exists(const struct suite *suite, const struct variant *variant,
		       const char *device);

/* Whether the metric exists on device: its "devices" names it, or it has
 * none. The collectors collect no other. */
bool metric_spec_on_device(const struct metric_spec *spec, const char *device);

/* Gives metric what the suite says of it: better, exact, tolerance, gate
 * and role. Every collector that makes a metric's samples calls it. */
void metric_spec_stamp(const struct metric_spec *spec,
		       struct metric_samples *metric);

/* Records in rcase the gate settings resolved for its benchmark
 * (threshold, confidence), so that whoever compares the result judges as
 * check does (result.h). The runner calls it for every case it adds. */
void suite_settings_stamp(const struct suite_settings *settings,
			  struct result_case *rcase);

/* The same for every case of result whose benchmark the suite has (the
 * others keep theirs), and the suite's default confidence as the
 * result's. */
void suite_stamp_result(const struct suite *suite, struct result *result);

/* The GPU visibility variables a benchmark's runs get (probe/gpu.h), each
 * the suite's env when it sets it, else benchgate's own; NULL when
 * neither does. Borrowed strings. */
void suite_gpu_visible(const struct benchmark *benchmark,
		       struct gpu_visible *out);

/* The variable names a command may use besides the variant's own vars. */
extern const char *const suite_builtin_vars[];

#endif
