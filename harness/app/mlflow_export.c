/* SPDX-License-Identifier: Apache-2.0 */
/* A comparison as MLflow runs; the mapping is in mlflow_export.h. */
#include "harness/app/mlflow_export.h"

#include "harness/forge/mlflow.h"
#include "harness/gate/compare.h"
#include "harness/model/result.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/strbuf.h"
#include "reporters/report.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* How bad a verdict is, for a case's worst: a failure first, then what
 * the gate fails on, then what it would want to know. */
static const int verdict_rank[VERDICT_COUNT] = {
	[VERDICT_FAILED] = 7,	    [VERDICT_REGRESSION] = 6,
	[VERDICT_MISSING] = 5,	    [VERDICT_INCONCLUSIVE] = 4,
	[VERDICT_IMPROVEMENT] = 3,  [VERDICT_UNCHANGED] = 2,
	[VERDICT_NEW] = 1,	    [VERDICT_SKIPPED] = 0,
};

/* The metrics, params and tags of one run, with the strings they point
 * into. */
struct run_record {
	struct mlflow_metric *metrics;
	size_t metrics_nr, metrics_alloc;
	struct mlflow_pair *params;
	size_t params_nr, params_alloc;
	struct mlflow_pair *tags;
	size_t tags_nr, tags_alloc;
	char **strings;
	size_t strings_nr, strings_alloc;
};

