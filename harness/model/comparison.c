/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/model/comparison.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
	[VERDICT_REGRESSION] = "regression",
	[VERDICT_IMPROVEMENT] = "improvement",
	[VERDICT_UNCHANGED] = "unchanged",
	[VERDICT_INCONCLUSIVE] = "inconclusive",
	[VERDICT_NEW] = "new",
	[VERDICT_MISSING] = "missing",
	[VERDICT_FAILED] = "failed",
	[VERDICT_SKIPPED] = "skipped",
};

const char *verdict_name(enum verdict verdict)
{
	return verdict_names[verdict];
}

int verdict_parse(const char *name)
{
	for (int i = 0; i < VERDICT_COUNT; i++)
		if (!strcmp(verdict_names[i], name))
			return i;
	return -1;
}

const char *overall_name(enum verdict_overall overall)
{
	return overall == OVERALL_PASS	       ? "pass"
	       : overall == OVERALL_REGRESSION ? "regression"
					       : "failed";
}

bool compare_item_gated(const struct metric_comparison *mc)
{
	return !mc->ungated || mc->verdict == VERDICT_FAILED ||
	       mc->verdict == VERDICT_SKIPPED;
}

static bool same_name(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

bool metric_comparison_same_case(const struct metric_comparison *a,
				 const struct metric_comparison *b)
{
	return same_name(a->benchmark, b->benchmark) &&
	       same_name(a->variant, b->variant) &&
	       same_name(a->device, b->device);
}

void compare_metric_release(struct metric_comparison *mc)
{
	free(mc->test.pairs);
	mc->test.pairs = NULL;
	mc->test.pairs_nr = 0;
}

void comparison_free(struct comparison *comparison)
{
	if (!comparison)
		return;
	for (size_t i = 0; i < comparison->nr; i++) {
		struct metric_comparison *mc = &comparison->items[i];

		free(mc->suite);
		free(mc->benchmark);
		free(mc->variant);
		free(mc->device);
		free(mc->metric);
		free(mc->unit);
		free(mc->note);
		free(mc->log);
		free(mc->role);
		compare_metric_release(mc);
	}
	free(comparison->items);
	for (size_t i = 0; i < comparison->variants_nr; i++) {
		struct variant_comparison *vc = &comparison->variants[i];

		free(vc->benchmark);
		free(vc->device);
		free(vc->variant);
		free(vc->against);
		free(vc->speed_metric);
	}
	free(comparison->variants);
	free(comparison->suite);
	free(comparison->baseline.source);
	free(comparison->baseline.path);
	free(comparison->candidate.source);
	free(comparison->candidate.path);
	free(comparison);
}
