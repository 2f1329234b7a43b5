#include "harness/run/suite.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/run/expand.h"
#include "harness/util/jsonpos.h"
#include "harness/util/strbuf.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16

const char *const suite_builtin_vars[] = {
	"variant",   "device",	  "benchmark", "suite",
	"suite_dir", "build_dir", "run",       NULL,
};

static const char *const source_names[] = {
	[SOURCE_WALL] = "wall",		  [SOURCE_RUSAGE] = "rusage",
	[SOURCE_PERF] = "perf",		  [SOURCE_NVML] = "nvml",
	[SOURCE_RAPL] = "rapl",		  [SOURCE_SYSTEM] = "system",
	[SOURCE_CALLGRIND] = "callgrind", [SOURCE_METRICS] = "metrics",
	[SOURCE_STDOUT] = "stdout",	  [SOURCE_STDERR] = "stderr",
	[SOURCE_FILE] = "file",
};
#define SOURCE_COUNT (sizeof(source_names) / sizeof(*source_names))

/* The fields each harness-measured source can report, and their units. */
static const struct {
	enum metric_source source;
	const char *field;
	const char *unit;
} source_fields[] = {
	{ SOURCE_RUSAGE, "utime", "s" },
	{ SOURCE_RUSAGE, "stime", "s" },
	{ SOURCE_RUSAGE, "maxrss", "B" },
	/* the sampled sources: sampler.h says what each field means */
	{ SOURCE_PERF, "instructions", NULL },
	{ SOURCE_PERF, "cycles", NULL },
	{ SOURCE_PERF, "task_clock", "s" },
	{ SOURCE_NVML, "utilization_mean", "%" },
	{ SOURCE_NVML, "utilization_peak", "%" },
	{ SOURCE_NVML, "memory_peak", "B" },
	{ SOURCE_NVML, "power_mean", "W" },
	{ SOURCE_NVML, "power_peak", "W" },
	{ SOURCE_NVML, "energy", "J" },
	{ SOURCE_RAPL, "energy", "J" },
	{ SOURCE_RAPL, "power_mean", "W" },
	{ SOURCE_SYSTEM, "cpu_utilization_mean", "%" },
	{ SOURCE_SYSTEM, "cpu_utilization_peak", "%" },
	{ SOURCE_SYSTEM, "load", NULL },
	{ SOURCE_SYSTEM, "disk_free", "B" },
};

const char *metric_source_name(enum metric_source source)
{
	return source_names[source];
}

/* The loader walks the cJSON tree keeping the key path of the value it is
 * looking at, so every message can name the path and, through jsonpos, the
 * line and column. Only the first error is kept. */
struct loader {
	const char *path;
	const char *text;
	size_t len;
	struct json_step steps[MAX_DEPTH];
	size_t depth;
	int error;
};

static void push_key(struct loader *ld, const char *key)
{
	assert(ld->depth < MAX_DEPTH);
	ld->steps[ld->depth++] = (struct json_step){ key, 0, 0 };
}

static void push_index(struct loader *ld, int index)
{
	assert(ld->depth < MAX_DEPTH);
	ld->steps[ld->depth++] = (struct json_step){ NULL, index, 0 };
}

static void pop(struct loader *ld)
{
	assert(ld->depth > 0);
	ld->depth--;
}

/* Records "file:line:col: key.path: message" for the value at the current
 * path (at its key when at_key). */
static int fail_at(struct loader *ld, int at_key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct loader *ld, int at_key, const char *fmt, ...)
{
	char where[512], message[1024];
	long offset;
	va_list ap;
	int line = 0, col = 0;

	if (ld->error)
		return ld->error;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	json_path_format(where, sizeof(where), ld->steps, ld->depth);
	offset = json_locate(ld->text, ld->len, ld->steps, ld->depth, at_key);
	if (offset >= 0)
		json_line_col(ld->text, (size_t)offset, &line, &col);
	if (line && where[0])
		ld->error = bg_input_error("%s:%d:%d: %s: %s", ld->path, line,
					   col, where, message);
	else if (line)
		ld->error = bg_input_error("%s:%d:%d: %s", ld->path, line, col,
					   message);
	else
		ld->error =
			bg_input_error("%s: %s: %s", ld->path, where, message);
	return ld->error;
}

#define fail(ld, ...) fail_at((ld), 0, __VA_ARGS__)

static const char *json_type_name(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "an array";
	return "an object";
}

/* Checks that object only has keys from allowed (NULL-terminated; NULL
 * allows any key) and no key twice; cJSON keeps duplicates, so they are
 * caught here. */
static int check_keys(struct loader *ld, const cJSON *object,
		      const char *const *allowed)
{
	const cJSON *member;

	cJSON_ArrayForEach(member, object)
	{
		const char *const *a = allowed ? allowed
					       : (const char *[]){ NULL };
		struct strbuf list = STRBUF_INIT;
		const cJSON *earlier;
		int seen = 0;

		for (earlier = object->child; earlier != member;
		     earlier = earlier->next)
			seen += !strcmp(earlier->string, member->string);
		push_key(ld, member->string);
		ld->steps[ld->depth - 1].occurrence = seen;
		if (seen)
			fail_at(ld, 1, "duplicate key '%s'", member->string);
		while (*a && strcmp(*a, member->string))
			a++;
		if (allowed && !*a) {
			for (a = allowed; *a; a++)
				strbuf_addf(&list, "%s%s",
					    a == allowed ? "" : ", ", *a);
			fail_at(ld, 1, "unknown key '%s'; expected one of: %s",
				member->string, list.buf);
		}
		strbuf_release(&list);
		pop(ld);
		if (ld->error)
			return ld->error;
	}
	return BG_OK;
}

