/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/collectors.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/jsonread.h"
#include "harness/util/similar.h"
#include "harness/util/name.h"
#include "harness/bridge/bridge.h"
#include "harness/run/extractor.h"
#include "harness/probe/sampler.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Values quoted in messages are cut to this many bytes. */
#define QUOTE_MAX 40

struct benchmark_collectors {
	const struct benchmark *benchmark;
	regex_t *regexes; /* one per metric, valid where compiled */
	bool *compiled;
	bool watches[2]; /* a regex metric reads stdout, stderr */
};

/* The samples one regex metric got from the watched run so far. */
struct regex_samples {
	double *values;
	size_t nr, alloc;
	char *error; /* the first value that is not a number; then no more */
};

/* One stream of the watched run, cut into lines as it is read. */
struct line_splitter {
	struct strbuf partial; /* the line read so far, without its '\n' */
	size_t lines;	       /* lines started before partial */
	size_t overlong; /* the first line over COLLECT_LINE_MAX; 0: none */
	bool skipping;	 /* partial is that line, and not kept */
};

/* The regex metrics of the run that collectors_watch() prepared. */
struct watch {
	struct benchmark_collectors *bc; /* NULL: nothing watched */
	struct process_observer observer;
	struct line_splitter streams[2];
	struct regex_samples *samples; /* one per metric of bc's benchmark */
	bool finished;		       /* the last partial lines are matched */
};

struct collectors {
	struct benchmark_collectors *benchmarks;
	size_t nr;
	const struct sampler *sampler; /* NULL: nothing sampled */
	char **warned;		       /* reasons already told */
	size_t warned_nr, warned_alloc;
	struct watch watch;
};

/* The samples one metric got from this run, kept until every metric is in. */
struct pending {
	double *values;
	size_t nr, alloc;
	const char *unit; /* borrowed from the spec or the lines */
	bool collected;
	size_t independent; /* a bridge's count of its values (bridge.h) */
};

struct metric_line {
	const char *name;
	const char *value;
	const char *unit; /* NULL when the line has none */
};

/* The metrics file of this run, read when the first metric needs it. */
struct metrics_file {
	bool loaded;
	struct strbuf text;
	cJSON *json; /* the JSON form, or NULL for lines */
	struct metric_line *lines;
	size_t lines_nr, lines_alloc;
	/* the "@model JSON" line's JSON (in text) and its number; NULL: none
	 * (model_summary.h) */
	const char *model_json;
	int model_line;
};

/* JSON files of the `file` source, read once per run each. */
struct json_file {
	char *path;
	cJSON *json;
};

/* A peer's document of a bridge source, read once per run. */
struct bridge_file {
	char *path;
	struct bridge_doc doc;
};

/* What one extractor printed in this run (extractor.h): metrics with the
 * same command share one run of it. */
struct extracted {
	const struct metric_spec *first; /* the metric that ran it */
	struct metrics_file output;
};

struct collect_state {
	struct collectors *collectors;
	const struct collect_run *run;
	const struct metric_spec *spec; /* the metric being collected */
	struct pending *pending;	/* ... and its samples */
	struct metrics_file metrics;
	struct extracted *extracted;
	size_t extracted_nr, extracted_alloc;
	struct json_file *files;
	size_t files_nr, files_alloc;
	struct bridge_file *bridges;
	size_t bridges_nr, bridges_alloc;
};

int collectors_new(struct collectors **out, const struct suite *suite)
{
	struct collectors *collectors = xcalloc(1, sizeof(*collectors));
	int error;

	strbuf_init(&collectors->watch.streams[0].partial, 0);
	strbuf_init(&collectors->watch.streams[1].partial, 0);
	if ((error = collectors_add_suite(collectors, suite)) < 0) {
		collectors_free(collectors);
		return error;
	}
	*out = collectors;
	return BG_OK;
}

int collectors_add_suite(struct collectors *collectors,
			 const struct suite *suite)
{
	size_t first = collectors->nr;
	int error = BG_OK;

	collectors->benchmarks =
		xrealloc(collectors->benchmarks,
			 (first + suite->benchmarks_nr + 1) *
				 sizeof(*collectors->benchmarks));
	memset(&collectors->benchmarks[first], 0,
	       (suite->benchmarks_nr + 1) * sizeof(*collectors->benchmarks));
	collectors->nr = first + suite->benchmarks_nr;
	for (size_t b = 0; b < suite->benchmarks_nr && !error; b++) {
		const struct benchmark *benchmark = &suite->benchmarks[b];
		struct benchmark_collectors *bc =
			&collectors->benchmarks[first + b];

		bc->benchmark = benchmark;
		bc->regexes = xcalloc(benchmark->metrics_nr + 1,
				      sizeof(*bc->regexes));
		bc->compiled = xcalloc(benchmark->metrics_nr + 1,
				       sizeof(*bc->compiled));
		for (size_t m = 0; m < benchmark->metrics_nr; m++) {
			const struct metric_spec *spec = &benchmark->metrics[m];
			char why[256];
			int rc;

			if (spec->from != SOURCE_STDOUT &&
			    spec->from != SOURCE_STDERR)
				continue;
			/* it is not quoted: the newline would end the line */
			if (strchr(spec->regex, '\n')) {
				error = bg_input_error(
					"benchmark '%s': metric '%s': the "
					"regular expression has a newline in "
					"it; stdout and stderr are matched "
					"one line at a time",
					benchmark->name, spec->name);
				break;
			}
			bc->watches[spec->from == SOURCE_STDERR] = true;
			rc = regcomp(&bc->regexes[m], spec->regex,
				     REG_EXTENDED | REG_NEWLINE);
			if (rc) {
				regerror(rc, &bc->regexes[m], why, sizeof(why));
				error = bg_input_error(
					"benchmark '%s': metric '%s': invalid "
					"regular expression '%s': %s",
					benchmark->name, spec->name,
					spec->regex, why);
				break;
			}
			bc->compiled[m] = true;
			if (bc->regexes[m].re_nsub < 1) {
				error = bg_input_error(
					"benchmark '%s': metric '%s': regular "
					"expression '%s' has no capture group",
					benchmark->name, spec->name,
					spec->regex);
				break;
			}
		}
	}
	return error;
}

