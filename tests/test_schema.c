/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON Schemas of schema/ against the readers they describe.
 *
 * The validator below covers the subset of JSON Schema draft 2020-12
 * (https://json-schema.org/draft/2020-12/json-schema-validation) that the
 * schemas use, and refuses any other keyword, so a schema cannot quietly
 * rely on one it ignores. It names the first failure at the key path the
 * loader would name ("benchmarks[0].metrics[0].from"), which is what lets
 * the tests hold the schema and suite_parse() to the same answers.
 */
#include "harness/suite/suite.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

TestSuite(schema);

/* A validator */

struct validation {
	const cJSON *root; /* the schema, for $ref */
	struct strbuf path; /* the instance's key path, as the loader names it */
	struct strbuf error; /* "PATH: what", the first failure */
};

static bool validate(struct validation *v, const cJSON *schema,
		     const cJSON *instance);

static bool fail(struct validation *v, const char *what)
{
	if (!v->error.len)
		strbuf_addf(&v->error, "%s: %s", v->path.buf, what);
	return false;
}

static const cJSON *resolve(struct validation *v, const char *ref)
{
	const cJSON *at = v->root;
	char *copy, *step, *save = NULL;

	cr_assert(!strncmp(ref, "#/", 2), "only local $ref: %s", ref);
	copy = strdup(ref + 2);
	for (step = strtok_r(copy, "/", &save); step && at;
	     step = strtok_r(NULL, "/", &save))
		at = cJSON_GetObjectItemCaseSensitive(at, step);
	free(copy);
	cr_assert_not_null(at, "$ref %s resolves to nothing", ref);
	return at;
}

static bool type_is(const char *type, const cJSON *instance)
{
	if (!strcmp(type, "object"))
		return cJSON_IsObject(instance);
	if (!strcmp(type, "array"))
		return cJSON_IsArray(instance);
	if (!strcmp(type, "string"))
		return cJSON_IsString(instance);
	if (!strcmp(type, "boolean"))
		return cJSON_IsBool(instance);
	if (!strcmp(type, "null"))
		return cJSON_IsNull(instance);
	if (!strcmp(type, "number"))
		return cJSON_IsNumber(instance);
	if (!strcmp(type, "integer"))
		return cJSON_IsNumber(instance) &&
		       instance->valuedouble == floor(instance->valuedouble);
	cr_assert_fail("unknown type '%s' in the schema", type);
	return false;
}

/* Validates instance below the key or index `step` of the current path. */
static bool validate_member(struct validation *v, const cJSON *schema,
			    const cJSON *instance, const char *key, int index)
{
	size_t len = v->path.len;
	bool ok;

	if (key)
		strbuf_addf(&v->path, "%s%s", len ? "." : "", key);
	else
		strbuf_addf(&v->path, "[%d]", index);
	ok = validate(v, schema, instance);
	strbuf_setlen(&v->path, len);
	return ok;
}

static bool validate_object(struct validation *v, const cJSON *schema,
			    const cJSON *instance)
{
	const cJSON *properties = cJSON_GetObjectItem(schema, "properties");
	const cJSON *additional =
		cJSON_GetObjectItem(schema, "additionalProperties");
	const cJSON *names = cJSON_GetObjectItem(schema, "propertyNames");
	const cJSON *required = cJSON_GetObjectItem(schema, "required");
	const cJSON *member, *item;

	if (!cJSON_IsObject(instance))
		return true;
	cJSON_ArrayForEach(item, required)
	{
		if (!cJSON_GetObjectItemCaseSensitive(instance,
						      item->valuestring)) {
			struct strbuf what = STRBUF_INIT;
			bool ok;

			strbuf_addf(&what, "missing required key '%s'",
				    item->valuestring);
			ok = fail(v, what.buf);
			strbuf_release(&what);
			return ok;
		}
	}
	cJSON_ArrayForEach(member, instance)
	{
		const cJSON *sub = properties ? cJSON_GetObjectItemCaseSensitive(
							properties,
							member->string)
					      : NULL;

		if (names) {
			cJSON *key = cJSON_CreateString(member->string);
			bool ok = validate_member(v, names, key,
						  member->string, 0);

			cJSON_Delete(key);
			if (!ok)
				return false;
		}
		if (sub) {
			if (!validate_member(v, sub, member, member->string, 0))
				return false;
		} else if (cJSON_IsFalse(additional)) {
			size_t len = v->path.len;

			strbuf_addf(&v->path, "%s%s", len ? "." : "",
				    member->string);
			fail(v, "unknown key");
			strbuf_setlen(&v->path, len);
			return false;
		} else if (cJSON_IsObject(additional) &&
			   !validate_member(v, additional, member,
					    member->string, 0)) {
			return false;
		}
	}
	return true;
}

static bool validate_array(struct validation *v, const cJSON *schema,
			   const cJSON *instance)
{
	const cJSON *items = cJSON_GetObjectItem(schema, "items");
	const cJSON *min = cJSON_GetObjectItem(schema, "minItems");
	const cJSON *max = cJSON_GetObjectItem(schema, "maxItems");
	const cJSON *item;
	int index = 0, size;

	if (!cJSON_IsArray(instance))
		return true;
	size = cJSON_GetArraySize(instance);
	if (min && size < min->valueint)
		return fail(v, "too few items");
	if (max && size > max->valueint)
		return fail(v, "too many items");
	cJSON_ArrayForEach(item, instance)
	{
		if (items && !validate_member(v, items, item, NULL, index))
			return false;
		if (cJSON_IsTrue(cJSON_GetObjectItem(schema, "uniqueItems")))
			for (int j = 0; j < index; j++)
				if (cJSON_Compare(cJSON_GetArrayItem(instance,
								     j),
						  item, true)) {
					size_t len = v->path.len;

					strbuf_addf(&v->path, "[%d]", index);
					fail(v, "duplicate item");
					strbuf_setlen(&v->path, len);
					return false;
				}
		index++;
	}
	return true;
}

static bool validate_scalar(struct validation *v, const cJSON *schema,
			    const cJSON *instance)
{
	const cJSON *keyword;

	if (cJSON_IsString(instance)) {
		if ((keyword = cJSON_GetObjectItem(schema, "minLength")) &&
		    (int)strlen(instance->valuestring) < keyword->valueint)
			return fail(v, "too short");
		if ((keyword = cJSON_GetObjectItem(schema, "pattern"))) {
			regex_t re;
			int match;

			cr_assert_eq(regcomp(&re, keyword->valuestring,
					     REG_EXTENDED | REG_NOSUB),
				     0, "pattern %s", keyword->valuestring);
			match = regexec(&re, instance->valuestring, 0, NULL, 0);
			regfree(&re);
			if (match)
				return fail(v, "does not match the pattern");
		}
	}
	if (cJSON_IsNumber(instance)) {
		double x = instance->valuedouble;

		if ((keyword = cJSON_GetObjectItem(schema, "minimum")) &&
		    x < keyword->valuedouble)
			return fail(v, "below the minimum");
		if ((keyword = cJSON_GetObjectItem(schema, "maximum")) &&
		    x > keyword->valuedouble)
			return fail(v, "above the maximum");
		if ((keyword = cJSON_GetObjectItem(schema,
						   "exclusiveMinimum")) &&
		    x <= keyword->valuedouble)
			return fail(v, "not above the exclusive minimum");
		if ((keyword = cJSON_GetObjectItem(schema,
						   "exclusiveMaximum")) &&
		    x >= keyword->valuedouble)
			return fail(v, "not below the exclusive maximum");
	}
	return true;
}

static bool validate(struct validation *v, const cJSON *schema,
		     const cJSON *instance)
{
	static const char *const known[] = {
		"$schema",  "$id",	   "$defs",	  "$comment",
		"title",    "description", "default",	  "$ref",
		"type",	    "properties",  "required",	  "additionalProperties",
		"propertyNames", "items", "minItems",	  "maxItems",
		"uniqueItems", "enum",	   "const",	  "pattern",
		"minLength", "minimum",	   "maximum",	  "exclusiveMinimum",
		"exclusiveMaximum", "anyOf", NULL,
	};
	const cJSON *keyword, *item;
	bool found;

	cJSON_ArrayForEach(keyword, schema)
	{
		found = false;
		for (size_t i = 0; known[i]; i++)
			found |= !strcmp(known[i], keyword->string);
		cr_assert(found, "the schema uses '%s', which this validator "
				 "does not implement",
			  keyword->string);
	}
	if ((keyword = cJSON_GetObjectItem(schema, "$ref")) &&
	    !validate(v, resolve(v, keyword->valuestring), instance))
		return false;
	if ((keyword = cJSON_GetObjectItem(schema, "type"))) {
		const cJSON *types = cJSON_IsArray(keyword) ? keyword : NULL;

		found = false;
		if (cJSON_IsString(keyword))
			found = type_is(keyword->valuestring, instance);
		cJSON_ArrayForEach(item, types)
		found |= type_is(item->valuestring, instance);
		if (!found)
			return fail(v, "wrong type");
	}
	if ((keyword = cJSON_GetObjectItem(schema, "const")) &&
	    !cJSON_Compare(keyword, instance, true))
		return fail(v, "not the constant");
	if ((keyword = cJSON_GetObjectItem(schema, "enum"))) {
		found = false;
		cJSON_ArrayForEach(item, keyword)
		found |= cJSON_Compare(item, instance, true);
		if (!found)
			return fail(v, "not one of the values");
	}
	if ((keyword = cJSON_GetObjectItem(schema, "anyOf"))) {
		found = false;
		cJSON_ArrayForEach(item, keyword)
		{
			struct validation trial = { .root = v->root };

			strbuf_init(&trial.path, 0);
			strbuf_init(&trial.error, 0);
			strbuf_addstr(&trial.path, v->path.buf);
			found |= validate(&trial, item, instance);
			strbuf_release(&trial.path);
			strbuf_release(&trial.error);
		}
		if (!found)
			return fail(v, "matches none of anyOf");
	}
	return validate_scalar(v, schema, instance) &&
	       validate_object(v, schema, instance) &&
	       validate_array(v, schema, instance);
}

static cJSON *load_schema(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;
	cJSON *schema;

	strbuf_addf(&path, "%s/schema/%s", BENCHGATE_SOURCE_DIR, name);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "cannot read %s", path.buf);
	schema = cJSON_Parse(text);
	cr_assert_not_null(schema, "%s is not JSON", path.buf);
	cr_assert_str_eq(cJSON_GetObjectItem(schema, "$schema")->valuestring,
			 "https://json-schema.org/draft/2020-12/schema");
	free(text);
	strbuf_release(&path);
	return schema;
}

