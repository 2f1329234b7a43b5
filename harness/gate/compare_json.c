/* The "benchgate_comparison": 1 document: compare.h's comparison_to_json()
 * and comparison_load(), kept apart from the decision logic. */
#include "harness/gate/compare.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cJSON writes NaN and infinities as null, which is what an unknown number
 * should read as. */
static cJSON *summary_to_json(const struct stats_summary *s)
{
	cJSON *object = cJSON_CreateObject();
	cJSON *ci;

	cJSON_AddNumberToObject(object, "n", (double)s->n);
	cJSON_AddNumberToObject(object, "median", s->median);
	cJSON_AddNumberToObject(object, "mean", s->mean);
	cJSON_AddNumberToObject(object, "stddev", s->stddev);
	cJSON_AddNumberToObject(object, "min", s->min);
	cJSON_AddNumberToObject(object, "max", s->max);
	cJSON_AddNumberToObject(object, "robust_cv", s->robust_cv);
	cJSON_AddNumberToObject(object, "p90", s->p90);
	cJSON_AddNumberToObject(object, "p99", s->p99);
	ci = cJSON_AddArrayToObject(object, "ci");
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(s->ci_low));
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(s->ci_high));
	return object;
}

static void add_pair(cJSON *object, const char *key, double low, double high)
{
	cJSON *pair = cJSON_AddArrayToObject(object, key);

	cJSON_AddItemToArray(pair, cJSON_CreateNumber(low));
	cJSON_AddItemToArray(pair, cJSON_CreateNumber(high));
}

static cJSON *item_to_json(const struct metric_comparison *mc)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "suite", mc->suite);
	json_add_string(object, "benchmark", mc->benchmark);
	json_add_string(object, "variant", mc->variant);
	json_add_string(object, "device", mc->device);
	json_add_string(object, "metric", mc->metric);
	json_add_string(object, "unit", mc->unit);
	json_add_string(object, "better",
			mc->better == BETTER_HIGHER ? "higher" : "lower");
	cJSON_AddBoolToObject(object, "exact", mc->exact);
	if (mc->exact)
		cJSON_AddNumberToObject(object, "tolerance", mc->tolerance);
	if (mc->has_baseline)
		json_add_item(object, "baseline",
			      summary_to_json(&mc->baseline));
	else
		cJSON_AddNullToObject(object, "baseline");
	if (mc->has_candidate)
		json_add_item(object, "candidate",
			      summary_to_json(&mc->candidate));
	else
		cJSON_AddNullToObject(object, "candidate");
	cJSON_AddNumberToObject(object, "change", mc->change);
	add_pair(object, "change_ci", mc->change_low, mc->change_high);
	cJSON_AddNumberToObject(object, "p_value", mc->p_value);
	cJSON_AddNumberToObject(object, "p_adjusted", mc->p_adjusted);
	add_pair(object, "n_effective", mc->n_eff_baseline,
		 mc->n_eff_candidate);
	cJSON_AddNumberToObject(object, "threshold", mc->threshold);
	cJSON_AddNumberToObject(object, "noise", mc->noise);
	json_add_string(object, "verdict", verdict_name(mc->verdict));
	json_add_string(object, "note", mc->note);
	return object;
}

static cJSON *variant_to_json(const struct variant_comparison *vc)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "benchmark", vc->benchmark);
	json_add_string(object, "device", vc->device);
	json_add_string(object, "variant", vc->variant);
	json_add_string(object, "against", vc->against);
	json_add_string(object, "speed_metric", vc->speed_metric);
	cJSON_AddNumberToObject(object, "speedup", vc->speedup);
	add_pair(object, "speedup_ci", vc->speedup_low, vc->speedup_high);
	cJSON_AddNumberToObject(object, "size_ratio", vc->size_ratio);
	cJSON_AddNumberToObject(object, "accuracy_delta", vc->accuracy_delta);
	return object;
}

static cJSON *side_to_json(const struct comparison_side *side)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "commit", side->commit);
	json_add_string(object, "machine", side->machine);
	json_add_string(object, "source", side->source);
	json_add_string(object, "path", side->path);
	return object;
}