/* Typed getters: each pushes the key for its messages and pops it again. An
 * absent optional key leaves *out untouched and returns 0; a present one
 * returns 1. */

static int get_item(struct loader *ld, const cJSON *object, const char *key,
		    bool required, const cJSON **out)
{
	*out = cJSON_GetObjectItemCaseSensitive(object, key);
	if (*out)
		return 1;
	if (required) {
		char where[512];

		json_path_format(where, sizeof(where), ld->steps, ld->depth);
		push_key(ld, key);
		ld->depth--;
		if (!ld->error) {
			long offset = json_locate(ld->text, ld->len, ld->steps,
						  ld->depth, 0);
			int line = 0, col = 0;

			if (offset >= 0)
				json_line_col(ld->text, (size_t)offset, &line,
					      &col);
			ld->error = bg_input_error(
				"%s:%d:%d: %s%smissing required key '%s'",
				ld->path, line, col, where,
				where[0] ? ": " : "", key);
		}
	}
	return 0;
}

static int get_string(struct loader *ld, const cJSON *object, const char *key,
		      bool required, char **out)
{
	const cJSON *item;

	if (!get_item(ld, object, key, required, &item))
		return 0;
	push_key(ld, key);
	if (!cJSON_IsString(item))
		fail(ld, "expected a string, found %s", json_type_name(item));
	else if (!item->valuestring[0])
		fail(ld, "expected a non-empty string");
	else {
		free(*out);
		*out = xstrdup(item->valuestring);
	}
	pop(ld);
	return !ld->error;
}

static int get_bool(struct loader *ld, const cJSON *object, const char *key,
		    bool *out)
{
	const cJSON *item;

	if (!get_item(ld, object, key, false, &item))
		return 0;
	push_key(ld, key);
	if (!cJSON_IsBool(item))
		fail(ld, "expected true or false, found %s",
		     json_type_name(item));
	else
		*out = cJSON_IsTrue(item);
	pop(ld);
	return !ld->error;
}

static int get_int(struct loader *ld, const cJSON *object, const char *key,
		   int min, int *out)
{
	const cJSON *item;

	if (!get_item(ld, object, key, false, &item))
		return 0;
	push_key(ld, key);
	if (!cJSON_IsNumber(item) ||
	    item->valuedouble != floor(item->valuedouble) ||
	    item->valuedouble < min || item->valuedouble > 1e6)
		fail(ld, "expected a whole number from %d to 1000000", min);
	else
		*out = (int)item->valuedouble;
	pop(ld);
	return !ld->error;
}

/* "60s", "500ms", "2m", "1h", or a plain number of seconds. */
static int parse_duration(const char *text, double *seconds)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "ms", 1e-3 },
		{ "s", 1 },
		{ "m", 60 },
		{ "h", 3600 },
	};
	char *end;
	double value = strtod(text, &end);

	if (end == text || !isfinite(value) || value <= 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*seconds = value * units[i].scale;
			return 0;
		}
	}
	return *end ? -1 : (*seconds = value, 0);
}

static int get_duration(struct loader *ld, const cJSON *object, const char *key,
			double *out)
{
	const cJSON *item;

	if (!get_item(ld, object, key, false, &item))
		return 0;
	push_key(ld, key);
	if (cJSON_IsNumber(item) && item->valuedouble > 0)
		*out = item->valuedouble;
	else if (!cJSON_IsString(item) ||
		 parse_duration(item->valuestring, out) < 0)
		fail(ld, "expected a positive duration such as \"60s\", "
			 "\"500ms\", \"2m\" or \"1h\"");
	pop(ld);
	return !ld->error;
}

/* "3%" or a fraction below 1 (0.03). */
static int get_fraction(struct loader *ld, const cJSON *object, const char *key,
			double *out)
{
	const cJSON *item;
	double value = -1;
	char *end = NULL;

	if (!get_item(ld, object, key, false, &item))
		return 0;
	push_key(ld, key);
	if (cJSON_IsNumber(item) && item->valuedouble >= 0 &&
	    item->valuedouble < 1) {
		value = item->valuedouble;
	} else if (cJSON_IsString(item)) {
		value = strtod(item->valuestring, &end);
		if (end == item->valuestring || strcmp(end, "%") ||
		    !(value >= 0 && value < 100))
			value = -1;
		else
			value /= 100;
	}
	if (value < 0)
		fail(ld, "expected a percentage such as \"3%%\" (or a fraction "
			 "below 1 such as 0.03)");
	else
		*out = value;
	pop(ld);
	return !ld->error;
}

static bool is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
	       c == '+';
}

/* Names become parts of case ids, file names and report anchors: keep them
 * to a safe alphabet rather than escaping them everywhere downstream. */
static int check_name(struct loader *ld, const char *name, const char *what)
{
	for (const char *p = name; *p; p++)
		if (!is_name_char((unsigned char)*p))
			return fail(ld,
				    "%s name '%s' may only contain letters, "
				    "digits, '-', '_', '.' and '+'",
				    what, name);
	return BG_OK;
}

