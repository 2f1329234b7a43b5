/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/suite/suite.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/hash.h"
#include "harness/suite/expand.h"
#include "harness/probe/sampler.h"
#include "harness/util/jsonread.h"
#include "harness/util/strbuf.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const suite_builtin_vars[] = {
	"variant",   "device",	  "benchmark", "suite",
	"suite_dir", "build_dir", "run",       NULL,
};


/* The fields of rusage, which the runner reads when a run is reaped; the
 * sampled sources' fields are the sampler's (sampler_fields()). */
static const struct sampler_field rusage_fields[] = {
	{ SOURCE_RUSAGE, "utime", "s", false },
	{ SOURCE_RUSAGE, "stime", "s", false },
	{ SOURCE_RUSAGE, "maxrss", "B", false },
};
#define RUSAGE_FIELDS_NR (sizeof(rusage_fields) / sizeof(*rusage_fields))

/* The i-th field a harness-measured source can report: rusage's, then the
 * sampled ones; NULL past the last. */
static const struct sampler_field *harness_field(size_t i)
{
	size_t sampled_nr;
	const struct sampler_field *sampled = sampler_fields(&sampled_nr);

	if (i < RUSAGE_FIELDS_NR)
		return &rusage_fields[i];
	i -= RUSAGE_FIELDS_NR;
	return i < sampled_nr ? &sampled[i] : NULL;
}

bool metric_source_bridge(enum metric_source source,
			  enum bridge_format *format)
{
	if (source < SOURCE_GBENCH)
		return false;
	*format = (enum bridge_format)(source - SOURCE_GBENCH);
	return true;
}

/* Every reader below takes the json_reader (jsonread.h) at the value it
 * reads, keeping the key path in it for messages. */

/* Suite strings name things: an empty one is always a mistake. */
static int get_string(struct json_reader *rd, const cJSON *object,
		      const char *key, unsigned flags, char **out)
{
	return json_read_string(rd, object, key, flags | JSON_NONEMPTY, out);
}

/* Counts of runs: whole numbers from min up to a million. */
static int get_count(struct json_reader *rd, const cJSON *object,
		     const char *key, int min, int *out)
{
	return json_read_int(rd, object, key, 0, min, 1000000, out);
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

static int get_duration(struct json_reader *rd, const cJSON *object,
			const char *key, double *out)
{
	const cJSON *item;

	if (!(item = json_read_item(rd, object, key, 0)))
		return 0;
	json_reader_push_key(rd, key);
	if (cJSON_IsNumber(item) && item->valuedouble > 0)
		*out = item->valuedouble;
	else if (!cJSON_IsString(item) ||
		 parse_duration(item->valuestring, out) < 0)
		json_reader_fail(
			rd, "expected a positive duration such as \"60s\", "
			    "\"500ms\", \"2m\" or \"1h\"");
	json_reader_pop(rd);
	return !rd->error;
}

/* "3%" or a fraction below 1 (0.03). */
static int get_fraction(struct json_reader *rd, const cJSON *object,
			const char *key, double *out)
{
	const cJSON *item;
	double value = -1;
	char *end = NULL;

	if (!(item = json_read_item(rd, object, key, 0)))
		return 0;
	json_reader_push_key(rd, key);
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
		json_reader_fail(
			rd,
			"expected a percentage such as \"3%%\" (or a fraction "
			"below 1 such as 0.03)");
	else
		*out = value;
	json_reader_pop(rd);
	return !rd->error;
}

static int get_name_values(struct json_reader *rd, const cJSON *object,
			   const char *key, struct name_value **out,
			   size_t *out_nr)
{
	const cJSON *item, *member;
	size_t nr = 0;

	if (!(item = json_read_item(rd, object, key, 0)))
		return 0;
	json_reader_push_key(rd, key);
	if (!cJSON_IsObject(item)) {
		json_reader_fail(rd, "expected an object of strings, found %s",
				 json_type_name(item));
		goto done;
	}
	if (json_read_check_keys(rd, item, NULL) < 0)
		goto done;
	*out = xcalloc((size_t)cJSON_GetArraySize(item) + 1, sizeof(**out));
	cJSON_ArrayForEach(member, item)
	{
		json_reader_push_key(rd, member->string);
		if (!cJSON_IsString(member))
			json_reader_fail(rd, "expected a string, found %s",
					 json_type_name(member));
		json_reader_pop(rd);
		if (rd->error)
			break;
		(*out)[nr].name = xstrdup(member->string);
		(*out)[nr++].value = xstrdup(member->valuestring);
	}
	*out_nr = nr;
done:
	json_reader_pop(rd);
	return !rd->error;
}

/* A non-empty array of distinct strings, each held to `rule` (JSON_NAME,
 * JSON_PRINTABLE): device names, exclude patterns. `what` names one in
 * messages, `example` shows a whole array. */
static int get_names(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned rule, const char *what,
		     const char *example, char ***out, size_t *out_nr)
{
	const cJSON *array, *item;
	int index = 0;

	if (!(array = json_read_item(rd, object, key, 0)))
		return 0;
	json_reader_push_key(rd, key);
	if (!cJSON_IsArray(array) || !cJSON_GetArraySize(array)) {
		json_reader_fail(rd, "expected a non-empty array of %ss such "
				     "as %s",
				 what, example);
		goto done;
	}
	*out = xcalloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(**out));
	cJSON_ArrayForEach(item, array)
	{
		json_reader_push_index(rd, index++);
		if (!cJSON_IsString(item) || !item->valuestring[0])
			json_reader_fail(rd, "expected a %s", what);
		else if (json_reader_check(rd, item->valuestring, rule) ==
			 BG_OK)
			for (size_t i = 0; i < *out_nr; i++)
				if (!strcmp((*out)[i], item->valuestring))
					json_reader_fail(rd, "duplicate %s '%s'",
							 what,
							 item->valuestring);
		json_reader_pop(rd);
		if (rd->error)
			break;
		(*out)[(*out_nr)++] = xstrdup(item->valuestring);
	}
done:
	json_reader_pop(rd);
	return !rd->error;
}