/* Empties the watch, keeping the buffers of its lines for the next. */
static void watch_clear(struct watch *watch)
{
	if (watch->bc) {
		for (size_t m = 0; m < watch->bc->benchmark->metrics_nr; m++) {
			free(watch->samples[m].values);
			free(watch->samples[m].error);
		}
	}
	free(watch->samples);
	watch->samples = NULL;
	watch->bc = NULL;
	watch->finished = false;
	for (int i = 0; i < 2; i++) {
		struct line_splitter *lines = &watch->streams[i];

		strbuf_setlen(&lines->partial, 0);
		lines->lines = 0;
		lines->overlong = 0;
		lines->skipping = false;
	}
}

void collectors_free(struct collectors *collectors)
{
	if (!collectors)
		return;
	watch_clear(&collectors->watch);
	strbuf_release(&collectors->watch.streams[0].partial);
	strbuf_release(&collectors->watch.streams[1].partial);
	for (size_t b = 0; b < collectors->nr; b++) {
		struct benchmark_collectors *bc = &collectors->benchmarks[b];

		if (!bc->benchmark)
			continue;
		for (size_t m = 0; m < bc->benchmark->metrics_nr; m++)
			if (bc->compiled[m])
				regfree(&bc->regexes[m]);
		free(bc->regexes);
		free(bc->compiled);
	}
	free(collectors->benchmarks);
	for (size_t i = 0; i < collectors->warned_nr; i++)
		free(collectors->warned[i]);
	free(collectors->warned);
	free(collectors);
}

void collectors_set_sampler(struct collectors *collectors,
			    const struct sampler *sampler)
{
	collectors->sampler = sampler;
}

static struct benchmark_collectors *
find_benchmark(struct collectors *collectors, const struct benchmark *benchmark)
{
	for (size_t b = 0; b < collectors->nr; b++)
		if (collectors->benchmarks[b].benchmark == benchmark)
			return &collectors->benchmarks[b];
	return NULL;
}

/* Records "metric '<name>': <message>" and returns BG_ERROR. */
static int metric_error(const struct collect_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int metric_error(const struct collect_state *state, const char *fmt, ...)
{
	struct strbuf message = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&message, fmt, ap);
	va_end(ap);
	bg_error("metric '%s': %s", state->spec->name, message.buf);
	strbuf_release(&message);
	return BG_ERROR;
}

/* Appends text cut to QUOTE_MAX bytes, unprintable bytes as '?'. */
static void add_quoted(struct strbuf *out, const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < QUOTE_MAX; i++)
		strbuf_addch(out,
			     isprint((unsigned char)text[i]) ? text[i] : '?');
	if (len > QUOTE_MAX)
		strbuf_addstr(out, "...");
}

static void push_value(struct pending *pending, double value)
{
	ALLOC_GROW(pending->values, pending->nr + 1, pending->alloc);
	pending->values[pending->nr++] = value;
}

/*
 * Parses text (surrounding whitespace allowed) as one finite number into
 * *value; else BG_ERROR, with "value 'x' is not a finite number" in why.
 */
static int parse_number(const char *text, size_t len, double *value,
			struct strbuf *why)
{
	struct strbuf copy = STRBUF_INIT;
	char *end = NULL;
	int error = BG_OK;

	*value = NAN;
	strbuf_add(&copy, text, len);
	strbuf_rtrim(&copy);
	text = copy.buf;
	while (isspace((unsigned char)*text))
		text++;
	if (*text)
		*value = strtod(text, &end);
	if (!*text || *end || !isfinite(*value)) {
		strbuf_addstr(why, "value '");
		add_quoted(why, text, strlen(text));
		strbuf_addstr(why, "' is not a finite number");
		error = BG_ERROR;
	}
	strbuf_release(&copy);
	return error;
}

static int push_number_text(struct collect_state *state, const char *text,
			    size_t len)
{
	struct strbuf why = STRBUF_INIT;
	double value;
	int error = BG_OK;

	if (parse_number(text, len, &value, &why) < 0)
		error = metric_error(state, "%s", why.buf);
	else
		push_value(state->pending, value);
	strbuf_release(&why);
	return error;
}

static int collect_rusage(struct collect_state *state)
{
	const struct process_outcome *outcome = state->run->outcome;
	const char *field = state->spec->field ? state->spec->field : "";

	if (!strcmp(field, "utime")) {
		push_value(state->pending, outcome->utime_s);
	} else if (!strcmp(field, "stime")) {
		push_value(state->pending, outcome->stime_s);
	} else if (!strcmp(field, "maxrss")) {
		push_value(state->pending, (double)outcome->maxrss_bytes);
		if (!state->pending->unit)
			state->pending->unit = "B";
		return BG_OK;
	} else {
		return metric_error(state,
				    "unknown rusage field '%s'; "
				    "expected utime, stime or maxrss",
				    field);
	}
	if (!state->pending->unit)
		state->pending->unit = "s";
	return BG_OK;
}

static void regex_samples_push(struct regex_samples *samples, double value)
{
	ALLOC_GROW(samples->values, samples->nr + 1, samples->alloc);
	samples->values[samples->nr++] = value;
}

