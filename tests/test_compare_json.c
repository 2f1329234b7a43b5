/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The comparison reader (compare_json.c) on documents from elsewhere
 * (`benchgate report FILE`): every value is checked or the document is
 * rejected with its position; nothing undefined happens on the way.
 */
#include "harness/gate/compare.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/json.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Every expected line:column below is counted by hand in the text beside
 * it: lines and columns from 1, columns in bytes. */

TestSuite(compare_json);

/* A comparison of one item whose line 4 is the test's. */
#define ITEM(line4)                                                            \
	"{\"benchgate_comparison\": 1, \"comparisons\": [\n"                   \
	"{\"verdict\": \"new\", \"suite\": \"s\",\n"                           \
	" \"variant\": \"v\", \"device\": \"cpu\", \"metric\": \"t\",\n" line4 \
	"\n}]}\n"

static struct comparison *parsed;

static int parse(const char *text)
{
	comparison_free(parsed);
	parsed = NULL;
	return comparison_parse(&parsed, text, strlen(text), "c.json");
}

static void assert_rejected(const char *text, const char *message)
{
	cr_assert_eq(parse(text), BG_EINPUT, "accepted:\n%s", text);
	cr_assert_null(parsed);
	cr_assert_str_eq(bg_error_last(), message);
}

static void teardown_comparison(void)
{
	comparison_free(parsed);
	parsed = NULL;
}

Test(compare_json, a_valid_item_is_read, .fini = teardown_comparison)
{
	cr_assert_eq(parse(ITEM("\"benchmark\": \"b\", \"unit\": \"ms\", "
				"\"better\": \"higher\", \"candidate\": "
				"{\"n\": 3, \"median\": 1.5}")),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(parsed->items[0].better, BETTER_HIGHER);
	cr_assert(parsed->items[0].has_candidate);
	cr_assert_eq(parsed->items[0].candidate.n, 3);
}

/* `n` was cast straight from a double (NaN when null or absent) to a
 * size_t: undefined behaviour that clang's -fsanitize=float-cast-overflow
 * reports. */
Test(compare_json, a_sample_count_that_is_no_count_is_rejected,
     .fini = teardown_comparison)
{
	/* line 4 `"benchmark": "b", "candidate": {"n": -1}`: column 38 */
	assert_rejected(
		ITEM("\"benchmark\": \"b\", \"candidate\": {\"n\": -1}"),
		"c.json:4:38: comparisons[0].candidate.n: expected a "
		"whole number from 0 to 2147483647");
	/* null is how cJSON writes NaN */
	assert_rejected(ITEM("\"benchmark\": \"b\", \"candidate\": {\"n\": "
			     "null}"),
			"c.json:4:38: comparisons[0].candidate.n: expected a "
			"whole number from 0 to 2147483647");
	assert_rejected(ITEM("\"benchmark\": \"b\", \"baseline\": {\"n\": "
			     "1e300}"),
			"c.json:4:37: comparisons[0].baseline.n: expected a "
			"whole number from 0 to 2147483647");
	/* absent: named at its summary, column 32 */
	assert_rejected(
		ITEM("\"benchmark\": \"b\", \"candidate\": {\"median\": "
		     "1}"),
		"c.json:4:32: comparisons[0].candidate: missing "
		"required key 'n'");
}

/* "better" other than lower or higher read silently as lower. */
Test(compare_json, an_unknown_direction_is_rejected,
     .fini = teardown_comparison)
{
	/* line 4 `"benchmark": "b", "better": "sideways"`: column 29 */
	assert_rejected(ITEM("\"benchmark\": \"b\", \"better\": \"sideways\""),
			"c.json:4:29: comparisons[0].better: unknown value "
			"'sideways'; expected one of: lower, higher");
}

/*
 * Names follow the suite loader's rules and units are printable text, so
 * that no name in a report or on the terminal starts a line with a
 * workflow command or carries an ESC sequence; the message quotes them
 * with \xNN.
 */
Test(compare_json, names_and_units_are_checked, .fini = teardown_comparison)
{
	/* line 4 `"benchmark": "a\n::add-mask::x"`: column 14 */
	assert_rejected(ITEM("\"benchmark\": \"a\\n::add-mask::x\""),
			"c.json:4:14: comparisons[0].benchmark: expected a "
			"name of letters, digits, '-', '_', '.' and '+', found "
			"'a\\x0a::add-mask::x'");
	/* line 4 `"benchmark": "b", "unit": "\u001b[2J"`: column 27 */
	assert_rejected(ITEM("\"benchmark\": \"b\", \"unit\": \"\\u001b[2J\""),
			"c.json:4:27: comparisons[0].unit: expected printable "
			"text (no control characters or bidirectional "
			"overrides, not starting with '::'), found "
			"'\\x1b[2J'");
	/* line 1, a variant comparison's benchmark: column 56 */
	assert_rejected("{\"benchgate_comparison\": 1, \"variants\": "
			"[{\"benchmark\": \"x\\ny\"}]}",
			"c.json:1:56: variants[0].benchmark: expected a name "
			"of letters, digits, '-', '_', '.' and '+', found "
			"'x\\x0ay'");
}

/* Found by fuzz_comparison: a side's commit or machine longer than its
 * field was cut without a word (and one with a byte that is no UTF-8 grew
 * past it once written back); both are refused now. */
Test(compare_json, a_side_is_printable_and_fits, .fini = teardown_comparison)
{
	/* line 2 `"candidate": {"commit": "...41 characters"}`: column 25 */
	assert_rejected("{\"benchgate_comparison\": 1,\n"
			"\"candidate\": {\"commit\": \"0123456789abcdef0123"
			"456789abcdef012345678\"}}",
			"c.json:2:25: candidate.commit: expected a commit id "
			"of at most 40 characters");
	/* `"baseline": {"machine": "m\xa1"}`: column 25 */
	assert_rejected(
		"{\"benchgate_comparison\": 1,\n"
		"\"baseline\": {\"machine\": \"m\xa1\"}}",
		"c.json:2:25: baseline.machine: expected printable text "
		"(no control characters or bidirectional overrides, not "
		"starting with '::'), found 'm\\xa1'");
}

/*
 * The writer (comparison_to_json(), json.h's json_writer) against the
 * cJSON tree it replaced, printed by cJSON itself: a large generated
 * comparison, every optional member present and absent, numbers of every
 * kind (statistics, whole counts, NaN, infinities, tiny p-values),
 * strings that need escaping or are no UTF-8. The tree is built here as
 * compare_json.c built it before.
 */

static cJSON *reference_pair(double low, double high)
{
	cJSON *pair = cJSON_CreateArray();

	cJSON_AddItemToArray(pair, cJSON_CreateNumber(low));
	cJSON_AddItemToArray(pair, cJSON_CreateNumber(high));
	return pair;
}

static cJSON *reference_summary(const struct stats_summary *s)
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
	json_add_item(object, "ci", reference_pair(s->ci_low, s->ci_high));
	return object;
}