static void names_free(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
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
static int parse_settings(struct json_reader *rd, const cJSON *object,
			  struct suite_settings *settings)
{
	struct name_value *env = NULL;
	const cJSON *runs;
	size_t env_nr = 0;
	bool profile = false;

	get_count(rd, object, "warmup", 0, &settings->warmup);
	if ((runs = json_read_item(rd, object, "runs", 0))) {
		json_reader_push_key(rd, "runs");
		settings->runs_given = true;
		if (cJSON_IsString(runs) && !strcmp(runs->valuestring, "auto"))
			settings->runs_auto = true;
		else if (cJSON_IsNumber(runs) && runs->valuedouble >= 1 &&
			 runs->valuedouble <= 1e6 &&
			 runs->valuedouble == floor(runs->valuedouble))
			settings->runs = (int)runs->valuedouble,
			settings->runs_auto = false;
		else
			json_reader_fail(
				rd,
				"expected a whole number of runs (at least 1) "
				"or \"auto\"");
		json_reader_pop(rd);
	}
	get_count(rd, object, "min_runs", 2, &settings->min_runs);
	get_count(rd, object, "max_runs", 2, &settings->max_runs);
	get_fraction(rd, object, "precision", &settings->precision);
	get_duration(rd, object, "timeout", &settings->timeout_s);
	get_fraction(rd, object, "threshold", &settings->threshold);
	if ((runs = json_read_item(rd, object, "confidence", 0))) {
		json_reader_push_key(rd, "confidence");
		if (!cJSON_IsNumber(runs) || runs->valuedouble < 0.5 ||
		    runs->valuedouble >= 1)
			json_reader_fail(
				rd,
				"expected a confidence level from 0.5 to below 1, "
				"such as 0.99");
		else
			settings->confidence = runs->valuedouble;
		json_reader_pop(rd);
	}
	if (get_name_values(rd, object, "env", &env, &env_nr))
		settings_merge_env(settings, env, env_nr);
	if (json_read_bool(rd, object, "profile", 0, &profile))
		settings->profile = profile;
	name_values_free(env, env_nr);
	if (!rd->error && settings->min_runs > settings->max_runs) {
		json_reader_push_key(rd, "min_runs");
		json_reader_fail(rd,
				 "min_runs (%d) is larger than max_runs (%d)",
				 settings->min_runs, settings->max_runs);
		json_reader_pop(rd);
	}
	return rd->error;
}

/* Commands */

/* The strings of a non-empty array (rd at its key) as a NULL-terminated
 * argv of templates. */
static int parse_argv(struct json_reader *rd, const cJSON *array, char ***argv,
		      size_t *nr)
{
	const cJSON *item;
	int index = 0;

	*argv = xcalloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(**argv));
	cJSON_ArrayForEach(item, array)
	{
		json_reader_push_index(rd, index++);
		if (!cJSON_IsString(item))
			json_reader_fail(rd, "expected a string, found %s",
					 json_type_name(item));
		json_reader_pop(rd);
		if (rd->error)
			break;
		(*argv)[(*nr)++] = xstrdup(item->valuestring);
	}
	return rd->error;
}

/* Metrics */

/* The extractor's argv of a `command` metric. */
static void parse_extractor(struct json_reader *rd, const cJSON *object,
			    struct metric_spec *metric)
{
	const cJSON *command =
		json_read_item(rd, object, "command", JSON_REQUIRED);

	if (!command)
		return;
	json_reader_push_key(rd, "command");
	if (!cJSON_IsArray(command) || !cJSON_GetArraySize(command))
		json_reader_fail(rd, "expected a non-empty array of strings "
				     "(the extractor's argv)");
	else
		parse_argv(rd, command, &metric->command, &metric->command_nr);
	json_reader_pop(rd);
}

static const char *const metric_keys[] = {
	"name",	     "from",	    "key",     "regex", "field",
	"path",	     "per",	    "unit",    "better", "exact",
	"tolerance", "description", "devices", "gate",	 "role",
	"command",   NULL,
};

static int parse_source(struct json_reader *rd, const char *name,
			enum metric_source *out)
{
	struct strbuf list = STRBUF_INIT;

	for (size_t i = 0; i < METRIC_SOURCES_NR; i++) {
		if (!strcmp(metric_source_name((enum metric_source)i), name)) {
			*out = (enum metric_source)i;
			goto done;
		}
		strbuf_addf(&list, "%s%s", i ? ", " : "",
			    metric_source_name((enum metric_source)i));
	}
	json_reader_push_key(rd, "from");
	json_reader_fail(rd, "unknown source '%s'; expected one of: %s", name,
			 list.buf);
	json_reader_pop(rd);
done:
	strbuf_release(&list);
	return rd->error;
}

/* A key given for a source that does not use it is a mistake worth naming,
 * not something to ignore. */
static int forbid_key(struct json_reader *rd, const cJSON *object,
		      const char *key, const char *source)
{
	if (!cJSON_GetObjectItemCaseSensitive(object, key))
		return BG_OK;
	json_reader_push_key(rd, key);
	json_reader_fail_at_key(rd, "'%s' does not apply to source '%s'", key,
				source);
	json_reader_pop(rd);
	return rd->error;
}

static int check_field(struct json_reader *rd, struct metric_spec *metric)
{
	struct strbuf list = STRBUF_INIT;
	const struct sampler_field *field;
	bool has_fields = false;

	for (size_t i = 0; (field = harness_field(i)); i++) {
		if (field->source != metric->from)
			continue;
		has_fields = true;
		if (metric->field && !strcmp(field->name, metric->field)) {
			if (!metric->unit && field->unit)
				metric->unit = xstrdup(field->unit);
			goto done;
		}
		strbuf_addf(&list, "%s%s", list.len ? ", " : "", field->name);
	}
	if (!has_fields)
		goto done;
	json_reader_push_key(rd, "field");
	if (!metric->field)
		json_reader_fail(
			rd, "source '%s' needs a 'field'; expected one of: %s",
			metric_source_name(metric->from), list.buf);
	else
		json_reader_fail(
			rd,
			"unknown field '%s' for source '%s'; expected one of: %s",
			metric->field, metric_source_name(metric->from), list.buf);
	json_reader_pop(rd);
done:
	strbuf_release(&list);
	return rd->error;
}

