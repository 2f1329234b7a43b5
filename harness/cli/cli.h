/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CLI_H
#define BENCHGATE_CLI_H

#include "harness/suite/plan.h"

#include <stdbool.h>

/*
 * The command line: the command table, one option parser shared by every
 * command, and the one place where outcomes become exit statuses.
 *
 * A command is `int cmd_NAME(int argc, char **argv)` returning an outcome:
 * a negative BG_* code (the message recorded with bg_error) or one of the
 * non-negative outcomes below. cli_main() prints the error and maps the
 * outcome to the exit status of DESIGN.md.
 */

enum cli_outcome {
	OUTCOME_PASS = 0,	 /* exit 0 */
	OUTCOME_REGRESSION = 1,	 /* exit 1: the gate failed */
	OUTCOME_CASE_FAILED = 3, /* exit 3: a benchmark case broke */
	/* exit 4: the benchmarks ran, but the result is not in the store
	 * (it was kept elsewhere, session_keep()) or an output asked for
	 * was not written; cli_outcome_after_measuring() */
	OUTCOME_NOT_SAVED = 4,
};

enum cli_exit {
	EXIT_PASS = 0,
	EXIT_REGRESSION = 1,
	EXIT_INPUT = 2,
	EXIT_CASE_FAILED = 3,
	EXIT_NOT_SAVED = 4,
};

/* Options a command may accept; each command declares its set. */
enum cli_option_flags {
	OPT_STORE = 1 << 0,
	OPT_RUNS = 1 << 1,
	OPT_WARMUP = 1 << 2,
	OPT_SELECT = 1 << 3, /* --filter --variant --device --shard */
	OPT_ORDER = 1 << 4,
	OPT_BUILD_DIR = 1 << 5,
	OPT_BASELINE = 1 << 6, /* --baseline --branch */
	OPT_GATE = 1 << 7,     /* --threshold --confidence */
	OPT_REPORT = 1 << 8,
	OPT_JSON = 1 << 9,
	OPT_OUT = 1 << 10, /* --out --format; --charts with OPT_REPORT */
	OPT_TO = 1 << 11,
	OPT_HISTORY = 1 << 12, /* --suite --metric */
	OPT_FORCE = 1 << 13,
	OPT_COMMENT = 1 << 14,	      /* --provider --body --repo --pr --api-url
				 * --marker --dry-run */
	OPT_REMOTE = 1 << 15,	      /* --remote --branch (sync) */
	OPT_DEVICES = 1 << 16,	      /* --require-devices --sample-interval */
	OPT_PROFILE = 1 << 17,	      /* --profile */
	OPT_BASELINE_TREE = 1 << 18, /* --baseline-tree */
	OPT_SERIES = 1 << 19, /* --benchmark --machine --since --csv, and
			       * --variant --device --branch (history) */
	OPT_PUBLISH = 1 << 20, /* --out (publish) */
	OPT_ALERT = 1 << 21,   /* --alert --published (history) */
	OPT_BISECT = 1 << 22,  /* --good --bad --build (bisect) */
	OPT_IMPORT = 1 << 23,  /* --format FMT --suite S (import) */
	OPT_EXPORT = 1 << 24,  /* --mlflow --experiment (export) */
	OPT_NO_WAIT = 1 << 25, /* --no-wait (the machine lock) */
	OPT_FORMAT = 1 << 26,  /* --format LIST; --charts with OPT_REPORT */
	OPT_OUT_FILE = 1 << 27,	     /* --out FILE (merge) */
	OPT_COMPARE_SUITE = 1 << 28, /* --suite (compare) */
	OPT_CSV = 1 << 29,	     /* --csv (history) */
};