static cJSON *reference_item(const struct metric_comparison *mc)
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
	if (mc->ungated)
		cJSON_AddBoolToObject(object, "gate", false);
	if (mc->has_baseline)
		json_add_item(object, "baseline",
			      reference_summary(&mc->baseline));
	else
		cJSON_AddNullToObject(object, "baseline");
	if (mc->has_candidate)
		json_add_item(object, "candidate",
			      reference_summary(&mc->candidate));
	else
		cJSON_AddNullToObject(object, "candidate");
	cJSON_AddNumberToObject(object, "change", mc->change);
	json_add_item(object, "centres",
		      reference_pair(mc->centre_baseline, mc->centre_candidate));
	json_add_item(object, "change_ci",
		      reference_pair(mc->change_low, mc->change_high));
	if (!mc->exact && mc->has_baseline && mc->has_candidate)
		cJSON_AddNumberToObject(object, "change_ci_confidence",
					mc->interval_confidence);
	if (mc->method)
		json_add_string(object, "method", mc->method);
	cJSON_AddNumberToObject(object, "p_value", mc->p_value);
	cJSON_AddNumberToObject(object, "p_adjusted", mc->p_adjusted);
	json_add_item(object, "n_effective",
		      reference_pair(mc->n_eff_baseline, mc->n_eff_candidate));
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

static cJSON *reference_variant(const struct variant_comparison *vc)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "benchmark", vc->benchmark);
	json_add_string(object, "device", vc->device);
	json_add_string(object, "variant", vc->variant);
	json_add_string(object, "against", vc->against);
	json_add_string(object, "speed_metric", vc->speed_metric);
	cJSON_AddNumberToObject(object, "speedup", vc->speedup);
	json_add_item(object, "speedup_ci",
		      reference_pair(vc->speedup_low, vc->speedup_high));
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

static cJSON *reference_side(const struct comparison_side *side)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "commit", side->commit);
	json_add_string(object, "machine", side->machine);
	json_add_string(object, "source", side->source);
	json_add_string(object, "path", side->path);
	return object;
}

