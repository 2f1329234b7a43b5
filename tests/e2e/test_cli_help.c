/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: every command's --help lists exactly the options it takes,
 * the parser takes exactly those, and an option a command does not take
 * is refused by name (never by the value after it).
 *
 * The table below is the contract, written out: adding an option to a
 * group that leaks into another command's help, or a command without an
 * entry here, fails this test.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every command takes these as well. */
#define GLOBAL "--quiet --no-color --help --version"

static const struct {
	const char *command;
	const char *options; /* besides GLOBAL, in --help's order */
} table[] = {
	{ "run", "--store --runs --warmup --filter --variant --device --shard "
		 "--order --build-dir --json --require-devices "
		 "--sample-interval --profile --no-wait" },
	{ "compare", "--store --threshold --confidence --report --json "
		     "--charts --suite" },
	{ "check", "--store --runs --warmup --filter --variant --device "
		   "--shard --order --build-dir --baseline --baseline-tree "
		   "--against --build --build-timeout "
		   "--branch --threshold --confidence --budget --report --json "
		   "--charts --require-devices --sample-interval --profile "
		   "--no-wait" },
	{ "report", "--out --format --charts" },
	{ "baseline", "--to --force" },
	{ "validate", "--filter --variant --device --shard --build-dir" },
	{ "comment", "--provider --body --repo --pr --api-url --marker "
		     "--dry-run" },
	{ "sync", "--branch --remote" },
	{ "merge", "--store --out" },
	{ "devices", "" },
	{ "store", "" },
	{ "history", "--store --variant --device --branch --json --suite "
		     "--metric --benchmark --machine --since --csv --alert "
		     "--published --issue" },
	{ "export", "--mlflow --experiment" },
	{ "publish", "--store --variant --device --branch --out --suite "
		     "--metric --benchmark --machine --since" },
	{ "import", "--store --json --format --suite" },
	{ "init", "--python --command --force" },
	{ "bisect", "--store --runs --warmup --filter --variant --device "
		    "--shard --build-dir --threshold --confidence --good --bad "
		    "--build --build-timeout --require-devices --sample-interval" },
	{ "store", "" },
	{ "store copy", "--from --to" },
	{ "store prune", "--store --older-than --keep-tagged --dry-run "
			 "--squash" },
	{ "store compact", "--store --samples --older-than --keep-tagged "
			   "--dry-run --squash" },
};
#define TABLE_NR (sizeof(table) / sizeof(*table))

TestSuite(cli_help, .init = test_dir_setup, .fini = test_dir_teardown);

/* Runs benchgate with the words of `command` ("store copy" is two), then
 * the NULL-terminated args. */
static void run_command(struct test_output *output, const char *command,
			const char *const *args)
{
	const char *argv[16];
	char words[64], *space;
	size_t n = 0;

	snprintf(words, sizeof(words), "%s", command);
	argv[n++] = words;
	if ((space = strchr(words, ' '))) {
		*space = '\0';
		argv[n++] = space + 1;
	}
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	test_benchgate(output, test_dir, NULL, argv);
}

/* The options --help lists, "--a --b", into out; whether each takes a
 * value into takes_value ("1" or "0" per option, in order). */
static void help_options(const char *command, struct strbuf *out,
			 struct strbuf *takes_value)
{
	struct test_output output;
	const char *line;

	run_command(&output, command, (const char *[]){ "--help", NULL });
	cr_assert_eq(output.exit_code, 0, "%s --help: %s", command,
		     output.err.buf);
	for (line = output.out.buf; line; line = strchr(line, '\n')) {
		size_t len;

		line += *line == '\n';
		if (strncmp(line, "  --", 4))
			continue;
		len = strcspn(line + 2, " \n");
		if (out->len)
			strbuf_addch(out, ' ');
		strbuf_add(out, line + 2, len);
		/* "--out DIR   text": an upper-case value after one space */
		strbuf_addch(takes_value,
			     line[2 + len] == ' ' && line[3 + len] != ' ' ? '1'
									: '0');
	}
	test_output_release(&output);
}

Test(cli_help, every_command_is_in_the_table)
{
	struct test_output output;
	const char *line;

	test_benchgate(&output, test_dir, NULL, (const char *[]){ "--help", NULL });
	/* the list runs from "commands:" to the first empty line */
	for (line = strstr(output.out.buf, "commands:");
	     line && line[1] && line[1] != '\n';
	     line = strchr(line + 1, '\n')) {
		char name[32];
		bool found = false;

		if (strncmp(line + 1, "  ", 2) ||
		    sscanf(line + 3, "%31[a-z]", name) != 1)
			continue;
		for (size_t i = 0; i < TABLE_NR; i++)
			found |= !strcmp(table[i].command, name);
		cr_expect(found, "command '%s' has no entry in the table",
			  name);
	}
	test_output_release(&output);
}

Test(cli_help, each_help_lists_exactly_the_options_of_the_table)
{
	for (size_t i = 0; i < TABLE_NR; i++) {
		struct strbuf listed = STRBUF_INIT, values = STRBUF_INIT;
		struct strbuf expected = STRBUF_INIT;

		help_options(table[i].command, &listed, &values);
		strbuf_addf(&expected, "%s%s" GLOBAL, table[i].options,
			    *table[i].options ? " " : "");
		cr_expect_str_eq(listed.buf, expected.buf, "%s --help",
				 table[i].command);
		strbuf_release(&listed);
		strbuf_release(&values);
		strbuf_release(&expected);
	}
}

/* Whether " opt " is in the space-separated list. */
static bool listed_in(const char *list, const char *opt)
{
	size_t len = strlen(opt);

	for (const char *p = strstr(list, opt); p; p = strstr(p + 1, opt))
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

Test(cli_help, the_parser_takes_what_help_lists_and_names_what_it_refuses)
{
	/* every option any command takes, with whether it has a value */
	static const char *const probes[][2] = {
		{ "--charts", "3" },   { "--format", "json" },
		{ "--out", "o" },      { "--suite", "s" },
		{ "--metric", "m" },   { "--csv", NULL },
		{ "--report", "r" },   { "--branch", "b" },
		{ "--threshold", "5%" }, { "--mlflow", "http://x" },
		{ "--good", "HEAD" },  { "--published", "p" },
		{ "--baseline-tree", "t" }, { "--no-wait", NULL },
	};

	for (size_t i = 0; i < TABLE_NR; i++) {
		for (size_t p = 0; p < sizeof(probes) / sizeof(*probes); p++) {
			const char *opt = probes[p][0], *value = probes[p][1];
			bool takes = listed_in(table[i].options, opt);
			struct strbuf unknown = STRBUF_INIT;
			struct test_output out;

			/* too many arguments: nothing runs, whatever the
			 * option does */
			run_command(&out, table[i].command,
				    (const char *[]){ opt, value ? value : "a1",
						      "a2", "a3", "a4", "a5",
						      "a6", NULL });
			strbuf_addf(&unknown, "unknown option '%s'", opt);
			if (takes) {
				cr_expect(!strstr(out.err.buf, "unknown option"),
					  "%s %s: %s", table[i].command, opt,
					  out.err.buf);
			} else {
				cr_expect_eq(out.exit_code, 2);
				cr_expect(strstr(out.err.buf, unknown.buf),
					  "%s %s %s: %s", table[i].command,
					  opt, value ? value : "",
					  out.err.buf);
			}
			test_output_release(&out);
			strbuf_release(&unknown);
		}
	}
}