static int get_name_values(struct loader *ld, const cJSON *object,
			   const char *key, struct name_value **out,
			   size_t *out_nr)
{
	const cJSON *item, *member;
	size_t nr = 0;

	if (!get_item(ld, object, key, false, &item))
		return 0;
	push_key(ld, key);
	if (!cJSON_IsObject(item)) {
		fail(ld, "expected an object of strings, found %s",
		     json_type_name(item));
		goto done;
	}
	if (check_keys(ld, item, NULL) < 0)
		goto done;
	*out = xcalloc((size_t)cJSON_GetArraySize(item) + 1, sizeof(**out));
	cJSON_ArrayForEach(member, item)
	{
		push_key(ld, member->string);
		if (!cJSON_IsString(member))
			fail(ld, "expected a string, found %s",
			     json_type_name(member));
		pop(ld);
		if (ld->error)
			break;
		(*out)[nr].name = xstrdup(member->string);
		(*out)[nr++].value = xstrdup(member->valuestring);
	}
	*out_nr = nr;
done:
	pop(ld);
	return !ld->error;
}

/* Settings */

static const char *const settings_keys[] = {
	"warmup",    "runs",	"min_runs",  "max_runs",
	"precision", "timeout", "threshold", "confidence",
	"env",	     "profile", NULL,
};
#define SETTINGS_KEYS_NR (sizeof(settings_keys) / sizeof(*settings_keys) - 1)

static void settings_init(struct suite_settings *settings)
{
	memset(settings, 0, sizeof(*settings));
	settings->warmup = 1;
	settings->runs = 10;
	settings->min_runs = 5;
	settings->max_runs = 30;
	settings->precision = 0.01;
	settings->timeout_s = 300;
	settings->threshold = 0.03;
	settings->confidence = 0.99;
	settings->profile = -1;
}

static void name_values_free(struct name_value *nv, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(nv[i].name);
		free(nv[i].value);
	}
	free(nv);
}

/* A deep copy: each benchmark owns its merged settings. */
static void settings_copy(struct suite_settings *dst,
			  const struct suite_settings *src)
{
	*dst = *src;
	dst->env = xcalloc(src->env_nr + 1, sizeof(*dst->env));
	for (size_t i = 0; i < src->env_nr; i++) {
		dst->env[i].name = xstrdup(src->env[i].name);
		dst->env[i].value = xstrdup(src->env[i].value);
	}
}

static void settings_release(struct suite_settings *settings)
{
	name_values_free(settings->env, settings->env_nr);
	settings->env = NULL;
	settings->env_nr = 0;
}

static void settings_merge_env(struct suite_settings *settings,
			       struct name_value *env, size_t env_nr)
{
	for (size_t i = 0; i < env_nr; i++) {
		size_t j = 0;

		while (j < settings->env_nr &&
		       strcmp(settings->env[j].name, env[i].name))
			j++;
		if (j == settings->env_nr) {
			settings->env =
				xrealloc(settings->env,
					 (j + 1) * sizeof(*settings->env));
			settings->env[j].name = xstrdup(env[i].name);
			settings->env_nr++;
		} else {
			free(settings->env[j].value);
		}
		settings->env[j].value = xstrdup(env[i].value);
	}
}

/* Reads the settings keys present in object over *settings; env entries are
 * added to (or replace) the inherited ones. */
static int parse_settings(struct loader *ld, const cJSON *object,
			  struct suite_settings *settings)
{
	struct name_value *env = NULL;
	const cJSON *runs;
	size_t env_nr = 0;
	bool profile = false;

	get_int(ld, object, "warmup", 0, &settings->warmup);
	if (get_item(ld, object, "runs", false, &runs)) {
		push_key(ld, "runs");
		if (cJSON_IsString(runs) && !strcmp(runs->valuestring, "auto"))
			settings->runs_auto = true;
		else if (cJSON_IsNumber(runs) && runs->valuedouble >= 1 &&
			 runs->valuedouble <= 1e6 &&
			 runs->valuedouble == floor(runs->valuedouble))
			settings->runs = (int)runs->valuedouble,
			settings->runs_auto = false;
		else
			fail(ld, "expected a whole number of runs (at least 1) "
				 "or \"auto\"");
		pop(ld);
	}
	get_int(ld, object, "min_runs", 2, &settings->min_runs);
	get_int(ld, object, "max_runs", 2, &settings->max_runs);
	get_fraction(ld, object, "precision", &settings->precision);
	get_duration(ld, object, "timeout", &settings->timeout_s);
	get_fraction(ld, object, "threshold", &settings->threshold);
	if (get_item(ld, object, "confidence", false, &runs)) {
		push_key(ld, "confidence");
		if (!cJSON_IsNumber(runs) || runs->valuedouble < 0.5 ||
		    runs->valuedouble >= 1)
			fail(ld,
			     "expected a confidence level from 0.5 to below 1, "
			     "such as 0.99");
		else
			settings->confidence = runs->valuedouble;
		pop(ld);
	}
	if (get_name_values(ld, object, "env", &env, &env_nr))
		settings_merge_env(settings, env, env_nr);
	if (get_bool(ld, object, "profile", &profile))
		settings->profile = profile;
	name_values_free(env, env_nr);
	if (!ld->error && settings->min_runs > settings->max_runs) {
		push_key(ld, "min_runs");
		fail(ld, "min_runs (%d) is larger than max_runs (%d)",
		     settings->min_runs, settings->max_runs);
		pop(ld);
	}
	return ld->error;
}

