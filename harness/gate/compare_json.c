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

/*
 * Writing, with json.h's writer: the text json_print() gives of the tree
 * these calls would have built, without the tree (a comparison of 10,000
 * cases is 300,000 items). Numbers that are NaN or infinite are written
 * as null, which is what an unknown number should read as.
 */

static void write_number(struct json_writer *w, const char *key, double value)
{
	json_write_key(w, key);
	json_write_value_number(w, value);
}

static void write_string(struct json_writer *w, const char *key,
			 const char *value)
{
	json_write_key(w, key);
	json_write_value_string(w, value);
}

static void write_bool(struct json_writer *w, const char *key, bool value)
{
	json_write_key(w, key);
	json_write_value_bool(w, value);
}

static void write_pair(struct json_writer *w, const char *key, double low,
		       double high)
{
	json_write_key(w, key);
	json_write_value_pair(w, low, high);
}

static void write_summary(struct json_writer *w, const char *key, bool has,
			  const struct stats_summary *s)
{
	json_write_key(w, key);
	if (!has) {
		json_write_value_null(w);
		return;
	}
	json_write_object(w);
	write_number(w, "n", (double)s->n);
	write_number(w, "median", s->median);
	write_number(w, "mean", s->mean);
	write_number(w, "stddev", s->stddev);
	write_number(w, "min", s->min);
	write_number(w, "max", s->max);
	write_number(w, "robust_cv", s->robust_cv);
	write_number(w, "p90", s->p90);
	write_number(w, "p99", s->p99);
	write_pair(w, "ci", s->ci_low, s->ci_high);
	json_write_end(w);
}

static void write_item(struct json_writer *w,
		       const struct metric_comparison *mc)
{
	json_write_object(w);
	write_string(w, "suite", mc->suite);
	write_string(w, "benchmark", mc->benchmark);
	write_string(w, "variant", mc->variant);
	write_string(w, "device", mc->device);
	write_string(w, "metric", mc->metric);
	write_string(w, "unit", mc->unit);
	write_string(w, "better", better_names[mc->better]);
	write_bool(w, "exact", mc->exact);
	if (mc->exact)
		write_number(w, "tolerance", mc->tolerance);
	/* absent means gated, as in a result */
	if (mc->ungated)
		write_bool(w, "gate", false);
	write_summary(w, "baseline", mc->has_baseline, &mc->baseline);
	write_summary(w, "candidate", mc->has_candidate, &mc->candidate);
	write_number(w, "change", mc->change);
	write_pair(w, "centres", mc->centre_baseline, mc->centre_candidate);
	write_pair(w, "change_ci", mc->change_low, mc->change_high);
	if (!mc->exact && mc->has_baseline && mc->has_candidate)
		write_number(w, "change_ci_confidence",
			     mc->interval_confidence);
	if (mc->method)
		write_string(w, "method", mc->method);
	write_number(w, "p_value", mc->p_value);
	write_number(w, "p_adjusted", mc->p_adjusted);
	write_pair(w, "n_effective", mc->n_eff_baseline, mc->n_eff_candidate);
	write_number(w, "threshold", mc->threshold);
	write_number(w, "noise", mc->noise);
	write_string(w, "verdict", verdict_name(mc->verdict));
	/* absent means false: a report made again from the document tells
	 * this inconclusive from one that more runs would decide */
	if (mc->session_unbounded)
		write_bool(w, "session_unbounded", true);
	write_string(w, "note", mc->note);
	if (mc->log)
		write_string(w, "log", mc->log);
	if (mc->role)
		write_string(w, "role", mc->role);
	json_write_end(w);
}

static void write_variant(struct json_writer *w,
			  const struct variant_comparison *vc)
{
	json_write_object(w);
	write_string(w, "benchmark", vc->benchmark);
	write_string(w, "device", vc->device);
	write_string(w, "variant", vc->variant);
	write_string(w, "against", vc->against);
	write_string(w, "speed_metric", vc->speed_metric);
	write_number(w, "speedup", vc->speedup);
	write_pair(w, "speedup_ci", vc->speedup_low, vc->speedup_high);
	write_number(w, "size_ratio", vc->size_ratio);
	write_number(w, "accuracy_delta", vc->accuracy_delta);
	write_number(w, "baseline_speedup", vc->baseline_speedup);
	write_number(w, "baseline_size_ratio", vc->baseline_size_ratio);
	write_number(w, "baseline_accuracy_delta",
		     vc->baseline_accuracy_delta);
	json_write_end(w);
}