void comparison_to_json(const struct comparison *comparison, struct strbuf *out)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *items, *variants, *counts;
	char *text;

	cJSON_AddNumberToObject(root, "benchgate_comparison", 1);
	json_add_string(root, "verdict", overall_name(comparison->overall));
	json_add_string(root, "suite", comparison->suite);
	cJSON_AddNumberToObject(root, "confidence", comparison->confidence);
	json_add_item(root, "baseline", side_to_json(&comparison->baseline));
	json_add_item(root, "candidate", side_to_json(&comparison->candidate));
	counts = cJSON_AddObjectToObject(root, "counts");
	for (int v = 0; v < VERDICT_COUNT; v++)
		cJSON_AddNumberToObject(counts, verdict_name((enum verdict)v),
					(double)comparison->counts[v]);
	items = cJSON_AddArrayToObject(root, "comparisons");
	for (size_t i = 0; i < comparison->nr; i++)
		cJSON_AddItemToArray(items,
				     item_to_json(&comparison->items[i]));
	variants = cJSON_AddArrayToObject(root, "variants");
	for (size_t i = 0; i < comparison->variants_nr; i++)
		cJSON_AddItemToArray(variants,
				     variant_to_json(&comparison->variants[i]));
	text = cJSON_Print(root);
	if (!text) {
		fputs("benchgate: fatal: out of memory serialising JSON\n",
		      stderr);
		abort();
	}
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
	cJSON_Delete(root);
}

/* Reading back: tolerant of nulls (unknown numbers), strict on structure. */

static double number_or_nan(const cJSON *object, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	return cJSON_IsNumber(item) ? item->valuedouble : NAN;
}

static char *string_or_null(const cJSON *object, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	return cJSON_IsString(item) ? xstrdup(item->valuestring) : NULL;
}

static void read_pair(const cJSON *object, const char *key, double *low,
		      double *high)
{
	const cJSON *pair = cJSON_GetObjectItemCaseSensitive(object, key);

	*low = *high = NAN;
	if (cJSON_IsArray(pair) && cJSON_GetArraySize(pair) == 2) {
		const cJSON *a = cJSON_GetArrayItem(pair, 0);
		const cJSON *b = cJSON_GetArrayItem(pair, 1);

		*low = cJSON_IsNumber(a) ? a->valuedouble : NAN;
		*high = cJSON_IsNumber(b) ? b->valuedouble : NAN;
	}
}

static bool read_summary(const cJSON *object, struct stats_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!cJSON_IsObject(object))
		return false;
	s->n = (size_t)number_or_nan(object, "n");
	s->median = s->p50 = number_or_nan(object, "median");
	s->mean = number_or_nan(object, "mean");
	s->stddev = number_or_nan(object, "stddev");
	s->min = number_or_nan(object, "min");
	s->max = number_or_nan(object, "max");
	s->robust_cv = number_or_nan(object, "robust_cv");
	s->p90 = number_or_nan(object, "p90");
	s->p99 = number_or_nan(object, "p99");
	read_pair(object, "ci", &s->ci_low, &s->ci_high);
	return true;
}

static void read_side(const cJSON *object, struct comparison_side *side)
{
	const cJSON *commit =
		cJSON_GetObjectItemCaseSensitive(object, "commit");
	const cJSON *machine =
		cJSON_GetObjectItemCaseSensitive(object, "machine");

	if (cJSON_IsString(commit))
		snprintf(side->commit, sizeof(side->commit), "%s",
			 commit->valuestring);
	if (cJSON_IsString(machine))
		snprintf(side->machine, sizeof(side->machine), "%s",
			 machine->valuestring);
	side->source = string_or_null(object, "source");
	side->path = string_or_null(object, "path");
}

static int read_item(const char *path, size_t index, const cJSON *object,
		     struct comparison *comparison)
{
	struct metric_comparison *mc;
	char *verdict = string_or_null(object, "verdict");
	char *better = string_or_null(object, "better");
	int parsed = verdict ? verdict_parse(verdict) : -1;