/* Metrics */

static const char *const metric_keys[] = {
	"name", "from",	  "key",   "regex",	"field",       "path", "per",
	"unit", "better", "exact", "tolerance", "description", NULL,
};

static int parse_source(struct loader *ld, const char *name,
			enum metric_source *out)
{
	struct strbuf list = STRBUF_INIT;

	for (size_t i = 0; i < SOURCE_COUNT; i++) {
		if (!strcmp(source_names[i], name)) {
			*out = (enum metric_source)i;
			goto done;
		}
		strbuf_addf(&list, "%s%s", i ? ", " : "", source_names[i]);
	}
	push_key(ld, "from");
	fail(ld, "unknown source '%s'; expected one of: %s", name, list.buf);
	pop(ld);
done:
	strbuf_release(&list);
	return ld->error;
}

/* A key given for a source that does not use it is a mistake worth naming,
 * not something to ignore. */
static int forbid_key(struct loader *ld, const cJSON *object, const char *key,
		      const char *source)
{
	if (!cJSON_GetObjectItemCaseSensitive(object, key))
		return BG_OK;
	push_key(ld, key);
	fail_at(ld, 1, "'%s' does not apply to source '%s'", key, source);
	pop(ld);
	return ld->error;
}

static int check_field(struct loader *ld, struct metric_spec *metric)
{
	struct strbuf list = STRBUF_INIT;
	bool has_fields = false;

	for (size_t i = 0; i < sizeof(source_fields) / sizeof(*source_fields);
	     i++) {
		if (source_fields[i].source != metric->from)
			continue;
		has_fields = true;
		if (metric->field &&
		    !strcmp(source_fields[i].field, metric->field)) {
			if (!metric->unit && source_fields[i].unit)
				metric->unit = xstrdup(source_fields[i].unit);
			goto done;
		}
		strbuf_addf(&list, "%s%s", list.len ? ", " : "",
			    source_fields[i].field);
	}
	if (!has_fields)
		goto done;
	push_key(ld, "field");
	if (!metric->field)
		fail(ld, "source '%s' needs a 'field'; expected one of: %s",
		     source_names[metric->from], list.buf);
	else
		fail(ld,
		     "unknown field '%s' for source '%s'; expected one of: %s",
		     metric->field, source_names[metric->from], list.buf);
	pop(ld);
done:
	strbuf_release(&list);
	return ld->error;
}

static int check_regex(struct loader *ld, const char *pattern)
{
	regex_t regex;
	int rc = regcomp(&regex, pattern, REG_EXTENDED);

	push_key(ld, "regex");
	if (rc) {
		char why[256];

		regerror(rc, &regex, why, sizeof(why));
		fail(ld, "invalid regular expression: %s", why);
	} else {
		if (regex.re_nsub != 1)
			fail(ld,
			     "expected exactly one capture group, found %zu",
			     (size_t)regex.re_nsub);
		regfree(&regex);
	}
	pop(ld);
	return ld->error;
}

static int parse_metric(struct loader *ld, const cJSON *object,
			struct metric_spec *metric)
{
	char *from = NULL, *better = NULL;
	const char *source;

	if (!cJSON_IsObject(object))
		return fail(ld, "expected a metric object, found %s",
			    json_type_name(object));
	if (check_keys(ld, object, metric_keys) < 0)
		return ld->error;
	get_string(ld, object, "name", true, &metric->name);
	get_string(ld, object, "from", true, &from);
	if (ld->error || parse_source(ld, from, &metric->from) < 0)
		goto done;
	source = source_names[metric->from];
	get_string(ld, object, "key", false, &metric->key);
	get_string(ld, object, "regex", false, &metric->regex);
	get_string(ld, object, "field", false, &metric->field);
	get_string(ld, object, "path", false, &metric->path);
	get_string(ld, object, "per", false, &metric->per);
	get_string(ld, object, "unit", false, &metric->unit);
	get_string(ld, object, "better", false, &better);
	get_bool(ld, object, "exact", &metric->exact);
	if (ld->error || check_name(ld, metric->name, "metric") < 0)
		goto done;
	if (better && strcmp(better, "lower") && strcmp(better, "higher")) {
		push_key(ld, "better");
		fail(ld, "expected \"lower\" or \"higher\", found '%s'",
		     better);
		pop(ld);
		goto done;
	}
	metric->better = better && !strcmp(better, "higher") ? BETTER_HIGHER
							     : BETTER_LOWER;
	if (cJSON_GetObjectItemCaseSensitive(object, "tolerance")) {
		const cJSON *item;

		get_item(ld, object, "tolerance", false, &item);
		push_key(ld, "tolerance");
		if (!metric->exact)
			fail_at(ld, 1, "'tolerance' needs \"exact\": true");
		else if (!cJSON_IsNumber(item) || item->valuedouble < 0)
			fail(ld, "expected a non-negative number");
		else
			metric->tolerance = item->valuedouble;
		pop(ld);
	}

