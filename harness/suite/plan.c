/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/suite/plan.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/suite/expand.h"

#include <assert.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int plan_parse_shard(struct plan_filter *filter, const char *spec)
{
	unsigned index, count;
	char tail;

	if (sscanf(spec, "%u/%u%c", &index, &count, &tail) != 2 || !count ||
	    !index || index > count)
		return bg_input_error("--shard: expected I/N with 1 <= I <= N "
				      "(such as 2/4), found '%s'",
				      spec);
	filter->shard_index = index;
	filter->shard_count = count;
	return BG_OK;
}

static bool case_selected(const struct plan_filter *filter, const char *id,
			  const struct variant *variant, const char *device)
{
	if (!filter)
		return true;
	if (filter->variant && strcmp(filter->variant, variant->name))
		return false;
	if (filter->device && strcmp(filter->device, device))
		return false;
	return !filter->glob || !fnmatch(filter->glob, id, 0);
}

static void describe_filter(struct strbuf *out, const struct plan_filter *f)
{
	if (f->glob)
		strbuf_addf(out, " --filter '%s'", f->glob);
	if (f->variant)
		strbuf_addf(out, " --variant '%s'", f->variant);
	if (f->device)
		strbuf_addf(out, " --device '%s'", f->device);
	if (f->shard_count)
		strbuf_addf(out, " --shard %u/%u", f->shard_index,
			    f->shard_count);
}

/* The build directory need not exist yet (validate runs before a build), so
 * it is made absolute without realpath() when realpath() cannot. */
static char *absolute_path(const char *path)
{
	struct strbuf joined = STRBUF_INIT;
	char *resolved = realpath(path, NULL);
	char *cwd;

	if (resolved || path[0] == '/')
		return resolved ? resolved : xstrdup(path);
	cwd = getcwd(NULL, 0);
	strbuf_addf(&joined, "%s/%s", cwd ? cwd : ".", path);
	free(cwd);
	return strbuf_detach(&joined, NULL);
}

int plan_build(struct plan **out, const struct suite *suite,
	       const struct plan_filter *filter, const char *build_dir)
{
	struct plan *plan = xcalloc(1, sizeof(*plan));
	size_t alloc = 0, matched = 0;

	plan->suite = suite;
	plan->build_dir = absolute_path(build_dir);
	for (size_t b = 0; b < suite->benchmarks_nr; b++) {
		for (size_t v = 0; v < suite->variants_nr; v++) {
			for (size_t d = 0; d < suite->devices_nr; d++) {
				struct strbuf id = STRBUF_INIT;
				struct plan_case *pcase;

				/* not skipped, not failed: not a case */
				if (!suite_case_exists(suite,
						       &suite->variants[v],
						       suite->devices[d]))
					continue;
				strbuf_addf(&id, "%s/%s/%s",
					    suite->benchmarks[b].name,
					    suite->variants[v].name,
					    suite->devices[d]);
				if (!case_selected(filter, id.buf,
						   &suite->variants[v],
						   suite->devices[d]) ||
				    (filter && filter->shard_count &&
				     matched++ % filter->shard_count !=
					     filter->shard_index - 1)) {
					strbuf_release(&id);
					continue;
				}
				ALLOC_GROW(plan->cases, plan->nr + 1, alloc);
				pcase = &plan->cases[plan->nr++];
				pcase->suite = suite;
				pcase->benchmark = &suite->benchmarks[b];
				pcase->variant = &suite->variants[v];
				pcase->device = suite->devices[d];
				pcase->id = strbuf_detach(&id, NULL);
			}
		}
	}
	if (!plan->nr) {
		struct strbuf why = STRBUF_INIT;
		int error;

		if (filter)
			describe_filter(&why, filter);
		error = bg_input_error("%s: no case matches%s", suite->path,
				       why.len ? why.buf : " (empty plan)");
		strbuf_release(&why);
		plan_free(plan);
		return error;
	}
	*out = plan;
	return BG_OK;
}

/* The case of the baseline plan with that id; NULL: none. */
static const struct plan_case *find_twin(const struct plan *baseline,
					 const char *id)
{
	for (size_t i = 0; baseline && i < baseline->nr; i++)
		if (!strcmp(baseline->cases[i].id, id))
			return &baseline->cases[i];
	return NULL;
}

void plan_add_baseline(struct plan *plan, const struct suite *suite,
		       const struct plan_filter *filter, const char *build_dir)
{
	struct plan_case *cases = xcalloc(2 * plan->nr + 1, sizeof(*cases));
	struct plan_filter unsharded = { 0 };
	struct plan *baseline = NULL;
	size_t nr = 0;

	assert(!plan->baseline_suite);
	if (filter) {
		unsharded = *filter;
		unsharded.shard_index = unsharded.shard_count = 0;
	}
	/* a baseline with none of the cases is no error: all are "new" */
	if (plan_build(&baseline, suite, &unsharded, build_dir) < 0)
		bg_error_clear();
	for (size_t i = 0; i < plan->nr; i++) {
		const struct plan_case *twin =
			find_twin(baseline, plan->cases[i].id);

		if (twin) {
			struct strbuf id = STRBUF_INIT;

			strbuf_addf(&id, "%s@baseline", twin->id);
			cases[nr] = *twin;
			cases[nr].id = strbuf_detach(&id, NULL);
			cases[nr++].baseline = true;
		}
		cases[nr++] = plan->cases[i];
	}
	plan_free(baseline);
	free(plan->cases);
	plan->cases = cases;
	plan->nr = nr;
	plan->baseline_suite = suite;
	plan->baseline_build_dir = absolute_path(build_dir);
}