/* NULL when instance is valid, else "PATH: what" (free it). */
static char *schema_error(const cJSON *schema, const cJSON *instance)
{
	struct validation v = { .root = schema };
	char *error = NULL;

	strbuf_init(&v.path, 0);
	strbuf_init(&v.error, 0);
	if (!validate(&v, schema, instance))
		error = strbuf_detach(&v.error, NULL);
	strbuf_release(&v.path);
	strbuf_release(&v.error);
	return error;
}

/* The loader's verdict on text: NULL when it loads, else its message. */
static char *loader_error(const char *text)
{
	struct suite *suite = NULL;

	if (suite_parse(&suite, "bad.json", text, strlen(text)) == BG_OK) {
		suite_free(suite);
		return NULL;
	}
	return strdup(bg_error_last());
}

/* The key path a loader message names: "bad.json:3:5: a.b[0]: ..." gives
 * "a.b[0]"; a message about the top of the document gives "". */
static char *loader_path(const char *message)
{
	const char *p = message;

	for (int colons = 0; colons < 3 && p; colons++)
		if ((p = strchr(p, ':')))
			p++;
	cr_assert_not_null(p, "no position in '%s'", message);
	while (*p == ' ')
		p++;
	/* a key may hold a space ("variants.a b"); a message without a
	 * path has no ": " after the position */
	return strstr(p, ": ") ? strndup(p, (size_t)(strstr(p, ": ") - p))
			       : strdup("");
}

