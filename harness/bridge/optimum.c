/* SPDX-License-Identifier: Apache-2.0 */
/* optimum-benchmark's benchmark_report.json, or the "report" of its
 * benchmark.json (bridge.h). */
#include "harness/bridge/formats.h"

#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* The peaks a Memory holds, each optional (no GPU: only max_ram). */
static const char *const memory_keys[] = {
	"max_ram",	"max_global_vram", "max_process_vram",
	"max_reserved", "max_allocated",   NULL,
};

/* The parts an Energy holds, as metrics "energy_<part>". */
static const char *const energy_keys[] = { "cpu", "ram", "gpu", "total", NULL };

/* The measurement `key` of a phase: an object, or NULL when absent or
 * null (optimum-benchmark writes null for what it did not track). */
static const cJSON *read_measurement(struct json_reader *rd, const cJSON *phase,
				     const char *key, char **unit)
{
	const cJSON *measurement =
		json_read_object(rd, phase, key, JSON_NULLABLE);

	if (!measurement)
		return NULL;
	json_reader_push_key(rd, key);
	if (json_read_string(rd, measurement, "unit",
			     JSON_REQUIRED | JSON_PRINTABLE, unit) != 1)
		measurement = NULL;
	json_reader_pop(rd);
	return measurement;
}

/* latency.values, every measured call (s): the samples; a latency without
 * them (a report cut down by hand) gives its mean as one value. */
static void read_latency(struct bridge_doc *doc, struct json_reader *rd,
			 const cJSON *phase, const char *name)
{
	const cJSON *latency, *values;
	struct bridge_series *series;
	char *unit = NULL;
	double mean;

	if (!(latency = read_measurement(rd, phase, "latency", &unit)))
		goto done;
	json_reader_push_key(rd, "latency");
	series = bridge_series_get(doc, name, "latency", unit, BETTER_LOWER,
				   true);
	if ((values = json_read_array(rd, latency, "values", 0))) {
		bridge_read_values(rd, values, "values", series);
	} else if (!rd->error &&
		   bridge_read_number(rd, latency, "mean", JSON_REQUIRED,
				      &mean) == 1) {
		bridge_series_push(series, mean);
		strbuf_addf(&doc->notes,
			    "phase '%s' has no latency \"values\": its mean "
			    "is one value\n",
			    name);
	}
	json_reader_pop(rd);
done:
	free(unit);
}

/* throughput and efficiency: {"unit", "value"}, one value, higher better. */
static void read_rate(struct bridge_doc *doc, struct json_reader *rd,
		      const cJSON *phase, const char *name, const char *key)
{
	const cJSON *rate;
	char *unit = NULL;
	double value;

	if (!(rate = read_measurement(rd, phase, key, &unit)))
		goto done;
	json_reader_push_key(rd, key);
	if (bridge_read_number(rd, rate, "value", JSON_REQUIRED, &value) == 1)
		bridge_series_push(bridge_series_get(doc, name, key, unit,
						     BETTER_HIGHER, true),
				   value);
	json_reader_pop(rd);
done:
	free(unit);
}

/* memory and energy: numbers in one unit, each one value, lower better;
 * `prefix` goes before each key in the metric's name. */
static void read_amounts(struct bridge_doc *doc, struct json_reader *rd,
			 const cJSON *phase, const char *name, const char *key,
			 const char *const *keys, const char *prefix)
{
	struct strbuf metric = STRBUF_INIT;
	const cJSON *amounts;
	char *unit = NULL;

	if (!(amounts = read_measurement(rd, phase, key, &unit)))
		goto done;
	json_reader_push_key(rd, key);
	for (size_t i = 0; keys[i] && !rd->error; i++) {
		double value;

		if (bridge_read_number(rd, amounts, keys[i], JSON_NULLABLE,
				       &value) != 1)
			continue;
		strbuf_reset(&metric);
		strbuf_addf(&metric, "%s%s", prefix, keys[i]);
		bridge_series_push(bridge_series_get(doc, name, metric.buf,
						     unit, BETTER_LOWER, true),
				   value);
	}
	json_reader_pop(rd);
done:
	free(unit);
	strbuf_release(&metric);
}

static void read_phase(struct bridge_doc *doc, struct json_reader *rd,
		       const cJSON *phase)
{
	const char *name = phase->string;

	if (cJSON_IsNull(phase))
		return;
	json_reader_push_key(rd, name);
	if (!cJSON_IsObject(phase)) {
		json_reader_fail(rd,
				 "expected an object of measurements "
				 "(memory, latency, throughput, energy, "
				 "efficiency), found %s",
				 json_type_name(phase));
	} else if (!*name) {
		json_reader_fail_at_key(rd, "expected a phase's name, found "
					    "\"\"");
	} else if (json_reader_check(rd, name, JSON_PRINTABLE) == BG_OK) {
		read_latency(doc, rd, phase, name);
		read_rate(doc, rd, phase, name, "throughput");
		read_amounts(doc, rd, phase, name, "memory", memory_keys, "");
		read_amounts(doc, rd, phase, name, "energy", energy_keys,
			     "energy_");
		read_rate(doc, rd, phase, name, "efficiency");
	}
	json_reader_pop(rd);
}

int bridge_read_optimum(struct bridge_doc *doc, struct json_reader *rd)
{
	const cJSON *report = rd->root, *phase;
	size_t depth = rd->depth;

	if (cJSON_IsObject(report) &&
	    cJSON_IsObject(
		    cJSON_GetObjectItemCaseSensitive(report, "config"))) {
		/* benchmark.json: the config and the report side by side */
		report = json_read_object(rd, report, "report", JSON_REQUIRED);
		if (!report)
			return rd->error;
		json_reader_push_key(rd, "report");
	}
	if (!cJSON_IsObject(report))
		json_reader_fail(rd,
				 "expected an object of phases (load, "
				 "prefill, decode, forward, ...), found %s",
				 json_type_name(report));
	for (phase = report->child; phase && !rd->error; phase = phase->next)
		read_phase(doc, rd, phase);
	json_reader_pop_to(rd, depth);
	return rd->error;
}