/* cJSON_Print() of the tree, and the newline json_print() adds */
static char *reference_text(const struct comparison *c)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *items, *variants, *counts;
	char *text, *line;

	cJSON_AddNumberToObject(root, "benchgate_comparison", 1);
	json_add_string(root, "verdict", overall_name(c->overall));
	json_add_string(root, "suite", c->suite);
	cJSON_AddNumberToObject(root, "confidence", c->confidence);
	json_add_item(root, "baseline", reference_side(&c->baseline));
	json_add_item(root, "candidate", reference_side(&c->candidate));
	counts = cJSON_AddObjectToObject(root, "counts");
	for (int v = 0; v < VERDICT_COUNT; v++)
		cJSON_AddNumberToObject(counts, verdict_name((enum verdict)v),
					(double)c->counts[v]);
	items = cJSON_AddArrayToObject(root, "comparisons");
	for (size_t i = 0; i < c->nr; i++)
		cJSON_AddItemToArray(items, reference_item(&c->items[i]));
	variants = cJSON_AddArrayToObject(root, "variants");
	for (size_t i = 0; i < c->variants_nr; i++)
		cJSON_AddItemToArray(variants,
				     reference_variant(&c->variants[i]));
	text = cJSON_Print(root);
	cr_assert_not_null(text);
	line = xmalloc(strlen(text) + 2);
	strcpy(line, text);
	strcat(line, "\n");
	cJSON_free(text);
	cJSON_Delete(root);
	return line;
}

static uint64_t prng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t prng(void)
{
	prng_state ^= prng_state << 13;
	prng_state ^= prng_state >> 7;
	prng_state ^= prng_state << 17;
	return prng_state;
}

/* A number as a comparison holds them: mostly computed statistics
 * around a benchmark's magnitudes, some whole, some unknown or
 * unbounded, some tiny or huge. */
static double some_number(void)
{
	uint64_t r = prng();
	double unit = (double)(r >> 11) / 9007199254740992.0;

	switch (r % 16) {
	case 0:
		return NAN;
	case 1:
		return r & 32 ? INFINITY : -INFINITY;
	case 2:
		return (double)(r % 100000);
	case 3:
		return unit * 1e-30;
	case 4:
		return (unit - 0.5) * 1e20;
	case 5:
		return (double)(r % 1000) / 1000;
	case 6:
		return 0.0;
	default:
		return (unit - 0.3) * pow(10, (double)(r % 12) - 5);
	}
}

static void some_summary(struct stats_summary *s)
{
	s->n = prng() % 2000;
	s->median = s->p50 = some_number();
	s->mean = some_number();
	s->stddev = some_number();
	s->min = some_number();
	s->max = some_number();
	s->robust_cv = some_number();
	s->p90 = some_number();
	s->p99 = some_number();
	s->ci_low = some_number();
	s->ci_high = some_number();
}

/* `printable`: names a comparison document may hold, for reading back */
static char *some_text(size_t i, bool printable)
{
	static const char *const odd[] = {
		"quote \" and \\ backslash", "tab\tnew\nline\r\x01\x1f",
		"gr\xc3\xbc\xc3\x9f \xe2\x82\xac", "bad \xff\xc3 byte", "",
	};
	struct strbuf text = STRBUF_INIT;

	if (!printable && prng() % 4 == 0)
		return xstrdup(odd[prng() % (sizeof(odd) / sizeof(*odd))]);
	strbuf_addf(&text, "name-%zu.%u", i, (unsigned)(prng() % 100));
	return strbuf_detach(&text, NULL);
}

static struct comparison *generated_comparison(size_t items, bool printable)
{
	struct comparison *c = xcalloc(1, sizeof(*c));