	switch (metric->from) {
	case SOURCE_STDOUT:
	case SOURCE_STDERR:
		if (!metric->regex) {
			get_item(ld, object, "regex", true, &object);
			goto done;
		}
		check_regex(ld, metric->regex);
		forbid_key(ld, object, "key", source);
		forbid_key(ld, object, "path", source);
		forbid_key(ld, object, "field", source);
		break;
	case SOURCE_METRICS:
	case SOURCE_FILE:
		if (!metric->key)
			metric->key = xstrdup(metric->name);
		if (metric->from == SOURCE_FILE && !metric->path)
			get_item(ld, object, "path", true, &object);
		if (metric->from == SOURCE_METRICS)
			forbid_key(ld, object, "path", source);
		forbid_key(ld, object, "regex", source);
		forbid_key(ld, object, "field", source);
		break;
	case SOURCE_WALL:
	case SOURCE_CALLGRIND:
		/* the one quantity each measures needs no field */
		if (!metric->unit)
			metric->unit = xstrdup(metric->from == SOURCE_WALL
						       ? "s"
						       : "instructions");
		forbid_key(ld, object, "field", source);
		/* fall through */
	default:
		forbid_key(ld, object, "key", source);
		forbid_key(ld, object, "regex", source);
		forbid_key(ld, object, "path", source);
		if (metric->from != SOURCE_WALL &&
		    metric->from != SOURCE_CALLGRIND)
			check_field(ld, metric);
		break;
	}
done:
	free(from);
	free(better);
	return ld->error;
}

static void metric_spec_release(struct metric_spec *metric)
{
	free(metric->name);
	free(metric->key);
	free(metric->regex);
	free(metric->field);
	free(metric->path);
	free(metric->per);
	free(metric->unit);
}

/* Names of metrics, benchmarks and variants must be unique: they key the
 * result file. */
static int fail_duplicate(struct loader *ld, const char *what, const char *name,
			  size_t first)
{
	push_key(ld, "name");
	fail(ld, "duplicate %s name '%s' (first at index %zu)", what, name,
	     first);
	pop(ld);
	return ld->error;
}

/* Appends the names of benchmark's metrics other than `except`. */
static void list_other_metrics(struct strbuf *out,
			       const struct benchmark *benchmark,
			       const struct metric_spec *except)
{
	for (size_t i = 0; i < benchmark->metrics_nr; i++)
		if (&benchmark->metrics[i] != except)
			strbuf_addf(out, "%s%s", out->len ? ", " : "",
				    benchmark->metrics[i].name);
}

/* "per" may name a metric declared after it, so it is checked once the
 * benchmark's metrics are all known. */
static int check_per(struct loader *ld, const struct benchmark *benchmark)
{
	struct strbuf others = STRBUF_INIT;

	for (size_t i = 0; i < benchmark->metrics_nr && !ld->error; i++) {
		const struct metric_spec *metric = &benchmark->metrics[i];
		const struct metric_spec *count = NULL;

		if (!metric->per)
			continue;
		for (size_t j = 0; j < benchmark->metrics_nr && !count; j++)
			if (!strcmp(benchmark->metrics[j].name, metric->per))
				count = &benchmark->metrics[j];
		push_index(ld, (int)i);
		push_key(ld, "per");
		if (metric->from == SOURCE_CALLGRIND) {
			/* its one value comes from a run of its own, which
			 * has no count of samples to divide by */
			fail(ld, "'per' does not apply to source 'callgrind'");
		} else if (!count) {
			list_other_metrics(&others, benchmark, metric);
			fail(ld,
			     "unknown metric '%s'; expected the metric of "
			     "benchmark '%s' that counts the samples of a "
			     "run (%s%s)",
			     metric->per, benchmark->name,
			     others.len ? "one of: " : "it has no other metric",
			     others.buf);
		} else if (count == metric) {
			fail(ld,
			     "metric '%s' cannot be per itself; name the "
			     "metric that counts the samples of a run",
			     metric->name);
		} else if (count->per) {
			/* a chain would divide by a ratio, not a count */
			fail(ld,
			     "metric '%s' is itself per '%s'; 'per' must "
			     "name a count, not another per-sample metric",
			     count->name, count->per);
		} else if (count->from == SOURCE_CALLGRIND) {
			fail(ld,
			     "metric '%s' comes from callgrind's run of "
			     "its own; 'per' needs a count from every "
			     "measured run",
			     count->name);
		}
		ld->depth -= 2;
	}
	strbuf_release(&others);
	return ld->error;
}

static int parse_metrics(struct loader *ld, const cJSON *object,
			 struct benchmark *benchmark)
{
	const cJSON *array, *item;
	int index = 0;

	if (!get_item(ld, object, "metrics", true, &array))
		return ld->error;
	push_key(ld, "metrics");
	if (!cJSON_IsArray(array) || !cJSON_GetArraySize(array)) {
		fail(ld, "expected a non-empty array of metrics");
		goto done;
	}
	benchmark->metrics = xcalloc((size_t)cJSON_GetArraySize(array),
				     sizeof(*benchmark->metrics));
	cJSON_ArrayForEach(item, array)
	{
		struct metric_spec *metric = &benchmark->metrics[index];

		push_index(ld, index++);
		benchmark->metrics_nr++;
		if (!parse_metric(ld, item, metric)) {
			for (int i = 0; i < index - 1; i++)
				if (!strcmp(benchmark->metrics[i].name,
					    metric->name))
					fail_duplicate(ld, "metric",
						       metric->name, (size_t)i);
		}
		pop(ld);
		if (ld->error)
			break;
	}
	if (!ld->error)
		check_per(ld, benchmark);
done:
	pop(ld);
	return ld->error;
}