/* The copies of itself compiling pattern makes, bounded from above:
 * glibc's regcomp() copies what a '+' or an interval {m,n} repeats (x+
 * becomes xx*), so stacked or nested repetitions multiply (20 '+' in a row
 * take 2 GiB). '+' and '{' in a bracket expression or escaped are literal. */
static double regex_copies(const char *p)
{
	double copies = 1;
	char *end;

	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			/* ']' first is a member; [:class:] holds no ']' */
			p += p[1] == '^' ? 2 : 1;
			p += *p == ']';
			while (*p && *p != ']')
				p += *p == '[' && p[1] == ':' && strstr(p, ":]")
					     ? strstr(p, ":]") - p + 2
					     : 1;
			if (!*p)
				break;
		} else if (*p == '+') {
			copies *= 2;
		} else if (*p == '{' && isdigit((unsigned char)p[1])) {
			double high = strtod(p + 1, &end);

			if (*end == ',' && isdigit((unsigned char)end[1]))
				high = strtod(end + 1, &end);
			copies *= high + 2;
		}
	}
	return copies;
}

#define REGEX_COPIES_MAX 4096

static int check_regex(struct json_reader *rd, const char *pattern)
{
	regex_t regex;
	int rc;

	json_reader_push_key(rd, "regex");
	if (regex_copies(pattern) > REGEX_COPIES_MAX) {
		json_reader_fail(rd,
				 "its repetitions ('+', '{m,n}') nest or stack "
				 "into more than %d copies of the expression "
				 "when compiled; repeat less",
				 REGEX_COPIES_MAX);
		json_reader_pop(rd);
		return rd->error;
	}
	rc = regcomp(&regex, pattern, REG_EXTENDED);
	if (rc) {
		char why[256];

		regerror(rc, &regex, why, sizeof(why));
		json_reader_fail(rd, "invalid regular expression: %s", why);
	} else {
		if (regex.re_nsub != 1)
			json_reader_fail(
				rd,
				"expected exactly one capture group, found %zu",
				(size_t)regex.re_nsub);
		regfree(&regex);
	}
	json_reader_pop(rd);
	return rd->error;
}

/* Whether the metric's field has no worse direction (sampler.h). */
static bool field_undirected(const struct metric_spec *metric)
{
	const struct sampler_field *field;

	for (size_t i = 0; metric->field && (field = harness_field(i)); i++)
		if (field->source == metric->from &&
		    !strcmp(field->name, metric->field))
			return field->undirected;
	return false;
}

/* "gate", "role" and "devices": how the gate and the variant table treat
 * the metric, and where it exists. */
static void parse_metric_use(struct json_reader *rd, const cJSON *object,
			     struct metric_spec *metric, bool *gate_given)
{
	int role;

	*gate_given = json_read_bool(rd, object, "gate", 0, &metric->gate) > 0;
	if (json_read_enum(rd, object, "role", 0, metric_role_names, &role) > 0)
		metric->role = metric_role_names[role];
	get_names(rd, object, "devices", JSON_NAME, "device name", "[\"gpu\"]",
		  &metric->devices, &metric->devices_nr);
}

/* optimum-benchmark's rates (throughput, efficiency) are higher better,
 * its latencies, memory and energy lower: the suite need not say so. */
static bool optimum_rate(const struct metric_spec *metric)
{
	return metric->from == SOURCE_OPTIMUM && metric->field &&
	       (!strcmp(metric->field, "throughput") ||
		!strcmp(metric->field, "efficiency"));
}

static int parse_metric(struct json_reader *rd, const cJSON *object,
			struct metric_spec *metric)
{
	char *from = NULL, *better = NULL;
	const char *source;
	bool gate_given = false;

	if (!cJSON_IsObject(object))
		return json_reader_fail(rd,
					"expected a metric object, found %s",
					json_type_name(object));
	if (json_read_check_keys(rd, object, metric_keys) < 0)
		return rd->error;
	/* Names and units: the rules of util/name.h, which the result and
	 * comparison readers hold documents from elsewhere to as well. */
	get_string(rd, object, "name", JSON_REQUIRED | JSON_NAME,
		   &metric->name);
	get_string(rd, object, "from", JSON_REQUIRED, &from);
	if (rd->error || parse_source(rd, from, &metric->from) < 0)
		goto done;
	source = metric_source_name(metric->from);
	get_string(rd, object, "key", 0, &metric->key);
	get_string(rd, object, "regex", 0, &metric->regex);
	get_string(rd, object, "field", 0, &metric->field);
	get_string(rd, object, "path", 0, &metric->path);
	get_string(rd, object, "per", 0, &metric->per);
	get_string(rd, object, "unit", JSON_PRINTABLE, &metric->unit);
	get_string(rd, object, "better", 0, &better);
	json_read_bool(rd, object, "exact", 0, &metric->exact);
	parse_metric_use(rd, object, metric, &gate_given);
	if (rd->error)
		goto done;
	if (better && strcmp(better, "lower") && strcmp(better, "higher")) {
		json_reader_push_key(rd, "better");
		json_reader_fail(rd,
				 "expected \"lower\" or \"higher\", found '%s'",
				 better);
		json_reader_pop(rd);
		goto done;
	}
	metric->better = better && !strcmp(better, "higher") ? BETTER_HIGHER
							     : BETTER_LOWER;
	if (cJSON_GetObjectItemCaseSensitive(object, "tolerance")) {
		const cJSON *item;

		item = json_read_item(rd, object, "tolerance", 0);
		json_reader_push_key(rd, "tolerance");
		if (!metric->exact)
			json_reader_fail_at_key(
				rd, "'tolerance' needs \"exact\": true");
		else if (!cJSON_IsNumber(item) || item->valuedouble < 0)
			json_reader_fail(rd, "expected a non-negative number");
		else
			metric->tolerance = item->valuedouble;
		json_reader_pop(rd);
	}