void plan_retain(struct plan *plan,
		 bool (*keep)(const struct plan_case *pcase, void *payload),
		 void *payload)
{
	size_t kept = 0;

	for (size_t i = 0; i < plan->nr; i++) {
		if (!keep(&plan->cases[i], payload)) {
			free(plan->cases[i].id);
			continue;
		}
		plan->cases[kept++] = plan->cases[i];
	}
	plan->nr = kept;
}

void plan_free(struct plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->nr; i++)
		free(plan->cases[i].id);
	free(plan->cases);
	free(plan->build_dir);
	free(plan->baseline_build_dir);
	free(plan);
}

struct case_vars {
	const struct plan_case *pcase;
	const struct plan *plan;
	char run[24];
	struct strbuf scratch; /* a variant var expanded with built-ins */
	bool in_var;	       /* expanding a variant var: built-ins only */
};

static const char *builtin_value(const char *name, struct case_vars *vars)
{
	const struct plan_case *pcase = vars->pcase;

	if (!strcmp(name, "variant"))
		return pcase->variant->name;
	if (!strcmp(name, "device"))
		return pcase->device;
	if (!strcmp(name, "benchmark"))
		return pcase->benchmark->name;
	if (!strcmp(name, "suite"))
		return pcase->suite->name;
	if (!strcmp(name, "suite_dir"))
		return pcase->suite->dir;
	if (!strcmp(name, "build_dir"))
		return pcase->baseline ? vars->plan->baseline_build_dir
				       : vars->plan->build_dir;
	if (!strcmp(name, "run"))
		return vars->run;
	if (!strncmp(name, "env:", 4))
		return getenv(name + 4);
	return NULL;
}

static const char *case_lookup(const char *name, void *payload)
{
	struct case_vars *vars = payload;
	const struct variant *variant = vars->pcase->variant;
	const char *value = builtin_value(name, vars);
	char *bad = NULL;

	if (value || vars->in_var)
		return value;
	for (size_t i = 0; i < variant->vars_nr; i++) {
		if (strcmp(variant->vars[i].name, name))
			continue;
		strbuf_reset(&vars->scratch);
		vars->in_var = true;
		if (expand_vars(&vars->scratch, variant->vars[i].value,
				case_lookup, vars, &bad) < 0)
			value = NULL;
		else
			value = vars->scratch.buf;
		vars->in_var = false;
		free(bad);
		return value;
	}
	return NULL;
}

int plan_case_expand(const struct plan_case *pcase, const struct plan *plan,
		     int run, const char *template, struct strbuf *out)
{
	struct case_vars vars = { pcase, plan, "", STRBUF_INIT, false };
	char *bad = NULL;
	int error = BG_OK;

	snprintf(vars.run, sizeof(vars.run), "%d", run);
	if (expand_vars(out, template, case_lookup, &vars, &bad) < 0)
		error = bg_input_error("%s: case %s: cannot expand '${%s}'",
				       pcase->suite->path, pcase->id, bad);
	free(bad);
	strbuf_release(&vars.scratch);
	return error;
}

int plan_case_command(const struct plan_case *pcase, const struct plan *plan,
		      int run, char ***argv, char **shell)
{
	const struct benchmark *benchmark = pcase->benchmark;
	struct strbuf arg = STRBUF_INIT;
	int error = BG_OK;

	*argv = NULL;
	*shell = NULL;
	if (benchmark->shell) {
		error = plan_case_expand(pcase, plan, run, benchmark->shell,
					 &arg);
		if (!error)
			*shell = strbuf_detach(&arg, NULL);
		goto done;
	}
	*argv = xcalloc(benchmark->command_nr + 1, sizeof(**argv));
	for (size_t i = 0; i < benchmark->command_nr; i++) {
		strbuf_reset(&arg);
		if ((error = plan_case_expand(pcase, plan, run,
					      benchmark->command[i], &arg)) < 0)
			break;
		(*argv)[i] = xstrdup(arg.buf);
	}
	if (error) {
		for (size_t i = 0; (*argv)[i]; i++)
			free((*argv)[i]);
		free(*argv);
		*argv = NULL;
	}
done:
	strbuf_release(&arg);
	return error;
}

