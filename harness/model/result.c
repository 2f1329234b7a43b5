/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/model/result.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/json.h"
#include "harness/util/jsonread.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const better_names[] = {
	[BETTER_LOWER] = "lower",
	[BETTER_HIGHER] = "higher",
	NULL,
};

const char *const metric_role_names[] = {
	"speed",
	"size",
	"accuracy",
	NULL,
};

static const char *const status_names[] = {
	[CASE_OK] = "ok",
	[CASE_FAILED] = "failed",
	[CASE_TIMEOUT] = "timeout",
	[CASE_SKIPPED] = "skipped",
};

const char *case_status_name(enum case_status status)
{
	return status_names[status];
}

/* The status named name; -1 when unknown. */
static int case_status_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(status_names) / sizeof(*status_names);
	     i++)
		if (!strcmp(status_names[i], name))
			return (int)i;
	return -1;
}

struct result *result_new(void)
{
	struct result *result = xcalloc(1, sizeof(*result));

	memcpy(result->git.commit, "unknown", sizeof("unknown"));
	result->confidence = NAN;
	return result;
}

static void free_strings(char **strings, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(strings[i]);
	free(strings);
}

void git_meta_release(struct git_meta *git)
{
	free(git->branch);
	free(git->commit_time);
	free(git->subject);
	free_strings(git->parents, git->parents_nr);
	memset(git, 0, sizeof(*git));
	memcpy(git->commit, "unknown", sizeof("unknown"));
}

void git_meta_copy(struct git_meta *out, const struct git_meta *from)
{
	memcpy(out->commit, from->commit, sizeof(out->commit));
	out->branch = from->branch ? xstrdup(from->branch) : NULL;
	out->dirty = from->dirty;
	out->commit_time = from->commit_time ? xstrdup(from->commit_time)
					     : NULL;
	out->subject = from->subject ? xstrdup(from->subject) : NULL;
	out->parents = xcalloc(from->parents_nr ? from->parents_nr : 1,
			       sizeof(*out->parents));
	for (size_t i = 0; i < from->parents_nr; i++)
		out->parents[i] = xstrdup(from->parents[i]);
	out->parents_nr = from->parents_nr;
}

void machine_info_release(struct machine_info *machine)
{
	free(machine->hostname);
	free(machine->os);
	free(machine->cpu);
	free_strings(machine->gpus, machine->gpus_nr);
	free_strings(machine->ipus, machine->ipus_nr);
	memset(machine, 0, sizeof(*machine));
}

