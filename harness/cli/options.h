/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CLI_OPTIONS_H
#define BENCHGATE_CLI_OPTIONS_H

#include "harness/cli/opt.h"

/*
 * Option groups shared by commands. Each binds to the caller's own fields
 * (of the library's request structs where one exists); the parsers check
 * the value and name the option in the error.
 */
int cli_opt_runs(void *session_options, const char *option, const char *text);
int cli_opt_warmup(void *count, const char *option, const char *text);
int cli_opt_shard(void *plan_filter, const char *option, const char *text);
int cli_opt_order(void *sequential, const char *option, const char *text);
int cli_opt_threshold(void *fraction, const char *option, const char *text);
int cli_opt_confidence(void *level, const char *option, const char *text);
int cli_opt_interval(void *seconds, const char *option, const char *text);
int cli_opt_chart_cases(void *cases, const char *option, const char *text);
/* An age such as "90d" into a double of seconds: a positive number and
 * one of s, m (minutes), h, d, w, y (365 days). */
int cli_opt_age(void *seconds, const char *option, const char *text);
/* A whole number of at least 1 into a size_t. */
int cli_opt_count(void *count, const char *option, const char *text);
/* A file a machine-readable document is written to; "-" is stdout, which
 * then carries nothing else (app_claim_stdout()), and so is a path to the
 * file stdout is (/dev/stdout: app_output_is_stdout()), stored as "-". */
int cli_opt_output(void *path, const char *option, const char *text);

/* --json FILE|-: what the document is, "comparison". */
/* --report DIR of the commands that compare (check, compare). */
#define CLI_OPT_REPORT(field)                                                \
	CLI_OPT_STRING("report", "DIR", &(field), "write the reports into DIR")

#define CLI_OPT_JSON(field, what)                                            \
	CLI_OPT_VALUE("json", "FILE", &(field), cli_opt_output,               \
		      "also write the " what " document to FILE (- for "      \
		      "stdout, and nothing else there)")

#define CLI_OPT_STORE(field)                                                 \
	CLI_OPT_STRING("store", "STORE", &(field),                            \
		       "result store: a directory, git:BRANCH, "              \
		       "git:URL#BRANCH or a postgresql:// URL (default "      \
		       "$BENCHGATE_STORE, else "                              \
		       ".benchgate/results at the repository root)")

/* --runs --warmup into a struct session_options. */
#define CLI_OPTS_RUNS(session)                                               \
	CLI_OPT_VALUE("runs", "N|auto", &(session), cli_opt_runs,             \
		      "measured runs per case (overrides the suite)"),        \
	CLI_OPT_VALUE("warmup", "N", &(session).warmup, cli_opt_warmup,       \
		      "discarded warmup runs per case (overrides the suite)")

/* --filter --variant --device --shard into a struct plan_filter. */
#define CLI_OPTS_SELECT(filter)                                              \
	CLI_OPT_STRING("filter", "GLOB", &(filter).glob,                      \
		       "only cases whose benchmark/variant/device matches "   \
		       "GLOB"),                                               \
	CLI_OPT_STRING("variant", "V", &(filter).variant, "only variant V"),  \
	CLI_OPT_STRING("device", "D", &(filter).device, "only device D"),     \
	CLI_OPT_VALUE("shard", "I/N", &(filter), cli_opt_shard,               \
		      "only the I-th of N disjoint shards of the cases "      \
		      "(1-based)")

#define CLI_OPT_ORDER(field)                                                 \
	CLI_OPT_VALUE("order", "interleaved|sequential", &(field),            \
		      cli_opt_order,                                          \
		      "interleave runs across cases, alternating the order "  \
		      "every round (default), or not")

#define CLI_OPT_BUILD_DIR(field)                                             \
	CLI_OPT_STRING("build-dir", "DIR", &(field),                          \
		       "value of ${build_dir} (default $BENCHGATE_BUILD_DIR " \
		       "or build)")

/* --threshold --confidence, each a double, < 0 when not given. */
#define CLI_OPTS_GATE(threshold, confidence)                                 \
	CLI_OPT_VALUE("threshold", "PCT", &(threshold), cli_opt_threshold,    \
		      "minimum practical change, such as 3%"),                \
	CLI_OPT_VALUE("confidence", "P", &(confidence), cli_opt_confidence,   \
		      "confidence level of the tests, such as 0.99")

/* --require-devices --sample-interval into a struct session_options. */
#define CLI_OPTS_DEVICES(session)                                            \
	CLI_OPT_SWITCH("require-devices", &(session).require_devices,         \
		       "a case whose device is absent fails (exit 3) "        \
		       "instead of being skipped"),                           \
	CLI_OPT_VALUE("sample-interval", "MS", &(session).sample_interval_s,  \
		      cli_opt_interval,                                       \
		      "milliseconds between readings of the nvml, rapl and "  \
		      "system metrics during a run (default 100)")

#define CLI_OPT_PROFILE(field)                                               \
	CLI_OPT_SWITCH("profile", &(field),                                   \
		       "one more run per case under a profiler (perf flame "  \
		       "graph, Poplar reports, $BENCHGATE_PROFILE_DIR), "     \
		       "never a sample")

#define CLI_OPT_NO_WAIT(field)                                               \
	CLI_OPT_SWITCH("no-wait", &(field),                                   \
		       "fail (exit 2) instead of waiting when another "       \
		       "benchgate holds the machine lock ($BENCHGATE_LOCK, "  \
		       "default /tmp/benchgate.lock)")

#define CLI_OPT_CHARTS(field)                                                \
	CLI_OPT_VALUE("charts", "N|all", &(field), cli_opt_chart_cases,       \
		      "chart at most N cases, regressions and the largest "   \
		      "changes first (default 50)")

/* A branch's series (`history`, `publish`), into a struct
 * history_request: the filters before and after --branch's place. */
#define CLI_OPTS_SERIES_CASE(req)                                            \
	CLI_OPT_STRING("variant", "V", &(req).variant, "only variant V"),     \
	CLI_OPT_STRING("device", "D", &(req).device, "only device D"),        \
	CLI_OPT_STRING("branch", "B", &(req).branch,                          \
		       "the branch whose first parents are walked (default: "\
		       "the default branch)")
#define CLI_OPTS_SERIES_REST(req)                                            \
	CLI_OPT_STRING("suite", "S", &(req).suite, "only suite S"),           \
	CLI_OPT_STRING("metric", "M", &(req).metric, "only metric M"),        \
	CLI_OPT_STRING("benchmark", "B", &(req).benchmark,                    \
		       "only benchmark B"),                                   \
	CLI_OPT_STRING("machine", "ID", &(req).machine,                       \
		       "only the results of machine ID"),                     \
	CLI_OPT_STRING("since", "DATE|REV", &(req).since,                     \
		       "only commits from DATE (YYYY-MM-DD) or from revision " \
		       "REV on")

struct session_options;
struct plan_filter;

/* The defaults of the options that fill session options (run, check,
 * bisect): the suite's runs and warmup, $BENCHGATE_BUILD_DIR or "build",
 * filter as the session's filter. */
void cli_session_defaults(struct session_options *session,
			  struct plan_filter *filter);

/* The build directory when --build-dir is not given. */
const char *cli_default_build_dir(void);


#endif