	c->overall = OVERALL_REGRESSION;
	c->suite = xstrdup("generated");
	c->confidence = 0.99;
	strcpy(c->baseline.commit, "ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1");
	strcpy(c->baseline.machine, "m1");
	c->baseline.source = xstrdup("file");
	c->baseline.path = xstrdup("baseline.json");
	strcpy(c->candidate.commit, "c0ffee");
	c->candidate.source = xstrdup("file");
	c->items = xcalloc(items, sizeof(*c->items));
	c->nr = c->alloc = items;
	for (size_t i = 0; i < items; i++) {
		struct metric_comparison *mc = &c->items[i];
		uint64_t flags = prng();

		mc->suite = xstrdup("generated");
		mc->benchmark = some_text(i, printable);
		mc->variant = xstrdup(flags & 1 ? "original" : "quantized");
		mc->device = xstrdup("cpu");
		mc->metric = xstrdup(flags & 2 ? "latency" : "throughput");
		mc->unit = flags & 4 ? xstrdup("ms") : NULL;
		mc->better = flags & 8 ? BETTER_HIGHER : BETTER_LOWER;
		mc->exact = flags & 16;
		mc->tolerance = some_number();
		mc->ungated = flags & 32;
		mc->has_baseline = flags & 64;
		mc->has_candidate = flags & 128;
		if (mc->has_baseline)
			some_summary(&mc->baseline);
		if (mc->has_candidate)
			some_summary(&mc->candidate);
		mc->change = some_number();
		mc->centre_baseline = some_number();
		mc->centre_candidate = some_number();
		mc->change_low = some_number();
		mc->change_high = some_number();
		mc->interval_confidence = some_number();
		mc->method = flags & 256 ? compare_method_named(
						   "paired: mean of the run-pair "
						   "log ratios, one-sample t "
						   "interval")
					 : NULL;
		mc->p_value = some_number();
		mc->p_adjusted = some_number();
		mc->n_eff_baseline = some_number();
		mc->n_eff_candidate = some_number();
		mc->threshold = some_number();
		mc->noise = some_number();
		mc->verdict = (enum verdict)((flags >> 10) % VERDICT_COUNT);
		mc->note = flags & 512 ? some_text(i, false) : NULL;
		mc->log = flags & (1 << 16) ? some_text(i, false) : NULL;
		mc->role = flags & (1 << 17) ? xstrdup("speed") : NULL;
		if (compare_item_gated(mc))
			c->counts[mc->verdict]++;
	}
	c->variants = xcalloc(items / 10, sizeof(*c->variants));
	c->variants_nr = c->variants_alloc = items / 10;
	for (size_t i = 0; i < c->variants_nr; i++) {
		struct variant_comparison *vc = &c->variants[i];

		vc->benchmark = some_text(i, printable);
		vc->device = xstrdup("cpu");
		vc->variant = xstrdup("pruned");
		vc->against = xstrdup("original");
		vc->speed_metric = xstrdup("latency");
		vc->speedup = some_number();
		vc->speedup_low = some_number();
		vc->speedup_high = some_number();
		vc->size_ratio = some_number();
		vc->accuracy_delta = some_number();
		vc->baseline_speedup = some_number();
		vc->baseline_size_ratio = some_number();
		vc->baseline_accuracy_delta = some_number();
	}
	return c;
}

Test(compare_json, the_writer_writes_what_the_tree_printed)
{
	struct strbuf text = STRBUF_INIT;
	struct comparison *c = generated_comparison(5000, false);
	char *expected = reference_text(c);

	comparison_to_json(c, &text);
	cr_assert_eq(text.len, strlen(expected));
	cr_assert(!memcmp(text.buf, expected, text.len),
		  "the writer's text differs from the tree's");
	free(expected);
	strbuf_release(&text);
	comparison_free(c);

	/* and nothing but the document: an empty comparison */
	c = xcalloc(1, sizeof(*c));
	c->suite = xstrdup("");
	expected = reference_text(c);
	comparison_to_json(c, &text);
	cr_assert_str_eq(text.buf, expected);
	free(expected);
	strbuf_release(&text);
	comparison_free(c);
}

Test(compare_json, a_written_comparison_reads_back_to_the_same_text,
     .fini = teardown_comparison)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	struct comparison *c = generated_comparison(2000, true);

	comparison_to_json(c, &first);
	cr_assert_eq(parse(first.buf), BG_OK, "%s", bg_error_last());
	comparison_to_json(parsed, &second);
	cr_assert_eq(second.len, first.len);
	cr_assert(!memcmp(first.buf, second.buf, first.len));
	strbuf_release(&first);
	strbuf_release(&second);
	comparison_free(c);
}

Test(compare_json, the_document_in_pieces_is_the_document_whole)
{
	struct strbuf whole = STRBUF_INIT, joined = STRBUF_INIT;
	struct strbuf piece = STRBUF_INIT;
	struct comparison *c = generated_comparison(5000, false);
	struct comparison_json_pieces pieces;
	size_t nr = 0, largest = 0;
	bool more = true;

	comparison_to_json(c, &whole);
	comparison_json_pieces_init(&pieces, c);
	while (more) {
		more = comparison_json_piece(&pieces, &piece);
		strbuf_add(&joined, piece.buf, piece.len);
		if (piece.len > largest)
			largest = piece.len;
		/* as write_file_atomic_produced() does between pieces */
		strbuf_reset(&piece);
		nr++;
	}
	cr_assert_eq(joined.len, whole.len);
	cr_assert(!memcmp(joined.buf, whole.buf, whole.len));
	/* written as it is made: no piece holds much of the document */
	cr_assert_gt(nr, 10, "%zu pieces", nr);
	cr_assert_lt(largest, whole.len / 10, "a piece of %zu bytes of %zu",
		     largest, whole.len);
	strbuf_release(&whole);
	strbuf_release(&joined);
	strbuf_release(&piece);
	comparison_free(c);
}