bool result_machine_id_valid(const char *id)
{
	size_t len = strlen(id);

	/* A leading '.' would make "." or ".." or a hidden store file. */
	if (!len || len > MACHINE_ID_MAX || id[0] == '.')
		return false;
	return strspn(id, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

static void metric_samples_release(struct metric_samples *metric)
{
	free(metric->name);
	free(metric->unit);
	free(metric->role);
	free(metric->samples);
}

static void result_case_release(struct result_case *rcase)
{
	free(rcase->benchmark);
	free(rcase->variant);
	free(rcase->device);
	free(rcase->reason);
	free(rcase->log);
	for (size_t i = 0; i < rcase->metrics_nr; i++)
		metric_samples_release(&rcase->metrics[i]);
	free(rcase->metrics);
	for (size_t i = 0; i < rcase->artifacts_nr; i++) {
		free(rcase->artifacts[i].kind);
		free(rcase->artifacts[i].path);
	}
	free(rcase->artifacts);
	free(rcase->profile_note);
	model_summary_free(rcase->model);
}

bool machine_load_quiet(const struct machine_load *load)
{
	return !load->observed || load->cpu_busy < MACHINE_LOAD_BUSY_CPU;
}

void machine_load_release(struct machine_load *load)
{
	for (size_t i = 0; i < load->busy_nr; i++)
		free(load->busy[i].command);
	free(load->busy);
	memset(load, 0, sizeof(*load));
}

void result_free(struct result *result)
{
	if (!result)
		return;
	free(result->suite);
	git_meta_release(&result->git);
	machine_info_release(&result->machine);
	free(result->started_at);
	free(result->finished_at);
	free(result->harness_version);
	free(result->reference);
	machine_load_release(&result->load);
	for (size_t i = 0; i < result->cases_nr; i++)
		result_case_release(&result->cases[i]);
	free(result->cases);
	free(result);
}

struct result_case *result_add_case(struct result *result,
				    const char *benchmark, const char *variant,
				    const char *device)
{
	struct result_case *rcase;

	ALLOC_GROW(result->cases, result->cases_nr + 1, result->cases_alloc);
	rcase = &result->cases[result->cases_nr++];
	memset(rcase, 0, sizeof(*rcase));
	rcase->benchmark = xstrdup(benchmark);
	rcase->variant = xstrdup(variant);
	rcase->device = xstrdup(device);
	rcase->threshold = NAN;
	rcase->confidence = NAN;
	return rcase;
}

/* Keeps the cases whose keep[i] equals `value`, in order; frees the rest. */
static void keep_cases(struct result *result, const bool *keep, bool value)
{
	size_t kept = 0;

	for (size_t i = 0; i < result->cases_nr; i++) {
		if (keep[i] == value)
			result->cases[kept++] = result->cases[i];
		else
			result_case_release(&result->cases[i]);
	}
	result->cases_nr = kept;
}

int result_split(struct result *result, const bool *take, struct result **out)
{
	struct strbuf text = STRBUF_INIT;
	int error;

	/* The document round-trips exactly: the deep copy it makes is the
	 * one the store and every reader see. */
	result_to_json(result, &text);
	error = result_parse(out, text.buf, text.len, "(result copy)");
	strbuf_release(&text);
	if (error < 0)
		return error;
	keep_cases(*out, take, true);
	keep_cases(result, take, false);
	return BG_OK;
}

struct result_case *result_find_case(const struct result *result,
				     const char *benchmark, const char *variant,
				     const char *device)
{
	for (size_t i = 0; i < result->cases_nr; i++) {
		struct result_case *rcase = &result->cases[i];

		if (!strcmp(rcase->benchmark, benchmark) &&
		    !strcmp(rcase->variant, variant) &&
		    !strcmp(rcase->device, device))
			return rcase;
	}
	return NULL;
}

const struct metric_samples *
result_case_find_metric(const struct result_case *rcase, const char *name)
{
	for (size_t i = 0; i < rcase->metrics_nr; i++)
		if (!strcmp(rcase->metrics[i].name, name))
			return &rcase->metrics[i];
	return NULL;
}

struct metric_samples *result_case_metric(struct result_case *rcase,
					  const char *name)
{
	struct metric_samples *metric;

	metric = (struct metric_samples *)result_case_find_metric(rcase, name);
	if (metric)
		return metric;
	ALLOC_GROW(rcase->metrics, rcase->metrics_nr + 1, rcase->metrics_alloc);
	metric = &rcase->metrics[rcase->metrics_nr++];
	memset(metric, 0, sizeof(*metric));
	metric->name = xstrdup(name);
	metric->gate = true;
	return metric;
}

void metric_samples_push(struct metric_samples *metric, double value)
{
	ALLOC_GROW(metric->samples, metric->nr + 1, metric->alloc);
	metric->samples[metric->nr++] = value;
}

void result_case_fail(struct result_case *rcase, enum case_status status,
		      const char *reason)
{
	if (rcase->status != CASE_OK)
		return;
	rcase->status = status;
	free(rcase->reason);
	rcase->reason = xstrdup(reason);
}

void result_case_add_artifact(struct result_case *rcase, const char *kind,
			      const char *path, const char *base)
{
	struct result_artifact *artifact;
	size_t len = base ? strlen(base) : 0;

	while (len > 1 && base[len - 1] == '/')
		len--;
	/* relative, so the result and its artifacts can move together */
	if (len && !strncmp(path, base, len) && path[len] == '/')
		path += len + 1;
	ALLOC_GROW(rcase->artifacts, rcase->artifacts_nr + 1,
		   rcase->artifacts_alloc);
	artifact = &rcase->artifacts[rcase->artifacts_nr++];
	artifact->kind = xstrdup(kind);
	artifact->path = xstrdup(path);
}

/* Serialisation */

static cJSON *string_array(char *const *strings, size_t nr)
{
	cJSON *array = cJSON_CreateArray();

	for (size_t i = 0; i < nr; i++)
		cJSON_AddItemToArray(array, json_string(strings[i]));
	return array;
}

static cJSON *git_to_json(const struct git_meta *git)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "commit", git->commit);
	json_add_string(object, "branch", git->branch);
	cJSON_AddBoolToObject(object, "dirty", git->dirty);
	json_add_string(object, "commit_time", git->commit_time);
	json_add_string(object, "subject", git->subject);
	json_add_item(object, "parents",
		      string_array(git->parents, git->parents_nr));
	return object;
}