	if (metric->from != SOURCE_COMMAND)
		forbid_key(rd, object, "command", source);
	switch (metric->from) {
	case SOURCE_COMMAND:
		if (!metric->key)
			metric->key = xstrdup(metric->name);
		parse_extractor(rd, object, metric);
		forbid_key(rd, object, "regex", source);
		forbid_key(rd, object, "path", source);
		forbid_key(rd, object, "field", source);
		break;
	case SOURCE_GBENCH:
	case SOURCE_HYPERFINE:
	case SOURCE_PYTEST_BENCHMARK:
	case SOURCE_GAB_SMALLER:
	case SOURCE_GAB_BIGGER:
	case SOURCE_OPTIMUM:
		/* key: the peer's benchmark, field: its metric; both may be
		 * left to the document (bridge_find()) */
		if (!metric->path)
			json_read_item(rd, object, "path", JSON_REQUIRED);
		if (!better && (metric->from == SOURCE_GAB_BIGGER ||
				optimum_rate(metric)))
			metric->better = BETTER_HIGHER;
		forbid_key(rd, object, "regex", source);
		break;
	case SOURCE_STDOUT:
	case SOURCE_STDERR:
		if (!metric->regex) {
			json_read_item(rd, object, "regex", JSON_REQUIRED);
			goto done;
		}
		check_regex(rd, metric->regex);
		forbid_key(rd, object, "key", source);
		forbid_key(rd, object, "path", source);
		forbid_key(rd, object, "field", source);
		break;
	case SOURCE_METRICS:
	case SOURCE_FILE:
		if (!metric->key)
			metric->key = xstrdup(metric->name);
		if (metric->from == SOURCE_FILE && !metric->path)
			json_read_item(rd, object, "path", JSON_REQUIRED);
		if (metric->from == SOURCE_METRICS)
			forbid_key(rd, object, "path", source);
		forbid_key(rd, object, "regex", source);
		forbid_key(rd, object, "field", source);
		break;
	case SOURCE_WALL:
	case SOURCE_CALLGRIND:
		/* the one quantity each measures needs no field */
		if (!metric->unit)
			metric->unit = xstrdup(metric->from == SOURCE_WALL
						       ? "s"
						       : "instructions");
		forbid_key(rd, object, "field", source);
		/* fall through */
	default:
		forbid_key(rd, object, "key", source);
		forbid_key(rd, object, "regex", source);
		forbid_key(rd, object, "path", source);
		if (metric->from != SOURCE_WALL &&
		    metric->from != SOURCE_CALLGRIND)
			check_field(rd, metric);
		break;
	}
	if (!gate_given)
		metric->gate = !field_undirected(metric);
done:
	free(from);
	free(better);
	return rd->error;
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
	for (size_t i = 0; i < metric->command_nr; i++)
		free(metric->command[i]);
	free(metric->command);
	names_free(metric->devices, metric->devices_nr);
}

/* Names of metrics, benchmarks and variants must be unique: they key the
 * result file. */
