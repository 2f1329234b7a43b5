/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The published dashboard's state file (published.h): its one reader and
 * its one writer.
 */
#include "harness/gate/published.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/json.h"
#include "harness/util/jsonread.h"
#include "harness/util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Larger than any state publish writes. */
#define PUBLISHED_STATE_MAX_BYTES ((size_t)256 << 20)

/* The keys of a change point's series, in the order they are written. */
static const char *const series_keys[] = { "suite",   "benchmark", "variant",
					   "device",  "machine",   "metric" };

static char **series_field(struct published_point *p, size_t i)
{
	char **fields[] = { &p->suite,	&p->benchmark, &p->variant,
			    &p->device, &p->machine,   &p->metric };

	return fields[i];
}

static bool is_hex16(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == 16 && !s[n];
}

void published_add_file(struct published_state *state, const char *path,
			const char hash[17])
{
	ALLOC_GROW(state->files, state->files_nr + 1, state->files_alloc);
	state->files[state->files_nr].path = xstrdup(path);
	memcpy(state->files[state->files_nr++].hash, hash, 17);
}

static char *copy_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void published_add_point(struct published_state *state,
			 const struct published_point *point)
{
	struct published_point *p;

	ALLOC_GROW(state->points, state->points_nr + 1, state->points_alloc);
	p = &state->points[state->points_nr++];
	*p = *point;
	for (size_t i = 0; i < 6; i++)
		*series_field(p, i) = copy_or_null(*series_field(p, i));
	p->commit = copy_or_null(point->commit);
	p->resolved_by = copy_or_null(point->resolved_by);
}

void published_point_key(struct strbuf *out,
			 const struct published_point *point)
{
	strbuf_addf(out, "%s\n%s\n%s\n%s\n%s\n%s", point->suite,
		    point->machine, point->benchmark, point->variant,
		    point->device, point->metric);
}

static void point_release(struct published_point *p)
{
	for (size_t i = 0; i < 6; i++)
		free(*series_field(p, i));
	free(p->commit);
	free(p->resolved_by);
}

void published_release(struct published_state *state)
{
	for (size_t i = 0; i < state->files_nr; i++)
		free(state->files[i].path);
	free(state->files);
	for (size_t i = 0; i < state->points_nr; i++)
		point_release(&state->points[i]);
	free(state->points);
	free(state->branch);
	free(state->tip);
	memset(state, 0, sizeof(*state));
}