static cJSON *machine_to_json(const struct machine_info *machine)
{
	cJSON *object = cJSON_CreateObject();

	json_add_string(object, "id", machine->id);
	json_add_string(object, "hostname", machine->hostname);
	json_add_string(object, "os", machine->os);
	json_add_string(object, "cpu", machine->cpu);
	cJSON_AddNumberToObject(object, "cores", machine->cores);
	cJSON_AddNumberToObject(object, "memory_bytes",
				(double)machine->memory_bytes);
	json_add_item(object, "gpus",
		      string_array(machine->gpus, machine->gpus_nr));
	json_add_item(object, "ipus",
		      string_array(machine->ipus, machine->ipus_nr));
	return object;
}

static cJSON *metric_to_json(const struct metric_samples *metric)
{
	cJSON *object = cJSON_CreateObject();
	cJSON *samples = cJSON_AddArrayToObject(object, "samples");

	json_add_string(object, "unit", metric->unit);
	json_add_string(object, "better", better_names[metric->better]);
	if (metric->exact) {
		cJSON_AddBoolToObject(object, "exact", true);
		cJSON_AddNumberToObject(object, "tolerance", metric->tolerance);
	}
	if (metric->runs)
		cJSON_AddNumberToObject(object, "runs", (double)metric->runs);
	/* absent means gated and no role: older readers see what they knew */
	if (!metric->gate)
		cJSON_AddBoolToObject(object, "gate", false);
	if (metric->role)
		json_add_string(object, "role", metric->role);
	if (metric->independent)
		cJSON_AddNumberToObject(object, "independent",
					(double)metric->independent);
	if (metric->compacted_from)
		cJSON_AddNumberToObject(object, "compacted_from",
					(double)metric->compacted_from);
	for (size_t i = 0; i < metric->nr; i++)
		cJSON_AddItemToArray(samples,
				     cJSON_CreateNumber(metric->samples[i]));
	return object;
}