/* What one export sends, read from the input. */
struct export_input {
	const struct comparison *comparison;
	bool compared; /* false: a result compared with nothing */
	const struct result *candidate; /* NULL: medians only */
	const char *report_dir;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keeps a formatted string alive as long as the record. */
static const char *record_string(struct run_record *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *record_string(struct run_record *r, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(r->strings, r->strings_nr + 1, r->strings_alloc);
	r->strings[r->strings_nr] = strbuf_detach(&sb, NULL);
	return r->strings[r->strings_nr++];
}

static void add_pair(struct mlflow_pair **pairs, size_t *nr, size_t *alloc,
		     const char *key, const char *value)
{
	ALLOC_GROW(*pairs, *nr + 1, *alloc);
	(*pairs)[(*nr)++] = (struct mlflow_pair){ key, value ? value : "" };
}

static void add_metric(struct run_record *r, const char *key, double value,
		       long long step, long long at)
{
	if (!isfinite(value))
		return; /* MLflow stores only finite values portably */
	ALLOC_GROW(r->metrics, r->metrics_nr + 1, r->metrics_alloc);
	r->metrics[r->metrics_nr++] =
		(struct mlflow_metric){ key, value, at, step };
}

static void record_release(struct run_record *r)
{
	for (size_t i = 0; i < r->strings_nr; i++)
		free(r->strings[i]);
	free(r->strings);
	free(r->metrics);
	free(r->params);
	free(r->tags);
	memset(r, 0, sizeof(*r));
}

#define ADD_PARAM(r, k, v) \
	add_pair(&(r)->params, &(r)->params_nr, &(r)->params_alloc, k, v)
#define ADD_TAG(r, k, v) add_pair(&(r)->tags, &(r)->tags_nr, &(r)->tags_alloc, k, v)

static void add_identity(struct run_record *r, const struct comparison *cmp)
{
	ADD_PARAM(r, "suite", cmp->suite);
	ADD_PARAM(r, "commit", cmp->candidate.commit);
	ADD_PARAM(r, "machine", cmp->candidate.machine);
}

/* The case's metrics items[0..nr) into r. */
static void add_case_metrics(struct run_record *r,
			     const struct metric_comparison *items, size_t nr,
			     const struct result *candidate, long long at)
{
	const struct result_case *rcase =
		candidate ? result_find_case(candidate, items->benchmark,
					     items->variant, items->device)
			  : NULL;

	for (size_t i = 0; i < nr; i++) {
		const struct metric_comparison *mc = &items[i];
		const struct metric_samples *samples =
			rcase ? result_case_find_metric(rcase, mc->metric)
			      : NULL;

		ADD_TAG(r, record_string(r, "verdict.%s", mc->metric),
			verdict_name(mc->verdict));
		if (mc->has_candidate)
			add_metric(r, mc->metric, mc->candidate.median, 0, at);
		if (mc->has_baseline && mc->has_candidate)
			add_metric(r, record_string(r, "%s.change", mc->metric),
				   mc->change, 0, at);
		for (size_t s = 0; samples && s < samples->nr; s++)
			add_metric(r,
				   s ? r->metrics[r->metrics_nr - 1].key
				     : record_string(r, "%s.samples",
						     mc->metric),
				   samples->samples[s], (long long)s, at);
	}
}

/* Uploads every regular file at the top of dir as an artifact of run. */
static int upload_reports(struct mlflow *client, const struct mlflow_run *run,
			  const char *dir, struct mlflow_export_summary *out)
{
	DIR *d = opendir(dir);
	struct dirent *entry;
	int error = BG_OK;

	if (!d)
		return bg_error("%s: cannot read the reports: %s", dir,
				strerror(errno));
	while (error >= 0 && (entry = readdir(d))) {
		struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
		struct stat st;

		strbuf_addf(&path, "%s/%s", dir, entry->d_name);
		if (entry->d_name[0] != '.' && !stat(path.buf, &st) &&
		    S_ISREG(st.st_mode) &&
		    (error = strbuf_read_file(&text, path.buf)) >= 0) {
			error = mlflow_upload(client, run, entry->d_name,
					      text.buf, text.len);
			if (error == 1) {
				free(out->artifacts_note);
				out->artifacts_note = xstrdup(
					"the server does not proxy artifacts "
					"(start it with --serve-artifacts); "
					"none were uploaded");
				error = BG_OK;
				strbuf_release(&path);
				strbuf_release(&text);
				break;
			}
			if (error >= 0)
				out->uploaded++;
		}
		strbuf_release(&path);
		strbuf_release(&text);
	}
	closedir(d);
	return error;
}

/* Creates, fills and ends one run. */
static int send_run(struct mlflow *client, const char *experiment_id,
		    const char *name, struct run_record *r, const char *status,
		    struct mlflow_run *made)
{
	long long start = now_ms();
	int error;

	if ((error = mlflow_run_create(client, experiment_id, name, start,
				       r->tags, r->tags_nr, made)) < 0)
		return error;
	if ((error = mlflow_log(client, made->id,
				&(struct mlflow_batch){
					.metrics = r->metrics,
					.metrics_nr = r->metrics_nr,
					.params = r->params,
					.params_nr = r->params_nr,
				})) < 0)
		return error;
	return status ? mlflow_run_end(client, made->id, status, now_ms())
		      : BG_OK;
}

static int export_cases(struct mlflow *client, const struct export_input *in,
			struct mlflow_export_summary *out)
{
	const struct comparison *cmp = in->comparison;
	int error = BG_OK;

	for (size_t i = 0, end; error >= 0 && i < cmp->nr; i = end) {
		const struct metric_comparison *first = &cmp->items[i];
		struct run_record r = { 0 };
		struct mlflow_run made;
		enum verdict worst = first->verdict;

		for (end = i + 1;
		     end < cmp->nr &&
		     metric_comparison_same_case(first, &cmp->items[end]);
		     end++)
			if (verdict_rank[cmp->items[end].verdict] >
			    verdict_rank[worst])
				worst = cmp->items[end].verdict;
		add_identity(&r, cmp);
		ADD_PARAM(&r, "benchmark", first->benchmark);
		ADD_PARAM(&r, "variant", first->variant);
		ADD_PARAM(&r, "device", first->device);
		ADD_TAG(&r, "mlflow.parentRunId", out->parent_run_id);
		ADD_TAG(&r, "mlflow.source.git.commit", cmp->candidate.commit);
		ADD_TAG(&r, "benchgate.verdict", verdict_name(worst));
		if (worst == VERDICT_FAILED && first->note)
			ADD_TAG(&r, "benchgate.reason", first->note);
		add_case_metrics(&r, first, end - i, in->candidate, now_ms());
		error = send_run(client, out->experiment_id,
				 record_string(&r, "%s/%s/%s", first->benchmark,
					       first->variant, first->device),
				 &r,
				 worst == VERDICT_FAILED ? "FAILED" : "FINISHED",
				 &made);
		if (error >= 0)
			out->runs++;
		mlflow_run_release(&made);
		record_release(&r);
	}
	return error;
}

static int send_export(const struct mlflow_export_request *req,
		       const struct export_input *in,
		       struct mlflow_export_summary *out)
{
	const struct comparison *cmp = in->comparison;
	const char *experiment = req->experiment;
	struct mlflow *client = NULL;
	struct run_record parent = { 0 };
	struct mlflow_run made = { 0 };
	int error;

	if (!experiment)
		experiment = getenv("MLFLOW_EXPERIMENT_NAME");
	if (!experiment || !*experiment)
		experiment = cmp->suite;
	if ((error = mlflow_open(&client, req->uri)) < 0 ||
	    (error = mlflow_experiment(client, experiment,
				       &out->experiment_id)) < 0)
		goto done;
	add_identity(&parent, cmp);
	ADD_TAG(&parent, "mlflow.source.git.commit", cmp->candidate.commit);
	ADD_TAG(&parent, "benchgate.verdict",
		in->compared ? overall_name(cmp->overall) : "measured");
	if ((error = send_run(client, out->experiment_id,
			      record_string(&parent, "%s @ %.12s", cmp->suite,
					    cmp->candidate.commit),
			      &parent, NULL, &made)) < 0)
		goto done;
	out->parent_run_id = xstrdup(made.id);
	if ((error = upload_reports(client, &made, in->report_dir, out)) < 0)
		goto done;
	if ((error = export_cases(client, in, out)) >= 0)
		error = mlflow_run_end(client, made.id, "FINISHED", now_ms());
done:
	mlflow_run_release(&made);
	record_release(&parent);
	mlflow_close(client);
	return error;
}

/* A comparison's candidate result, for its samples: NULL when its file is
 * not at hand (the export then carries medians only). */
static struct result *candidate_of(const struct comparison *comparison)
{
	struct result *result = NULL;

	if (comparison->candidate.path &&
	    result_load(&result, comparison->candidate.path) < 0) {
		bg_warn("%s: %s; exporting medians without samples",
			comparison->candidate.path, bg_error_last());
		bg_error_clear();
	}
	return result;
}

int mlflow_export(const struct mlflow_export_request *req,
		  struct mlflow_export_summary *out)
{
	struct comparison *comparison = NULL;
	struct result *result = NULL, *candidate = NULL;
	struct report_model model = { 0 };
	struct strbuf reports = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = comparison_read(&comparison, &result, req->input)) < 0)
		goto done;
	candidate = result ? result : candidate_of(comparison);
	model.comparison = comparison;
	model.candidate = candidate;
	strbuf_addf(&reports, "%s/benchgate-export-XXXXXX",
		    tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(reports.buf)) {
		error = bg_error("cannot make a directory for the reports: %s",
				 strerror(errno));
		strbuf_reset(&reports);
		goto done;
	}
	/* the charts are images; MLflow's artifact view takes the text */
	if ((error = report_write_all(&model, reports.buf,
				      REPORT_ALL & ~REPORT_CHARTS, NULL)) >= 0)
		error = send_export(req,
				    &(struct export_input){
					    .comparison = comparison,
					    .compared = !result,
					    .candidate = candidate,
					    .report_dir = reports.buf,
				    },
				    out);
done:
	if (reports.len)
		remove_tree(reports.buf);
	strbuf_release(&reports);
	report_model_release(&model);
	comparison_free(comparison);
	if (candidate != result)
		result_free(candidate);
	result_free(result);
	return error;
}

void mlflow_export_summary_release(struct mlflow_export_summary *summary)
{
	free(summary->experiment_id);
	free(summary->parent_run_id);
	free(summary->artifacts_note);
	memset(summary, 0, sizeof(*summary));
}
