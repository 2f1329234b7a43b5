/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/options.h"

#include "harness/app/outputs.h"
#include "harness/run/session.h"
#include "harness/suite/plan.h"
#include "harness/util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cli_opt_runs(void *session_options, const char *option, const char *text)
{
	struct session_options *session = session_options;

	if (!strcmp(text, "auto")) {
		session->runs_auto = true;
		return BG_OK;
	}
	return cli_opt_whole_number(option, text, 1, &session->runs);
}

int cli_opt_warmup(void *count, const char *option, const char *text)
{
	return cli_opt_whole_number(option, text, 0, count);
}

int cli_opt_shard(void *plan_filter, const char *option, const char *text)
{
	(void)option;
	return plan_parse_shard(plan_filter, text);
}

int cli_opt_order(void *sequential, const char *option, const char *text)
{
	if (strcmp(text, "interleaved") && strcmp(text, "sequential"))
		return bg_input_error("--%s: expected interleaved or "
				      "sequential, found '%s'",
				      option, text);
	*(bool *)sequential = !strcmp(text, "sequential");
	return BG_OK;
}

int cli_opt_threshold(void *fraction, const char *option, const char *text)
{
	char *end;
	double value = strtod(text, &end);

	if (end == text || (*end && strcmp(end, "%")) || !(value >= 0) ||
	    value >= 100)
		return bg_input_error("--%s: expected a percentage such as "
				      "3%%, found '%s'",
				      option, text);
	*(double *)fraction = value / 100;
	return BG_OK;
}

int cli_opt_confidence(void *level, const char *option, const char *text)
{
	char *end;
	double value = strtod(text, &end);

	if (end == text || *end || !(value >= 0.5 && value < 1))
		return bg_input_error("--%s: expected a level from 0.5 to "
				      "below 1 such as 0.99, found '%s'",
				      option, text);
	*(double *)level = value;
	return BG_OK;
}

int cli_opt_interval(void *seconds, const char *option, const char *text)
{
	int ms = 0;
	int error = cli_opt_whole_number(option, text, 1, &ms);

	*(double *)seconds = ms / 1000.0;
	return error;
}

/* "all" for every case, else a whole number of cases. */
int cli_opt_chart_cases(void *cases, const char *option, const char *text)
{
	int n = 0;

	if (!strcmp(text, "all")) {
		*(size_t *)cases = SIZE_MAX;
		return BG_OK;
	}
	if (cli_opt_whole_number(option, text, 1, &n) < 0)
		return bg_input_error("--%s: expected a whole number of at "
				      "least 1 or 'all', found '%s'",
				      option, text);
	*(size_t *)cases = (size_t)n;
	return BG_OK;
}

const char *cli_default_build_dir(void)
{
	const char *dir = getenv("BENCHGATE_BUILD_DIR");

	return dir && *dir ? dir : "build";
}

void cli_session_defaults(struct session_options *session,
			  struct plan_filter *filter)
{
	*session = (struct session_options){
		.filter = filter,
		.build_dir = cli_default_build_dir(),
		.runs = -1,
		.warmup = -1,
	};
	*filter = (struct plan_filter){ 0 };
}

int cli_opt_output(void *path, const char *option, const char *text)
{
	(void)option;
	*(const char **)path = text;
	/* decided once, before stdout is claimed: a path to stdout
	 * (/dev/stdout) resolves to stderr's file afterwards */
	if (app_output_is_stdout(text)) {
		*(const char **)path = "-";
		app_claim_stdout();
	}
	return BG_OK;
}

int cli_opt_age(void *seconds, const char *option, const char *text)
{
	static const struct {
		char unit;
		double scale;
	} units[] = {
		{ 's', 1 },	    { 'm', 60 },      { 'h', 3600 },
		{ 'd', 86400 },	    { 'w', 604800 },  { 'y', 31536000 },
	};
	char *end;
	double value = strtod(text, &end);

	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (end != text && value >= 0 && value < 1e6 &&
		    end[0] == units[i].unit && !end[1]) {
			*(double *)seconds = value * units[i].scale;
			return BG_OK;
		}
	return bg_input_error("--%s: expected an age such as 90d (s, m, h, d, "
			      "w or y), found '%s'",
			      option, text);
}

int cli_opt_count(void *count, const char *option, const char *text)
{
	int value;
	int error = cli_opt_whole_number(option, text, 1, &value);

	if (!error)
		*(size_t *)count = (size_t)value;
	return error;
}