static cJSON *case_to_json(const struct result_case *rcase)
{
	cJSON *object = cJSON_CreateObject();
	cJSON *metrics;

	json_add_string(object, "benchmark", rcase->benchmark);
	json_add_string(object, "variant", rcase->variant);
	json_add_string(object, "device", rcase->device);
	json_add_string(object, "status", case_status_name(rcase->status));
	json_add_string(object, "reason", rcase->reason);
	cJSON_AddNumberToObject(object, "runs", (double)rcase->runs);
	if (isfinite(rcase->threshold))
		cJSON_AddNumberToObject(object, "threshold", rcase->threshold);
	if (isfinite(rcase->confidence))
		cJSON_AddNumberToObject(object, "confidence",
					rcase->confidence);
	metrics = cJSON_AddObjectToObject(object, "metrics");
	for (size_t i = 0; i < rcase->metrics_nr; i++)
		json_add_item(metrics, rcase->metrics[i].name,
			      metric_to_json(&rcase->metrics[i]));
	json_add_string(object, "log", rcase->log);
	if (rcase->artifacts_nr) {
		cJSON *artifacts = cJSON_AddArrayToObject(object, "artifacts");

		for (size_t i = 0; i < rcase->artifacts_nr; i++) {
			cJSON *artifact = cJSON_CreateObject();

			json_add_string(artifact, "kind",
					rcase->artifacts[i].kind);
			json_add_string(artifact, "path",
					rcase->artifacts[i].path);
			cJSON_AddItemToArray(artifacts, artifact);
		}
	}
	if (rcase->profile_note)
		json_add_string(object, "profile_note", rcase->profile_note);
	if (rcase->model)
		cJSON_AddItemToObject(object, "model",
				      model_summary_to_json(rcase->model));
	return object;
}

static cJSON *load_to_json(const struct machine_load *load)
{
	cJSON *object = cJSON_CreateObject();
	cJSON *loadavg = cJSON_AddArrayToObject(object, "loadavg");
	cJSON *busy = cJSON_AddArrayToObject(object, "busy");

	for (size_t i = 0; i < 3; i++)
		cJSON_AddItemToArray(loadavg,
				     cJSON_CreateNumber(load->loadavg[i]));
	cJSON_AddNumberToObject(object, "cpu_busy", load->cpu_busy);
	for (size_t i = 0; i < load->busy_nr; i++) {
		cJSON *process = cJSON_CreateObject();

		cJSON_AddNumberToObject(process, "pid", load->busy[i].pid);
		json_add_string(process, "command", load->busy[i].command);
		cJSON_AddNumberToObject(process, "cpu", load->busy[i].cpu);
		cJSON_AddItemToArray(busy, process);
	}
	return object;
}

void result_to_json(const struct result *result, struct strbuf *out)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *cases;

	cJSON_AddNumberToObject(root, "benchgate_result", 1);
	json_add_string(root, "suite", result->suite);
	json_add_string(root, "suite_sha256", result->suite_sha256);
	json_add_item(root, "git", git_to_json(&result->git));
	json_add_item(root, "machine", machine_to_json(&result->machine));
	json_add_string(root, "started_at", result->started_at);
	json_add_string(root, "finished_at", result->finished_at);
	json_add_string(root, "harness_version", result->harness_version);
	if (result->reference)
		json_add_string(root, "reference", result->reference);
	if (isfinite(result->confidence))
		cJSON_AddNumberToObject(root, "confidence", result->confidence);
	if (result->load.observed)
		json_add_item(root, "load_at_start",
			      load_to_json(&result->load));
	cases = cJSON_AddArrayToObject(root, "cases");
	for (size_t i = 0; i < result->cases_nr; i++)
		cJSON_AddItemToArray(cases, case_to_json(&result->cases[i]));

	json_print(out, root);
	cJSON_Delete(root);
}

/* Parsing: every field is checked so a damaged store file is reported,
 * never half-trusted. Each reader takes the json_reader at the value it
 * reads. */

/* Whether object has the value key, which every result has: one that is
 * absent (or null) has no position to point at, so it is named by its key
 * and what it should have been. */
static bool present(struct json_reader *rd, const cJSON *object,
		    const char *key, const char *what)
{
	if (json_read_item(rd, object, key, JSON_NULLABLE))
		return true;
	if (!rd->error)
		rd->error = bg_input_error("%s: %s: expected %s", rd->path, key,
					   what);
	return false;
}

/* A copy of the string, held to the rules (JSON_NAME, JSON_PRINTABLE) as
 * the suite loader holds a suite; NULL when absent or null (and not
 * required). */
static char *get_string(struct json_reader *rd, const cJSON *object,
			const char *key, bool required, unsigned rules)
{
	char *value = NULL;

	if (!required || present(rd, object, key, "a string"))
		json_read_string(rd, object, key, JSON_NULLABLE | rules,
				 &value);
	return value;
}