	free(verdict);
	if (!cJSON_IsObject(object) || parsed < 0) {
		free(better);
		return bg_input_error(
			"%s: comparisons[%zu]: expected an object "
			"with a known verdict",
			path, index);
	}
	ALLOC_GROW(comparison->items, comparison->nr + 1, comparison->alloc);
	mc = &comparison->items[comparison->nr++];
	memset(mc, 0, sizeof(*mc));
	mc->suite = string_or_null(object, "suite");
	mc->benchmark = string_or_null(object, "benchmark");
	mc->variant = string_or_null(object, "variant");
	mc->device = string_or_null(object, "device");
	mc->metric = string_or_null(object, "metric");
	if (!mc->suite || !mc->benchmark || !mc->variant || !mc->device ||
	    !mc->metric)
		return bg_input_error("%s: comparisons[%zu]: expected suite, "
				      "benchmark, variant, device and metric",
				      path, index);
	mc->unit = string_or_null(object, "unit");
	mc->better = better && !strcmp(better, "higher") ? BETTER_HIGHER
							 : BETTER_LOWER;
	free(better);
	mc->exact =
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(object, "exact"));
	mc->tolerance = number_or_nan(object, "tolerance");
	mc->has_baseline = read_summary(
		cJSON_GetObjectItemCaseSensitive(object, "baseline"),
		&mc->baseline);
	mc->has_candidate = read_summary(
		cJSON_GetObjectItemCaseSensitive(object, "candidate"),
		&mc->candidate);
	mc->change = number_or_nan(object, "change");
	read_pair(object, "change_ci", &mc->change_low, &mc->change_high);
	mc->p_value = number_or_nan(object, "p_value");
	mc->p_adjusted = number_or_nan(object, "p_adjusted");
	read_pair(object, "n_effective", &mc->n_eff_baseline,
		  &mc->n_eff_candidate);
	mc->threshold = number_or_nan(object, "threshold");
	mc->noise = number_or_nan(object, "noise");
	mc->verdict = (enum verdict)parsed;
	mc->note = string_or_null(object, "note");
	comparison->counts[mc->verdict]++;
	return BG_OK;
}

static void read_variant(const cJSON *object, struct comparison *comparison)
{
	struct variant_comparison *vc;

	ALLOC_GROW(comparison->variants, comparison->variants_nr + 1,
		   comparison->variants_alloc);
	vc = &comparison->variants[comparison->variants_nr++];
	memset(vc, 0, sizeof(*vc));
	vc->benchmark = string_or_null(object, "benchmark");
	vc->device = string_or_null(object, "device");
	vc->variant = string_or_null(object, "variant");
	vc->against = string_or_null(object, "against");
	vc->speed_metric = string_or_null(object, "speed_metric");
	vc->speedup = number_or_nan(object, "speedup");
	read_pair(object, "speedup_ci", &vc->speedup_low, &vc->speedup_high);
	vc->size_ratio = number_or_nan(object, "size_ratio");
	vc->accuracy_delta = number_or_nan(object, "accuracy_delta");
}

int comparison_parse(struct comparison **out, const char *text, size_t len,
		     const char *path)
{
	struct comparison *comparison = NULL;
	const cJSON *version, *item;
	char *overall = NULL;
	size_t index = 0;
	int error = BG_OK;
	cJSON *root;

	*out = NULL;
	root = cJSON_ParseWithLength(text, len);
	version =
		cJSON_GetObjectItemCaseSensitive(root, "benchgate_comparison");
	if (!cJSON_IsNumber(version) || version->valuedouble != 1) {
		error = bg_input_error(
			"%s: not a benchgate comparison document "
			"(expected \"benchgate_comparison\": 1)",
			path);
		goto done;
	}
	comparison = xcalloc(1, sizeof(*comparison));
	comparison->suite = string_or_null(root, "suite");
	if (!comparison->suite)
		comparison->suite = xstrdup("");
	comparison->confidence = number_or_nan(root, "confidence");
	overall = string_or_null(root, "verdict");
	comparison->overall =
		!overall || !strcmp(overall, "pass") ? OVERALL_PASS
		: !strcmp(overall, "regression")     ? OVERALL_REGRESSION
						     : OVERALL_FAILED;
	read_side(cJSON_GetObjectItemCaseSensitive(root, "baseline"),
		  &comparison->baseline);
	read_side(cJSON_GetObjectItemCaseSensitive(root, "candidate"),
		  &comparison->candidate);
	cJSON_ArrayForEach(
		item,
		cJSON_GetObjectItemCaseSensitive(
			root,
			"comparisons")) if ((error = read_item(path, index++,
							       item,
							       comparison)) <
					    0) goto done;
	cJSON_ArrayForEach(item,
			   cJSON_GetObjectItemCaseSensitive(root, "variants"))
		read_variant(item, comparison);
done:
	free(overall);
	cJSON_Delete(root);
	if (error) {
		comparison_free(comparison);
		return error;
	}
	*out = comparison;
	return BG_OK;
}

int comparison_load(struct comparison **out, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	int error;

	*out = NULL;
	if ((error = strbuf_read_file(&text, path)) == BG_OK)
		error = comparison_parse(out, text.buf, text.len, path);
	strbuf_release(&text);
	return error;
}