/* Takes every match of one regex in one line (without its '\n'). */
static void match_line(struct regex_samples *samples, const regex_t *regex,
		       const char *line, size_t len)
{
	regmatch_t match[2];
	size_t at = 0;

	while (at <= len && !samples->error) {
		struct strbuf why = STRBUF_INIT;
		double value;

		match[0].rm_so = (regoff_t)at;
		match[0].rm_eo = (regoff_t)len;
		/* REG_STARTEND: offsets bound the search, so NUL bytes in
		 * the output do not end it; the line starts the string, so
		 * '^' matches there only */
		if (regexec(regex, line, 2, match, REG_STARTEND))
			break;
		if (match[1].rm_so >= 0) {
			if (parse_number(
				    line + match[1].rm_so,
				    (size_t)(match[1].rm_eo - match[1].rm_so),
				    &value, &why) < 0)
				samples->error = strbuf_detach(&why, NULL);
			else
				regex_samples_push(samples, value);
		}
		strbuf_release(&why);
		/* an empty match would match again at the same place */
		at = (size_t)match[0].rm_eo +
		     (match[0].rm_eo == match[0].rm_so);
	}
}

static enum metric_source stream_source(enum process_stream stream)
{
	return stream == PROCESS_STDERR ? SOURCE_STDERR : SOURCE_STDOUT;
}

/* Hands one complete line of stream to each regex metric that reads it. */
static void watch_line(struct watch *watch, enum process_stream stream,
		       const char *line, size_t len)
{
	const struct benchmark *benchmark = watch->bc->benchmark;

	for (size_t m = 0; m < benchmark->metrics_nr; m++)
		if (benchmark->metrics[m].from == stream_source(stream) &&
		    watch->bc->compiled[m])
			match_line(&watch->samples[m], &watch->bc->regexes[m],
				   line, len);
}

/*
 * The observer (process.h): cuts the output into lines as it arrives, each
 * gathered in partial until its newline comes. So every line is matched
 * as a string of its own, NUL-terminated: sanitizers' regexec() reads the
 * subject up to its NUL whatever REG_STARTEND says. A line that grows past
 * COLLECT_LINE_MAX is noted and skipped to its end.
 */
static void watch_output(void *payload, enum process_stream stream,
			 const char *data, size_t len)
{
	struct watch *watch = payload;
	struct line_splitter *lines = &watch->streams[stream];
	const char *end = data + len;

	if (!watch->bc->watches[stream])
		return;
	while (data < end) {
		const char *newline = memchr(data, '\n', (size_t)(end - data));
		size_t part = (size_t)((newline ? newline : end) - data);

		if (!lines->skipping &&
		    lines->partial.len + part > COLLECT_LINE_MAX) {
			if (!lines->overlong)
				lines->overlong = lines->lines + 1;
			lines->skipping = true;
			strbuf_setlen(&lines->partial, 0);
		}
		if (!lines->skipping)
			strbuf_add(&lines->partial, data, part);
		if (!newline)
			return;
		lines->lines++;
		if (!lines->skipping)
			watch_line(watch, stream, lines->partial.buf,
				   lines->partial.len);
		lines->skipping = false;
		strbuf_setlen(&lines->partial, 0);
		data = newline + 1;
	}
}

void collectors_watch(struct collectors *collectors,
		      const struct benchmark *benchmark,
		      struct process_options *options)
{
	struct watch *watch = &collectors->watch;
	struct benchmark_collectors *bc = find_benchmark(collectors, benchmark);

	assert(bc && "the benchmark is not in the collectors' suite");
	watch_clear(watch);
	if (!bc->watches[0] && !bc->watches[1])
		return;
	watch->bc = bc;
	watch->samples =
		xcalloc(benchmark->metrics_nr + 1, sizeof(*watch->samples));
	watch->observer.output = watch_output;
	watch->observer.payload = watch;
	options->observer = &watch->observer;
}

/* Matches the last line of each stream, if the output did not end with a
 * newline: the run is over, so it is complete. */
static void watch_finish(struct watch *watch)
{
	if (watch->finished)
		return;
	watch->finished = true;
	for (int i = 0; i < 2; i++) {
		struct line_splitter *lines = &watch->streams[i];

		if (lines->skipping || !lines->partial.len)
			continue;
		lines->lines++;
		watch_line(watch, (enum process_stream)i, lines->partial.buf,
			   lines->partial.len);
		strbuf_setlen(&lines->partial, 0);
	}
}

/* Takes the samples the watch gathered for the metric being collected. */
static int collect_regex(struct collect_state *state, size_t m,
			 enum process_stream stream)
{
	struct watch *watch = &state->collectors->watch;
	const char *name = stream == PROCESS_STDERR ? "stderr" : "stdout";
	struct regex_samples *samples;
	struct pending *pending = state->pending;

	assert(watch->bc &&
	       watch->bc->benchmark == state->run->pcase->benchmark &&
	       "collectors_watch() was not called for this run");
	watch_finish(watch);
	samples = &watch->samples[m];
	if (samples->error)
		return metric_error(state, "%s", samples->error);
	if (watch->streams[stream].overlong)
		return metric_error(state,
				    "line %zu of %s is longer than %zu KiB, "
				    "the longest line a regex is matched "
				    "against; a value in it would be lost",
				    watch->streams[stream].overlong, name,
				    COLLECT_LINE_MAX >> 10);
	if (!samples->nr)
		return metric_error(state, "regex '%s' matched nothing in %s",
				    state->spec->regex, name);
	/* handed over whole: a flood of lines is not copied twice */
	assert(!pending->values);
	pending->values = samples->values;
	pending->nr = samples->nr;
	pending->alloc = samples->alloc;
	samples->values = NULL;
	samples->nr = samples->alloc = 0;
	return BG_OK;
}

static const cJSON *json_lookup(const cJSON *item, const char *key);

/* "[N]" at the start of key into array item, then the rest of key. */
static const cJSON *json_lookup_index(const cJSON *item, const char *key)
{
	const char *digits = key + 1;
	char *end;
	unsigned long index;

	if (!cJSON_IsArray(item) || !isdigit((unsigned char)*digits))
		return NULL;
	errno = 0;
	index = strtoul(digits, &end, 10);
	if (*end != ']' || errno || index > INT_MAX ||
	    !(item = cJSON_GetArrayItem(item, (int)index)))
		return NULL;
	if (!end[1])
		return item;
	return end[1] == '.' ? json_lookup(item, end + 2)
	       : end[1] == '[' ? json_lookup_index(item, end + 1)
			       : NULL;
}