/* 0 when absent. */
static double get_number(struct json_reader *rd, const cJSON *object,
			 const char *key)
{
	double value = 0;

	/* what JSON cannot write (1e999 reads as infinity) is not read */
	if (json_read_number(rd, object, key, 0, &value) > 0 &&
	    !isfinite(value)) {
		json_reader_push_key(rd, key);
		json_reader_fail(rd, "expected a finite number");
		json_reader_pop(rd);
		value = 0;
	}
	return value;
}

/* A count (of runs, of cores); 0 when absent. Read as a bounded integer,
 * never cast from whatever double the document holds. */
static size_t get_count(struct json_reader *rd, const cJSON *object,
			const char *key)
{
	int value = 0;

	json_read_int(rd, object, key, 0, 0, INT_MAX, &value);
	return (size_t)value;
}

/* A gate setting (result_case.threshold, .confidence): NAN when absent,
 * as in results written before benchgate recorded them; a fraction from
 * 0 to below 1 (a confidence above 0) when present. */
static double get_setting(struct json_reader *rd, const cJSON *object,
			  const char *key, double low)
{
	double value = NAN;

	if (json_read_number(rd, object, key, JSON_NULLABLE, &value) > 0 &&
	    !(value >= low && value < 1)) {
		json_reader_push_key(rd, key);
		json_reader_fail(rd, "expected a fraction from %g to below 1",
				 low);
		json_reader_pop(rd);
		value = NAN;
	}
	return value;
}

static const cJSON *get_object(struct json_reader *rd, const cJSON *parent,
			       const char *key)
{
	if (!present(rd, parent, key, "an object"))
		return NULL;
	return json_read_object(rd, parent, key, 0);
}

/* A fixed field (json_read_fixed()) that is printable text, since a byte
 * that is no UTF-8 would be written back as three (U+FFFD) and no longer
 * fit. */
static void get_fixed(struct json_reader *rd, const cJSON *object,
		      const char *key, bool required, char *out, size_t size,
		      const char *what)
{
	if (!required || present(rd, object, key, "a string"))
		json_read_fixed(rd, object, key, JSON_NULLABLE | JSON_PRINTABLE,
				out, size, what);
}

static void read_git(struct json_reader *rd, const cJSON *object,
		     struct git_meta *git)
{
	json_read_check_keys(rd, object, NULL);
	get_fixed(rd, object, "commit", true, git->commit, sizeof(git->commit),
		  "a commit id");
	git->branch = get_string(rd, object, "branch", false, 0);
	json_read_bool(rd, object, "dirty", JSON_NULLABLE, &git->dirty);
	git->commit_time = get_string(rd, object, "commit_time", false, 0);
	git->subject = get_string(rd, object, "subject", false, 0);
	json_read_strings(rd, object, "parents", 0, &git->parents,
			  &git->parents_nr);
}

static void read_machine(struct json_reader *rd, const cJSON *object,
			 struct machine_info *machine)
{
	json_read_check_keys(rd, object, NULL);
	get_fixed(rd, object, "id", true, machine->id, sizeof(machine->id),
		  "an id of at most 64 characters");
	machine->hostname = get_string(rd, object, "hostname", false, 0);
	machine->os = get_string(rd, object, "os", false, 0);
	machine->cpu = get_string(rd, object, "cpu", false, 0);
	json_read_int(rd, object, "cores", 0, 0, INT_MAX, &machine->cores);
	/* 2^53: the whole numbers a double holds exactly, 8 PiB */
	json_read_uint64(rd, object, "memory_bytes", 0, UINT64_C(1) << 53,
			 &machine->memory_bytes);
	json_read_strings(rd, object, "gpus", 0, &machine->gpus,
			  &machine->gpus_nr);
	json_read_strings(rd, object, "ipus", 0, &machine->ipus,
			  &machine->ipus_nr);
}

