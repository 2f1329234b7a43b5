/* SPDX-License-Identifier: Apache-2.0 */
/* The "benchgate_comparison": 1 document: compare.h's comparison_to_json()
 * and comparison_parse(), kept apart from the decision logic. */
#include "harness/gate/compare.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/json.h"
#include "harness/util/jsonread.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cJSON writes NaN and infinities as null, which is what an unknown number
 * should read as. */
static cJSON *summary_to_json(const struct stats_summary *s)
{
	cJSON *object = cJSON_CreateObject();

	cJSON_AddNumberToObject(object, "n", (double)s->n);
	cJSON_AddNumberToObject(object, "median", s->median);
	cJSON_AddNumberToObject(object, "mean", s->mean);
	cJSON_AddNumberToObject(object, "stddev", s->stddev);
	cJSON_AddNumberToObject(object, "min", s->min);
	cJSON_AddNumberToObject(object, "max", s->max);
	cJSON_AddNumberToObject(object, "robust_cv", s->robust_cv);
	cJSON_AddNumberToObject(object, "p90", s->p90);
	cJSON_AddNumberToObject(object, "p99", s->p99);
	json_add_pair(object, "ci", s->ci_low, s->ci_high);
	return object;
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
	json_add_string(object, "better", better_names[mc->better]);
	cJSON_AddBoolToObject(object, "exact", mc->exact);
	if (mc->exact)
		cJSON_AddNumberToObject(object, "tolerance", mc->tolerance);
	/* absent means gated, as in a result */
	if (mc->ungated)
		cJSON_AddBoolToObject(object, "gate", false);
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
	json_add_pair(object, "change_ci", mc->change_low, mc->change_high);
	if (!mc->exact && mc->has_baseline && mc->has_candidate)
		cJSON_AddNumberToObject(object, "change_ci_confidence",
					mc->interval_confidence);
	if (mc->method)
		json_add_string(object, "method", mc->method);
	cJSON_AddNumberToObject(object, "p_value", mc->p_value);
	cJSON_AddNumberToObject(object, "p_adjusted", mc->p_adjusted);
	json_add_pair(object, "n_effective", mc->n_eff_baseline,
		      mc->n_eff_candidate);
	cJSON_AddNumberToObject(object, "threshold", mc->threshold);
	cJSON_AddNumberToObject(object, "noise", mc->noise);
	json_add_string(object, "verdict", verdict_name(mc->verdict));
	json_add_string(object, "note", mc->note);
	if (mc->log)
		json_add_string(object, "log", mc->log);
	if (mc->role)
		json_add_string(object, "role", mc->role);
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
	json_add_pair(object, "speedup_ci", vc->speedup_low, vc->speedup_high);
	cJSON_AddNumberToObject(object, "size_ratio", vc->size_ratio);
	cJSON_AddNumberToObject(object, "accuracy_delta", vc->accuracy_delta);
	cJSON_AddNumberToObject(object, "baseline_speedup",
				vc->baseline_speedup);
	cJSON_AddNumberToObject(object, "baseline_size_ratio",
				vc->baseline_size_ratio);
	cJSON_AddNumberToObject(object, "baseline_accuracy_delta",
				vc->baseline_accuracy_delta);
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
	json_print(out, root);
	cJSON_Delete(root);
}

/* Reading back: tolerant of nulls (unknown numbers, absent strings),
 * strict on structure. Each reader takes the json_reader at the value it
 * reads. */

static double get_number(struct json_reader *rd, const cJSON *object,
			 const char *key)
{
	double value = NAN;

	json_read_number(rd, object, key, JSON_NULLABLE, &value);
	return value;
}

static char *get_string(struct json_reader *rd, const cJSON *object,
			const char *key, unsigned flags)
{
	char *value = NULL;

	json_read_string(rd, object, key, flags | JSON_NULLABLE, &value);
	return value;
}