static void write_side(struct json_writer *w, const char *key,
		       const struct comparison_side *side)
{
	json_write_key(w, key);
	json_write_object(w);
	write_string(w, "commit", side->commit);
	write_string(w, "machine", side->machine);
	write_string(w, "source", side->source);
	write_string(w, "path", side->path);
	json_write_end(w);
}

/* Comparisons, or variants, written in one piece at most. */
#define PIECE_ITEMS 256

enum piece_stage {
	PIECE_HEAD,	  /* up to the comparisons' '[' */
	PIECE_COMPARISONS, /* comparisons, then the variants' '[' */
	PIECE_VARIANTS,	  /* variants, then the end */
	PIECE_DONE,
};

void comparison_json_pieces_init(struct comparison_json_pieces *pieces,
				 const struct comparison *comparison)
{
	memset(pieces, 0, sizeof(*pieces));
	pieces->comparison = comparison;
	pieces->stage = PIECE_HEAD;
}

bool comparison_json_piece(void *ctx, struct strbuf *out)
{
	struct comparison_json_pieces *pieces = ctx;
	const struct comparison *comparison = pieces->comparison;
	struct json_writer *w = &pieces->writer;
	size_t written = 0;

	switch (pieces->stage) {
	case PIECE_HEAD:
		json_writer_init(w, out, 0);
		json_write_object(w);
		write_number(w, "benchgate_comparison", 1);
		write_string(w, "verdict", overall_name(comparison->overall));
		write_string(w, "suite", comparison->suite);
		write_number(w, "confidence", comparison->confidence);
		write_side(w, "baseline", &comparison->baseline);
		write_side(w, "candidate", &comparison->candidate);
		json_write_key(w, "counts");
		json_write_object(w);
		for (int v = 0; v < VERDICT_COUNT; v++)
			write_number(w, verdict_name((enum verdict)v),
				     (double)comparison->counts[v]);
		json_write_end(w);
		json_write_key(w, "comparisons");
		json_write_array(w);
		pieces->stage = PIECE_COMPARISONS;
		return true;
	case PIECE_COMPARISONS:
		w->out = out;
		while (pieces->next < comparison->nr && written++ < PIECE_ITEMS)
			write_item(w, &comparison->items[pieces->next++]);
		if (pieces->next < comparison->nr)
			return true;
		json_write_end(w);
		json_write_key(w, "variants");
		json_write_array(w);
		pieces->stage = PIECE_VARIANTS;
		pieces->next = 0;
		return true;
	case PIECE_VARIANTS:
		w->out = out;
		while (pieces->next < comparison->variants_nr &&
		       written++ < PIECE_ITEMS)
			write_variant(w, &comparison->variants[pieces->next++]);
		if (pieces->next < comparison->variants_nr)
			return true;
		json_write_end(w);
		json_write_end(w);
		strbuf_addch(out, '\n');
		pieces->stage = PIECE_DONE;
		return false;
	default:
		return false;
	}
}

void comparison_to_json(const struct comparison *comparison, struct strbuf *out)
{
	struct comparison_json_pieces pieces;

	comparison_json_pieces_init(&pieces, comparison);
	while (comparison_json_piece(&pieces, out))
		;
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
	/* a document written before the centres were recorded showed the
	 * medians */
	if (json_read_item(rd, object, "centres", JSON_NULLABLE))
		read_pair(rd, object, "centres", &mc->centre_baseline,
			  &mc->centre_candidate);
	else {
		mc->centre_baseline = mc->baseline.median;
		mc->centre_candidate = mc->candidate.median;
	}
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
	json_read_bool(rd, object, "session_unbounded", JSON_NULLABLE,
		       &mc->session_unbounded);
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