static void read_busy_process(struct json_reader *rd, const cJSON *object,
			      struct busy_process *process)
{
	static const char *const keys[] = { "pid", "command", "cpu", NULL };

	json_read_check_keys(rd, object, keys);
	json_read_int(rd, object, "pid", 0, 0, INT_MAX, &process->pid);
	/* a process names itself: printable, or the file is refused */
	process->command =
		get_string(rd, object, "command", false, JSON_PRINTABLE);
	process->cpu = get_number(rd, object, "cpu");
}

static void read_load(struct json_reader *rd, const cJSON *object,
		      struct machine_load *load)
{
	static const char *const keys[] = { "loadavg", "cpu_busy", "busy",
					    NULL };
	const cJSON *loadavg, *busy, *item;
	size_t index = 0;

	load->observed = true;
	json_read_check_keys(rd, object, keys);
	if ((loadavg = json_read_array(rd, object, "loadavg", 0))) {
		json_reader_push_key(rd, "loadavg");
		if (cJSON_GetArraySize(loadavg) != 3)
			json_reader_fail(rd, "expected 3 numbers (over 1, 5 "
					     "and 15 minutes)");
		cJSON_ArrayForEach(item, loadavg) {
			json_reader_push_index(rd, (int)index);
			if (!cJSON_IsNumber(item))
				json_reader_fail(rd, "expected a number, "
						     "found %s",
						 json_type_name(item));
			else if (!isfinite(item->valuedouble))
				json_reader_fail(rd, "expected a finite "
						     "number");
			else if (index < 3)
				load->loadavg[index] = item->valuedouble;
			json_reader_pop(rd);
			index++;
		}
		json_reader_pop(rd);
	}
	load->cpu_busy = get_number(rd, object, "cpu_busy");
	if (!(busy = json_read_array(rd, object, "busy", 0)))
		return;
	json_reader_push_key(rd, "busy");
	load->busy = xcalloc((size_t)cJSON_GetArraySize(busy) + 1,
			     sizeof(*load->busy));
	cJSON_ArrayForEach(item, busy) {
		json_reader_push_index(rd, (int)load->busy_nr);
		if (!cJSON_IsObject(item))
			json_reader_fail(rd, "expected an object, found %s",
					 json_type_name(item));
		else
			read_busy_process(rd, item,
					  &load->busy[load->busy_nr]);
		load->busy_nr++;
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
}

static void read_samples(struct json_reader *rd, const cJSON *object,
			 struct metric_samples *metric)
{
	const cJSON *samples, *sample;
	int index = 0;

	if (!present(rd, object, "samples", "an array of numbers") ||
	    !(samples = json_read_array(rd, object, "samples", 0)))
		return;
	json_reader_push_key(rd, "samples");
	cJSON_ArrayForEach(sample, samples)
	{
		json_reader_push_index(rd, index++);
		if (!cJSON_IsNumber(sample))
			json_reader_fail(rd, "expected a number, found %s",
					 json_type_name(sample));
		else if (!isfinite(sample->valuedouble))
			json_reader_fail(rd, "expected a finite number");
		else
			metric_samples_push(metric, sample->valuedouble);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
}

static void read_role(struct json_reader *rd, const cJSON *object,
		      struct metric_samples *metric)
{
	int role = -1;

	if (json_read_enum(rd, object, "role", JSON_NULLABLE, metric_role_names,
			   &role) > 0)
		metric->role = xstrdup(metric_role_names[role]);
}

static void read_metric(struct json_reader *rd, const cJSON *object,
			struct metric_samples *metric)
{
	int better = BETTER_LOWER;

