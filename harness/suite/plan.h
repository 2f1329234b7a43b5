/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PLAN_H
#define BENCHGATE_PLAN_H

#include "harness/util/strbuf.h"
#include "harness/suite/suite.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The cases to run: benchmarks x variants x devices of a suite, narrowed by
 * the command line's --filter, --variant, --device and --shard.
 */

struct plan_case {
	/* The suite the case is from (borrowed): plan->suite, or for a
	 * baseline twin plan->baseline_suite. Its directory is where the
	 * case runs and its ${suite_dir}. */
	const struct suite *suite;
	const struct benchmark *benchmark; /* borrowed from that suite */
	const struct variant *variant;
	const char *device;
	char *id;      /* "benchmark/variant/device", with
					    * "@baseline" for a baseline twin */
	bool baseline; /* a twin: runs from the baseline tree */
};

struct plan {
	const struct suite *suite; /* borrowed: outlive the plan */
	char *build_dir;	   /* absolute */
	/* The baseline tree's suite and build (plan_add_baseline());
	 * NULL: no twins. */
	const struct suite *baseline_suite;
	char *baseline_build_dir; /* absolute */
	struct plan_case *cases;
	size_t nr;
};

struct plan_filter {
	const char *glob;     /* fnmatch() on the case id; NULL: all */
	const char *variant;  /* exact variant name; NULL: all */
	const char *device;   /* exact device name; NULL: all */
	unsigned shard_index; /* 1-based; 0 with shard_count 0: no sharding */
	unsigned shard_count;
};

/* Parses "I/N" (1 <= I <= N) into the filter. BG_EINPUT on a bad spec. */
int plan_parse_shard(struct plan_filter *filter, const char *spec);

/* Builds the plan in suite order (benchmark, then variant, then device).
 * Sharding takes every N-th case of the unsharded, filtered list, so the
 * shards are disjoint, cover the plan and do not depend on the machine.
 * An empty plan is BG_EINPUT ("no case matches ..."). */
int plan_build(struct plan **out, const struct suite *suite,
	       const struct plan_filter *filter, const char *build_dir);

/*
 * Prepares an A/B comparison in one session (check --baseline-tree): puts
 * before every case its baseline twin, the case of the same id planned
 * from `suite` (the baseline tree's, borrowed: it must outlive the plan)
 * with the same filter (sharding aside: the candidate's shard decides
 * which cases run) and `build_dir` as its ${build_dir}, marked
 * `baseline`. A twin runs as the baseline tree's suite says: its command,
 * env, working directory and ${suite_dir}. A case the baseline suite
 * does not have gets no twin (its metrics are "new"). The runner's
 * interleaving then measures each twin next to its candidate in every
 * round, so drift of the machine reaches both sides alike.
 */
void plan_add_baseline(struct plan *plan, const struct suite *suite,
		       const struct plan_filter *filter, const char *build_dir);

/*
 * Keeps the cases for which keep() is true, in their order, and drops the
 * others (`bisect` measures only the cases whose metrics it bisects).
 * Call it before the plan runs, before plan_add_baseline().
 */
void plan_retain(struct plan *plan,
		 bool (*keep)(const struct plan_case *pcase, void *payload),
		 void *payload);

void plan_free(struct plan *plan);

/*
 * Appends what `validate` shows of the plan: a line naming the suite and
 * counting the cases, benchmarks, variants and devices, then for each case
 * its id, the command of its first measured run (shell-quoted), its
 * settings and its metrics. What the suite's author wrote is escaped for a
 * terminal (terminal_escape()), so each case takes its lines and no more;
 * print it with terminal_write(). Errors of plan_case_command(), with the
 * cases before the failing one appended.
 */
int plan_describe(const struct plan *plan, struct strbuf *out);

/* Expands a case's command for measured run `run` (0-based; warmup runs use
 * their own counter): argv strings are appended to *argv (NULL-terminated,
 * caller frees each and the array) or, for a shell benchmark, the command
 * line to *shell. Also used with `path` templates through plan_case_expand. */
int plan_case_command(const struct plan_case *pcase, const struct plan *plan,
		      int run, char ***argv, char **shell);

/* The case's "env" (its benchmark's settings) for measured run `run`, each
 * value expanded as the command is (${suite_dir}, the variant's vars...):
 * "NAME=VALUE" strings in a NULL-terminated array (caller frees each and
 * the array), *env NULL when there are none. Errors as
 * plan_case_command(). */
int plan_case_env(const struct plan_case *pcase, const struct plan *plan,
		  int run, char ***env);

/* Expands one template string for the case and run. */
int plan_case_expand(const struct plan_case *pcase, const struct plan *plan,
		     int run, const char *template, struct strbuf *out);

#endif
