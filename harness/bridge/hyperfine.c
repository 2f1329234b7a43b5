/* SPDX-License-Identifier: Apache-2.0 */
/* hyperfine's --export-json (bridge.h). */
#include "harness/bridge/formats.h"

#include "harness/util/strbuf.h"

#include <stdlib.h>

/* An array of numbers, each one value of a run: the series' samples. */
static void read_runs(struct bridge_doc *doc, struct json_reader *rd,
		      const cJSON *result, const char *command,
		      const char *key, const char *metric, const char *unit)
{
	const cJSON *list = json_read_array(rd, result, key, 0);

	if (list)
		bridge_read_values(rd, list, key,
				   bridge_series_get(doc, command, metric, unit,
						     BETTER_LOWER, true));
}

/* A mean over the runs: one value, recorded but not gated. */
static void read_mean(struct bridge_doc *doc, struct json_reader *rd,
		      const cJSON *result, const char *command,
		      const char *key)
{
	double value;

	if (bridge_read_number(rd, result, key, 0, &value) == 1)
		bridge_series_push(bridge_series_get(doc, command, key, "s",
						     BETTER_LOWER, false),
				   value);
}

/* exit_codes: a run that exited non-zero, or was killed (null), fails the
 * command, as a failing run fails a benchgate case. */
static void read_exit_codes(struct bridge_doc *doc, struct json_reader *rd,
			    const cJSON *result, const char *command)
{
	const cJSON *list = json_read_array(rd, result, "exit_codes", 0);
	const cJSON *code;
	struct strbuf reason = STRBUF_INIT;
	size_t runs = 0, bad = 0;
	int first = 0;

	cJSON_ArrayForEach(code, list)
	{
		runs++;
		if (cJSON_IsNumber(code) && code->valuedouble == 0)
			continue;
		if (!bad++)
			first = cJSON_IsNumber(code) ? (int)code->valueint : -1;
	}
	if (!bad)
		return;
	strbuf_addf(&reason, "%zu of %zu runs failed under hyperfine (",
		    bad, runs);
	if (first >= 0)
		strbuf_addf(&reason, "the first with exit code %d)", first);
	else
		strbuf_addstr(&reason, "the first killed by a signal)");
	bridge_fail(doc, command, reason.buf);
	strbuf_release(&reason);
}

static void read_result(struct bridge_doc *doc, struct json_reader *rd,
			const cJSON *list, const cJSON *result)
{
	char *command = NULL;
	double mean;

	(void)list; /* a command's name is its own */
	if (!cJSON_IsObject(result)) {
		json_reader_fail(rd, "expected an object, found %s",
				 json_type_name(result));
		return;
	}
	if (bridge_read_name(rd, result, "command", JSON_REQUIRED, &command) !=
	    1)
		return;
	if (cJSON_GetObjectItemCaseSensitive(result, "times")) {
		read_runs(doc, rd, result, command, "times", "time", "s");
	} else if (bridge_read_number(rd, result, "mean", JSON_REQUIRED,
				    &mean) == 1) {
		/* hyperfine before 1.7 kept no times: its mean is one value */
		bridge_series_push(bridge_series_get(doc, command, "time", "s",
						     BETTER_LOWER, true),
				   mean);
		strbuf_addf(&doc->notes,
			    "command '%s' has no \"times\": its mean is one "
			    "value\n",
			    command);
	}
	read_runs(doc, rd, result, command, "memory_usage_byte", "memory",
		  "B");
	read_mean(doc, rd, result, command, "user");
	read_mean(doc, rd, result, command, "system");
	read_exit_codes(doc, rd, result, command);
	free(command);
}

int bridge_read_hyperfine(struct bridge_doc *doc, struct json_reader *rd)
{
	return bridge_read_each(doc, rd, "results", read_result);
}