/* The validator itself */

Test(schema, validator_refuses_what_each_keyword_forbids)
{
	cJSON *schema = cJSON_Parse(
		"{\"type\": \"object\", \"properties\": {"
		"\"a\": {\"type\": \"integer\", \"minimum\": 1},"
		"\"b\": {\"type\": \"array\", \"items\": {\"enum\": [\"x\"]},"
		"        \"uniqueItems\": true},"
		"\"c\": {\"anyOf\": [{\"const\": 1}, {\"pattern\": \"^z+$\"}]}},"
		"\"required\": [\"a\"], \"additionalProperties\": false}");
	const char *const cases[][2] = {
		{ "{\"a\": 1, \"b\": [\"x\"], \"c\": \"zz\"}", NULL },
		{ "{\"a\": 1.5}", "a: wrong type" },
		{ "{\"a\": 0}", "a: below the minimum" },
		{ "{}", ": missing required key 'a'" },
		{ "{\"a\": 1, \"d\": 1}", "d: unknown key" },
		{ "{\"a\": 1, \"b\": [\"y\"]}", "b[0]: not one of the values" },
		{ "{\"a\": 1, \"b\": [\"x\", \"x\"]}", "b[1]: duplicate item" },
		{ "{\"a\": 1, \"c\": \"zy\"}", "c: matches none of anyOf" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cJSON *doc = cJSON_Parse(cases[i][0]);
		char *error = schema_error(schema, doc);

		if (!cases[i][1])
			cr_assert_null(error, "%s: %s", cases[i][0], error);
		else
			cr_assert(error && !strcmp(error, cases[i][1]),
				  "%s: '%s', expected '%s'", cases[i][0],
				  error ? error : "(valid)", cases[i][1]);
		free(error);
		cJSON_Delete(doc);
	}
	cJSON_Delete(schema);
}

/* Every suite there is */

/* Checks one suite text: it loads, and the schema finds it valid. */
static void check_suite(const cJSON *schema, const char *name,
			const char *text, struct strbuf *problems)
{
	cJSON *doc = cJSON_Parse(text);
	char *loader = loader_error(text);
	char *error = NULL;

	if (!doc) {
		/* comments: what the loader reads, the schema sees too
		 * only once they are gone; the loader's verdict decides */
		if (loader)
			strbuf_addf(problems, "%s: %s\n", name, loader);
		free(loader);
		return;
	}
	error = schema_error(schema, doc);
	if (loader)
		strbuf_addf(problems, "%s: the loader refuses it: %s\n", name,
			    loader);
	if (error)
		strbuf_addf(problems, "%s: the schema refuses it: %s\n", name,
			    error);
	free(error);
	free(loader);
	cJSON_Delete(doc);
}

/* Whether the block opening at fence in text is marked as a file named
 * bad*.json (docs/development.md, "Runnable blocks"). */
static bool planted_mistake(const char *text, const char *fence)
{
	const char *line;

	if (fence == text)
		return false;
	for (line = fence - 1; line > text && line[-1] != '\n'; line--)
		;
	return !strncmp(line, "<!-- file: bad", 14);
}

Test(schema, every_suite_in_the_repository_and_the_manual_is_valid)
{
	static const char *const globs[] = {
		"suites/*/suite.json", "tests/perf/*.json",
		"tests/fuzz/corpus/suite/*.json", "README.md", "docs/*.md",
		"docs/*/*.md", "docs/*/*/*.md",
	};
	cJSON *schema = load_schema("suite.schema.json");
	struct strbuf problems = STRBUF_INIT;
	size_t files = 0, blocks = 0;

	for (size_t g = 0; g < sizeof(globs) / sizeof(*globs); g++) {
		struct strbuf pattern = STRBUF_INIT;
		glob_t found = { 0 };

		strbuf_addf(&pattern, "%s/%s", BENCHGATE_SOURCE_DIR, globs[g]);
		glob(pattern.buf, 0, NULL, &found);
		for (size_t i = 0; i < found.gl_pathc; i++) {
			const char *name = found.gl_pathv[i] +
					   strlen(BENCHGATE_SOURCE_DIR) + 1;
			char *text = test_read_file(found.gl_pathv[i]);
			const char *p = text;

			cr_assert_not_null(text);
			if (!strstr(name, ".md")) {
				check_suite(schema, name, text, &problems);
				files++;
				free(text);
				continue;
			}
			/* the manual's ```json blocks that are whole suites */
			while ((p = strstr(p, "```json\n"))) {
				const char *body = p + strlen("```json\n");
				const char *end = strstr(body, "\n```");
				char *block;

				cr_assert_not_null(end, "%s: open block", name);
				block = strndup(body, (size_t)(end - body) + 1);
				/* the mistakes the manual shows on purpose
				 * are written to files named bad*.json */
				if (strstr(block, "\"benchgate\": 1") &&
				    block[0] == '{' &&
				    !planted_mistake(text, p)) {
					check_suite(schema, name, block,
						    &problems);
					blocks++;
				}
				free(block);
				p = end + 4;
			}
			free(text);
		}
		globfree(&found);
		strbuf_release(&pattern);
	}
	cr_assert_geq(files, 6, "found only %zu suite files", files);
	cr_assert_geq(blocks, 2, "found only %zu suites in the manual", blocks);
	cr_assert_str_empty(problems.buf, "%s", problems.buf);
	strbuf_release(&problems);
	cJSON_Delete(schema);
}

/* Schema and loader agree */

/* A suite with every kind of object the format has. */
static const char base_suite[] =
	"{\"benchgate\": 1, \"suite\": \"agree\", \"description\": \"d\","
	" \"defaults\": {\"warmup\": 1, \"runs\": 5, \"min_runs\": 3,"
	"   \"max_runs\": 9, \"precision\": \"2%\", \"timeout\": \"30s\","
	"   \"threshold\": 0.05, \"confidence\": 0.95, \"env\": {\"A\": \"1\"},"
	"   \"profile\": false},"
	" \"devices\": [\"cpu\", \"npu\"], \"declared_devices\": [\"npu\"],"
	" \"variants\": {\"original\": {\"vars\": {\"m\": \"x\"}},"
	"   \"small\": {\"vars\": {\"m\": \"y\"}, \"devices\": [\"cpu\"],"
	"     \"description\": \"s\"}},"
	" \"exclude\": [\"original/npu\"], \"reference\": \"original\","
	" \"benchmarks\": [{\"name\": \"b\", \"description\": \"b\","
	"   \"command\": [\"true\", \"${m}\"], \"runs\": 4,"
	"   \"metrics\": ["
	"     {\"name\": \"latency\", \"from\": \"metrics\", \"key\": \"t\","
	"      \"unit\": \"ms\", \"better\": \"lower\", \"role\": \"speed\","
	"      \"description\": \"l\"},"
	"     {\"name\": \"acc\", \"from\": \"metrics\", \"better\": \"higher\","
	"      \"exact\": true, \"tolerance\": 0.01, \"role\": \"accuracy\"},"
	"     {\"name\": \"out\", \"from\": \"stdout\", \"regex\": \"v=([0-9]+)\","
	"      \"gate\": false, \"devices\": [\"cpu\"]},"
	"     {\"name\": \"rss\", \"from\": \"rusage\", \"field\": \"maxrss\"},"
	"     {\"name\": \"per\", \"from\": \"metrics\", \"per\": \"acc\"}]}]}";

/* Where an object of each kind sits in base_suite, and its schema. */
static const struct {
	const char *where; /* slash-separated steps; "" for the top */
	const char *schema; /* a $ref into suite.schema.json, or "#" */
} sites[] = {
	{ "", "#" },
	{ "defaults", "#/$defs/settings" },
	{ "variants/small", "#/$defs/variant" },
	{ "benchmarks/0", "#/$defs/benchmark" },
	{ "benchmarks/0/metrics/0", "#/$defs/metric" },
};

static cJSON *walk(cJSON *doc, const char *where)
{
	char *copy = strdup(where), *step, *save = NULL;

	for (step = strtok_r(copy, "/", &save); step && doc;
	     step = strtok_r(NULL, "/", &save))
		doc = cJSON_IsArray(doc) ? cJSON_GetArrayItem(doc, atoi(step))
					 : cJSON_GetObjectItem(doc, step);
	free(copy);
	cr_assert_not_null(doc, "no %s in the base suite", where);
	return doc;
}

Test(schema, base_suite_is_valid_for_both)
{
	cJSON *schema = load_schema("suite.schema.json");
	cJSON *doc = cJSON_Parse(base_suite);
	char *error = schema_error(schema, doc);
	char *loader = loader_error(base_suite);

	cr_assert_null(error, "schema: %s", error);
	cr_assert_null(loader, "loader: %s", loader);
	cJSON_Delete(doc);
	cJSON_Delete(schema);
}

/* The keys the loader accepts in each object are the schema's properties:
 * an unknown key makes the loader list what it expected, and the list is
 * compared with the schema's. */
Test(schema, every_object_has_the_same_keys_in_schema_and_loader)
{
	cJSON *schema = load_schema("suite.schema.json");

	for (size_t i = 0; i < sizeof(sites) / sizeof(*sites); i++) {
		cJSON *doc = cJSON_Parse(base_suite);
		struct validation v = { .root = schema };
		const cJSON *object_schema =
			strcmp(sites[i].schema, "#")
				? resolve(&v, sites[i].schema)
				: schema;
		const cJSON *properties =
			cJSON_GetObjectItem(object_schema, "properties");
		const cJSON *property;
		char *text, *message, *list, *error;
		size_t listed = 0, defined = 0;

		cJSON_AddNumberToObject(walk(doc, sites[i].where),
					"zz_unknown", 1);
		text = cJSON_PrintUnformatted(doc);
		message = loader_error(text);
		cr_assert_not_null(message, "%s: the loader took zz_unknown",
				   sites[i].where);
		error = schema_error(schema, doc);
		cr_assert(error && strstr(error, "zz_unknown: unknown key"),
			  "%s: schema says %s", sites[i].where, error);
		list = strstr(message, "expected one of: ");
		cr_assert_not_null(list, "%s", message);
		list = strdup(list + strlen("expected one of: "));
		for (char *save = NULL, *key = strtok_r(list, ", ", &save); key;
		     key = strtok_r(NULL, ", ", &save)) {
			cr_assert_not_null(
				cJSON_GetObjectItemCaseSensitive(properties,
								 key),
				"%s: the loader takes '%s', the schema does "
				"not",
				sites[i].where, key);
			listed++;
		}
		cJSON_ArrayForEach(property, properties)
		defined++;
		cr_assert_eq(listed, defined,
			     "%s: the schema has %zu keys, the loader %zu (%s)",
			     sites[i].where, defined, listed, message);
		free(list);
		free(error);
		free(message);
		free(text);
		cJSON_Delete(doc);
	}
	cJSON_Delete(schema);
}

/*
 * Planted mistakes: each sets one member of base_suite (or, with a NULL
 * value, removes it). Both the schema and the loader must refuse the
 * result, at the same key path.
 */
static const struct {
	const char *where, *key, *value;
} mistakes[] = {
	/* the top */
	{ "", "suit", "\"agree\"" },
	{ "", "benchgate", "2" },
	{ "", "benchgate", "\"1\"" },
	{ "", "suite", "3" },
	{ "", "suite", "\"a b\"" },
	{ "", "suite", NULL },
	{ "", "benchmarks", NULL },
	{ "", "description", "1" },
	{ "", "$schema", "[]" },
	{ "", "devices", "\"cpu\"" },
	{ "", "devices", "[]" },
	{ "", "devices", "[\"cpu\", \"cpu\"]" },
	{ "", "devices", "[7]" },
	{ "", "declared_devices", "[\"\"]" },
	{ "", "variants", "[]" },
	{ "", "exclude", "\"original/npu\"" },
	{ "", "exclude", "[1]" },
	{ "", "reference", "1" },
	{ "", "benchmarks", "{}" },
	{ "", "benchmarks", "[]" },
	/* settings */
	{ "defaults", "warmups", "1" },
	{ "defaults", "warmup", "-1" },
	{ "defaults", "warmup", "1.5" },
	{ "defaults", "runs", "\"many\"" },
	{ "defaults", "runs", "0" },
	{ "defaults", "min_runs", "1" },
	{ "defaults", "precision", "\"1\"" },
	{ "defaults", "timeout", "\"ten minutes\"" },
	{ "defaults", "timeout", "-1" },
	{ "defaults", "threshold", "2" },
	{ "defaults", "threshold", "true" },
	{ "defaults", "confidence", "0.3" },
	{ "defaults", "confidence", "1" },
	{ "defaults", "env", "[]" },
	{ "defaults/env", "A", "1" },
	{ "defaults", "profile", "\"yes\"" },
	/* variants */
	{ "variants", "small", "\"x\"" },
	{ "variants", "a b", "{}" },
	{ "variants/small", "vars", "[]" },
	{ "variants/small/vars", "m", "1" },
	{ "variants/small", "devices", "\"cpu\"" },
	{ "variants/small", "device", "[\"cpu\"]" },
	/* a benchmark */
	{ "benchmarks/0", "comand", "[\"true\"]" },
	{ "benchmarks/0", "name", "\"\"" },
	{ "benchmarks/0", "name", NULL },
	{ "benchmarks/0", "command", "\"true\"" },
	{ "benchmarks/0", "command", "[]" },
	{ "benchmarks/0", "command", "[1]" },
	{ "benchmarks/0", "metrics", "{}" },
	{ "benchmarks/0", "metrics", "[]" },
	{ "benchmarks/0", "runs", "-3" },
	{ "benchmarks/0", "env", "\"A=1\"" },
	/* a metric */
	{ "benchmarks/0/metrics/0", "frm", "\"wall\"" },
	{ "benchmarks/0/metrics/0", "name", "5" },
	{ "benchmarks/0/metrics/0", "from", "\"clock\"" },
	{ "benchmarks/0/metrics/0", "from", "1" },
	{ "benchmarks/0/metrics/0", "from", NULL },
	{ "benchmarks/0/metrics/0", "better", "\"up\"" },
	{ "benchmarks/0/metrics/0", "key", "5" },
	{ "benchmarks/0/metrics/0", "unit", "5" },
	{ "benchmarks/0/metrics/0", "role", "\"fast\"" },
	{ "benchmarks/0/metrics/0", "gate", "1" },
	{ "benchmarks/0/metrics/0", "devices", "[]" },
	{ "benchmarks/0/metrics/1", "exact", "\"yes\"" },
	{ "benchmarks/0/metrics/1", "tolerance", "-1" },
};

Test(schema, schema_and_loader_refuse_each_planted_mistake_at_one_path)
{
	cJSON *schema = load_schema("suite.schema.json");
	struct strbuf problems = STRBUF_INIT;
	size_t n = sizeof(mistakes) / sizeof(*mistakes);

	cr_assert_geq(n, 40);
	for (size_t i = 0; i < n; i++) {
		cJSON *doc = cJSON_Parse(base_suite);
		cJSON *parent = walk(doc, mistakes[i].where);
		char *text, *message, *error, *path;

		cJSON_DeleteItemFromObjectCaseSensitive(parent,
							mistakes[i].key);
		if (mistakes[i].value) {
			cJSON *value = cJSON_Parse(mistakes[i].value);

			cr_assert_not_null(value, "%s", mistakes[i].value);
			cJSON_AddItemToObject(parent, mistakes[i].key, value);
		}
		text = cJSON_PrintUnformatted(doc);
		message = loader_error(text);
		error = schema_error(schema, doc);
		if (!message || !error) {
			strbuf_addf(&problems, "%s.%s = %s: %s\n",
				    mistakes[i].where, mistakes[i].key,
				    mistakes[i].value ? mistakes[i].value
						      : "(removed)",
				    !message ? "the loader takes it"
					     : "the schema takes it");
		} else {
			size_t len;

			path = loader_path(message);
			len = strlen(path);
			if (strncmp(error, path, len) || error[len] != ':')
				strbuf_addf(&problems,
					    "%s.%s = %s: the schema says '%s', "
					    "the loader '%s'\n",
					    mistakes[i].where, mistakes[i].key,
					    mistakes[i].value
						    ? mistakes[i].value
						    : "(removed)",
					    error, message);
			free(path);
		}
		free(message);
		free(error);
		free(text);
		cJSON_Delete(doc);
	}
	cr_assert_str_empty(problems.buf, "%s", problems.buf);
	strbuf_release(&problems);
	cJSON_Delete(schema);
}

/* The documents benchgate writes */

Test(schema, result_and_comparison_documents_match_their_schemas)
{
	static const struct {
		const char *schema, *pattern;
	} sets[] = {
		{ "result.schema.json", "tests/fuzz/corpus/result/*.json" },
		{ "comparison.schema.json",
		  "tests/fuzz/corpus/comparison/*.json" },
	};

	for (size_t s = 0; s < sizeof(sets) / sizeof(*sets); s++) {
		cJSON *schema = load_schema(sets[s].schema);
		struct strbuf pattern = STRBUF_INIT;
		glob_t found = { 0 };

		strbuf_addf(&pattern, "%s/%s", BENCHGATE_SOURCE_DIR,
			    sets[s].pattern);
		glob(pattern.buf, 0, NULL, &found);
		cr_assert_geq(found.gl_pathc, 2, "%s", pattern.buf);
		for (size_t i = 0; i < found.gl_pathc; i++) {
			char *text = test_read_file(found.gl_pathv[i]);
			cJSON *doc = cJSON_Parse(text);
			char *error = schema_error(schema, doc);

			cr_assert_null(error, "%s: %s", found.gl_pathv[i],
				       error);
			cJSON_Delete(doc);
			free(text);
		}
		globfree(&found);
		strbuf_release(&pattern);
		cJSON_Delete(schema);
	}
}