static int fail_duplicate(struct json_reader *rd, const char *what,
			  const char *name, size_t first)
{
	json_reader_push_key(rd, "name");
	json_reader_fail(rd, "duplicate %s name '%s' (first at index %zu)",
			 what, name, first);
	json_reader_pop(rd);
	return rd->error;
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
static int check_per(struct json_reader *rd, const struct benchmark *benchmark)
{
	struct strbuf others = STRBUF_INIT;

	for (size_t i = 0; i < benchmark->metrics_nr && !rd->error; i++) {
		const struct metric_spec *metric = &benchmark->metrics[i];
		const struct metric_spec *count = NULL;

		if (!metric->per)
			continue;
		for (size_t j = 0; j < benchmark->metrics_nr && !count; j++)
			if (!strcmp(benchmark->metrics[j].name, metric->per))
				count = &benchmark->metrics[j];
		json_reader_push_index(rd, (int)i);
		json_reader_push_key(rd, "per");
		if (metric->from == SOURCE_CALLGRIND) {
			/* its one value comes from a run of its own, which
			 * has no count of samples to divide by */
			json_reader_fail(
				rd,
				"'per' does not apply to source 'callgrind'");
		} else if (!count) {
			list_other_metrics(&others, benchmark, metric);
			json_reader_fail(
				rd,
				"unknown metric '%s'; expected the metric of "
				"benchmark '%s' that counts the samples of a "
				"run (%s%s)",
				metric->per, benchmark->name,
				others.len ? "one of: "
					   : "it has no other metric",
				others.buf);
		} else if (count == metric) {
			json_reader_fail(
				rd,
				"metric '%s' cannot be per itself; name the "
				"metric that counts the samples of a run",
				metric->name);
		} else if (count->per) {
			/* a chain would divide by a ratio, not a count */
			json_reader_fail(
				rd,
				"metric '%s' is itself per '%s'; 'per' must "
				"name a count, not another per-sample metric",
				count->name, count->per);
		} else if (count->from == SOURCE_CALLGRIND) {
			json_reader_fail(
				rd,
				"metric '%s' comes from callgrind's run of "
				"its own; 'per' needs a count from every "
				"measured run",
				count->name);
		}
		json_reader_pop(rd);
		json_reader_pop(rd);
	}
	strbuf_release(&others);
	return rd->error;
}

/* One column of the variant table per role: two speed metrics would leave
 * it to chance which one the table shows. */
static int check_roles(struct json_reader *rd, const struct benchmark *benchmark)
{
	for (size_t i = 0; i < benchmark->metrics_nr && !rd->error; i++) {
		const struct metric_spec *metric = &benchmark->metrics[i];

		for (size_t j = 0; metric->role && j < i; j++) {
			if (benchmark->metrics[j].role != metric->role)
				continue;
			json_reader_push_index(rd, (int)i);
			json_reader_push_key(rd, "role");
			json_reader_fail(rd,
					 "metric '%s' has role '%s' already; "
					 "a benchmark has one metric per role",
					 benchmark->metrics[j].name,
					 metric->role);
			json_reader_pop_to(rd, rd->depth - 2);
			break;
		}
	}
	return rd->error;
}

static int parse_metrics(struct json_reader *rd, const cJSON *object,
			 struct benchmark *benchmark)
{
	const cJSON *array, *item;
	int index = 0;

	if (!(array = json_read_item(rd, object, "metrics", JSON_REQUIRED)))
		return rd->error;
	json_reader_push_key(rd, "metrics");
	if (!cJSON_IsArray(array) || !cJSON_GetArraySize(array)) {
		json_reader_fail(rd, "expected a non-empty array of metrics");
		goto done;
	}
	benchmark->metrics = xcalloc((size_t)cJSON_GetArraySize(array),
				     sizeof(*benchmark->metrics));
	cJSON_ArrayForEach(item, array)
	{
		struct metric_spec *metric = &benchmark->metrics[index];

		json_reader_push_index(rd, index++);
		benchmark->metrics_nr++;
		if (!parse_metric(rd, item, metric)) {
			for (int i = 0; i < index - 1; i++)
				if (!strcmp(benchmark->metrics[i].name,
					    metric->name))
					fail_duplicate(rd, "metric",
						       metric->name, (size_t)i);
		}
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	if (!rd->error)
		check_per(rd, benchmark);
	if (!rd->error)
		check_roles(rd, benchmark);
done:
	json_reader_pop(rd);
	return rd->error;
}

/* Benchmarks */

static const char *const benchmark_own_keys[] = {
	"name", "description", "command", "shell", "metrics",
};

static int parse_command(struct json_reader *rd, const cJSON *object,
			 struct benchmark *benchmark)
{
	const cJSON *command;

	get_string(rd, object, "shell", 0, &benchmark->shell);
	if (!(command = json_read_item(rd, object, "command",
				       benchmark->shell ? 0 : JSON_REQUIRED)))
		return rd->error;
	json_reader_push_key(rd, "command");
	if (benchmark->shell)
		json_reader_fail_at_key(
			rd, "give either 'command' (an argv array) or "
			    "'shell' (a shell string), not both");
	else if (!cJSON_IsArray(command) || !cJSON_GetArraySize(command))
		json_reader_fail(
			rd, "expected a non-empty array of strings (argv; use "
			    "\"shell\" to opt in to a shell command line)");
	if (!rd->error)
		parse_argv(rd, command, &benchmark->command,
			   &benchmark->command_nr);
	json_reader_pop(rd);
	return rd->error;
}

static int parse_benchmark(struct json_reader *rd, const cJSON *object,
			   const struct suite_settings *defaults,
			   struct benchmark *benchmark)
{
	const char *allowed[SETTINGS_KEYS_NR +
			    sizeof(benchmark_own_keys) / sizeof(char *) + 1];
	char *description = NULL;
	size_t n = 0;

	if (!cJSON_IsObject(object))
		return json_reader_fail(rd,
					"expected a benchmark object, found %s",
					json_type_name(object));
	for (size_t i = 0; i < SETTINGS_KEYS_NR; i++)
		allowed[n++] = settings_keys[i];
	for (size_t i = 0; i < sizeof(benchmark_own_keys) / sizeof(char *); i++)
		allowed[n++] = benchmark_own_keys[i];
	allowed[n] = NULL;
	settings_copy(&benchmark->settings, defaults);
	if (json_read_check_keys(rd, object, allowed) < 0)
		return rd->error;
	get_string(rd, object, "name", JSON_REQUIRED | JSON_NAME,
		   &benchmark->name);
	get_string(rd, object, "description", 0, &description);
	free(description);
	if (rd->error)
		return rd->error;
	if (parse_command(rd, object, benchmark) < 0 ||
	    parse_settings(rd, object, &benchmark->settings) < 0)
		return rd->error;
	return parse_metrics(rd, object, benchmark);
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

static int parse_benchmarks(struct json_reader *rd, const cJSON *root,
			    struct suite *suite)
{
	const cJSON *array, *item;
	int index = 0;

	if (!(array = json_read_item(rd, root, "benchmarks", JSON_REQUIRED)))
		return rd->error;
	json_reader_push_key(rd, "benchmarks");
	if (!cJSON_IsArray(array) || !cJSON_GetArraySize(array)) {
		json_reader_fail(rd,
				 "expected a non-empty array of benchmarks");
		goto done;
	}
	suite->benchmarks = xcalloc((size_t)cJSON_GetArraySize(array),
				    sizeof(*suite->benchmarks));
	cJSON_ArrayForEach(item, array)
	{
		struct benchmark *benchmark = &suite->benchmarks[index];

		json_reader_push_index(rd, index++);
		suite->benchmarks_nr++;
		if (!parse_benchmark(rd, item, &suite->defaults, benchmark)) {
			for (int i = 0; i < index - 1; i++)
				if (!strcmp(suite->benchmarks[i].name,
					    benchmark->name))
					fail_duplicate(rd, "benchmark",
						       benchmark->name,
						       (size_t)i);
		}
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
done:
	json_reader_pop(rd);
	return rd->error;
}

/* Variants and devices: the other two axes of the matrix. */

static const char *const variant_keys[] = { "vars", "description", "devices",
					    NULL };

static int parse_variants(struct json_reader *rd, const cJSON *root,
			  struct suite *suite)
{
	const cJSON *object, *item;

	if (!(object = json_read_item(rd, root, "variants", 0))) {
		/* A suite without variants runs each benchmark once per
		 * device, as variant "default". */
		suite->variants = xcalloc(1, sizeof(*suite->variants));
		suite->variants[0].name = xstrdup("default");
		suite->variants_nr = 1;
		return BG_OK;
	}
	json_reader_push_key(rd, "variants");
	if (!cJSON_IsObject(object) || !cJSON_GetArraySize(object)) {
		json_reader_fail(
			rd, "expected a non-empty object of variants, such as "
			    "{\"original\": {\"vars\": {...}}}");
		goto done;
	}
	if (json_read_check_keys(rd, object, NULL) < 0)
		goto done;
	suite->variants = xcalloc((size_t)cJSON_GetArraySize(object),
				  sizeof(*suite->variants));
	cJSON_ArrayForEach(item, object)
	{
		struct variant *variant =
			&suite->variants[suite->variants_nr++];
		char *description = NULL;

		variant->name = xstrdup(item->string);
		json_reader_push_key(rd, item->string);
		if (!cJSON_IsObject(item))
			json_reader_fail(rd,
					 "expected a variant object, found %s",
					 json_type_name(item));
		else if (json_read_check_keys(rd, item, variant_keys) ==
				 BG_OK &&
			 json_reader_check(rd, variant->name, JSON_NAME) ==
				 BG_OK)
			get_name_values(rd, item, "vars", &variant->vars,
					&variant->vars_nr);
		if (!rd->error)
			get_names(rd, item, "devices", JSON_NAME, "device name",
				  "[\"cpu\"]", &variant->devices,
				  &variant->devices_nr);
		get_string(rd, item, "description", 0, &description);
		free(description);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
done:
	json_reader_pop(rd);
	return rd->error;
}

/* The device kinds devices.h probes, by the names a suite gives them. */
static const char *const known_devices[] = { "cpu", "gpu", "cuda", "ipu",
					     NULL };

static bool device_known(const struct suite *suite, const char *device)
{
	for (const char *const *known = known_devices; *known; known++)
		if (!strcmp(*known, device))
			return true;
	for (size_t i = 0; i < suite->declared_devices_nr; i++)
		if (!strcmp(suite->declared_devices[i], device))
			return true;
	return false;
}

/* "devices", each a known kind or one of "declared_devices": `tpu` or
 * `gpu0` would otherwise run as a case of a device nobody probes. */
static int parse_devices(struct json_reader *rd, const cJSON *root,
			 struct suite *suite)
{
	get_names(rd, root, "declared_devices", JSON_NAME, "device name",
		  "[\"npu\"]", &suite->declared_devices,
		  &suite->declared_devices_nr);
	if (rd->error ||
	    !get_names(rd, root, "devices", JSON_NAME, "device name",
		       "[\"cpu\", \"gpu\"]", &suite->devices,
		       &suite->devices_nr)) {
		if (!rd->error && !suite->devices) {
			suite->devices = xcalloc(2, sizeof(*suite->devices));
			suite->devices[suite->devices_nr++] = xstrdup("cpu");
		}
		return rd->error;
	}
	json_reader_push_key(rd, "devices");
	for (size_t i = 0; i < suite->devices_nr && !rd->error; i++) {
		if (device_known(suite, suite->devices[i]))
			continue;
		json_reader_push_index(rd, (int)i);
		json_reader_fail(rd,
				 "unknown device '%s'; expected cpu, gpu (or "
				 "cuda), ipu, or a name of \"declared_devices\"",
				 suite->devices[i]);
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
	return rd->error;
}

/* The matrix: which variant runs on which device, and the reference. */

static bool has_device(char *const *devices, size_t nr, const char *device)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(devices[i], device))
			return true;
	return false;
}

bool suite_case_exists(const struct suite *suite, const struct variant *variant,
		       const char *device)
{
	char pair[512];

	if (variant->devices &&
	    !has_device(variant->devices, variant->devices_nr, device))
		return false;
	snprintf(pair, sizeof(pair), "%s/%s", variant->name, device);
	for (size_t i = 0; i < suite->exclude_nr; i++)
		if (!fnmatch(suite->exclude[i], pair, FNM_PATHNAME))
			return false;
	return true;
}

bool metric_spec_on_device(const struct metric_spec *spec, const char *device)
{
	return !spec->devices ||
	       has_device(spec->devices, spec->devices_nr, device);
}

void metric_spec_stamp(const struct metric_spec *spec,
		       struct metric_samples *metric)
{
	metric->better = spec->better;
	metric->exact = spec->exact;
	metric->tolerance = spec->tolerance;
	metric->gate = spec->gate;
	if (spec->role && !metric->role)
		metric->role = xstrdup(spec->role);
}

void suite_settings_stamp(const struct suite_settings *settings,
			  struct result_case *rcase)
{
	rcase->threshold = settings->threshold;
	rcase->confidence = settings->confidence;
}

void suite_stamp_result(const struct suite *suite, struct result *result)
{
	result->confidence = suite->defaults.confidence;
	for (size_t i = 0; i < result->cases_nr; i++)
		for (size_t j = 0; j < suite->benchmarks_nr; j++)
			if (!strcmp(result->cases[i].benchmark,
				    suite->benchmarks[j].name))
				suite_settings_stamp(
					&suite->benchmarks[j].settings,
					&result->cases[i]);
}

/* Each of devices (a variant's, a metric's: the value at the current path)
 * is one of the suite's. */
static int check_subset(struct json_reader *rd, const struct suite *suite,
			char *const *devices, size_t nr)
{
	struct strbuf list = STRBUF_INIT;

	for (size_t i = 0; i < nr && !rd->error; i++) {
		if (has_device(suite->devices, suite->devices_nr, devices[i]))
			continue;
		for (size_t d = 0; d < suite->devices_nr; d++)
			strbuf_addf(&list, "%s%s", d ? ", " : "",
				    suite->devices[d]);
		json_reader_push_key(rd, "devices");
		json_reader_push_index(rd, (int)i);
		json_reader_fail(rd,
				 "device '%s' is not one of the suite's "
				 "devices (%s)",
				 devices[i], list.buf);
		json_reader_pop_to(rd, rd->depth - 2);
	}
	strbuf_release(&list);
	return rd->error;
}

/* Whether pattern matches a variant/device pair of the suite. */
static bool exclude_matches(const struct suite *suite, const char *pattern)
{
	char pair[512];

	for (size_t v = 0; v < suite->variants_nr; v++)
		for (size_t d = 0; d < suite->devices_nr; d++) {
			snprintf(pair, sizeof(pair), "%s/%s",
				 suite->variants[v].name, suite->devices[d]);
			if (!fnmatch(pattern, pair, FNM_PATHNAME))
				return true;
		}
	return false;
}

/* "exclude": a pattern that excludes nothing is a typo that would leave
 * the case it meant in the plan, to fail there. */
static int parse_exclude(struct json_reader *rd, const cJSON *root,
			 struct suite *suite)
{
	if (!get_names(rd, root, "exclude", JSON_PRINTABLE, "pattern",
		       "[\"quantized/gpu\", \"*/ipu\"]", &suite->exclude,
		       &suite->exclude_nr))
		return rd->error;
	json_reader_push_key(rd, "exclude");
	for (size_t i = 0; i < suite->exclude_nr && !rd->error; i++) {
		const char *pattern = suite->exclude[i];

		json_reader_push_index(rd, (int)i);
		if (!strchr(pattern, '/'))
			json_reader_fail(rd,
					 "expected a \"variant/device\" "
					 "pattern such as \"quantized/gpu\" or "
					 "\"*/ipu\", found '%s'",
					 pattern);
		else if (!exclude_matches(suite, pattern))
			json_reader_fail(rd,
					 "'%s' matches no variant/device pair "
					 "of the suite",
					 pattern);
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
	return rd->error;
}

/* An environment variable's name: letters, digits and '_', not first a
 * digit. */
static bool env_name_valid(const char *name)
{
	if (!*name || isdigit((unsigned char)*name))
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

/* "pass_env": variables the benchmarks and build commands get although
 * benchgate removes their kind from every child's environment (CI
 * credentials, util/process.h), each named on purpose. */
static int parse_pass_env(struct json_reader *rd, const cJSON *root,
			  struct suite *suite)
{
	if (!get_names(rd, root, "pass_env", JSON_NAME, "variable name",
		       "[\"HF_TOKEN\"]", &suite->pass_env,
		       &suite->pass_env_nr))
		return rd->error;
	json_reader_push_key(rd, "pass_env");
	for (size_t i = 0; i < suite->pass_env_nr && !rd->error; i++) {
		json_reader_push_index(rd, (int)i);
		if (!env_name_valid(suite->pass_env[i]))
			json_reader_fail(rd,
					 "expected the name of an environment "
					 "variable (letters, digits and '_', "
					 "not first a digit), found '%s'",
					 suite->pass_env[i]);
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
	return rd->error;
}

static int parse_reference(struct json_reader *rd, const cJSON *root,
			   struct suite *suite)
{
	struct strbuf list = STRBUF_INIT;

	if (!get_string(rd, root, "reference", JSON_NAME, &suite->reference))
		return rd->error;
	for (size_t v = 0; v < suite->variants_nr; v++) {
		if (!strcmp(suite->variants[v].name, suite->reference))
			goto done;
		strbuf_addf(&list, "%s%s", v ? ", " : "",
			    suite->variants[v].name);
	}
	json_reader_push_key(rd, "reference");
	json_reader_fail(rd, "unknown variant '%s'; expected one of: %s",
			 suite->reference, list.buf);
	json_reader_pop(rd);
done:
	strbuf_release(&list);
	return rd->error;
}

/* What can be checked once every axis is known: the variants' and the
 * metrics' devices are the suite's, the reference and the exclusions name
 * what exists. */
static int check_matrix(struct json_reader *rd, const cJSON *root,
			struct suite *suite)
{
	size_t top = rd->depth;

	for (size_t v = 0; v < suite->variants_nr && !rd->error; v++) {
		json_reader_push_key(rd, "variants");
		json_reader_push_key(rd, suite->variants[v].name);
		check_subset(rd, suite, suite->variants[v].devices,
			     suite->variants[v].devices_nr);
		json_reader_pop_to(rd, top);
	}
	for (size_t b = 0; b < suite->benchmarks_nr && !rd->error; b++) {
		const struct benchmark *benchmark = &suite->benchmarks[b];

		for (size_t m = 0; m < benchmark->metrics_nr && !rd->error;
		     m++) {
			json_reader_push_key(rd, "benchmarks");
			json_reader_push_index(rd, (int)b);
			json_reader_push_key(rd, "metrics");
			json_reader_push_index(rd, (int)m);
			check_subset(rd, suite, benchmark->metrics[m].devices,
				     benchmark->metrics[m].devices_nr);
			json_reader_pop_to(rd, top);
		}
	}
	if (!rd->error)
		parse_reference(rd, root, suite);
	if (!rd->error)
		parse_exclude(rd, root, suite);
	if (!rd->error)
		parse_pass_env(rd, root, suite);
	return rd->error;
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

static int check_template(struct json_reader *rd, const char *template,
			  struct var_check *check)
{
	struct strbuf scratch = STRBUF_INIT;
	char *bad = NULL;

	if (expand_vars(&scratch, template, check_lookup, check, &bad) < 0) {
		if (bad[0] == '$')
			json_reader_fail(rd, "unterminated '${' in \"%s\"",
					 template);
		else if (!strncmp(bad, "env:", 4))
			json_reader_fail(
				rd,
				"'${%s}': environment variable '%s' is not set",
				bad, bad + 4);
		else if (check->builtins_only)
			json_reader_fail(
				rd,
				"unknown variable '${%s}' (variant vars may use "
				"only built-in variables)",
				bad);
		else
			json_reader_fail(
				rd, "unknown variable '${%s}' for variant '%s'",
				bad, check->variant->name);
	}
	free(bad);
	strbuf_release(&scratch);
	return rd->error;
}

/* Whether benchmark's env entry i is the one it inherited from defaults,
 * checked (and reported) there. */
static bool env_inherited(const struct suite *suite,
			  const struct suite_settings *settings, size_t i)
{
	for (size_t d = 0; d < suite->defaults.env_nr; d++)
		if (!strcmp(suite->defaults.env[d].name, settings->env[i].name))
			return !strcmp(suite->defaults.env[d].value,
				       settings->env[i].value);
	return false;
}

/* The "env" values of settings (those not inherited from defaults, unless
 * they are the defaults), expanded as a command is. */
static int check_env(struct json_reader *rd, const struct suite *suite,
		     const struct suite_settings *settings,
		     struct var_check *check)
{
	bool defaults = settings == &suite->defaults;

	json_reader_push_key(rd, "env");
	for (size_t i = 0; i < settings->env_nr && !rd->error; i++) {
		if (!defaults && env_inherited(suite, settings, i))
			continue;
		json_reader_push_key(rd, settings->env[i].name);
		check_template(rd, settings->env[i].value, check);
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
	return rd->error;
}

static int check_variables(struct json_reader *rd, const struct suite *suite)
{
	for (size_t v = 0; v < suite->variants_nr && !rd->error; v++) {
		const struct variant *variant = &suite->variants[v];
		struct var_check check = { variant, true };
		size_t top = rd->depth;

		json_reader_push_key(rd, "variants");
		json_reader_push_key(rd, variant->name);
		json_reader_push_key(rd, "vars");
		for (size_t i = 0; i < variant->vars_nr && !rd->error; i++) {
			json_reader_push_key(rd, variant->vars[i].name);
			check_template(rd, variant->vars[i].value, &check);
			json_reader_pop(rd);
		}
		json_reader_pop_to(rd, top);
		check.builtins_only = false;
		json_reader_push_key(rd, "defaults");
		check_env(rd, suite, &suite->defaults, &check);
		json_reader_pop_to(rd, top);
		for (size_t b = 0; b < suite->benchmarks_nr && !rd->error;
		     b++) {
			const struct benchmark *benchmark =
				&suite->benchmarks[b];

			json_reader_push_key(rd, "benchmarks");
			json_reader_push_index(rd, (int)b);
			check_env(rd, suite, &benchmark->settings, &check);
			if (benchmark->shell) {
				json_reader_push_key(rd, "shell");
				check_template(rd, benchmark->shell, &check);
				json_reader_pop(rd);
			}
			json_reader_push_key(rd, "command");
			for (size_t i = 0; i < benchmark->command_nr; i++) {
				json_reader_push_index(rd, (int)i);
				check_template(rd, benchmark->command[i],
					       &check);
				json_reader_pop(rd);
			}
			json_reader_pop(rd);
			json_reader_push_key(rd, "metrics");
			for (size_t i = 0; i < benchmark->metrics_nr; i++) {
				const struct metric_spec *metric =
					&benchmark->metrics[i];

				json_reader_push_index(rd, (int)i);
				if (metric->path) {
					json_reader_push_key(rd, "path");
					check_template(rd, metric->path, &check);
				}
				json_reader_pop_to(rd, top + 3);
				json_reader_push_index(rd, (int)i);
				json_reader_push_key(rd, "command");
				for (size_t a = 0; a < metric->command_nr; a++) {
					json_reader_push_index(rd, (int)a);
					check_template(rd, metric->command[a],
						       &check);
					json_reader_pop(rd);
				}
				json_reader_pop_to(rd, top + 3);
			}
			json_reader_pop_to(rd, top);
		}
	}
	return rd->error;
}

/* The whole file */

/* "$schema" names the JSON Schema an editor checks the file against
 * (schema/suite.schema.json); benchgate checks the file itself. */
static const char *const top_keys[] = {
	"$schema", "benchgate", "suite",	    "description",
	"defaults", "devices",	"variants",	    "benchmarks",
	"declared_devices",	"exclude",	    "reference",
	"pass_env",		NULL,
};

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
	struct json_reader rd;
	struct suite *suite = NULL;
	const cJSON *item, *root;
	char *schema = NULL;

	*out = NULL;
	if (json_reader_parse_opts(&rd, path, text, len, JSON_COMMENTS) < 0)
		goto done;
	root = rd.root;
	if (!cJSON_IsObject(root)) {
		json_reader_fail(
			&rd,
			"expected a suite object {\"benchgate\": 1, ...}, "
			"found %s",
			json_type_name(root));
		goto done;
	}
	if (json_read_check_keys(&rd, root, top_keys) < 0)
		goto done;
	if ((item = json_read_item(&rd, root, "benchgate", JSON_REQUIRED))) {
		json_reader_push_key(&rd, "benchgate");
		if (!cJSON_IsNumber(item) || item->valuedouble != 1)
			json_reader_fail(
				&rd, "expected 1 (the suite format version)");
		json_reader_pop(&rd);
	}
	suite = xcalloc(1, sizeof(*suite));
	suite->path = xstrdup(path);
	suite->dir = absolute_dir_of(path);
	if (hash_sha256_hex(text, len, suite->sha256) < 0 && !rd.error)
		rd.error = BG_ERROR;
	settings_init(&suite->defaults);
	get_string(&rd, root, "suite", JSON_REQUIRED | JSON_NAME, &suite->name);
	get_string(&rd, root, "description", 0, &suite->description);
	json_read_string(&rd, root, "$schema", 0, &schema);
	if (rd.error)
		goto done;
	if ((item = json_read_object(&rd, root, "defaults", 0))) {
		json_reader_push_key(&rd, "defaults");
		if (json_read_check_keys(&rd, item, settings_keys) == BG_OK)
			parse_settings(&rd, item, &suite->defaults);
		json_reader_pop(&rd);
	}
	if (!rd.error)
		parse_devices(&rd, root, suite);
	if (!rd.error)
		parse_variants(&rd, root, suite);
	if (!rd.error)
		parse_benchmarks(&rd, root, suite);
	if (!rd.error)
		check_matrix(&rd, root, suite);
	if (!rd.error)
		check_variables(&rd, suite);
done:
	free(schema);
	json_reader_release(&rd);
	if (rd.error) {
		suite_free(suite);
		return rd.error;
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
	names_free(suite->devices, suite->devices_nr);
	names_free(suite->declared_devices, suite->declared_devices_nr);
	names_free(suite->exclude, suite->exclude_nr);
	names_free(suite->pass_env, suite->pass_env_nr);
	free(suite->reference);
	for (size_t i = 0; i < suite->variants_nr; i++) {
		free(suite->variants[i].name);
		name_values_free(suite->variants[i].vars,
				 suite->variants[i].vars_nr);
		names_free(suite->variants[i].devices,
			   suite->variants[i].devices_nr);
	}
	free(suite->variants);
	for (size_t i = 0; i < suite->benchmarks_nr; i++)
		benchmark_release(&suite->benchmarks[i]);
	free(suite->benchmarks);
	free(suite);
}

/* A variable as the benchmark's runs get it: the suite's, else ours. */
static const char *benchmark_env(const struct benchmark *benchmark,
				 const char *name)
{
	const struct suite_settings *settings = &benchmark->settings;

	for (size_t i = settings->env_nr; i-- > 0;)
		if (!strcmp(settings->env[i].name, name))
			return settings->env[i].value;
	return getenv(name);
}

void suite_gpu_visible(const struct benchmark *benchmark,
		       struct gpu_visible *out)
{
	out->cuda = benchmark_env(benchmark, "CUDA_VISIBLE_DEVICES");
	out->hip = benchmark_env(benchmark, "HIP_VISIBLE_DEVICES");
	out->rocr = benchmark_env(benchmark, "ROCR_VISIBLE_DEVICES");
}