/* The value at key: a member of that exact name, else a path of members
 * ("a.b") and array elements ("results[0].times", "a.b[2]") into nested
 * values. Every split is tried, so that "a.b.c" finds {"a.b": {"c": 1}}
 * as well as {"a": {"b.c": 1}}, and "a[0]" a member named so. */
static const cJSON *json_lookup(const cJSON *item, const char *key)
{
	const cJSON *found;
	const char *split;

	if (*key == '[')
		return json_lookup_index(item, key);
	if (!cJSON_IsObject(item))
		return NULL;
	if ((found = cJSON_GetObjectItemCaseSensitive(item, key)))
		return found;
	for (split = strpbrk(key, ".["); split;
	     split = strpbrk(split + 1, ".[")) {
		size_t len = (size_t)(split - key);
		const cJSON *child;

		for (child = item->child; child; child = child->next) {
			if (!child->string || strlen(child->string) != len ||
			    strncmp(child->string, key, len) != 0)
				continue;
			if ((found = json_lookup(child, *split == '.'
								? split + 1
								: split)))
				return found;
		}
	}
	return NULL;
}

static void describe_json(struct strbuf *out, const cJSON *item)
{
	if (cJSON_IsString(item)) {
		strbuf_addstr(out, "the string '");
		add_quoted(out, item->valuestring, strlen(item->valuestring));
		strbuf_addch(out, '\'');
	} else if (cJSON_IsObject(item)) {
		strbuf_addstr(out, "an object");
	} else if (cJSON_IsArray(item)) {
		strbuf_addstr(out, "an array");
	} else if (cJSON_IsBool(item)) {
		strbuf_addstr(out, cJSON_IsTrue(item) ? "true" : "false");
	} else {
		strbuf_addstr(out, "null");
	}
}

static int push_json_number(struct collect_state *state, const cJSON *item)
{
	if (!isfinite(item->valuedouble))
		return metric_error(state, "value '%g' is not a finite number",
				    item->valuedouble);
	push_value(state->pending, item->valuedouble);
	return BG_OK;
}

/* The most keys a "missing" message lists. */
#define KEYS_LISTED 8

/* "key 'K' missing from WHERE; it has 'a', 'b' (closest first)": the
 * names that were there, so that a typo shows itself. */
static int missing_key(struct collect_state *state, const char *key,
		       const char *where, const char **names, size_t nr)
{
	struct strbuf list = STRBUF_INIT;
	int error;

	nr = similar_sort(names, nr, key);
	for (size_t i = 0; i < nr && i < KEYS_LISTED; i++) {
		strbuf_addstr(&list, i ? ", '" : "'");
		add_quoted(&list, names[i], strlen(names[i]));
		strbuf_addch(&list, '\'');
	}
	if (nr > KEYS_LISTED)
		strbuf_addf(&list, " and %zu more", nr - KEYS_LISTED);
	if (nr)
		error = metric_error(state,
				     "key '%s' missing from %s; it has %s "
				     "(closest first)",
				     key, where, list.buf);
	else
		error = metric_error(state, "key '%s' missing from %s; it has "
					    "no keys",
				     key, where);
	strbuf_release(&list);
	return error;
}

/* Takes the samples at key of a JSON document; `where` names it. */
static int collect_json(struct collect_state *state, const cJSON *root,
			const char *where)
{
	const char *key = state->spec->key ? state->spec->key
					   : state->spec->name;
	const cJSON *item;
	struct strbuf what = STRBUF_INIT;
	const cJSON *element;
	int error = BG_OK, index = 0;

	assert(root);
	item = json_lookup(root, key);
	if (!item) {
		const char **names = xcalloc(
			(size_t)cJSON_GetArraySize(root) + 1, sizeof(*names));
		size_t nr = 0;

		/* the top level's members: where a path starts */
		for (const cJSON *child = root->child; child;
		     child = child->next)
			if (child->string)
				names[nr++] = child->string;
		error = missing_key(state, key, where, names, nr);
		free(names);
		return error;
	}
	if (cJSON_IsNumber(item))
		return push_json_number(state, item);
	if (!cJSON_IsArray(item)) {
		describe_json(&what, item);
		error = metric_error(state,
				     "key '%s' in %s is %s, not a "
				     "number or an array of numbers",
				     key, where, what.buf);
		goto done;
	}
	cJSON_ArrayForEach(element, item)
	{
		if (!cJSON_IsNumber(element)) {
			describe_json(&what, element);
			error = metric_error(state,
					     "key '%s' in %s: element "
					     "%d is %s, not a number",
					     key, where, index, what.buf);
			goto done;
		}
		if ((error = push_json_number(state, element)) < 0)
			goto done;
		index++;
	}
	if (!index)
		error = metric_error(state, "key '%s' in %s is an empty array",
				     key, where);
done:
	strbuf_release(&what);
	return error;
}

/* Parses text as JSON; `where` names it in the message on failure. */
static int parse_json(struct collect_state *state, const struct strbuf *text,
		      const char *where, cJSON **out)
{
	struct strbuf near = STRBUF_INIT;
	const char *end = NULL;
	int line, col;

	*out = cJSON_ParseWithLengthOpts(text->buf, text->len, &end, 0);
	if (*out && cJSON_IsObject(*out))
		return BG_OK;
	/* BG_ERROR spelled out: the analyzers do not follow variadic calls */
	if (*out) {
		cJSON_Delete(*out);
		*out = NULL;
		metric_error(state, "%s is JSON but not an object", where);
		return BG_ERROR;
	}
	if (!end || end < text->buf || end > text->buf + text->len)
		end = text->buf + text->len;
	json_line_col(text->buf, (size_t)(end - text->buf), &line, &col);
	add_quoted(&near, end, strcspn(end, "\n"));
	metric_error(state,
		     "%s is not valid JSON: line %d, column %d, "
		     "near '%s'",
		     where, line, col, near.buf);
	strbuf_release(&near);
	return BG_ERROR;
}

