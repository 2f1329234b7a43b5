/* SPDX-License-Identifier: Apache-2.0 */
/* Google Benchmark's JSON (bridge.h). */
#include "harness/bridge/formats.h"

#include "harness/util/alloc.h"
#include "harness/util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* The members of an entry that are not counters. */
static const char *const entry_keys[] = {
	"name",		"family_index",	  "per_family_instance_index",
	"run_name",	"run_type",	  "repetitions",
	"repetition_index", "threads",	  "iterations",
	"real_time",	"cpu_time",	  "time_unit",
	"aggregate_name", "aggregate_unit", "error_occurred",
	"error_message", "label",	  "big_o",
	"rms",		"cpu_coefficient", "real_coefficient",
	"complexity_n", NULL,
};

static const struct {
	const char *name;
	double ns;
} time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

static bool is_entry_key(const char *key)
{
	for (size_t i = 0; entry_keys[i]; i++)
		if (!strcmp(entry_keys[i], key))
			return true;
	return false;
}

/* Nanoseconds per time_unit of the entry (ns when absent); 0 after an
 * error. */
static double read_time_unit(struct json_reader *rd, const cJSON *entry,
			     const char **name)
{
	char *unit = NULL;
	double ns = 0;

	*name = "ns";
	if (json_read_string(rd, entry, "time_unit", 0, &unit) == 0 &&
	    !rd->error)
		return 1;
	for (size_t i = 0; unit && i < sizeof(time_units) / sizeof(*time_units);
	     i++) {
		if (!strcmp(time_units[i].name, unit)) {
			*name = time_units[i].name;
			ns = time_units[i].ns;
		}
	}
	if (unit && !ns) {
		json_reader_push_key(rd, "time_unit");
		json_reader_fail(rd, "expected ns, us, ms or s, found '%s'",
				 unit);
		json_reader_pop(rd);
	}
	free(unit);
	return ns;
}

/* The benchmark an entry belongs to: run_name, else (before Google
 * Benchmark 1.5) the name less an aggregate's "_<aggregate_name>". */
static char *benchmark_of(struct json_reader *rd, const cJSON *entry,
			  const char *aggregate)
{
	char *name = NULL, *run_name = NULL;
	size_t len, suffix;

	bridge_read_name(rd, entry, "name", JSON_REQUIRED, &name);
	if (bridge_read_name(rd, entry, "run_name", 0, &run_name) == 1) {
		free(name);
		return run_name;
	}
	if (!name || !aggregate)
		return name;
	len = strlen(name);
	suffix = strlen(aggregate) + 1;
	if (len > suffix && name[len - suffix] == '_' &&
	    !strcmp(name + len - suffix + 1, aggregate))
		name[len - suffix] = '\0';
	return name;
}

/* Whether the entry is an aggregate: run_type, or (before 1.5) the
 * aggregate_name alone says so; its name into *aggregate. */
static bool read_aggregate(struct json_reader *rd, const cJSON *entry,
			   char **aggregate)
{
	char *run_type = NULL;
	bool is_aggregate;

	json_read_string(rd, entry, "aggregate_name", 0, aggregate);
	json_read_string(rd, entry, "run_type", 0, &run_type);
	is_aggregate = run_type ? !strcmp(run_type, "aggregate")
				: *aggregate != NULL;
	free(run_type);
	return is_aggregate;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), n = strlen(suffix);

	return len >= n && !strcmp(s + len - n, suffix);
}

/* Every number of the entry that is not one of entry_keys. */
static void read_counters(struct bridge_doc *doc, struct json_reader *rd,
			  const cJSON *entry, const char *benchmark)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, entry)
	{
		bool rate;
		double value;

		if (!item->string || is_entry_key(item->string) ||
		    !cJSON_IsNumber(item))
			continue;
		json_reader_push_key(rd, item->string);
		if (json_reader_check(rd, item->string, JSON_PRINTABLE) == 0 &&
		    bridge_read_finite(rd, item, &value)) {
			rate = ends_with(item->string, "_per_second");
			bridge_series_push(
				bridge_series_get(doc, benchmark, item->string,
						  rate ? "/s" : NULL,
						  rate ? BETTER_HIGHER
						       : BETTER_LOWER,
						  rate),
				value);
		}
		json_reader_pop(rd);
	}
}

/* Pushes real_time, cpu_time and the counters of one entry. `unit` is
 * the benchmark's, the one its first entry gave. */