/* Benchmarks */

static const char *const benchmark_own_keys[] = {
	"name", "description", "command", "shell", "metrics",
};

static int parse_command(struct loader *ld, const cJSON *object,
			 struct benchmark *benchmark)
{
	const cJSON *command, *item;
	int index = 0;

	get_string(ld, object, "shell", false, &benchmark->shell);
	if (!get_item(ld, object, "command", !benchmark->shell, &command))
		return ld->error;
	push_key(ld, "command");
	if (benchmark->shell)
		fail_at(ld, 1,
			"give either 'command' (an argv array) or "
			"'shell' (a shell string), not both");
	else if (!cJSON_IsArray(command) || !cJSON_GetArraySize(command))
		fail(ld, "expected a non-empty array of strings (argv; use "
			 "\"shell\" to opt in to a shell command line)");
	if (ld->error)
		goto done;
	benchmark->command = xcalloc((size_t)cJSON_GetArraySize(command) + 1,
				     sizeof(*benchmark->command));
	cJSON_ArrayForEach(item, command)
	{
		push_index(ld, index++);
		if (!cJSON_IsString(item))
			fail(ld, "expected a string, found %s",
			     json_type_name(item));
		pop(ld);
		if (ld->error)
			break;
		benchmark->command[benchmark->command_nr++] =
			xstrdup(item->valuestring);
	}
done:
	pop(ld);
	return ld->error;
}

static int parse_benchmark(struct loader *ld, const cJSON *object,
			   const struct suite_settings *defaults,
			   struct benchmark *benchmark)
{
	const char *allowed[SETTINGS_KEYS_NR +
			    sizeof(benchmark_own_keys) / sizeof(char *) + 1];
	char *description = NULL;
	size_t n = 0;

	if (!cJSON_IsObject(object))
		return fail(ld, "expected a benchmark object, found %s",
			    json_type_name(object));
	for (size_t i = 0; i < SETTINGS_KEYS_NR; i++)
		allowed[n++] = settings_keys[i];
	for (size_t i = 0; i < sizeof(benchmark_own_keys) / sizeof(char *); i++)
		allowed[n++] = benchmark_own_keys[i];
	allowed[n] = NULL;
	settings_copy(&benchmark->settings, defaults);
	if (check_keys(ld, object, allowed) < 0)
		return ld->error;
	get_string(ld, object, "name", true, &benchmark->name);
	get_string(ld, object, "description", false, &description);
	free(description);
	if (ld->error || check_name(ld, benchmark->name, "benchmark") < 0)
		return ld->error;
	if (parse_command(ld, object, benchmark) < 0 ||
	    parse_settings(ld, object, &benchmark->settings) < 0)
		return ld->error;
	return parse_metrics(ld, object, benchmark);
}

static void benchmark_release(struct benchmark *benchmark)
{
	free(benchmark->name);
	for (size_t i = 0; i < benchmark->command_nr; i++)
		free(benchmark->command[i]);
	free(benchmark->command);
	free(benchmark->shell);
	for (size_t i = 0; i < benchmark->metrics_nr; i++)
		metric_spec_release(&benchmark->metrics[i]);
	free(benchmark->metrics);
	settings_release(&benchmark->settings);
}

static int parse_benchmarks(struct loader *ld, const cJSON *root,
			    struct suite *suite)
{
	const cJSON *array, *item;
	int index = 0;

	if (!get_item(ld, root, "benchmarks", true, &array))
		return ld->error;
	push_key(ld, "benchmarks");
	if (!cJSON_IsArray(array) || !cJSON_GetArraySize(array)) {
		fail(ld, "expected a non-empty array of benchmarks");
		goto done;
	}
	suite->benchmarks = xcalloc((size_t)cJSON_GetArraySize(array),
				    sizeof(*suite->benchmarks));
	cJSON_ArrayForEach(item, array)
	{
		struct benchmark *benchmark = &suite->benchmarks[index];

		push_index(ld, index++);
		suite->benchmarks_nr++;
		if (!parse_benchmark(ld, item, &suite->defaults, benchmark)) {
			for (int i = 0; i < index - 1; i++)
				if (!strcmp(suite->benchmarks[i].name,
					    benchmark->name))
					fail_duplicate(ld, "benchmark",
						       benchmark->name,
						       (size_t)i);
		}
		pop(ld);
		if (ld->error)
			break;
	}
done:
	pop(ld);
	return ld->error;
}

/* Variants and devices: the other two axes of the matrix. */

static const char *const variant_keys[] = { "vars", "description", NULL };

static int parse_variants(struct loader *ld, const cJSON *root,
			  struct suite *suite)
{
	const cJSON *object, *item;