/* [low, high], either of them null when unknown. */
static void read_pair(struct json_reader *rd, const cJSON *object,
		      const char *key, double *low, double *high)
{
	const cJSON *pair = json_read_array(rd, object, key, JSON_NULLABLE);
	double *ends[] = { low, high };

	*low = *high = NAN;
	if (!pair)
		return;
	json_reader_push_key(rd, key);
	if (cJSON_GetArraySize(pair) != 2)
		json_reader_fail(rd, "expected a pair [low, high]");
	for (int i = 0; i < 2 && !rd->error; i++) {
		const cJSON *end = cJSON_GetArrayItem(pair, i);

		json_reader_push_index(rd, i);
		if (cJSON_IsNumber(end))
			*ends[i] = end->valuedouble;
		else if (!cJSON_IsNull(end))
			json_reader_fail(rd, "expected a number, found %s",
					 json_type_name(end));
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
}

/* false when the summary is null: that side had no samples. */
static bool read_summary(struct json_reader *rd, const cJSON *parent,
			 const char *key, struct stats_summary *s)
{
	const cJSON *object = json_read_object(rd, parent, key, JSON_NULLABLE);
	int n = 0;

	memset(s, 0, sizeof(*s));
	if (!object)
		return false;
	json_reader_push_key(rd, key);
	json_read_check_keys(rd, object, NULL);
	/* a count, never cast from whatever double (or NaN, for null) the
	 * document holds */
	json_read_int(rd, object, "n", JSON_REQUIRED, 0, INT_MAX, &n);
	s->n = (size_t)n;
	s->median = s->p50 = get_number(rd, object, "median");
	s->mean = get_number(rd, object, "mean");
	s->stddev = get_number(rd, object, "stddev");
	s->min = get_number(rd, object, "min");
	s->max = get_number(rd, object, "max");
	s->robust_cv = get_number(rd, object, "robust_cv");
	s->p90 = get_number(rd, object, "p90");
	s->p99 = get_number(rd, object, "p99");
	read_pair(rd, object, "ci", &s->ci_low, &s->ci_high);
	json_reader_pop(rd);
	return true;
}

static void read_side(struct json_reader *rd, const cJSON *root,
		      const char *key, struct comparison_side *side)
{
	const cJSON *object = json_read_object(rd, root, key, JSON_NULLABLE);

	if (!object)
		return;
	json_reader_push_key(rd, key);
	json_read_check_keys(rd, object, NULL);
	/* printable, as a byte that is no UTF-8 would be written back as
	 * three (U+FFFD) and no longer fit */
	json_read_fixed(rd, object, "commit", JSON_NULLABLE | JSON_PRINTABLE,
			side->commit, sizeof(side->commit),
			"a commit id of at most 40 characters");
	json_read_fixed(rd, object, "machine", JSON_NULLABLE | JSON_PRINTABLE,
			side->machine, sizeof(side->machine),
			"a machine id of at most 64 characters");
	side->source = get_string(rd, object, "source", 0);
	side->path = get_string(rd, object, "path", 0);
	json_reader_pop(rd);
}

static int read_verdict(struct json_reader *rd, const cJSON *object)
{
	struct strbuf names = STRBUF_INIT;
	char *name = get_string(rd, object, "verdict", JSON_REQUIRED);
	int verdict = name ? verdict_parse(name) : -1;

	if (name && verdict < 0) {
		for (int v = 0; v < VERDICT_COUNT; v++)
			strbuf_addf(&names, "%s%s", v ? ", " : "",
				    verdict_name((enum verdict)v));
		json_reader_push_key(rd, "verdict");
		json_reader_fail(rd,
				 "unknown verdict '%s'; expected one of: %s",
				 name, names.buf);
		json_reader_pop(rd);
	}
	strbuf_release(&names);
	free(name);
	return verdict;
}

static void read_item(struct json_reader *rd, const cJSON *object,
		      struct comparison *comparison)
{
	struct metric_comparison *mc;
	int verdict, better = BETTER_LOWER;
	bool gate;
	char *method;

	if (!cJSON_IsObject(object)) {
		json_reader_fail(rd, "expected an object, found %s",
				 json_type_name(object));
		return;
	}
	json_read_check_keys(rd, object, NULL);
	if ((verdict = read_verdict(rd, object)) < 0)
		return;
	ALLOC_GROW(comparison->items, comparison->nr + 1, comparison->alloc);
	mc = &comparison->items[comparison->nr++];
	memset(mc, 0, sizeof(*mc));
	/* Names as a result holds them (result.h): what a suite could not
	 * name is no case of a comparison either. */
	mc->suite =
		get_string(rd, object, "suite", JSON_REQUIRED | JSON_PRINTABLE);
	mc->benchmark =
		get_string(rd, object, "benchmark", JSON_REQUIRED | JSON_NAME);
	mc->variant =
		get_string(rd, object, "variant", JSON_REQUIRED | JSON_NAME);
	mc->device =
		get_string(rd, object, "device", JSON_REQUIRED | JSON_NAME);
	mc->metric =
		get_string(rd, object, "metric", JSON_REQUIRED | JSON_NAME);
	mc->unit = get_string(rd, object, "unit", JSON_PRINTABLE);
	json_read_enum(rd, object, "better", JSON_NULLABLE, better_names,
		       &better);
	mc->better = (enum better)better;
	json_read_bool(rd, object, "exact", JSON_NULLABLE, &mc->exact);
	mc->tolerance = get_number(rd, object, "tolerance");
	if (json_read_bool(rd, object, "gate", JSON_NULLABLE, &gate) > 0)
		mc->ungated = !gate;
	mc->has_baseline = read_summary(rd, object, "baseline", &mc->baseline);
	mc->has_candidate =
		read_summary(rd, object, "candidate", &mc->candidate);
	mc->change = get_number(rd, object, "change");
	read_pair(rd, object, "change_ci", &mc->change_low, &mc->change_high);
	mc->interval_confidence =
		get_number(rd, object, "change_ci_confidence");
	method = get_string(rd, object, "method", 0);
	mc->method = compare_method_named(method);
	free(method);
	mc->p_value = get_number(rd, object, "p_value");
	mc->p_adjusted = get_number(rd, object, "p_adjusted");
	read_pair(rd, object, "n_effective", &mc->n_eff_baseline,
		  &mc->n_eff_candidate);
	mc->threshold = get_number(rd, object, "threshold");
	mc->noise = get_number(rd, object, "noise");
	mc->verdict = (enum verdict)verdict;
	mc->note = get_string(rd, object, "note", 0);
	mc->log = get_string(rd, object, "log", 0);
	mc->role = get_string(rd, object, "role", 0);
	if (compare_item_gated(mc))
		comparison->counts[mc->verdict]++;
}

static void read_variant(struct json_reader *rd, const cJSON *object,
			 struct comparison *comparison)
{
	struct variant_comparison *vc;

	if (!cJSON_IsObject(object)) {
		json_reader_fail(rd, "expected an object, found %s",
				 json_type_name(object));
		return;
	}
	ALLOC_GROW(comparison->variants, comparison->variants_nr + 1,
		   comparison->variants_alloc);
	vc = &comparison->variants[comparison->variants_nr++];
	memset(vc, 0, sizeof(*vc));
	json_read_check_keys(rd, object, NULL);
	vc->benchmark = get_string(rd, object, "benchmark", JSON_NAME);
	vc->device = get_string(rd, object, "device", JSON_NAME);
	vc->variant = get_string(rd, object, "variant", JSON_NAME);
	vc->against = get_string(rd, object, "against", JSON_NAME);
	vc->speed_metric = get_string(rd, object, "speed_metric", JSON_NAME);
	vc->speedup = get_number(rd, object, "speedup");
	read_pair(rd, object, "speedup_ci", &vc->speedup_low,
		  &vc->speedup_high);
	vc->size_ratio = get_number(rd, object, "size_ratio");
	vc->accuracy_delta = get_number(rd, object, "accuracy_delta");
	/* absent in comparisons from before they were written: NAN */
	vc->baseline_speedup = get_number(rd, object, "baseline_speedup");
	vc->baseline_size_ratio =
		get_number(rd, object, "baseline_size_ratio");
	vc->baseline_accuracy_delta =
		get_number(rd, object, "baseline_accuracy_delta");
}

/* Reads each element of root[key] (an array, absent: none) with `read`. */
static void read_each(struct json_reader *rd, const cJSON *root,
		      const char *key, struct comparison *comparison,
		      void (*read)(struct json_reader *, const cJSON *,
				   struct comparison *))
{
	const cJSON *array = json_read_array(rd, root, key, JSON_NULLABLE);
	const cJSON *item;
	int index = 0;

	json_reader_push_key(rd, key);
	cJSON_ArrayForEach(item, array)
	{
		json_reader_push_index(rd, index++);
		read(rd, item, comparison);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
}

int comparison_parse(struct comparison **out, const char *text, size_t len,
		     const char *path)
{
	struct comparison *comparison = NULL;
	const cJSON *root, *version;
	struct json_reader rd;
	char *overall = NULL;

	*out = NULL;
	if (json_reader_parse(&rd, path, text, len) < 0)
		goto done;
	root = rd.root;
	version =
		cJSON_GetObjectItemCaseSensitive(root, "benchgate_comparison");
	if (!cJSON_IsObject(root) || !cJSON_IsNumber(version) ||
	    version->valuedouble != 1) {
		json_reader_fail(&rd, "not a benchgate comparison document "
				      "(expected \"benchgate_comparison\": 1)");
		goto done;
	}
	comparison = xcalloc(1, sizeof(*comparison));
	json_read_check_keys(&rd, root, NULL);
	comparison->suite = get_string(&rd, root, "suite", JSON_PRINTABLE);
	if (!comparison->suite)
		comparison->suite = xstrdup("");
	comparison->confidence = get_number(&rd, root, "confidence");
	overall = get_string(&rd, root, "verdict", 0);
	comparison->overall =
		!overall || !strcmp(overall, "pass") ? OVERALL_PASS
		: !strcmp(overall, "regression")     ? OVERALL_REGRESSION
						     : OVERALL_FAILED;
	read_side(&rd, root, "baseline", &comparison->baseline);
	read_side(&rd, root, "candidate", &comparison->candidate);
	read_each(&rd, root, "comparisons", comparison, read_item);
	read_each(&rd, root, "variants", comparison, read_variant);
done:
	free(overall);
	json_reader_release(&rd);
	if (rd.error) {
		comparison_free(comparison);
		return rd.error;
	}
	*out = comparison;
	return BG_OK;
}