static void read_values(struct bridge_doc *doc, struct json_reader *rd,
			const cJSON *entry, const char *benchmark)
{
	static const char *const times[] = { "real_time", "cpu_time" };
	const char *unit_name;
	double ns = read_time_unit(rd, entry, &unit_name);

	for (size_t t = 0; t < 2 && !rd->error; t++) {
		struct bridge_series *series;
		double value;

		if (bridge_read_number(rd, entry, times[t], JSON_REQUIRED,
				     &value) != 1)
			break;
		series = bridge_series_get(doc, benchmark, times[t], unit_name,
					   BETTER_LOWER, true);
		/* in the unit the benchmark's first entry set */
		for (size_t u = 0; u < sizeof(time_units) / sizeof(*time_units);
		     u++)
			if (!strcmp(time_units[u].name, series->unit))
				value *= ns / time_units[u].ns;
		bridge_series_push(series, value);
	}
	if (!rd->error)
		read_counters(doc, rd, entry, benchmark);
}

/* Whether the entry belongs to benchmark, as benchmark_of() reads it. */
static bool entry_of(const cJSON *entry, const char *benchmark)
{
	const cJSON *run_name = cJSON_GetObjectItemCaseSensitive(entry, "run_name");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "name");
	const cJSON *aggregate = cJSON_GetObjectItemCaseSensitive(entry, "aggregate_name");
	size_t len = strlen(benchmark);

	if (cJSON_IsString(run_name))
		return !strcmp(run_name->valuestring, benchmark);
	if (!cJSON_IsString(name) || strncmp(name->valuestring, benchmark, len))
		return false;
	return !name->valuestring[len] ||
	       (cJSON_IsString(aggregate) && name->valuestring[len] == '_' &&
		!strcmp(name->valuestring + len + 1, aggregate->valuestring));
}

/* Whether benchmark has an iteration entry (aggregate NULL; before
 * run_type existed, one without aggregate_name), or else an aggregate of
 * that name. */
static bool has_entry(const cJSON *list, const char *benchmark,
		      const char *aggregate)
{
	const cJSON *entry;

	cJSON_ArrayForEach(entry, list)
	{
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(entry, "run_type");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "aggregate_name");
		bool iteration = cJSON_IsString(type)
					 ? !strcmp(type->valuestring,
						   "iteration")
					 : !cJSON_IsString(name);

		if (!entry_of(entry, benchmark))
			continue;
		if (!aggregate ? iteration
			       : !iteration && cJSON_IsString(name) &&
					 !strcmp(name->valuestring, aggregate))
			return true;
	}
	return false;
}

/* An aggregate stands for its benchmark only where it has no iteration
 * entry, and then only its median (or, lacking one, its mean). */
static bool aggregate_is_wanted(const cJSON *list, const char *benchmark,
				const char *aggregate)
{
	if (has_entry(list, benchmark, NULL))
		return false;
	return !strcmp(aggregate, "median") ||
	       (!strcmp(aggregate, "mean") &&
		!has_entry(list, benchmark, "median"));
}

static void read_entry(struct bridge_doc *doc, struct json_reader *rd,
		       const cJSON *list, const cJSON *entry)
{
	char *aggregate = NULL, *benchmark = NULL, *message = NULL;
	bool failed = false, is_aggregate;

	if (!cJSON_IsObject(entry)) {
		json_reader_fail(rd, "expected an object, found %s",
				 json_type_name(entry));
		return;
	}
	is_aggregate = read_aggregate(rd, entry, &aggregate);
	benchmark = benchmark_of(rd, entry, aggregate);
	json_read_bool(rd, entry, "error_occurred", 0, &failed);
	if (rd->error)
		goto done;
	if (failed) {
		json_read_string(rd, entry, "error_message", 0, &message);
		bridge_fail(doc, benchmark,
			    message ? message : "error_occurred, no message");
	} else if (!is_aggregate ||
		   aggregate_is_wanted(list, benchmark,
				       aggregate ? aggregate : "")) {
		if (is_aggregate)
			strbuf_addf(&doc->notes,
				    "benchmark '%s' has only aggregates "
				    "(--benchmark_report_aggregates_only): "
				    "its %s is one value\n",
				    benchmark, aggregate);
		read_values(doc, rd, entry, benchmark);
	}
done:
	free(aggregate);
	free(benchmark);
	free(message);
}

int bridge_read_gbench(struct bridge_doc *doc, struct json_reader *rd)
{
	return bridge_read_each(doc, rd, "benchmarks", read_entry);
}