/* Takes a line "@NAME REST": today only "@model JSON", the case's model
 * summary, whose JSON is read after the metrics (take_model()). */
static int parse_annotation(struct collect_state *state,
			    struct metrics_file *metrics, char *line,
			    const char *what, int line_nr)
{
	size_t len = strcspn(line, " \t");
	struct strbuf quoted = STRBUF_INIT;
	int error;

	if (len == 6 && !strncmp(line, "@model", 6)) {
		line += len;
		while (isspace((unsigned char)*line))
			line++;
		metrics->model_json = line;
		metrics->model_line = line_nr;
		return BG_OK;
	}
	add_quoted(&quoted, line, len);
	error = metric_error(state,
			     "%s line %d: unknown annotation '%s'; expected "
			     "'@model'",
			     what, line_nr, quoted.buf);
	strbuf_release(&quoted);
	return error;
}

/* Reads the metrics file's "@model" line into the case: each run writes
 * the same summary, and the last one read stays. */
static int take_model(struct collect_state *state, struct result_case *rcase)
{
	const struct metrics_file *metrics = &state->metrics;
	struct model_summary *summary = NULL;
	struct strbuf where = STRBUF_INIT;
	struct json_reader rd;
	int error;

	strbuf_addf(&where, "the metrics file '%s', @model line %d",
		    state->run->metrics_path, metrics->model_line);
	error = json_reader_parse(&rd, where.buf, metrics->model_json,
				  strlen(metrics->model_json));
	if (!error)
		error = model_summary_read(&rd, rd.root, &summary);
	if (!error) {
		model_summary_free(rcase->model);
		rcase->model = summary;
	}
	json_reader_release(&rd);
	strbuf_release(&where);
	return error;
}

/* Splits the "name value [unit]" lines of metrics (read from `what`) in
 * place. */
static int parse_metric_lines(struct collect_state *state,
			      struct metrics_file *metrics, const char *what)
{
	char *line = metrics->text.buf;
	int line_nr = 0;

	while (line < metrics->text.buf + metrics->text.len) {
		char *newline = memchr(
			line, '\n',
			(size_t)(metrics->text.buf + metrics->text.len - line));
		char *fields[4] = { NULL, NULL, NULL, NULL };
		char *next = newline ? newline + 1
				     : metrics->text.buf + metrics->text.len;
		char *p = line;
		int nr = 0;

		line_nr++;
		if (newline)
			*newline = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '@') {
			int error = parse_annotation(state, metrics, p, what,
						     line_nr);

			if (error < 0)
				return error;
		} else if (*p && *p != '#') {
			struct strbuf copy = STRBUF_INIT;
			int error;

			strbuf_addstr(&copy, p);
			strbuf_rtrim(&copy);
			while (*p && nr < 4) {
				fields[nr++] = p;
				while (*p && !isspace((unsigned char)*p))
					p++;
				while (isspace((unsigned char)*p))
					*p++ = '\0';
			}
			if (nr < 2 || nr > 3) {
				struct strbuf quoted = STRBUF_INIT;

				add_quoted(&quoted, copy.buf, copy.len);
				error = metric_error(
					state,
					"%s line %d: expected "
					"'name value [unit]', found '%s'",
					what, line_nr, quoted.buf);
				strbuf_release(&quoted);
				strbuf_release(&copy);
				return error;
			}
			/* the reader's rule for units (name.h), here where
			 * it enters, not when the stored result is read */
			if (nr == 3 && !name_printable(fields[2])) {
				struct strbuf quoted = STRBUF_INIT;

				add_quoted(&quoted, fields[2],
					   strlen(fields[2]));
				error = metric_error(
					state,
					"%s line %d: the unit '%s' is not "
					NAME_PRINTABLE,
					what, line_nr, quoted.buf);
				strbuf_release(&quoted);
				strbuf_release(&copy);
				return error;
			}
			strbuf_release(&copy);
			ALLOC_GROW(metrics->lines, metrics->lines_nr + 1,
				   metrics->lines_alloc);
			metrics->lines[metrics->lines_nr].name = fields[0];
			metrics->lines[metrics->lines_nr].value = fields[1];
			metrics->lines[metrics->lines_nr].unit = fields[2];
			metrics->lines_nr++;
		}
		line = next;
	}
	return BG_OK;
}

/*
 * Reads the regular file at path into text, at most COLLECT_FILE_MAX bytes:
 * parsed, a file takes ten times its size and more, and a benchmark that
 * dumps 100 MB into it must fail its case, not exhaust the machine. `what`
 * names the file in messages. BG_ENOTFOUND, without a message, when there
 * is no such file.
 */
static int read_bounded(struct collect_state *state, const char *path,
			const char *what, struct strbuf *text)
{
	char chunk[65536];
	struct stat st;
	ssize_t got;
	int fd, error = BG_OK;

	/* non-blocking: a FIFO left there must not hang the run */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return BG_ENOTFOUND;
	if (fd < 0 || fstat(fd, &st) < 0) {
		error = metric_error(state, "cannot read %s: %s", what,
				     strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = metric_error(state, "%s is not a regular file", what);
		goto done;
	}
	if ((uintmax_t)st.st_size > COLLECT_FILE_MAX) {
		error = metric_error(state,
				     "%s is %jd bytes; the limit is %zu bytes "
				     "(%zu MiB)",
				     what, (intmax_t)st.st_size,
				     COLLECT_FILE_MAX, COLLECT_FILE_MAX >> 20);
		goto done;
	}
	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			error = metric_error(state, "cannot read %s: %s", what,
					     strerror(errno));
			goto done;
		}
		/* still growing: a descendant of the benchmark writes on */
		if (text->len + (size_t)got > COLLECT_FILE_MAX) {
			error = metric_error(state,
					     "%s grew past the limit of %zu "
					     "bytes (%zu MiB) while read",
					     what, COLLECT_FILE_MAX,
					     COLLECT_FILE_MAX >> 20);
			goto done;
		}
		strbuf_add(text, chunk, (size_t)got);
	}
