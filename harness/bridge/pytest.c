/* SPDX-License-Identifier: Apache-2.0 */
/* pytest-benchmark's JSON (bridge.h). */
#include "harness/bridge/formats.h"

#include "harness/util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* How many benchmarks of the list are called name. */
static size_t count_named(const cJSON *list, const char *name)
{
	const cJSON *benchmark;
	size_t count = 0;

	cJSON_ArrayForEach(benchmark, list)
	{
		const cJSON *other =
			cJSON_GetObjectItemCaseSensitive(benchmark, "name");

		count += cJSON_IsString(other) &&
			 !strcmp(other->valuestring, name);
	}
	return count;
}

/* stats.data, every round's time (s): the samples. */
static void read_data(struct bridge_doc *doc, struct json_reader *rd,
		      const cJSON *stats, const char *name)
{
	const cJSON *data = json_read_array(rd, stats, "data", 0);

	if (data)
		bridge_read_values(rd, data, "data",
				   bridge_series_get(doc, name, "time", "s",
						     BETTER_LOWER, true));
}

/* No data (a --benchmark-save without --benchmark-save-data): the
 * median pytest-benchmark computed is one value. */
static void read_summary(struct bridge_doc *doc, struct json_reader *rd,
			 const cJSON *stats, const char *name)
{
	double median;

	if (bridge_read_number(rd, stats, "median", JSON_REQUIRED, &median) !=
	    1)
		return;
	bridge_series_push(bridge_series_get(doc, name, "time", "s",
					     BETTER_LOWER, true),
			   median);
	strbuf_addf(&doc->notes,
		    "benchmark '%s' has no stats.data (save with "
		    "--benchmark-save-data, or use --benchmark-json): its "
		    "median is one value, and the gate can judge it only as "
		    "one value\n",
		    name);
}

static void read_benchmark(struct bridge_doc *doc, struct json_reader *rd,
			   const cJSON *list, const cJSON *benchmark)
{
	char *name = NULL;
	const cJSON *stats;

	if (!cJSON_IsObject(benchmark)) {
		json_reader_fail(rd, "expected an object, found %s",
				 json_type_name(benchmark));
		return;
	}
	if (bridge_read_name(rd, benchmark, "name", JSON_REQUIRED, &name) != 1)
		return;
	/* the test's name, unless two tests of the run share it */
	if (count_named(list, name) > 1)
		bridge_read_name(rd, benchmark, "fullname", JSON_REQUIRED,
				 &name);
	stats = json_read_object(rd, benchmark, "stats", JSON_REQUIRED);
	if (stats) {
		json_reader_push_key(rd, "stats");
		if (cJSON_GetObjectItemCaseSensitive(stats, "data"))
			read_data(doc, rd, stats, name);
		else
			read_summary(doc, rd, stats, name);
		json_reader_pop(rd);
	}
	free(name);
}

int bridge_read_pytest(struct bridge_doc *doc, struct json_reader *rd)
{
	return bridge_read_each(doc, rd, "benchmarks", read_benchmark);
}
