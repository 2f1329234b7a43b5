/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/run.h"

#include "harness/app/check.h"
#include "harness/app/outcome.h"
#include "harness/app/outputs.h"
#include "harness/app/profiles.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "reporters/summary.h"

#include <stdio.h>
#include <unistd.h>

/* The result table, then the variants compared inside the run (README):
 * what check prints below its comparison; one report model for both. */
static void print_result(const struct session *session, bool color)
{
	struct compare_options compare;
	struct comparison *comparison = NULL;
	struct report_model model = { .candidate = session->result };

	compare_options_init(&compare);
	if (compare_results(&comparison, NULL, session->result, &compare) ==
	    BG_OK)
		model.comparison = comparison;
	report_model_build(&model);
	summary_print_result_at(stdout, &model, session->result_path.buf,
				color);
	if (comparison)
		summary_print_variants(stdout, &model, color);
	report_model_release(&model);
	comparison_free(comparison);
}

static void print_stored(const struct session *session)
{
	if (session->unstored.len)
		return;
	terminal_print_line(stdout, "stored %s", session->result_path.buf);
	if (access(session->artifact_dir.buf, F_OK) == 0)
		terminal_print_line(stdout, "artifacts in %s",
				    session->artifact_dir.buf);
}

int app_run(const struct app_run_request *req)
{
	struct session *session = NULL;
	struct strbuf json = STRBUF_INIT;
	int error;

	if ((error = session_prepare(&session, &req->session)) < 0 ||
	    (error = check_measure(session, NULL)) < 0)
		goto done;
	app_draw_profiles(session);
	if (session_store(session) < 0) {
		/* --json FILE, else a fallback file: it says where
		 * (session.h); --json - gets the result all the same */
		session_keep(session, app_output_is_stdout(req->json)
					      ? NULL
					      : req->json);
		if (app_output_is_stdout(req->json)) {
			result_to_json(session->result, &json);
			error = app_write_output(req->json, &json);
		}
	} else if (req->json) {
		result_to_json(session->result, &json);
		error = app_write_output(req->json, &json);
	}
	if (!req->quiet)
		print_result(session, req->color);
	summary_warn_load(session->result);
	if (!req->quiet)
		print_stored(session);
	error = app_outcome_after_measuring(session, error,
					    app_outcome_of_session(session));
done:
	session_free(session);
	strbuf_release(&json);
	return error;
}