done:
	if (fd >= 0)
		close(fd);
	return error;
}

/* Parses metrics->text, one JSON object or "name value [unit]" lines;
 * `what` and `lines_of` name it in messages. */
static int parse_metrics_text(struct collect_state *state,
			      struct metrics_file *metrics, const char *what,
			      const char *lines_of)
{
	const char *first = metrics->text.buf;

	metrics->loaded = true;
	while (isspace((unsigned char)*first))
		first++;
	if (*first == '{' || *first == '[')
		return parse_json(state, &metrics->text, what, &metrics->json);
	return parse_metric_lines(state, metrics, lines_of);
}

static void metrics_file_release(struct metrics_file *metrics)
{
	cJSON_Delete(metrics->json);
	free(metrics->lines);
	strbuf_release(&metrics->text);
}

static int load_metrics_file(struct collect_state *state)
{
	struct metrics_file *metrics = &state->metrics;
	const char *path = state->run->metrics_path;

	if (metrics->loaded)
		return BG_OK;
	struct strbuf what = STRBUF_INIT;
	int error = BG_ENOTFOUND;

	if (path) {
		strbuf_addf(&what, "the metrics file '%s'", path);
		error = read_bounded(state, path, what.buf, &metrics->text);
		strbuf_release(&what);
	}
	if (error == BG_ENOTFOUND)
		return metric_error(state, "the benchmark wrote no metrics "
					   "file ($BENCHGATE_METRICS_FILE)");
	if (error < 0)
		return error;
	return parse_metrics_text(state, metrics, "the metrics file",
				  "metrics file");
}

/* The metric's samples from a parsed metrics file, or an extractor's
 * output read as one (`what` names it). */
static int collect_from_metrics(struct collect_state *state,
				const struct metrics_file *metrics,
				const char *what)
{
	const char *key = state->spec->key ? state->spec->key
					   : state->spec->name;
	int error;

	if (metrics->json)
		return collect_json(state, metrics->json, what);
	for (size_t i = 0; i < metrics->lines_nr; i++) {
		const struct metric_line *line = &metrics->lines[i];

		if (strcmp(line->name, key) != 0)
			continue;
		if ((error = push_number_text(state, line->value,
					      strlen(line->value))) < 0)
			return error;
		if (!state->pending->unit)
			state->pending->unit = line->unit;
	}
	if (!state->pending->nr) {
		const char **names =
			xcalloc(metrics->lines_nr + 1, sizeof(*names));

		for (size_t i = 0; i < metrics->lines_nr; i++)
			names[i] = metrics->lines[i].name;
		error = missing_key(state, key, what, names,
				    metrics->lines_nr);
		free(names);
		return error;
	}
	return BG_OK;
}

static int collect_metrics_file(struct collect_state *state)
{
	int error = load_metrics_file(state);

	return error < 0 ? error
			 : collect_from_metrics(state, &state->metrics,
						"the metrics file");
}

static bool same_argv(char *const *a, char *const *b)
{
	while (*a && *b && !strcmp(*a, *b))
		a++, b++;
	return !*a && !*b;
}

/* The output of the metric's extractor in this run, run on first use. */
static int extracted_output(struct collect_state *state,
			    const struct metrics_file **out)
{
	const struct collect_run *run = state->run;
	const struct metric_spec *spec = state->spec;
	struct extracted *e;
	struct strbuf what = STRBUF_INIT;
	int error;

	for (size_t i = 0; i < state->extracted_nr; i++)
		if (same_argv(state->extracted[i].first->command,
			      spec->command)) {
			*out = &state->extracted[i].output;
			return BG_OK;
		}
	if (!run->run_dir)
		return metric_error(state, "an extractor needs the run's "
					   "directory, and this run has none");
	ALLOC_GROW(state->extracted, state->extracted_nr + 1,
		   state->extracted_alloc);
	e = &state->extracted[state->extracted_nr++];
	e->first = spec;
	strbuf_init(&e->output.text, 0);
	if ((error = extractor_run(
		     &(struct extractor_run){
			     .plan = run->plan,
			     .pcase = run->pcase,
			     .run = run->run,
			     .argv_templates =
				     (const char *const *)spec->command,
			     .run_dir = run->run_dir,
			     .metrics_path = run->metrics_path,
			     .outcome = run->outcome,
			     .max_output = COLLECT_FILE_MAX,
		     },
		     &e->output.text)) < 0) {
		char *why = xstrdup(bg_error_last());

		error = metric_error(state, "%s", why);
		free(why);
		return error;
	}
	strbuf_addf(&what, "the output of extractor '%s'", spec->command[0]);
	error = parse_metrics_text(state, &e->output, what.buf, what.buf);
	strbuf_release(&what);
	*out = &e->output;
	return error;
}

static int collect_command(struct collect_state *state)
{
	const struct metrics_file *output = NULL;
	struct strbuf what = STRBUF_INIT;
	int error;

	if ((error = extracted_output(state, &output)) < 0)
		return error;
	strbuf_addf(&what, "the output of extractor '%s'",
		    state->spec->command[0]);
	error = collect_from_metrics(state, output, what.buf);
	strbuf_release(&what);
	return error;
}