struct cli_options {
	const char *store;
	int runs; /* -1: the suite's; 0 with runs_auto */
	bool runs_auto;
	int warmup; /* -1: the suite's */
	struct plan_filter filter;
	bool sequential;
	const char *build_dir;
	const char *baseline;	    /* "auto", a revspec or a file */
	const char *baseline_tree; /* check: measure the suite in this work
				    * tree as the baseline in the session;
				    * NULL: none */
	const char *branch;
	const char *remote; /* sync: the remote's name */
	double threshold;   /* < 0: the suite's */
	double confidence;  /* < 0: the suite's */
	const char *report_dir;
	const char *json_path;
	const char *out_dir;
	const char *formats;
	size_t chart_cases; /* --charts: 0 the reports' default, SIZE_MAX
			     * every case (reporters/report.h) */
	const char *to;
	const char *suite;
	const char *metric;
	const char *benchmark; /* history: only this benchmark */
	const char *machine;   /* history: only this machine id */
	const char *since;     /* history: a date or a revision */
	bool csv;	       /* history: CSV on stdout */
	const char *mlflow;     /* export: the tracking server */
	const char *experiment; /* export: the MLflow experiment */
	bool alert;	       /* history: exit 1 on unpublished regressions */
	const char *published; /* history --alert: the published site's DIR */
	const char *good;      /* bisect: the revisions of the two ends */
	const char *bad;
	const char *build;     /* bisect: the build command (/bin/sh) */
	bool force;
	const char *provider; /* comment: "github", "gitlab"; NULL: detect */
	const char *body;
	const char *repo;
	const char *pr;
	const char *api_url;
	const char *marker;
	bool dry_run;
	bool require_devices;	  /* an absent device fails its cases */
	bool profile;		  /* a profiling run per case (profile.h) */
	bool no_wait; /* fail when the machine lock is held (lock.h) */
	double sample_interval_s; /* 0: the sampler's default */
	bool quiet;
	bool color;    /* stdout is a TTY, no --no-color, no NO_COLOR */
	bool progress; /* stderr is a TTY and not --quiet */
	char **args;   /* positional arguments (borrowed from argv) */
	int args_nr;
};

struct cli_command_spec {
	const char *name;
	const char *usage;   /* "SUITE [options]" */
	const char *summary; /* one line for `benchgate --help` */
	const char *help;    /* paragraphs before the option list */
	unsigned options;    /* enum cli_option_flags */
	int min_args, max_args;
};

/* Parses argv (argv[0] is the command name) for spec. Returns 1 when --help
 * was printed (the command should return OUTCOME_PASS), 0 on success, or
 * BG_EINPUT naming the bad option. */
int cli_parse(struct cli_options *opts, const struct cli_command_spec *spec,
	      int argc, char **argv);

/* Runs the whole program; returns the exit status. */
int cli_main(int argc, char **argv);

struct comparison;
struct report_model;
struct session;
struct session_options;
struct store;

/* Fills session options (session.h) from the parsed command line; `run`
 * and `check` share it. */
void cli_session_options(struct session_options *out,
			 const struct cli_options *opts);

/*
 * Draws the flame graphs of the session's profiling runs, the baseline
 * tree's too (reporters/report.h), once it is finished
 * (session_finish()) and before it is stored, so that the result lists
 * them and the store keeps them: a git store takes the files below the
 * result's directory in with the result, and a stored result is never
 * rewritten. Never fails: a profile never fails a case.
 */
void cli_draw_profiles(struct session *session);

/* Opens the store --store names, else the default one (store.h's
 * store_default_spec()), into *out; errors of store_open(). */
int cli_open_store(struct store **out, const struct cli_options *opts);

struct history;
/* Opens the store (cli_open_store()) into *store and builds into *out
 * (zeroed) the history that --branch, --since and the series filters
 * select, its change points attributed (attribution_find()): `history`
 * and `publish` read the same one. The caller releases both, also after
 * an error; errors of history_build() and attribution_find(). */
int cli_build_history(struct history *out, struct store **store,
		      const struct cli_options *opts);

/* Writes the comparison of model to --json FILE and every report into
 * --report DIR (saying so unless --quiet), when asked for. */
int cli_write_outputs(const struct cli_options *opts,
		      const struct report_model *model);

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

/* The commands. */
int cmd_validate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_comment(int argc, char **argv);
int cmd_sync(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_publish(int argc, char **argv);

#endif