int plan_case_env(const struct plan_case *pcase, const struct plan *plan,
		  int run, char ***env)
{
	const struct suite_settings *settings = &pcase->benchmark->settings;
	struct strbuf entry = STRBUF_INIT;
	int error = BG_OK;

	*env = NULL;
	if (!settings->env_nr)
		return BG_OK;
	*env = xcalloc(settings->env_nr + 1, sizeof(**env));
	for (size_t i = 0; i < settings->env_nr && !error; i++) {
		strbuf_reset(&entry);
		strbuf_addf(&entry, "%s=", settings->env[i].name);
		error = plan_case_expand(pcase, plan, run,
					 settings->env[i].value, &entry);
		(*env)[i] = xstrdup(entry.buf);
	}
	strbuf_release(&entry);
	if (error) {
		for (size_t i = 0; (*env)[i]; i++)
			free((*env)[i]);
		free(*env);
		*env = NULL;
	}
	return error;
}

static void describe_settings(const struct suite_settings *settings,
			      struct strbuf *out)
{
	if (settings->runs_auto)
		strbuf_addf(out, "    runs: auto (%d to %d, precision %g%%)",
			    settings->min_runs, settings->max_runs,
			    settings->precision * 100);
	else
		strbuf_addf(out, "    runs: %d", settings->runs);
	strbuf_addf(out,
		    ", warmup %d, timeout %gs, threshold %g%%, confidence %g\n",
		    settings->warmup, settings->timeout_s,
		    settings->threshold * 100, settings->confidence);
}

/* What the suite says of a metric beyond its source: its role, that it is
 * not gated, the devices it exists on. */
static void describe_metric_use(const struct metric_spec *metric,
				struct strbuf *out)
{
	if (metric->role)
		strbuf_addf(out, ", %s", metric->role);
	if (!metric->gate)
		strbuf_addstr(out, ", not gated");
	for (size_t i = 0; i < metric->devices_nr; i++) {
		strbuf_addstr(out, i ? "/" : ", on ");
		terminal_escape(out, metric->devices[i]);
	}
}

static int describe_case(const struct plan *plan, const struct plan_case *pcase,
			 struct strbuf *out)
{
	const struct benchmark *benchmark = pcase->benchmark;
	struct strbuf command = STRBUF_INIT;
	char **argv = NULL, *shell = NULL;
	int error;

	if ((error = plan_case_command(pcase, plan, 0, &argv, &shell)) < 0)
		return error;
	if (shell) {
		strbuf_addstr(&command, "/bin/sh -c ");
		strbuf_add_shell_quoted(&command, shell);
	}
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			strbuf_addch(&command, ' ');
		strbuf_add_shell_quoted(&command, argv[i]);
		free(argv[i]);
	}
	/* vars and the environment can put anything in the command */
	strbuf_addstr(out, "  ");
	terminal_escape(out, pcase->id);
	strbuf_addstr(out, "\n    command: ");
	terminal_escape(out, command.buf);
	strbuf_addch(out, '\n');
	describe_settings(&benchmark->settings, out);
	strbuf_addstr(out, "    metrics:");
	for (size_t i = 0; i < benchmark->metrics_nr; i++) {
		const struct metric_spec *metric = &benchmark->metrics[i];

		strbuf_addch(out, ' ');
		terminal_escape(out, metric->name);
		strbuf_addf(out, " (%s", metric_source_name(metric->from));
		if (metric->unit) {
			strbuf_addstr(out, ", ");
			terminal_escape(out, metric->unit);
		}
		if (metric->per) {
			strbuf_addstr(out, ", per ");
			terminal_escape(out, metric->per);
		}
		describe_metric_use(metric, out);
		strbuf_addch(out, ')');
	}
	strbuf_addch(out, '\n');
	free(argv);
	free(shell);
	strbuf_release(&command);
	return BG_OK;
}

/* The variant/device pairs of the suite that cannot exist (suite.h). */
static size_t pairs_left_out(const struct suite *suite)
{
	size_t nr = 0;

	for (size_t v = 0; v < suite->variants_nr; v++)
		for (size_t d = 0; d < suite->devices_nr; d++)
			nr += !suite_case_exists(suite, &suite->variants[v],
						 suite->devices[d]);
	return nr;
}

int plan_describe(const struct plan *plan, struct strbuf *out)
{
	const struct suite *suite = plan->suite;
	size_t left_out = pairs_left_out(suite);
	int error = BG_OK;

	strbuf_addstr(out, "suite ");
	terminal_escape(out, suite->name);
	strbuf_addf(out,
		    ": valid, %zu case%s (%zu benchmark%s x %zu "
		    "variant%s x %zu device%s",
		    plan->nr, plan->nr == 1 ? "" : "s", suite->benchmarks_nr,
		    suite->benchmarks_nr == 1 ? "" : "s", suite->variants_nr,
		    suite->variants_nr == 1 ? "" : "s", suite->devices_nr,
		    suite->devices_nr == 1 ? "" : "s");
	if (left_out)
		strbuf_addf(out, ", less %zu variant/device pair%s that "
				 "cannot exist",
			    left_out, left_out == 1 ? "" : "s");
	strbuf_addstr(out, ")\n");
	for (size_t i = 0; i < plan->nr && !error; i++)
		error = describe_case(plan, &plan->cases[i], out);
	return error;
}