/* The parsed JSON file at path, read on first use in this run. */
static int load_json_file(struct collect_state *state, const char *path,
			  const char *where, const cJSON **out)
{
	struct strbuf text = STRBUF_INIT;
	struct json_file *file;
	cJSON *json = NULL;
	int error;

	for (size_t i = 0; i < state->files_nr; i++) {
		if (!strcmp(state->files[i].path, path)) {
			*out = state->files[i].json;
			return BG_OK;
		}
	}
	if ((error = read_bounded(state, path, where, &text)) < 0) {
		if (error == BG_ENOTFOUND)
			metric_error(state, "cannot open %s: %s", where,
				     strerror(ENOENT));
		strbuf_release(&text);
		return BG_ERROR;
	}
	if (parse_json(state, &text, where, &json) < 0) {
		strbuf_release(&text);
		return BG_ERROR;
	}
	ALLOC_GROW(state->files, state->files_nr + 1, state->files_alloc);
	file = &state->files[state->files_nr++];
	file->path = xstrdup(path);
	file->json = json;
	*out = json;
	strbuf_release(&text);
	return BG_OK;
}

/* The spec's path template expanded for the run, relative to where the
 * benchmark ran (the suite's directory) unless absolute. */
static int run_file_path(struct collect_state *state, struct strbuf *path)
{
	const struct collect_run *run = state->run;
	struct strbuf expanded = STRBUF_INIT;
	int error;

	if ((error = plan_case_expand(run->pcase, run->plan, run->run,
				      state->spec->path, &expanded)) == BG_OK) {
		if (expanded.buf[0] != '/')
			strbuf_addf(path, "%s/", run->pcase->suite->dir);
		strbuf_addstr(path, expanded.buf);
	}
	strbuf_release(&expanded);
	return error;
}

static int collect_file(struct collect_state *state)
{
	struct strbuf path = STRBUF_INIT;
	struct strbuf where = STRBUF_INIT;
	const cJSON *json = NULL;
	int error;

	if ((error = run_file_path(state, &path)) < 0)
		goto done;
	strbuf_addf(&where, "'%s'", path.buf);
	if ((error = load_json_file(state, path.buf, where.buf, &json)) < 0)
		goto done;
	error = collect_json(state, json, where.buf);
done:
	strbuf_release(&path);
	strbuf_release(&where);
	return error;
}

/* The peer's document at path, read on first use in this run. */
static int load_bridge(struct collect_state *state, enum bridge_format format,
		       const char *path, const struct bridge_doc **out)
{
	struct strbuf text = STRBUF_INIT, where = STRBUF_INIT;
	struct bridge_file *file;
	int error;

	for (size_t i = 0; i < state->bridges_nr; i++) {
		if (!strcmp(state->bridges[i].path, path) &&
		    state->bridges[i].doc.format == format) {
			*out = &state->bridges[i].doc;
			return BG_OK;
		}
	}
	strbuf_addf(&where, "the %s document '%s'",
		    bridge_format_names[format], path);
	error = read_bounded(state, path, where.buf, &text);
	if (error == BG_ENOTFOUND)
		error = metric_error(state, "cannot open %s: %s", where.buf,
				     strerror(ENOENT));
	if (error < 0)
		goto done;
	ALLOC_GROW(state->bridges, state->bridges_nr + 1,
		   state->bridges_alloc);
	file = &state->bridges[state->bridges_nr++];
	file->path = xstrdup(path);
	if (bridge_parse(&file->doc, format, text.buf, text.len, path) < 0)
		error = metric_error(state, "%s", bg_error_last());
	*out = &file->doc;
done:
	strbuf_release(&text);
	strbuf_release(&where);
	return error;
}

/* A peer's document (bridge.h): its series of the spec's key (the
 * peer's benchmark) and field (the peer's metric). */
static int collect_bridge(struct collect_state *state)
{
	const struct bridge_series *series;
	const struct bridge_doc *doc;
	struct strbuf path = STRBUF_INIT;
	enum bridge_format format = BRIDGE_GBENCH;
	int error;

	metric_source_bridge(state->spec->from, &format);
	if ((error = run_file_path(state, &path)) < 0 ||
	    (error = load_bridge(state, format, path.buf, &doc)) < 0)
		goto done;
	if (bridge_find(doc, state->spec->key, state->spec->field, &series) <
	    0) {
		error = metric_error(state, "%s: %s", path.buf,
				     bg_error_last());
		goto done;
	}
	for (size_t i = 0; i < series->nr; i++)
		push_value(state->pending, series->values[i]);
	if (!state->pending->unit)
		state->pending->unit = series->unit;
	state->pending->independent += series->independent;
done:
	strbuf_release(&path);
	return error;
}

/* Says once per reason why a metric is left out: the reasons are the
 * same run after run, and often for several metrics of one source. */
static void warn_left_out(struct collect_state *state, const char *why)
{
	struct collectors *collectors = state->collectors;
	const struct metric_spec *spec = state->spec;

	for (size_t i = 0; i < collectors->warned_nr; i++)
		if (!strcmp(collectors->warned[i], why))
			return;
	ALLOC_GROW(collectors->warned, collectors->warned_nr + 1,
		   collectors->warned_alloc);
	collectors->warned[collectors->warned_nr++] = xstrdup(why);
	bg_warn("metric '%s' (source '%s') is left out of the result: %s",
		spec->name, metric_source_name(spec->from), why);
}

static int collect_sampled(struct collect_state *state)
{
	const struct metric_spec *spec = state->spec;
	struct strbuf why = STRBUF_INIT;
	const char *reason;
	double value;

	if (!state->collectors->sampler) {
		strbuf_addf(&why,
			    "source '%s' is not available yet (no "
			    "sampler watched the run)",
			    metric_source_name(spec->from));
		warn_left_out(state, why.buf);
	} else if (sampler_value(state->collectors->sampler, spec->from,
				 spec->field, &value, &reason) < 0) {
		warn_left_out(state, reason);
	} else {
		push_value(state->pending, value);
	}
	strbuf_release(&why);
	return BG_OK;
}