	if (!cJSON_IsObject(object)) {
		json_reader_fail(rd, "expected a metric object, found %s",
				 json_type_name(object));
		return;
	}
	json_read_check_keys(rd, object, NULL);
	metric->unit = get_string(rd, object, "unit", false, JSON_PRINTABLE);
	json_read_enum(rd, object, "better", JSON_NULLABLE, better_names,
		       &better);
	metric->better = (enum better)better;
	json_read_bool(rd, object, "exact", JSON_NULLABLE, &metric->exact);
	metric->tolerance = get_number(rd, object, "tolerance");
	metric->runs = get_count(rd, object, "runs");
	metric->independent = get_count(rd, object, "independent");
	metric->compacted_from = get_count(rd, object, "compacted_from");
	json_read_bool(rd, object, "gate", JSON_NULLABLE, &metric->gate);
	read_role(rd, object, metric);
	read_samples(rd, object, metric);
}

static void read_metrics(struct json_reader *rd, const cJSON *object,
			 struct result_case *rcase)
{
	const cJSON *metrics = get_object(rd, object, "metrics");
	const cJSON *metric;

	json_reader_push_key(rd, "metrics");
	/* cJSON keeps a repeated key twice: reading both would pool their
	 * samples into one metric. */
	if (metrics)
		json_read_check_keys(rd, metrics, NULL);
	cJSON_ArrayForEach(metric, metrics)
	{
		json_reader_push_key(rd, metric->string);
		if (json_reader_check(rd, metric->string, JSON_NAME) == BG_OK)
			read_metric(rd, metric,
				    result_case_metric(rcase, metric->string));
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
}

static void read_artifacts(struct json_reader *rd, const cJSON *object,
			   struct result_case *rcase)
{
	const cJSON *array = json_read_array(rd, object, "artifacts", 0);
	const cJSON *item;
	int index = 0;

	json_reader_push_key(rd, "artifacts");
	cJSON_ArrayForEach(item, array)
	{
		char *kind = NULL, *path = NULL;

		json_reader_push_index(rd, index++);
		if (!cJSON_IsObject(item)) {
			json_reader_fail(rd,
					 "expected a {kind, path} object, "
					 "found %s",
					 json_type_name(item));
		} else {
			json_read_check_keys(rd, item, NULL);
			kind = get_string(rd, item, "kind", true, 0);
			path = get_string(rd, item, "path", true, 0);
		}
		if (kind && path)
			result_case_add_artifact(rcase, kind, path, NULL);
		free(kind);
		free(path);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
}

static void read_case(struct json_reader *rd, const cJSON *object,
		      struct result *result)
{
	struct result_case *rcase;
	char *benchmark, *variant, *device, *status;
	int parsed;

	json_read_check_keys(rd, object, NULL);
	benchmark = get_string(rd, object, "benchmark", true, JSON_NAME);
	variant = get_string(rd, object, "variant", true, JSON_NAME);
	device = get_string(rd, object, "device", true, JSON_NAME);
	status = get_string(rd, object, "status", true, 0);
	if (rd->error)
		goto done;
	rcase = result_add_case(result, benchmark, variant, device);
	parsed = case_status_parse(status);
	if (parsed < 0) {
		json_reader_push_key(rd, "status");
		json_reader_fail(rd, "expected ok, failed, timeout or skipped");
		json_reader_pop(rd);
		goto done;
	}
	rcase->status = (enum case_status)parsed;
	rcase->reason = get_string(rd, object, "reason", false, 0);
	rcase->log = get_string(rd, object, "log", false, 0);
	rcase->runs = get_count(rd, object, "runs");
	rcase->threshold = get_setting(rd, object, "threshold", 0);
	rcase->confidence = get_setting(rd, object, "confidence", 0.5);
	read_metrics(rd, object, rcase);
	read_artifacts(rd, object, rcase);
	rcase->profile_note = get_string(rd, object, "profile_note", false, 0);
	if (cJSON_GetObjectItemCaseSensitive(object, "model")) {
		json_reader_push_key(rd, "model");
		model_summary_read(rd,
				   cJSON_GetObjectItemCaseSensitive(object,
								    "model"),
				   &rcase->model);
		json_reader_pop(rd);
	}
done:
	free(benchmark);
	free(variant);
	free(device);
	free(status);
}

static void read_cases(struct json_reader *rd, const cJSON *root,
		       struct result *result)
{
	const cJSON *cases = NULL, *rcase;
	int index = 0;