	if (!get_item(ld, root, "variants", false, &object)) {
		/* A suite without variants runs each benchmark once per
		 * device, as variant "default". */
		suite->variants = xcalloc(1, sizeof(*suite->variants));
		suite->variants[0].name = xstrdup("default");
		suite->variants_nr = 1;
		return BG_OK;
	}
	push_key(ld, "variants");
	if (!cJSON_IsObject(object) || !cJSON_GetArraySize(object)) {
		fail(ld, "expected a non-empty object of variants, such as "
			 "{\"original\": {\"vars\": {...}}}");
		goto done;
	}
	if (check_keys(ld, object, NULL) < 0)
		goto done;
	suite->variants = xcalloc((size_t)cJSON_GetArraySize(object),
				  sizeof(*suite->variants));
	cJSON_ArrayForEach(item, object)
	{
		struct variant *variant =
			&suite->variants[suite->variants_nr++];
		char *description = NULL;

		variant->name = xstrdup(item->string);
		push_key(ld, item->string);
		if (!cJSON_IsObject(item))
			fail(ld, "expected a variant object, found %s",
			     json_type_name(item));
		else if (check_keys(ld, item, variant_keys) == BG_OK &&
			 check_name(ld, variant->name, "variant") == BG_OK)
			get_name_values(ld, item, "vars", &variant->vars,
					&variant->vars_nr);
		get_string(ld, item, "description", false, &description);
		free(description);
		pop(ld);
		if (ld->error)
			break;
	}
done:
	pop(ld);
	return ld->error;
}

static int parse_devices(struct loader *ld, const cJSON *root,
			 struct suite *suite)
{
	const cJSON *array, *item;
	int index = 0;

	if (!get_item(ld, root, "devices", false, &array)) {
		suite->devices = xcalloc(1, sizeof(*suite->devices));
		suite->devices[suite->devices_nr++] = xstrdup("cpu");
		return BG_OK;
	}
	push_key(ld, "devices");
	if (!cJSON_IsArray(array) || !cJSON_GetArraySize(array)) {
		fail(ld, "expected a non-empty array of device names such as "
			 "[\"cpu\", \"gpu\"]");
		goto done;
	}
	suite->devices = xcalloc((size_t)cJSON_GetArraySize(array),
				 sizeof(*suite->devices));
	cJSON_ArrayForEach(item, array)
	{
		push_index(ld, index++);
		if (!cJSON_IsString(item) || !item->valuestring[0])
			fail(ld, "expected a device name");
		else if (check_name(ld, item->valuestring, "device") == BG_OK)
			for (size_t i = 0; i < suite->devices_nr; i++)
				if (!strcmp(suite->devices[i],
					    item->valuestring))
					fail(ld, "duplicate device '%s'",
					     item->valuestring);
		pop(ld);
		if (ld->error)
			break;
		suite->devices[suite->devices_nr++] =
			xstrdup(item->valuestring);
	}
done:
	pop(ld);
	return ld->error;
}

/* Variables: every ${name} in a command or file path must resolve for every
 * variant at load time, so a typo fails `validate`, not a nightly run. */

struct var_check {
	const struct variant *variant;
	bool builtins_only;
};

static const char *check_lookup(const char *name, void *payload)
{
	struct var_check *check = payload;

	for (const char *const *b = suite_builtin_vars; *b; b++)
		if (!strcmp(*b, name))
			return "";
	if (!strncmp(name, "env:", 4))
		return getenv(name + 4);
	for (size_t i = 0; !check->builtins_only && i < check->variant->vars_nr;
	     i++)
		if (!strcmp(check->variant->vars[i].name, name))
			return "";
	return NULL;
}

static int check_template(struct loader *ld, const char *template,
			  struct var_check *check)
{
	struct strbuf scratch = STRBUF_INIT;
	char *bad = NULL;

	if (expand_vars(&scratch, template, check_lookup, check, &bad) < 0) {
		if (bad[0] == '$')
			fail(ld, "unterminated '${' in \"%s\"", template);
		else if (!strncmp(bad, "env:", 4))
			fail(ld,
			     "'${%s}': environment variable '%s' is not set",
			     bad, bad + 4);
		else if (check->builtins_only)
			fail(ld,
			     "unknown variable '${%s}' (variant vars may use "
			     "only built-in variables)",
			     bad);
		else
			fail(ld, "unknown variable '${%s}' for variant '%s'",
			     bad, check->variant->name);
	}
	free(bad);
	strbuf_release(&scratch);
	return ld->error;
}

static int check_variables(struct loader *ld, const struct suite *suite)
{
	for (size_t v = 0; v < suite->variants_nr && !ld->error; v++) {
		const struct variant *variant = &suite->variants[v];
		struct var_check check = { variant, true };

		push_key(ld, "variants");
		push_key(ld, variant->name);
		push_key(ld, "vars");
		for (size_t i = 0; i < variant->vars_nr && !ld->error; i++) {
			push_key(ld, variant->vars[i].name);
			check_template(ld, variant->vars[i].value, &check);
			pop(ld);
		}
		ld->depth -= 3;
		check.builtins_only = false;
		for (size_t b = 0; b < suite->benchmarks_nr && !ld->error;
		     b++) {
			const struct benchmark *benchmark =
				&suite->benchmarks[b];

			push_key(ld, "benchmarks");
			push_index(ld, (int)b);
			if (benchmark->shell) {
				push_key(ld, "shell");
				check_template(ld, benchmark->shell, &check);
				pop(ld);
			}
			push_key(ld, "command");
			for (size_t i = 0; i < benchmark->command_nr; i++) {
				push_index(ld, (int)i);
				check_template(ld, benchmark->command[i],
					       &check);
				pop(ld);
			}
			pop(ld);
			push_key(ld, "metrics");
			for (size_t i = 0; i < benchmark->metrics_nr; i++) {
				if (!benchmark->metrics[i].path)
					continue;
				push_index(ld, (int)i);
				push_key(ld, "path");
				check_template(ld, benchmark->metrics[i].path,
					       &check);
				ld->depth -= 2;
			}
			ld->depth -= 3;
		}
	}
	return ld->error;
}