static int collect_one(struct collect_state *state, size_t m)
{
	const struct process_outcome *outcome = state->run->outcome;

	switch (state->spec->from) {
	case SOURCE_WALL:
		push_value(state->pending, outcome->wall_s);
		if (!state->pending->unit)
			state->pending->unit = "s";
		return BG_OK;
	case SOURCE_RUSAGE:
		return collect_rusage(state);
	case SOURCE_METRICS:
		return collect_metrics_file(state);
	case SOURCE_STDOUT:
		return collect_regex(state, m, PROCESS_STDOUT);
	case SOURCE_STDERR:
		return collect_regex(state, m, PROCESS_STDERR);
	case SOURCE_FILE:
		return collect_file(state);
	case SOURCE_COMMAND:
		return collect_command(state);
	case SOURCE_GBENCH:
	case SOURCE_HYPERFINE:
	case SOURCE_PYTEST_BENCHMARK:
	case SOURCE_GAB_SMALLER:
	case SOURCE_GAB_BIGGER:
	case SOURCE_OPTIMUM:
		return collect_bridge(state);
	case SOURCE_PERF:
	case SOURCE_NVML:
	case SOURCE_ROCM:
	case SOURCE_RAPL:
	case SOURCE_SYSTEM:
		return collect_sampled(state);
	case SOURCE_CALLGRIND:
		/* counted in a run of its own, after these (callgrind.h) */
		return BG_OK;
	}
	return metric_error(state, "unknown source %d", (int)state->spec->from);
}

/* The index of the benchmark's metric named `name`; suite_load() made sure
 * a "per" names one. */
static size_t metric_index(const struct benchmark *benchmark, const char *name)
{
	size_t m = 0;

	while (m < benchmark->metrics_nr &&
	       strcmp(benchmark->metrics[m].name, name) != 0)
		m++;
	assert(m < benchmark->metrics_nr && "'per' names no metric");
	return m;
}

/*
 * Divides the values of each "per" metric by its count from this run
 * (collectors.h). Done once every metric is in, as the count may be
 * declared after the metric that uses it. The count is checked even when
 * the metric itself was left out (no RAPL here): a benchmark that reports
 * no samples is broken on every machine, not only where energy is read.
 */
static int divide_per_counts(struct collect_state *state,
			     const struct benchmark *benchmark,
			     struct pending *pending)
{
	for (size_t m = 0; m < benchmark->metrics_nr; m++) {
		const struct metric_spec *spec = &benchmark->metrics[m];
		const struct pending *count;

		if (!spec->per ||
		    !metric_spec_on_device(spec, state->run->pcase->device))
			continue;
		state->spec = spec;
		count = &pending[metric_index(benchmark, spec->per)];
		if (!count->nr) {
			/* the count's own source left it out (and said so) */
			struct strbuf why = STRBUF_INIT;

			strbuf_addf(&why, "count metric '%s' is left out too",
				    spec->per);
			warn_left_out(state, why.buf);
			strbuf_release(&why);
			pending[m].collected = false;
			continue;
		}
		if (count->nr > 1)
			return metric_error(state,
					    "count metric '%s' has %zu "
					    "values in this run; expected one",
					    spec->per, count->nr);
		if (!isfinite(count->values[0]) || count->values[0] <= 0)
			return metric_error(state,
					    "count metric '%s' is %g "
					    "in this run; expected a positive "
					    "number of samples",
					    spec->per, count->values[0]);
		for (size_t i = 0; i < pending[m].nr; i++)
			pending[m].values[i] /= count->values[0];
	}
	return BG_OK;
}

static void commit(struct result_case *rcase, const struct metric_spec *spec,
		   const struct pending *pending)
{
	struct metric_samples *metric = result_case_metric(rcase, spec->name);

	if (!metric->unit && pending->unit)
		metric->unit = xstrdup(pending->unit);
	metric_spec_stamp(spec, metric);
	for (size_t i = 0; i < pending->nr; i++)
		metric_samples_push(metric, pending->values[i]);
	metric->runs++;
	/* a bridge's values are each measured on its own (hyperfine's
	 * runs), or a summary that counts one */
	metric->independent += pending->independent;
}

int collectors_collect(struct collectors *collectors, struct result_case *rcase,
		       const struct collect_run *run)
{
	const struct benchmark *benchmark = run->pcase->benchmark;
	struct collect_state state;
	struct pending *pending;
	size_t m;
	int error = BG_OK;

	assert(find_benchmark(collectors, benchmark) &&
	       "the case's benchmark is not in the collectors' suite");
	memset(&state, 0, sizeof(state));
	state.collectors = collectors;
	state.run = run;
	strbuf_init(&state.metrics.text, 0);
	pending = xcalloc(benchmark->metrics_nr + 1, sizeof(*pending));

	for (m = 0; m < benchmark->metrics_nr; m++) {
		state.spec = &benchmark->metrics[m];
		state.pending = &pending[m];
		/* a metric of other devices is no part of this case */
		if (!metric_spec_on_device(state.spec, run->pcase->device))
			continue;
		pending[m].unit = state.spec->unit;
		if ((error = collect_one(&state, m)) < 0)
			goto done;
		pending[m].collected = pending[m].nr > 0;
	}
	if ((error = divide_per_counts(&state, benchmark, pending)) < 0)
		goto done;
	for (m = 0; m < benchmark->metrics_nr; m++)
		if (pending[m].collected)
			commit(rcase, &benchmark->metrics[m], &pending[m]);
	if (state.metrics.model_json)
		error = take_model(&state, rcase);

done:
	for (m = 0; m < benchmark->metrics_nr; m++)
		free(pending[m].values);
	free(pending);
	for (size_t i = 0; i < state.files_nr; i++) {
		free(state.files[i].path);
		cJSON_Delete(state.files[i].json);
	}
	free(state.files);
	for (size_t i = 0; i < state.bridges_nr; i++) {
		free(state.bridges[i].path);
		bridge_doc_release(&state.bridges[i].doc);
	}
	free(state.bridges);
	for (size_t i = 0; i < state.extracted_nr; i++)
		metrics_file_release(&state.extracted[i].output);
	free(state.extracted);
	metrics_file_release(&state.metrics);
	return error;
}