	if (present(rd, root, "cases", "an array"))
		cases = json_read_array(rd, root, "cases", 0);
	json_reader_push_key(rd, "cases");
	cJSON_ArrayForEach(rcase, cases)
	{
		json_reader_push_index(rd, index++);
		if (!cJSON_IsObject(rcase))
			json_reader_fail(rd, "expected a case object, found %s",
					 json_type_name(rcase));
		else
			read_case(rd, rcase, result);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
}

int result_parse(struct result **out, const char *text, size_t len,
		 const char *path)
{
	struct json_reader rd;
	struct result *result = NULL;
	const cJSON *root, *version, *object;

	*out = NULL;
	if (json_reader_parse(&rd, path, text, len) < 0)
		goto done;
	root = rd.root;
	version = cJSON_IsObject(root)
			  ? json_read_item(&rd, root, "benchgate_result", 0)
			  : NULL;
	if (!cJSON_IsNumber(version) || version->valuedouble != 1) {
		json_reader_push_key(&rd, "benchgate_result");
		json_reader_fail(&rd, "expected 1 (this is not a benchgate "
				      "result file)");
		json_reader_pop(&rd);
		goto done;
	}
	result = result_new();
	json_read_check_keys(&rd, root, NULL);
	/* The store makes a safe file name of any suite name (store.h), so
	 * one is held only to printable text, not to the suite loader's
	 * alphabet. */
	result->suite = get_string(&rd, root, "suite", true, JSON_PRINTABLE);
	get_fixed(&rd, root, "suite_sha256", false, result->suite_sha256,
		  sizeof(result->suite_sha256), "a SHA-256 of 64 hex digits");
	if ((object = get_object(&rd, root, "git"))) {
		json_reader_push_key(&rd, "git");
		read_git(&rd, object, &result->git);
		json_reader_pop(&rd);
	}
	if ((object = get_object(&rd, root, "machine"))) {
		json_reader_push_key(&rd, "machine");
		read_machine(&rd, object, &result->machine);
		json_reader_pop(&rd);
	}
	result->started_at = get_string(&rd, root, "started_at", false, 0);
	result->finished_at = get_string(&rd, root, "finished_at", false, 0);
	result->harness_version =
		get_string(&rd, root, "harness_version", false, 0);
	result->reference = get_string(&rd, root, "reference", false, JSON_NAME);
	result->confidence = get_setting(&rd, root, "confidence", 0.5);
	if ((object = json_read_object(&rd, root, "load_at_start", 0))) {
		json_reader_push_key(&rd, "load_at_start");
		read_load(&rd, object, &result->load);
		json_reader_pop(&rd);
	}
	read_cases(&rd, root, result);
done:
	json_reader_release(&rd);
	if (rd.error) {
		result_free(result);
		return rd.error;
	}
	*out = result;
	return BG_OK;
}

int result_to_json_checked(const struct result *r, struct strbuf *out,
			   const char *name)
{
	struct result *again = NULL;
	size_t start = out->len;
	int error;

	result_to_json(r, out);
	if ((error = result_parse(&again, out->buf + start, out->len - start,
				  name)) < 0) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addstr(&why, bg_error_last());
		strbuf_setlen(out, start);
		error = bg_error("%s would not read back, so it is not "
				 "written: %s",
				 name, why.buf);
		strbuf_release(&why);
	}
	result_free(again);
	return error;
}

int result_load(struct result **out, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	int error;

	*out = NULL;
	if ((error = read_file_regular(&text, path, RESULT_MAX_BYTES)) < 0)
		goto done;
	error = result_parse(out, text.buf, text.len, path);
done:
	strbuf_release(&text);
	return error;
}