static void read_files(struct published_state *out, struct json_reader *rd)
{
	const cJSON *files = json_read_object(rd, rd->root, "files",
					      JSON_REQUIRED);
	const cJSON *item;

	json_reader_push_key(rd, "files");
	cJSON_ArrayForEach(item, files)
	{
		json_reader_push_key(rd, item->string);
		if (!cJSON_IsString(item) || !is_hex16(item->valuestring))
			json_reader_fail(rd, "expected a hash of 16 hex "
					     "digits, found %s",
					 json_type_name(item));
		else
			published_add_file(out, item->string,
					   item->valuestring);
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
}

static void read_point(struct published_state *out, struct json_reader *rd,
		       const cJSON *item)
{
	static const char *const directions[] = { "regression", "improvement",
						  NULL };
	struct published_point p = { .change = NAN, .present = true };
	int direction = 0;
	/* checked in the order of the series key: suite, machine, ... */
	static const size_t read_order[] = { 0, 4, 1, 2, 3, 5 };

	for (size_t i = 0; i < 6; i++)
		if (json_read_string(rd, item, series_keys[read_order[i]],
				     JSON_REQUIRED,
				     series_field(&p, read_order[i])) != 1)
			goto done;
	if (json_read_string(rd, item, "commit", JSON_REQUIRED, &p.commit) !=
		    1 ||
	    json_read_enum(rd, item, "direction", JSON_REQUIRED, directions,
			   &direction) != 1 ||
	    json_read_number(rd, item, "change", 0, &p.change) < 0 ||
	    json_read_string(rd, item, "resolved_by", 0, &p.resolved_by) < 0 ||
	    json_read_bool(rd, item, "present", 0, &p.present) < 0)
		goto done;
	p.regression = direction == 0;
	ALLOC_GROW(out->points, out->points_nr + 1, out->points_alloc);
	out->points[out->points_nr++] = p;
	return;
done:
	point_release(&p);
}

static void read_points(struct published_state *out, struct json_reader *rd)
{
	const cJSON *points = json_read_array(rd, rd->root, "change_points", 0);
	const cJSON *item;
	int index = 0;

	json_reader_push_key(rd, "change_points");
	cJSON_ArrayForEach(item, points)
	{
		json_reader_push_index(rd, index++);
		if (!cJSON_IsObject(item))
			json_reader_fail(rd, "expected an object, found %s",
					 json_type_name(item));
		else
			read_point(out, rd, item);
		json_reader_pop(rd);
	}
	json_reader_pop(rd);
}

int published_read(struct published_state *out, const char *dir)
{
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT;
	struct json_reader rd;
	int root, version = 0, error;

	strbuf_addf(&path, "%s/%s", dir, PUBLISHED_STATE_FILE);
	/* the user named the directory: a link to it is followed */
	if ((root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		error = errno == ENOENT ? BG_OK
					: bg_error("cannot open directory "
						   "'%s': %s",
						   dir, strerror(errno));
		goto done;
	}
	error = read_file_at(&text, root, PUBLISHED_STATE_FILE, O_NOFOLLOW,
			     PUBLISHED_STATE_MAX_BYTES, path.buf);
	close(root);
	if (error == BG_ENOTFOUND) {
		bg_error_clear();
		error = BG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	out->found = true;
	if ((error = json_reader_parse(&rd, path.buf, text.buf, text.len)) ==
	    0) {
		if (!cJSON_IsObject(rd.root))
			json_reader_fail(&rd, "expected the object benchgate "
					      "publish writes");
		else if (json_read_int(&rd, rd.root, "benchgate_dashboard",
				       JSON_REQUIRED, 1, 1, &version) &&
			 json_read_string(&rd, rd.root, "branch", 0,
					  &out->branch) >= 0 &&
			 json_read_string(&rd, rd.root, "tip", 0, &out->tip) >=
				 0) {
			read_files(out, &rd);
			if (!rd.error)
				read_points(out, &rd);
		}
		error = rd.error;
	}
	json_reader_release(&rd);
done:
	strbuf_release(&text);
	strbuf_release(&path);
	return error;
}

static cJSON *point_json(const struct published_point *p)
{
	cJSON *item = cJSON_CreateObject();
	struct published_point *q = (struct published_point *)p;

	for (size_t i = 0; i < 6; i++)
		json_add_string(item, series_keys[i], *series_field(q, i));
	json_add_string(item, "commit", p->commit);
	json_add_string(item, "direction",
			p->regression ? "regression" : "improvement");
	if (!isnan(p->change))
		cJSON_AddNumberToObject(item, "change", p->change);
	if (p->resolved_by)
		json_add_string(item, "resolved_by", p->resolved_by);
	if (!p->present)
		cJSON_AddFalseToObject(item, "present");
	return item;
}

int published_write(const struct published_state *state, int dir_fd,
		    const char *dir)
{
	cJSON *root = cJSON_CreateObject(), *files, *points;
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT;
	int error;

	cJSON_AddNumberToObject(root, "benchgate_dashboard", 1);
	json_add_string(root, "branch", state->branch);
	json_add_string(root, "tip", state->tip);
	files = cJSON_AddObjectToObject(root, "files");
	for (size_t i = 0; i < state->files_nr; i++)
		json_add_string(files, state->files[i].path,
				state->files[i].hash);
	points = cJSON_AddArrayToObject(root, "change_points");
	for (size_t i = 0; i < state->points_nr; i++)
		cJSON_AddItemToArray(points, point_json(&state->points[i]));
	json_print(&text, root);
	strbuf_addf(&path, "%s/%s", dir, PUBLISHED_STATE_FILE);
	error = write_file_atomic_at(dir_fd, PUBLISHED_STATE_FILE, text.buf,
				     text.len, true, path.buf);
	cJSON_Delete(root);
	strbuf_release(&text);
	strbuf_release(&path);
	return error;
}
