/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/import.h"

#include "harness/app/outcome.h"
#include "harness/app/outputs.h"
#include "harness/probe/machine.h"
#include "harness/store/store.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"
#include "reporters/summary.h"
#include "harness/git/gitinfo.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"
#include "harness/util/name.h"

#include <stdio.h>
#include <string.h>

static int import_file(struct result *result, enum bridge_format format,
		       const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct bridge_doc doc;
	int error;

	memset(&doc, 0, sizeof(doc));
	strbuf_init(&doc.notes, 0);
	if ((error = strbuf_read_file(&text, path)) < 0 ||
	    (error = bridge_parse(&doc, format, text.buf, text.len, path)) <
		    0 ||
	    (error = bridge_add_to_result(&doc, result, path)) < 0)
		goto done;
	for (char *line = doc.notes.buf, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		bg_warn("%s: %s", path, line);
	}
done:
	bridge_doc_release(&doc);
	strbuf_release(&text);
	return error;
}

int import_files(struct result **out, enum bridge_format format,
		 char *const *paths, size_t nr, const char *suite)
{
	struct result *result = result_new();
	struct strbuf now = STRBUF_INIT;
	int error = BG_OK;

	*out = NULL;
	if (!name_valid(suite)) {
		error = bg_input_error("--suite: expected a name of "
				       NAME_ALPHABET ", found '%s'",
				       suite);
		goto done;
	}
	result->suite = xstrdup(suite);
	result->harness_version = xstrdup(BENCHGATE_VERSION);
	for (size_t i = 0; i < nr && !error; i++)
		error = import_file(result, format, paths[i]);
	if (error < 0 || (error = gitinfo_read(&result->git, NULL)) < 0 ||
	    (error = machine_describe(&result->machine)) < 0)
		goto done;
	iso8601_now(&now);
	result->started_at = xstrdup(now.buf);
	result->finished_at = strbuf_detach(&now, NULL);
done:
	if (error < 0)
		result_free(result);
	else
		*out = result;
	strbuf_release(&now);
	return error;
}

static bool any_failed(const struct result *result)
{
	for (size_t i = 0; i < result->cases_nr; i++)
		if (result->cases[i].status != CASE_OK)
			return true;
	return false;
}

int app_import(const struct app_import_request *req)
{
	struct strbuf path = STRBUF_INIT, json = STRBUF_INIT;
	struct result *result = NULL;
	struct store *store = NULL;
	enum bridge_format format;
	int error;

	if (!req->format)
		return bg_input_error("import: --format FMT is required (see "
				      "'benchgate import --help')");
	if ((error = bridge_format_parse(req->format, &format)) < 0 ||
	    (error = import_files(&result, format, req->files, req->files_nr,
				  req->suite ? req->suite
					     : bridge_format_names[format])) <
		    0 ||
	    (error = app_store_open(&store, req->store)) < 0 ||
	    (error = store_write(store, result, NULL, &path)) < 0)
		goto done;
	if (req->json) {
		result_to_json(result, &json);
		if ((error = app_write_output(req->json, &json)) < 0)
			goto done;
	}
	if (!req->quiet) {
		summary_print_result(stdout, result, req->color);
		terminal_print_line(stdout, "stored %s", path.buf);
	}
	error = any_failed(result) ? OUTCOME_CASE_FAILED : OUTCOME_PASS;
done:
	result_free(result);
	store_free(store);
	strbuf_release(&path);
	strbuf_release(&json);
	return error;
}
