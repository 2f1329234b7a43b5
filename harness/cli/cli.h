/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CLI_H
#define BENCHGATE_CLI_H

#include "harness/cli/opt.h"

/*
 * The command line: the command table, the option groups several commands
 * share, and the one place where outcomes become exit statuses.
 *
 * A command (harness/cli/cmd_NAME.c) is its option table bound to its own
 * argument struct, and `int run(int argc, char **argv)` that parses them,
 * makes one call into the library and returns an outcome: a negative BG_*
 * code (the message recorded with bg_error) or one of the non-negative
 * outcomes below. cli_main() prints the error and maps the outcome to the
 * exit status of DESIGN.md.
 */

enum cli_outcome {
	OUTCOME_PASS = 0,	 /* exit 0 */
	OUTCOME_REGRESSION = 1,	 /* exit 1: the gate failed */
	OUTCOME_CASE_FAILED = 3, /* exit 3: a benchmark case broke */
	/* exit 4: the benchmarks ran, but the result is not in the store
	 * (it was kept elsewhere, session_keep()) or an output asked for
	 * was not written */
	OUTCOME_NOT_SAVED = 4,
};

enum cli_exit {
	EXIT_PASS = 0,
	EXIT_REGRESSION = 1,
	EXIT_INPUT = 2,
	EXIT_CASE_FAILED = 3,
	EXIT_NOT_SAVED = 4,
};

/* The commands, in `benchgate --help`'s order, ending with NULL. */
extern const struct cli_command *const cli_commands[];

/* Runs the whole program; returns the exit status. */
int cli_main(int argc, char **argv);

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

#define CLI_OPT_STORE(field)                                                 \
	CLI_OPT_STRING("store", "DIR|git:BRANCH", &(field),                   \
		       "result store, a directory or a branch (default "      \
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

/* Parses a command line into its table (cli_parse()) and returns from the
 * command: --help and --version pass, a bad option is its error. */
#define CLI_PARSE_OR_RETURN(cmd, common, argc, argv)                         \
	do {                                                                  \
		int parsed_ = cli_parse((cmd), (common), (argc), (argv));     \
		if (parsed_)                                                  \
			return parsed_ > 0 ? OUTCOME_PASS : parsed_;          \
	} while (0)

struct comparison;
struct history;
struct report_model;
struct session;
struct store;

/* Draws the flame graphs of the session's profiling runs, the baseline
 * tree's too, once it is finished and before it is stored, so that the
 * result lists them and the store keeps them. Never fails: a profile never
 * fails a case. */
void cli_draw_profiles(struct session *session);

/* Opens the store spec names, else the default one (store.h's
 * store_default_spec()), into *out; errors of store_open(). */
int cli_open_store(struct store **out, const char *spec);

struct history_request;
/* Opens the store (cli_open_store()) into *store and builds into *out
 * (zeroed) the history that req selects, its change points attributed
 * (attribution_find()): `history` and `publish` read the same one. The
 * caller releases both, also after an error. */
int cli_build_history(struct history *out, struct store **store,
		      const char *store_spec,
		      const struct history_request *req);

/* Writes the comparison of model to json_path and every report into
 * report_dir (saying so unless quiet), each when not NULL. */
int cli_write_outputs(const struct report_model *model, const char *json_path,
		      const char *report_dir, size_t chart_cases, bool quiet);

/* The outcomes, decided here only: a comparison's (check, compare) from
 * its overall verdict, a session's (run) from its cases. */
int cli_outcome_of(const struct comparison *comparison);
int cli_outcome_of_session(const struct session *session);

/*
 * The outcome of a command that measured (run, check), once it wrote what
 * it was asked to: `outcome` (the verdict's or the cases', or a negative
 * error), unless the result is not in the store (session->unstored) or
 * `writing` (the writing of --json or --report) failed with the message
 * just recorded. Each of those is then printed as an error, and the
 * outcome is OUTCOME_NOT_SAVED, which outranks the verdict and failed
 * cases (README "Exit codes"): a script that tolerates exit 1 must not
 * swallow a result that never reached the store, and the verdict is
 * printed and in the reports anyway. A negative outcome stays (exit 2,
 * its own message printed by cli_main()), after the unstored story.
 */
int cli_outcome_after_measuring(const struct session *session, int writing,
				int outcome);

/* The commands' tables (harness/cli/cmd_NAME.c). */
extern const struct cli_command cli_cmd_run, cli_cmd_compare, cli_cmd_check,
	cli_cmd_report, cli_cmd_baseline, cli_cmd_comment, cli_cmd_sync,
	cli_cmd_merge, cli_cmd_validate, cli_cmd_devices, cli_cmd_history,
	cli_cmd_bisect, cli_cmd_import, cli_cmd_export, cli_cmd_publish;

#endif