/* The whole file */

static const char *const top_keys[] = {
	"benchgate", "suite",	 "description", "defaults",
	"devices",   "variants", "benchmarks",	NULL,
};

static int syntax_error(const char *path, const char *text, size_t len,
			const char *at)
{
	size_t offset = at && at >= text ? (size_t)(at - text) : len;
	int line, col;

	if (offset > len)
		offset = len;
	/* cJSON stops before trailing whitespace when the input ends early. */
	if (!text[offset + strspn(text + offset, " \t\r\n")])
		offset = len;
	json_line_col(text, offset, &line, &col);
	if (offset >= len)
		return bg_input_error("%s:%d:%d: unexpected end of file (an "
				      "object or array is not closed)",
				      path, line, col);
	if (text[offset] == ']' || text[offset] == '}') {
		size_t before = offset;

		while (before > 0 && strchr(" \t\r\n", text[before - 1]))
			before--;
		if (before > 0 && text[before - 1] == ',')
			return bg_input_error(
				"%s:%d:%d: unexpected '%c' after "
				"',' (trailing commas are not JSON)",
				path, line, col, text[offset]);
	}
	return bg_input_error(
		"%s:%d:%d: invalid JSON: unexpected '%c'; expected "
		"a value, ',' or a closing bracket",
		path, line, col, text[offset]);
}

static void sha256_hex(const char *data, size_t len, char out[65])
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int digest_len = 0;

	EVP_Digest(data, len, digest, &digest_len, EVP_sha256(), NULL);
	for (unsigned int i = 0; i < digest_len && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static char *absolute_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path + 1))
			  : xstrdup(".");
	char *resolved = realpath(dir, NULL);

	free(dir);
	return resolved ? resolved : xstrdup(".");
}

int suite_parse(struct suite **out, const char *path, const char *text,
		size_t len)
{
	struct loader ld = { .path = path, .text = text, .len = len };
	struct suite *suite = NULL;
	const char *end = NULL;
	const cJSON *item;
	cJSON *root;

	*out = NULL;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root)
		return syntax_error(path, text, len, end);
	if (!cJSON_IsObject(root)) {
		fail(&ld,
		     "expected a suite object {\"benchgate\": 1, ...}, "
		     "found %s",
		     json_type_name(root));
		goto done;
	}
	if (check_keys(&ld, root, top_keys) < 0)
		goto done;
	if (get_item(&ld, root, "benchgate", true, &item)) {
		push_key(&ld, "benchgate");
		if (!cJSON_IsNumber(item) || item->valuedouble != 1)
			fail(&ld, "expected 1 (the suite format version)");
		pop(&ld);
	}
	suite = xcalloc(1, sizeof(*suite));
	suite->path = xstrdup(path);
	suite->dir = absolute_dir_of(path);
	sha256_hex(text, len, suite->sha256);
	settings_init(&suite->defaults);
	get_string(&ld, root, "suite", true, &suite->name);
	get_string(&ld, root, "description", false, &suite->description);
	if (ld.error)
		goto done;
	push_key(&ld, "suite");
	check_name(&ld, suite->name, "suite");
	pop(&ld);
	if (get_item(&ld, root, "defaults", false, &item)) {
		push_key(&ld, "defaults");
		if (!cJSON_IsObject(item))
			fail(&ld, "expected an object, found %s",
			     json_type_name(item));
		else if (check_keys(&ld, item, settings_keys) == BG_OK)
			parse_settings(&ld, item, &suite->defaults);
		pop(&ld);
	}
	if (!ld.error)
		parse_devices(&ld, root, suite);
	if (!ld.error)
		parse_variants(&ld, root, suite);
	if (!ld.error)
		parse_benchmarks(&ld, root, suite);
	if (!ld.error)
		check_variables(&ld, suite);
done:
	cJSON_Delete(root);
	if (ld.error) {
		suite_free(suite);
		return ld.error;
	}
	*out = suite;
	return BG_OK;
}

int suite_load(struct suite **out, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	int error;

	*out = NULL;
	if ((error = strbuf_read_file(&text, path)) < 0)
		goto done;
	error = suite_parse(out, path, text.buf, text.len);
done:
	strbuf_release(&text);
	return error;
}

void suite_free(struct suite *suite)
{
	if (!suite)
		return;
	free(suite->path);
	free(suite->dir);
	free(suite->name);
	free(suite->description);
	settings_release(&suite->defaults);
	for (size_t i = 0; i < suite->devices_nr; i++)
		free(suite->devices[i]);
	free(suite->devices);
	for (size_t i = 0; i < suite->variants_nr; i++) {
		free(suite->variants[i].name);
		name_values_free(suite->variants[i].vars,
				 suite->variants[i].vars_nr);
	}
	free(suite->variants);
	for (size_t i = 0; i < suite->benchmarks_nr; i++)
		benchmark_release(&suite->benchmarks[i]);
	free(suite->benchmarks);
	free(suite);
}
