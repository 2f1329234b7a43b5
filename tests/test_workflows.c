/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CI templates cannot drift from the binary: every GitHub workflow
 * (.github/workflows/), the composite action (action.yml) and
 * the GitLab template (ci/gitlab/) is parsed with libyaml, checked for the
 * shape its CI system expects, and every `benchgate COMMAND --option` in
 * its run:/script: shell text is looked up in the built binary's own
 * `benchgate --help` and `benchgate COMMAND --help`. A template that
 * names a command or an option the binary does not have fails here, not
 * in someone's pipeline.
 *
 * Also here, as the other halves of the CI integration: the OpenMetrics
 * report (GitLab's metrics report) and the GitHub ::error annotations.
 */
#include "testutil.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "reporters/report.h"

#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* What the binary says it accepts */

struct command_help {
	char *name;
	bool exists;
	struct strbuf options; /* " --store --runs ... " */
};

struct cli_help {
	struct strbuf commands; /* " run check ... " */
	struct command_help *cached;
	size_t nr, alloc;
};

static void cli_help_init(struct cli_help *help)
{
	struct test_output out;
	const char *line;

	memset(help, 0, sizeof(*help));
	strbuf_init(&help->commands, 0);
	test_benchgate(&out, NULL, NULL,
		       (const char *const[]){ "--help", NULL });
	cr_assert_eq(out.exit_code, 0, "benchgate --help: %s", out.err.buf);
	line = strstr(out.out.buf, "\ncommands:\n");
	cr_assert_not_null(line, "no command list in benchgate --help:\n%s",
			   out.out.buf);
	line += strlen("\ncommands:\n");
	/* "  NAME   summary" lines, up to the blank line after them. */
	while (line[0] == ' ' && line[1] == ' ') {
		size_t skip = strspn(line, " "),
		       len = strcspn(line + skip, " \n");

		strbuf_addf(&help->commands, " %.*s", (int)len, line + skip);
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
	strbuf_addch(&help->commands, ' ');
	test_output_release(&out);
}

static void cli_help_release(struct cli_help *help)
{
	for (size_t i = 0; i < help->nr; i++) {
		free(help->cached[i].name);
		strbuf_release(&help->cached[i].options);
	}
	free(help->cached);
	strbuf_release(&help->commands);
}

static bool word_listed(const char *list, const char *word)
{
	struct strbuf needle = STRBUF_INIT;
	bool found;

	strbuf_addf(&needle, " %s ", word);
	found = strstr(list, needle.buf) != NULL;
	strbuf_release(&needle);
	return found;
}

/* The options of `benchgate NAME --help`: every "  --name ..." line. */
static const struct command_help *command_help(struct cli_help *help,
					       const char *name)
{
	struct command_help *cmd;
	struct test_output out;
	const char *line;

	for (size_t i = 0; i < help->nr; i++)
		if (!strcmp(help->cached[i].name, name))
			return &help->cached[i];
	ALLOC_GROW(help->cached, help->nr + 1, help->alloc);
	cmd = &help->cached[help->nr++];
	cmd->name = xstrdup(name);
	cmd->exists = word_listed(help->commands.buf, name);
	strbuf_init(&cmd->options, 0);
	strbuf_addch(&cmd->options, ' ');
	if (!cmd->exists)
		return cmd;
	test_benchgate(&out, NULL, NULL,
		       (const char *const[]){ name, "--help", NULL });
	cr_assert_eq(out.exit_code, 0, "benchgate %s --help: exit %d: %s", name,
		     out.exit_code, out.err.buf);
	for (line = out.out.buf; line; line = strchr(line, '\n')) {
		size_t len;

		line += *line == '\n';
		line += strspn(line, " \t");
		if (strncmp(line, "--", 2) || !line[2] || line[2] == ' ')
			continue;
		len = strcspn(line, " \t\n=[,");
		strbuf_addf(&cmd->options, "%.*s ", (int)len, line);
	}
	test_output_release(&out);
	return cmd;
}

/* benchgate invocations in shell text */

struct invocation {
	char *command;	/* "" for `benchgate --version` */
	char **options; /* "--store", ... */
	size_t options_nr, options_alloc;
};

struct invocations {
	struct invocation *items;
	size_t nr, alloc;
};

static void invocations_release(struct invocations *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		for (size_t j = 0; j < list->items[i].options_nr; j++)
			free(list->items[i].options[j]);
		free(list->items[i].options);
		free(list->items[i].command);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

/* Words that leave the next word in command position. */
static bool is_prefix_word(const char *word)
{
	static const char *const prefixes[] = {
		"if",	"then", "else", "elif",	   "do", "while", "until", "!",
		"time", "exec", "env",	"command", "{",	 "sudo",  NULL,
	};
	size_t name = strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "abcdefghijklmnopqrstuvwxyz0123456789_");

	if (name && word[name] == '=' && !(word[0] >= '0' && word[0] <= '9'))
		return true; /* an assignment: NAME=value cmd */
	for (size_t i = 0; prefixes[i]; i++)
		if (!strcmp(word, prefixes[i]))
			return true;
	return false;
}

static bool is_benchgate(const char *word)
{
	const char *slash = strrchr(word, '/');

	return !strcmp(slash ? slash + 1 : word, "benchgate");
}

/*
 * The long options a word passes: "--name" or "--name=value", and the
 * conditional form "${VAR:+--name" that templates use for optional inputs.
 */
static void add_word_options(struct invocation *inv, const char *word)
{
	const char *option = NULL;

	if (!strncmp(word, "--", 2) && word[2])
		option = word;
	else if (!strncmp(word, "${", 2) && strstr(word, ":+--"))
		option = strstr(word, ":+--") + 2;
	if (!option)
		return;
	ALLOC_GROW(inv->options, inv->options_nr + 1, inv->options_alloc);
	inv->options[inv->options_nr++] =
		xstrndup(option, strcspn(option, "=\"'}"));
}

struct scanner {
	struct invocations *out;
	bool command_position;
	int state; /* 0 outside, 1 after "benchgate", 2 args */
	struct invocation *current;
};

static void end_command(struct scanner *sc)
{
	sc->command_position = true;
	sc->state = 0;
	sc->current = NULL;
}

static void take_word(struct scanner *sc, const char *word)
{
	if (sc->state == 0) {
		if (!sc->command_position)
			return;
		if (is_prefix_word(word))
			return;
		sc->command_position = false;
		if (!is_benchgate(word))
			return;
		ALLOC_GROW(sc->out->items, sc->out->nr + 1, sc->out->alloc);
		sc->current = &sc->out->items[sc->out->nr++];
		memset(sc->current, 0, sizeof(*sc->current));
		sc->state = 1;
		return;
	}
	if (sc->state == 1) {
		sc->state = 2;
		if (word[0] != '-') {
			sc->current->command = xstrdup(word);
			return;
		}
		sc->current->command = xstrdup("");
	}
	add_word_options(sc->current, word);
}

/*
 * Splits shell text into simple commands well enough for CI scripts:
 * quotes, backslash-newline continuations, comments, and the separators
 * ; & | ( ) and newline (so `a && b`, `x || y`, `$(c)`, `case` arms and
 * `do` bodies each start a command). Quoted text stays one word, without
 * its quotes. A command substitution inside double quotes is not looked
 * into: templates do not hide benchgate there.
 */
static void find_invocations(const char *script, struct invocations *out)
{
	struct scanner sc = { .out = out, .command_position = true };
	struct strbuf word = STRBUF_INIT;
	bool in_word = false;
	char quote = 0;

	for (const char *p = script;; p++) {
		char c = *p;

		if (quote) {
			if (!c)
				break; /* unterminated: take what there is */
			if (c == quote)
				quote = 0;
			else if (c == '\\' && quote == '"' && p[1])
				strbuf_addch(&word, *++p);
			else
				strbuf_addch(&word, c);
			continue;
		}
		if (c == '\\' && p[1] == '\n') {
			p++;
			continue;
		}
		if (c == '\\' && p[1]) {
			strbuf_addch(&word, *++p);
			in_word = true;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			in_word = true;
			continue;
		}
		if (c == '#' && !in_word) {
			while (p[1] && p[1] != '\n')
				p++;
			continue;
		}
		if (c && !strchr(" \t\n;&|()`", c)) {
			/* "$(" opens a command: drop the '$', split at '('. */
			if (!(c == '$' && p[1] == '(')) {
				strbuf_addch(&word, c);
				in_word = true;
			}
			continue;
		}
		if (in_word) {
			take_word(&sc, word.buf);
			strbuf_reset(&word);
			in_word = false;
		}
		if (!c)
			break;
		if (c != ' ' && c != '\t')
			end_command(&sc);
	}
	if (in_word)
		take_word(&sc, word.buf);
	strbuf_release(&word);
}

/* The templates */

enum template_kind {
	GITHUB_WORKFLOW,
	GITHUB_ACTION,
	GITLAB_TEMPLATE,
	YAML_SNIPPET, /* a fragment in the docs: no shape checks */
};

struct check {
	const char *name; /* for messages */
	yaml_document_t *doc;
	struct cli_help *help;
	struct strbuf problems; /* one line each */
	struct strbuf commands; /* " check sync " as found */
	size_t invocations;
};

static void problem(struct check *check, const yaml_node_t *node,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void problem(struct check *check, const yaml_node_t *node,
		    const char *fmt, ...)
{
	va_list ap;

	if (node)
		strbuf_addf(&check->problems, "%s:%zu: ", check->name,
			    (size_t)node->start_mark.line + 1);
	else
		strbuf_addf(&check->problems, "%s: ", check->name);
	va_start(ap, fmt);
	strbuf_vaddf(&check->problems, fmt, ap);
	va_end(ap);
	strbuf_addch(&check->problems, '\n');
}

static const char *scalar(const yaml_node_t *node)
{
	return node && node->type == YAML_SCALAR_NODE
		       ? (const char *)node->data.scalar.value
		       : NULL;
}

/* The value of key in a mapping node; NULL when absent or not a mapping. */
static yaml_node_t *get(yaml_document_t *doc, const yaml_node_t *map,
			const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		const char *name =
			scalar(yaml_document_get_node(doc, pair->key));

		if (name && !strcmp(name, key))
			return yaml_document_get_node(doc, pair->value);
	}
	return NULL;
}

static void check_invocation(struct check *check, const yaml_node_t *node,
			     const struct invocation *inv)
{
	const struct command_help *cmd;

	check->invocations++;
	if (!*inv->command) {
		for (size_t i = 0; i < inv->options_nr; i++)
			if (strcmp(inv->options[i], "--help") &&
			    strcmp(inv->options[i], "--version"))
				problem(check, node,
					"benchgate %s: expected a "
					"command first",
					inv->options[i]);
		return;
	}
	cmd = command_help(check->help, inv->command);
	if (!cmd->exists) {
		problem(check, node,
			"benchgate %s: no such command in "
			"'benchgate --help'",
			inv->command);
		return;
	}
	if (!word_listed(check->commands.buf, inv->command))
		strbuf_addf(&check->commands, "%s ", inv->command);
	for (size_t i = 0; i < inv->options_nr; i++)
		if (!word_listed(cmd->options.buf, inv->options[i]))
			problem(check, node,
				"benchgate %s: no option '%s' in "
				"'benchgate %s --help'",
				inv->command, inv->options[i], inv->command);
}

static void check_script(struct check *check, const yaml_node_t *node)
{
	struct invocations found = { 0 };

	if (node->type == YAML_SEQUENCE_NODE) {
		/* GitLab: a list of lines, which may nest lists (anchors). */
		for (yaml_node_item_t *item = node->data.sequence.items.start;
		     item < node->data.sequence.items.top; item++)
			check_script(check,
				     yaml_document_get_node(check->doc, *item));
		return;
	}
	if (node->type != YAML_SCALAR_NODE)
		return; /* e.g. defaults: run: shell: bash */
	find_invocations(scalar(node), &found);
	for (size_t i = 0; i < found.nr; i++)
		check_invocation(check, node, &found.items[i]);
	invocations_release(&found);
}

/* Every run:, script:, before_script: and after_script:, anywhere. */
static void check_scripts(struct check *check, yaml_node_t *node, int depth)
{
	static const char *const keys[] = { "run", "script", "before_script",
					    "after_script", NULL };

	cr_assert_lt(depth, 64, "%s: nested too deep (an alias loop?)",
		     check->name);
	if (node->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *item = node->data.sequence.items.start;
		     item < node->data.sequence.items.top; item++)
			check_scripts(check,
				      yaml_document_get_node(check->doc, *item),
				      depth + 1);
		return;
	}
	if (node->type != YAML_MAPPING_NODE)
		return;
	for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		const char *key =
			scalar(yaml_document_get_node(check->doc, pair->key));
		yaml_node_t *value =
			yaml_document_get_node(check->doc, pair->value);
		bool is_script = false;

		for (size_t i = 0; key && keys[i]; i++)
			is_script |= !strcmp(key, keys[i]);
		if (is_script)
			check_script(check, value);
		else
			check_scripts(check, value, depth + 1);
	}
}

/* GitHub steps: a list of mappings, each a run: or a uses:. */
static void check_steps(struct check *check, const yaml_node_t *steps,
			bool composite)
{
	if (!steps || steps->type != YAML_SEQUENCE_NODE ||
	    steps->data.sequence.items.start ==
		    steps->data.sequence.items.top) {
		problem(check, steps, "expected a non-empty list of steps");
		return;
	}
	for (yaml_node_item_t *item = steps->data.sequence.items.start;
	     item < steps->data.sequence.items.top; item++) {
		yaml_node_t *step = yaml_document_get_node(check->doc, *item);
		bool run = get(check->doc, step, "run") != NULL;
		bool uses = get(check->doc, step, "uses") != NULL;

		if (run == uses)
			problem(check, step,
				"a step needs one of run: or uses:");
		else if (run && composite && !get(check->doc, step, "shell"))
			problem(check, step,
				"a composite action's run: step "
				"needs shell:");
	}
}

static void check_workflow(struct check *check, const yaml_node_t *root)
{
	yaml_node_t *jobs = get(check->doc, root, "jobs");

	/* YAML 1.1 would read a bare `on` as true; libyaml keeps the text,
	 * as GitHub's parser does. */
	if (!get(check->doc, root, "on"))
		problem(check, root, "a workflow needs on:");
	if (!jobs || jobs->type != YAML_MAPPING_NODE ||
	    jobs->data.mapping.pairs.start == jobs->data.mapping.pairs.top) {
		problem(check, root, "a workflow needs jobs:");
		return;
	}
	for (yaml_node_pair_t *pair = jobs->data.mapping.pairs.start;
	     pair < jobs->data.mapping.pairs.top; pair++) {
		yaml_node_t *job =
			yaml_document_get_node(check->doc, pair->value);

		if (get(check->doc, job, "uses"))
			continue; /* a reusable workflow */
		if (!get(check->doc, job, "runs-on"))
			problem(check, job, "a job needs runs-on:");
		check_steps(check, get(check->doc, job, "steps"), false);
	}
}

/* Every ${{ inputs.NAME }} names a declared input. */
static void check_action_inputs(struct check *check, const char *text,
				const yaml_node_t *root)
{
	yaml_node_t *inputs = get(check->doc, root, "inputs");

	for (const char *p = text; (p = strstr(p, "inputs.")); p++) {
		size_t len;
		char *name;

		if (p > text && (p[-1] == '_' || p[-1] == '.' ||
				 (p[-1] >= 'a' && p[-1] <= 'z')))
			continue;
		len = strspn(p + 7, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
		name = xstrndup(p + 7, len);
		if (!get(check->doc, inputs, name))
			problem(check, NULL, "inputs.%s is not declared", name);
		free(name);
	}
}

/* The text a step writes its outputs from: its run: script and, when
 * that runs a script of the tree (bash "$ACTION_PATH/ci/x"), that file. */
static void step_script(struct check *check, const yaml_node_t *step,
			struct strbuf *out)
{
	const char *run = scalar(get(check->doc, step, "run"));
	const char *file;

	if (!run)
		return;
	strbuf_addstr(out, run);
	if ((file = strstr(run, "/ci/"))) {
		size_t len = strcspn(file + 1, "\" '\n");
		struct strbuf path = STRBUF_INIT;
		char *text;

		strbuf_addf(&path, "%s/%.*s", BENCHGATE_SOURCE_DIR, (int)len,
			    file + 1);
		if ((text = test_read_file(path.buf))) {
			strbuf_addstr(out, text);
			free(text);
		} else {
			problem(check, step, "runs %s, which does not exist",
				path.buf);
		}
		strbuf_release(&path);
	}
}

/* Each output is ${{ steps.ID.outputs.NAME }} of a step with that id
 * whose script writes NAME= (to $GITHUB_OUTPUT). */
static void check_action_outputs(struct check *check, const yaml_node_t *root)
{
	yaml_node_t *outputs = get(check->doc, root, "outputs");
	yaml_node_t *runs = get(check->doc, root, "runs");
	yaml_node_t *steps = get(check->doc, runs, "steps");

	if (!outputs)
		return;
	if (outputs->type != YAML_MAPPING_NODE) {
		problem(check, outputs, "outputs: is not a mapping");
		return;
	}
	for (yaml_node_pair_t *pair = outputs->data.mapping.pairs.start;
	     pair < outputs->data.mapping.pairs.top; pair++) {
		const char *name =
			scalar(yaml_document_get_node(check->doc, pair->key));
		yaml_node_t *output =
			yaml_document_get_node(check->doc, pair->value);
		const char *value = scalar(get(check->doc, output, "value"));
		char id[128], key[128];
		bool found = false;

		if (!value || sscanf(value, "${{ steps.%127[a-zA-Z0-9_-].outputs."
					    "%127[a-zA-Z0-9_-] }}",
				     id, key) != 2) {
			if (!value || !strstr(value, "inputs."))
				problem(check, output,
					"output %s: expected value: ${{ "
					"steps.ID.outputs.NAME }}",
					name ? name : "?");
			continue;
		}
		for (yaml_node_item_t *item = steps && steps->type ==
							  YAML_SEQUENCE_NODE
						      ? steps->data.sequence
								.items.start
						      : NULL;
		     item && item < steps->data.sequence.items.top; item++) {
			yaml_node_t *step =
				yaml_document_get_node(check->doc, *item);
			const char *step_id =
				scalar(get(check->doc, step, "id"));
			struct strbuf script = STRBUF_INIT, written =
								   STRBUF_INIT;

			if (!step_id || strcmp(step_id, id))
				continue;
			found = true;
			step_script(check, step, &script);
			strbuf_addf(&written, "%s=", key);
			if (!strstr(script.buf, written.buf))
				problem(check, step,
					"output %s: step '%s' never writes "
					"%s= to $GITHUB_OUTPUT",
					name ? name : "?", id, key);
			strbuf_release(&script);
			strbuf_release(&written);
		}
		if (!found)
			problem(check, output, "output %s: no step has id '%s'",
				name ? name : "?", id);
	}
}

static void check_action(struct check *check, const yaml_node_t *root,
			 const char *text)
{
	yaml_node_t *runs = get(check->doc, root, "runs");

	if (!scalar(get(check->doc, root, "name")) ||
	    !scalar(get(check->doc, root, "description")))
		problem(check, root, "an action needs name: and description:");
	if (!runs || !scalar(get(check->doc, runs, "using")) ||
	    strcmp(scalar(get(check->doc, runs, "using")), "composite")) {
		problem(check, root, "expected runs: using: composite");
		return;
	}
	check_steps(check, get(check->doc, runs, "steps"), true);
	check_action_inputs(check, text, root);
	check_action_outputs(check, root);
}

static void check_gitlab(struct check *check, const yaml_node_t *root)
{
	bool job = false;

	if (!root || root->type != YAML_MAPPING_NODE) {
		problem(check, root, "expected a mapping of jobs");
		return;
	}
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++)
		job |= get(check->doc,
			   yaml_document_get_node(check->doc, pair->value),
			   "script") != NULL;
	if (!job)
		problem(check, root, "no job with a script:");
}

/*
 * Checks one template's text; appends a line per problem to `problems` and
 * the benchgate commands it uses to `commands` (" check sync "). Returns
 * the number of benchgate invocations found.
 */
static size_t check_template(struct cli_help *help, const char *name,
			     const char *text, enum template_kind kind,
			     struct strbuf *problems, struct strbuf *commands)
{
	struct check check = { .name = name, .help = help };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;

	strbuf_init(&check.problems, 0);
	strbuf_init(&check.commands, 0);
	strbuf_addch(&check.commands, ' ');
	cr_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     strlen(text));
	if (!yaml_parser_load(&parser, &doc)) {
		strbuf_addf(&check.problems, "%s:%zu:%zu: not valid YAML: %s\n",
			    name, (size_t)parser.problem_mark.line + 1,
			    (size_t)parser.problem_mark.column + 1,
			    parser.problem ? parser.problem : "?");
		goto done;
	}
	check.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		problem(&check, root, "an empty document");
	} else if (kind != YAML_SNIPPET && root->type != YAML_MAPPING_NODE) {
		problem(&check, root, "expected a mapping at the top");
	} else {
		if (kind == GITHUB_WORKFLOW)
			check_workflow(&check, root);
		else if (kind == GITHUB_ACTION)
			check_action(&check, root, text);
		else if (kind == GITLAB_TEMPLATE)
			check_gitlab(&check, root);
		check_scripts(&check, root, 0);
	}
	yaml_document_delete(&doc);
done:
	yaml_parser_delete(&parser);
	strbuf_addstr(problems, check.problems.buf);
	if (commands)
		strbuf_addstr(commands, check.commands.buf);
	strbuf_release(&check.problems);
	strbuf_release(&check.commands);
	return check.invocations;
}

/* The checker on small documents first, so a pass on the real files means
 * something. */

TestSuite(workflows, .timeout = 120);

static void expect_problem(const char *text, enum template_kind kind,
			   const char *expected)
{
	struct cli_help help;
	struct strbuf problems = STRBUF_INIT;

	cli_help_init(&help);
	check_template(&help, "bogus.yml", text, kind, &problems, NULL);
	cr_assert(strstr(problems.buf, expected),
		  "expected a problem with \"%s\", got:\n%s", expected,
		  problems.buf);
	strbuf_release(&problems);
	cli_help_release(&help);
}

static void expect_clean(const char *text, enum template_kind kind,
			 size_t invocations, const char *commands)
{
	struct cli_help help;
	struct strbuf problems = STRBUF_INIT, found = STRBUF_INIT;
	size_t nr;

	cli_help_init(&help);
	nr = check_template(&help, "good.yml", text, kind, &problems, &found);
	cr_assert_str_empty(problems.buf, "%s", problems.buf);
	cr_assert_eq(nr, invocations, "found %zu invocations, expected %zu", nr,
		     invocations);
	cr_assert_str_eq(found.buf, commands);
	strbuf_release(&problems);
	strbuf_release(&found);
	cli_help_release(&help);
}

Test(workflows, unknown_option_is_rejected)
{
	expect_problem(
		"on: push\n"
		"jobs:\n"
		"  bench:\n"
		"    runs-on: ubuntu-latest\n"
		"    steps:\n"
		"      - run: benchgate check suite.json --no-such-option\n",
		GITHUB_WORKFLOW,
		"bogus.yml:6: benchgate check: no option "
		"'--no-such-option' in 'benchgate check --help'");
}

Test(workflows, unknown_command_is_rejected)
{
	expect_problem("job:\n"
		       "  script:\n"
		       "    - ./build/benchgate no-such-command --store x\n",
		       GITLAB_TEMPLATE,
		       "benchgate no-such-command: no such command");
}

Test(workflows, option_of_another_command_is_rejected)
{
	/* --report exists, but `run` does not take it. */
	expect_problem("job:\n  script: benchgate run s.json --report out\n",
		       GITLAB_TEMPLATE,
		       "no option '--report' in 'benchgate run");
}

Test(workflows, hidden_options_are_found)
{
	/* Behind a continuation, an operator, a conditional expansion, and
	 * with an = value. */
	expect_problem(
		"job:\n  script: |\n"
		"    true && benchgate check s.json \\\n"
		"      --bogus-one\n"
		"    x=1 benchgate check s.json ${T:+--bogus-two \"$T\"}\n"
		"    if ! benchgate check s.json --bogus-three=4; then :; fi\n",
		GITLAB_TEMPLATE, "'--bogus-one'");
	expect_problem(
		"job:\n  script: x=1 benchgate check s ${T:+--bogus-two \"$T\"}\n",
		GITLAB_TEMPLATE, "'--bogus-two'");
	expect_problem(
		"job:\n  script: if ! benchgate check s --bogus-three=4; then :; fi\n",
		GITLAB_TEMPLATE, "'--bogus-three'");
}

Test(workflows, invalid_yaml_is_rejected)
{
	expect_problem("on: push\njobs: [unclosed\n", GITHUB_WORKFLOW,
		       "not valid YAML");
}

Test(workflows, shapes_are_checked)
{
	expect_problem("on: push\n", GITHUB_WORKFLOW, "a workflow needs jobs:");
	expect_problem("on: push\njobs:\n  a:\n    steps:\n      - run: true\n",
		       GITHUB_WORKFLOW, "a job needs runs-on:");
	expect_problem("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
		       "      - name: nothing\n",
		       GITHUB_WORKFLOW, "one of run: or uses:");
	expect_problem("name: a\ndescription: b\nruns:\n  using: node20\n"
		       "  main: index.js\n",
		       GITHUB_ACTION, "expected runs: using: composite");
	expect_problem("name: a\ndescription: b\nruns:\n  using: composite\n"
		       "  steps:\n    - run: echo ${{ inputs.nope }}\n",
		       GITHUB_ACTION, "needs shell:");
	expect_problem("name: a\ndescription: b\nruns:\n  using: composite\n"
		       "  steps:\n    - run: echo ${{ inputs.nope }}\n"
		       "      shell: bash\n",
		       GITHUB_ACTION, "inputs.nope is not declared");
	expect_problem("stages: [test]\nvariables:\n  A: b\n", GITLAB_TEMPLATE,
		       "no job with a script:");
}

Test(workflows, action_outputs_come_from_its_steps)
{
	expect_problem("name: a\ndescription: b\noutputs:\n"
		       "  verdict:\n    value: ${{ steps.check.outputs.verdict }}\n"
		       "runs:\n  using: composite\n  steps:\n"
		       "    - run: true\n      shell: bash\n",
		       GITHUB_ACTION, "output verdict: no step has id 'check'");
	expect_problem("name: a\ndescription: b\noutputs:\n"
		       "  verdict:\n    value: ${{ steps.check.outputs.verdict }}\n"
		       "runs:\n  using: composite\n  steps:\n"
		       "    - run: echo \"failed=0\" >> \"$GITHUB_OUTPUT\"\n"
		       "      id: check\n      shell: bash\n",
		       GITHUB_ACTION,
		       "output verdict: step 'check' never writes verdict=");
	expect_problem("name: a\ndescription: b\noutputs:\n"
		       "  how:\n    value: ${{ steps.i.outputs.how }}\n"
		       "runs:\n  using: composite\n  steps:\n"
		       "    - run: bash \"$A/ci/no-such-script\"\n"
		       "      id: i\n      shell: bash\n",
		       GITHUB_ACTION, "ci/no-such-script, which does not exist");
}

Test(workflows, other_programs_and_text_are_not_invocations)
{
	expect_clean(
		"job:\n  script:\n"
		"    - cmake --build build --target benchgate --parallel\n"
		"    - echo \"benchgate check --bogus\"  # benchgate x --y\n"
		"    - git fetch origin benchgate-results --depth=1\n"
		"    - ls benchgate/ --bogus\n",
		GITLAB_TEMPLATE, 0, " ");
}

Test(workflows, valid_invocations_pass)
{
	expect_clean("on: [push]\n"
		     "jobs:\n"
		     "  a:\n"
		     "    runs-on: ubuntu-latest\n"
		     "    defaults:\n"
		     "      run:\n"
		     "        shell: bash\n"
		     "    steps:\n"
		     "      - uses: actions/checkout@v4\n"
		     "      - run: >-\n"
		     "          ./build/benchgate check 'suite.json'\n"
		     "          --threshold=3% --report \"out dir\"\n"
		     "      - run: |\n"
		     "          for i in 1 2; do benchgate run s --runs 2 && "
		     "break; done\n"
		     "          v=$(benchgate --version)\n",
		     GITHUB_WORKFLOW, 3, " check run ");
}

/* The real templates */

/* Where the templates are, and of what kind. */
static const struct {
	const char *pattern; /* under the source tree */
	enum template_kind kind;
} template_globs[] = {
	{ ".github/workflows/*.yml", GITHUB_WORKFLOW },
	{ ".github/workflows/*.yaml", GITHUB_WORKFLOW },
	{ "action.yml", GITHUB_ACTION },
	{ "ci/gitlab/*.yml", GITLAB_TEMPLATE },
};

/* The commands each file must run, so a checker that finds nothing, or a
 * file that lost its point, cannot pass. */
static const struct {
	const char *file;
	const char *commands;
} required_commands[] = {
	{ ".github/workflows/ci.yml", "validate" },
	{ ".github/workflows/benchmarks.yml", "sync check run comment" },
	{ ".github/workflows/nightly.yml", "sync check" },
	{ "action.yml", "sync check comment" },
	{ "ci/gitlab/benchgate.gitlab-ci.yml", "sync check comment" },
};

static void check_required(const char *name, const char *used,
			   struct strbuf *problems, size_t *seen)
{
	for (size_t r = 0;
	     r < sizeof(required_commands) / sizeof(*required_commands); r++) {
		const char *w = required_commands[r].commands;

		if (strcmp(required_commands[r].file, name))
			continue;
		(*seen)++;
		while (*w) {
			size_t len = strcspn(w, " ");
			char *command = xstrndup(w, len);

			if (!word_listed(used, command))
				strbuf_addf(problems,
					    "%s: does not run "
					    "'benchgate %s'\n",
					    name, command);
			free(command);
			w += len + (w[len] == ' ');
		}
	}
}

Test(workflows, templates_match_the_binary)
{
	struct strbuf problems = STRBUF_INIT;
	struct cli_help help;
	size_t files = 0, required = 0;

	cli_help_init(&help);
	for (size_t g = 0; g < sizeof(template_globs) / sizeof(*template_globs);
	     g++) {
		struct strbuf pattern = STRBUF_INIT;
		glob_t found = { 0 };

		strbuf_addf(&pattern, "%s/%s", BENCHGATE_SOURCE_DIR,
			    template_globs[g].pattern);
		glob(pattern.buf, 0, NULL, &found);
		for (size_t i = 0; i < found.gl_pathc; i++) {
			const char *path = found.gl_pathv[i];
			const char *name =
				path + strlen(BENCHGATE_SOURCE_DIR) + 1;
			struct strbuf used = STRBUF_INIT;
			char *text = test_read_file(path);

			cr_assert_not_null(text, "cannot read %s", path);
			files++;
			check_template(&help, name, text,
				       template_globs[g].kind, &problems,
				       &used);
			check_required(name, used.buf, &problems, &required);
			strbuf_release(&used);
			free(text);
		}
		globfree(&found);
		strbuf_release(&pattern);
	}
	cr_assert_eq(required,
		     sizeof(required_commands) / sizeof(*required_commands),
		     "a template file is missing");
	cr_assert_geq(files, 5, "found only %zu template files", files);
	cr_assert_str_empty(problems.buf,
			    "the CI templates disagree with the "
			    "binary:\n%s",
			    problems.buf);
	strbuf_release(&problems);
	cli_help_release(&help);
}

/* The copy-paste snippets of the user manual: every ```yaml block of
 * README.md and the .md files of docs/ and its folders, checked the same
 * way. */
Test(workflows, documented_snippets_match_the_binary)
{
	struct strbuf problems = STRBUF_INIT;
	struct cli_help help;
	size_t blocks = 0;
	glob_t found = { 0 };

	cli_help_init(&help);
	glob(BENCHGATE_SOURCE_DIR "/README.md", 0, NULL, &found);
	glob(BENCHGATE_SOURCE_DIR "/docs/*.md", GLOB_APPEND, NULL, &found);
	glob(BENCHGATE_SOURCE_DIR "/docs/*/*.md", GLOB_APPEND, NULL, &found);
	glob(BENCHGATE_SOURCE_DIR "/docs/*/*/*.md", GLOB_APPEND, NULL, &found);
	for (size_t i = 0; i < found.gl_pathc; i++) {
		const char *name =
			found.gl_pathv[i] + strlen(BENCHGATE_SOURCE_DIR) + 1;
		char *text = test_read_file(found.gl_pathv[i]);
		const char *p = text;

		cr_assert_not_null(text);
		while ((p = strstr(p, "```yaml\n"))) {
			const char *body = p + strlen("```yaml\n");
			const char *end = strstr(body, "\n```");
			struct strbuf snippet = STRBUF_INIT;

			cr_assert_not_null(end, "%s: unterminated block", name);
			/* Blank lines in place of the text before the block,
			 * so problems give the line in the document. */
			for (const char *q = text; q < body; q++)
				if (*q == '\n')
					strbuf_addch(&snippet, '\n');
			strbuf_add(&snippet, body, (size_t)(end - body) + 1);
			check_template(&help, name, snippet.buf, YAML_SNIPPET,
				       &problems, NULL);
			blocks++;
			strbuf_release(&snippet);
			p = end + 4;
		}
		free(text);
	}
	globfree(&found);
	cr_assert_geq(blocks, 3,
		      "expected the GitHub and GitLab snippets, "
		      "found %zu yaml blocks",
		      blocks);
	cr_assert_str_empty(problems.buf,
			    "the documented snippets disagree "
			    "with the binary:\n%s",
			    problems.buf);
	strbuf_release(&problems);
	cli_help_release(&help);
}

Test(workflows, templates_publish_what_ci_systems_read)
{
	char *gitlab = test_read_file(BENCHGATE_SOURCE_DIR
				      "/ci/gitlab/benchgate.gitlab-ci.yml");
	char *action =
		test_read_file(BENCHGATE_SOURCE_DIR "/action.yml");
	char *bench = test_read_file(BENCHGATE_SOURCE_DIR
				     "/.github/workflows/benchmarks.yml");

	cr_assert_not_null(gitlab);
	cr_assert_not_null(action);
	cr_assert_not_null(bench);
	/* The file names report_write_all() gives (report.h). */
	cr_assert(strstr(gitlab, "junit: out/junit.xml"));
	cr_assert(strstr(gitlab, "metrics: out/metrics.txt"));
	/* the alert quotes commit subjects: posted as the body benchgate
	 * neutralised (history --issue, body_fence()), never raw nor fenced
	 * by a script of its own */
	cr_assert_null(strstr(gitlab, "description@alert.txt"));
	cr_assert(strstr(gitlab, "description@issue.md") &&
			  strstr(gitlab, "--alert --published public "
					 "--issue issue.md"),
		  "the GitLab issue is not benchgate's neutralised body");
	cr_assert_null(strstr(gitlab, "${fence}"),
		       "the GitLab template fences in shell");
	/* the jobs run in the image of the template's own version */
	cr_assert(strstr(gitlab, "image: $BENCHGATE_IMAGE"));
	cr_assert(strstr(gitlab, "BENCHGATE_IMAGE: ghcr.io/benchgate/benchgate:"
				 BENCHGATE_VERSION "\n"),
		  "the GitLab template's image is not version %s",
		  BENCHGATE_VERSION);
	cr_assert(strstr(bench, "--body out/report.md"));
	cr_assert(strstr(bench, "GITHUB_STEP_SUMMARY"));
	/* the history comes from fetches of named refs
	 * (jobs_fetch_only_the_refs_they_need) */
	cr_assert(strstr(bench, "\"$GITHUB_REF\""));
	for (const char *const *input =
		     (const char *const[]){ "suite:", "baseline:", "threshold:",
					    "comment:", "store:", "charts:",
					    NULL };
	     *input; input++)
		cr_assert(strstr(action, *input), "action input %s", *input);
	/* what a workflow reads after the step (action_outputs_come_from_
	 * its_steps checks each is written) */
	for (const char *const *output =
		     (const char *const[]){ "\n  verdict:\n",
					    "\n  regressions:\n",
					    "\n  failed:\n", "\n  report-dir:\n",
					    "\n  comparison:\n", NULL };
	     *output; output++)
		cr_assert(strstr(strstr(action, "\noutputs:\n"), *output),
			  "action output%s", *output);
	free(gitlab);
	free(action);
	free(bench);
}

/* The pull-request gate measures the merge base through `check --against`
 * (a scratch tree benchgate makes, builds and removes), not a work tree
 * of the workflow's own making, in each template and workflow. */
Test(workflows, pull_requests_measure_the_merge_base_with_check_against)
{
	static const char *const files[] = {
		"/action.yml",
		"/ci/gitlab/benchgate.gitlab-ci.yml",
		"/.github/workflows/benchmarks.yml",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char path[4096], *text;

		snprintf(path, sizeof(path), "%s%s", BENCHGATE_SOURCE_DIR,
			 files[i]);
		text = test_read_file(path);
		cr_assert_not_null(text, "%s", path);
		cr_assert(strstr(text, "--against "), "%s: no check --against",
			  files[i]);
		cr_assert_null(strstr(text, "git worktree"),
			       "%s: makes a work tree of its own", files[i]);
		cr_assert_null(strstr(text, "--baseline-tree"),
			       "%s: passes a tree of its own", files[i]);
		free(text);
	}
}

/* Issue 25: no job fetches every branch (the results branch with them):
 * no `fetch-depth: 0`, every `git fetch` names the refs it wants, and
 * the remote is an input or a variable, never a hard-coded "origin" in
 * the action and the GitLab template. */

/* The lines of text containing `word`, each reported with its file into
 * problems unless it also contains one of `allowed` (NULL-terminated). */
static void lines_with(const char *name, const char *text, const char *word,
		       const char *const *allowed, const char *why,
		       struct strbuf *problems)
{
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		const char *start = p, *end = strchr(p, '\n');
		bool ok = false;

		while (start > text && start[-1] != '\n')
			start--;
		if (!end)
			end = p + strlen(p);
		for (const char *const *a = allowed; a && *a; a++) {
			const char *hit = strstr(start, *a);

			ok |= hit && hit < end;
		}
		if (!ok)
			strbuf_addf(problems, "%s: %s: %.*s\n", name, why,
				    (int)(end - start), start);
	}
}

Test(workflows, jobs_fetch_only_the_refs_they_need)
{
	static const char *const files[] = {
		"action.yml",
		".github/workflows/benchmarks.yml",
		".github/workflows/nightly.yml",
		".github/workflows/ci.yml",
		"ci/gitlab/benchgate.gitlab-ci.yml",
		"docs/install.md",
		"docs/how-to/github-actions.md",
		"docs/tutorial/torch-variants.md",
		"docs/how-to/gpu-runner.md",
		"README.md",
	};
	/* "${refspecs[@]}": "$GITHUB_REF" and the base branch's */
	static const char *const refspecs[] = { "\"$GITHUB_REF\"",
						"refs/heads/",
						"\"${refspecs[@]}\"", NULL };
	static const char *const remote_inputs[] = { "default: origin",
						     "REMOTE: origin", NULL };
	struct strbuf problems = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct strbuf path = STRBUF_INIT;
		char *text;

		strbuf_addf(&path, "%s/%s", BENCHGATE_SOURCE_DIR, files[i]);
		text = test_read_file(path.buf);
		cr_assert_not_null(text, "%s", path.buf);
		lines_with(files[i], text, "fetch-depth: 0", (const char *[]){
				   "# ", NULL },
			   "fetches every branch", &problems);
		lines_with(files[i], text, "git fetch ", refspecs,
			   "a fetch that names no ref", &problems);
		/* the templates; ci.yml is benchgate's own test job */
		if (strstr(files[i], ".yml") && !strstr(files[i], "/ci.yml"))
			lines_with(files[i], text, "origin", remote_inputs,
				   "a hard-coded remote", &problems);
		free(text);
		strbuf_release(&path);
	}
	cr_expect_eq(problems.len, 0, "%s", problems.buf);
	strbuf_release(&problems);
}

/* Least privilege (issue 22): no permission granted at the top of a
 * workflow but read, every job that needs more names it, and every
 * checkout leaves no token in .git/config for the code it runs (the pull
 * request's) to find. */

static bool grants_write(yaml_document_t *doc, const yaml_node_t *perms)
{
	const char *all = scalar(perms);

	if (all)
		return strcmp(all, "read-all") && strcmp(all, "{}");
	if (!perms || perms->type != YAML_MAPPING_NODE)
		return false;
	for (yaml_node_pair_t *pair = perms->data.mapping.pairs.start;
	     pair < perms->data.mapping.pairs.top; pair++) {
		const char *level =
			scalar(yaml_document_get_node(doc, pair->value));

		if (!level || (strcmp(level, "read") && strcmp(level, "none")))
			return true;
	}
	return false;
}

/* Whether the workflow runs on pull requests: `on` names pull_request
 * (or pull_request_target) as a scalar, an item or a key. */
static bool on_pull_requests(yaml_document_t *doc, const yaml_node_t *on)
{
	const char *one = scalar(on);

	if (one)
		return !strncmp(one, "pull_request", 12);
	if (on && on->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *item = on->data.sequence.items.start;
		     item < on->data.sequence.items.top; item++) {
			one = scalar(yaml_document_get_node(doc, *item));
			if (one && !strncmp(one, "pull_request", 12))
				return true;
		}
	}
	return get(doc, on, "pull_request") ||
	       get(doc, on, "pull_request_target");
}

/* Whether a job's `if` keeps it off pull requests: it runs only on
 * another event, or on any but pull_request. */
static bool kept_off_pull_requests(const char *condition)
{
	const char *equal;

	if (!condition)
		return false;
	if (strstr(condition, "github.event_name != 'pull_request'"))
		return true;
	equal = strstr(condition, "github.event_name == '");
	return equal && strncmp(equal + 22, "pull_request", 12);
}

/* Whether a job's permissions give contents: write (write-all too). */
static bool writes_contents(yaml_document_t *doc, const yaml_node_t *perms)
{
	const char *all = scalar(perms), *contents;

	if (all)
		return !strcmp(all, "write-all");
	contents = scalar(get(doc, perms, "contents"));
	return contents && !strcmp(contents, "write");
}

static void privilege_problems(const char *name, const char *text,
			       struct strbuf *problems)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *jobs;

	cr_assert(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     strlen(text));
	cr_assert(yaml_parser_load(&parser, &doc), "%s: not valid YAML", name);
	root = yaml_document_get_root_node(&doc);
	cr_assert(root && root->type == YAML_MAPPING_NODE, "%s", name);
	if (!get(&doc, root, "permissions"))
		strbuf_addf(problems, "%s: no top-level permissions (the "
				      "default grants write)\n",
			    name);
	else if (grants_write(&doc, get(&doc, root, "permissions")))
		strbuf_addf(problems, "%s: the top-level permissions grant "
				      "write to every job\n",
			    name);
	jobs = get(&doc, root, "jobs");
	for (yaml_node_pair_t *job = jobs && jobs->type == YAML_MAPPING_NODE
					     ? jobs->data.mapping.pairs.start
					     : NULL;
	     job && job < jobs->data.mapping.pairs.top; job++) {
		const char *job_name =
			scalar(yaml_document_get_node(&doc, job->key));
		yaml_node_t *body = yaml_document_get_node(&doc, job->value);
		yaml_node_t *steps = get(&doc, body, "steps");

		/* a pull request's run pushes nothing: its token must not
		 * be able to (the code it runs is the pull request's) */
		if (on_pull_requests(&doc, get(&doc, root, "on")) &&
		    !kept_off_pull_requests(scalar(get(&doc, body, "if"))) &&
		    writes_contents(&doc, get(&doc, body, "permissions")))
			strbuf_addf(problems,
				    "%s: job %s: contents: write on pull "
				    "requests\n",
				    name, job_name);

		for (yaml_node_item_t *item =
			     steps && steps->type == YAML_SEQUENCE_NODE
				     ? steps->data.sequence.items.start
				     : NULL;
		     item && item < steps->data.sequence.items.top; item++) {
			yaml_node_t *step =
				yaml_document_get_node(&doc, *item);
			const char *uses = scalar(get(&doc, step, "uses"));
			const char *persist = scalar(get(
				&doc, get(&doc, step, "with"),
				"persist-credentials"));

			if (uses && !strncmp(uses, "actions/checkout@", 17) &&
			    (!persist || strcmp(persist, "false")))
				strbuf_addf(problems,
					    "%s: job %s: a checkout without "
					    "persist-credentials: false\n",
					    name, job_name);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
}

Test(workflows, each_job_gets_only_the_permissions_it_uses)
{
	static const char *const files[] = {
		"/.github/workflows/benchmarks.yml",
		"/.github/workflows/nightly.yml",
		"/.github/workflows/ci.yml",
	};
	struct strbuf problems = STRBUF_INIT;

	/* the checker sees what it is for */
	privilege_problems("top-write",
			   "permissions:\n  contents: write\njobs: {}\n",
			   &problems);
	cr_assert(strstr(problems.buf, "grant write"), "%s", problems.buf);
	strbuf_reset(&problems);
	privilege_problems("persisted",
			   "permissions: {}\njobs:\n  b:\n    steps:\n"
			   "      - uses: actions/checkout@v4\n",
			   &problems);
	cr_assert(strstr(problems.buf, "persist-credentials"), "%s",
		  problems.buf);
	strbuf_reset(&problems);
	privilege_problems("pr-write",
			   "on: [pull_request, push]\npermissions: {}\n"
			   "jobs:\n  b:\n    permissions:\n"
			   "      contents: write\n    steps: []\n"
			   "  c:\n    if: github.event_name == 'push'\n"
			   "    permissions:\n      contents: write\n"
			   "    steps: []\n",
			   &problems);
	cr_assert(strstr(problems.buf, "job b: contents: write on pull "
				       "requests"),
		  "%s", problems.buf);
	cr_assert_null(strstr(problems.buf, "job c"), "%s", problems.buf);
	strbuf_reset(&problems);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char path[4096], *text;

		snprintf(path, sizeof(path), "%s%s", BENCHGATE_SOURCE_DIR,
			 files[i]);
		text = test_read_file(path);
		cr_assert_not_null(text, "%s", path);
		privilege_problems(files[i], text, &problems);
		free(text);
	}
	/* and the workflow the how-to tells users to copy */
	{
		char *doc = test_read_file(BENCHGATE_SOURCE_DIR
					   "/docs/how-to/github-actions.md");
		char *start, *end;

		cr_assert_not_null(doc);
		start = strstr(doc, "```yaml\n# .github/workflows/"
				    "benchmarks.yml\n");
		cr_assert_not_null(start, "no documented workflow");
		start += 8;
		end = strstr(start, "```");
		cr_assert_not_null(end);
		*end = '\0';
		privilege_problems("docs/how-to/github-actions.md", start,
				   &problems);
		free(doc);
	}
	cr_assert_eq(problems.len, 0, "%s", problems.buf);
	strbuf_release(&problems);
}

/* OpenMetrics: GitLab's metrics report */

static struct metric_comparison sample_item(const char *benchmark,
					    enum verdict verdict)
{
	struct metric_comparison mc;

	memset(&mc, 0, sizeof(mc));
	mc.suite = (char *)"mlp";
	mc.benchmark = (char *)benchmark;
	mc.variant = (char *)"quantized";
	mc.device = (char *)"cpu";
	mc.metric = (char *)"latency";
	mc.unit = (char *)"ms";
	mc.has_baseline = mc.has_candidate = true;
	mc.baseline.n = mc.candidate.n = 10;
	mc.baseline.median = mc.centre_baseline = 1.70;
	mc.candidate.median = 1.81;
	mc.centre_candidate = 1.70 * 1.065;
	mc.change = 0.065;
	mc.threshold = 0.03;
	mc.p_value = mc.p_adjusted = 0.0004;
	mc.verdict = verdict;
	return mc;
}

/*
 * A strict reader of the subset of OpenMetrics text the reporter writes
 * (https://github.com/OpenObservability/OpenMetrics/blob/main/specification/OpenMetrics.md):
 * "# TYPE name gauge" and "# HELP name text" before the family's samples,
 * samples "name{label="value",...} number", families contiguous, and
 * "# EOF" as the last line. Returns NULL or what is wrong.
 */
static const char *const name_chars =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:0123456789";

/* An escaped-string up to the closing quote or the end of the line: no
 * raw newline or double quote, and only the escapes \\ \" \n. */
static const char *escaped_problem(const char **p, char end)
{
	for (; **p != end; (*p)++) {
		if (**p == '\n' || **p == '"' || !**p)
			return "unescaped newline or quote";
		if (**p == '\\' && (!*++*p || !strchr("\\\"n", **p)))
			return "bad escape";
	}
	return NULL;
}

/* One sample line after its name: {labels} value. */
static const char *sample_problem(const char *p)
{
	const char *why;
	char *after;

	if (*p == '{') {
		do {
			p++;
			p += strspn(p, "abcdefghijklmnopqrstuvwxyz_");
			if (p[0] != '=' || p[1] != '"')
				return "bad label";
			p += 2;
			if ((why = escaped_problem(&p, '"')))
				return why;
			p++;
		} while (*p == ',');
		if (*p++ != '}')
			return "unterminated labels";
	}
	if (*p++ != ' ')
		return "no space before the value";
	strtod(p, &after);
	if (after == p || *after != '\n')
		return "bad value";
	return NULL;
}

/*
 * A strict reader of the subset of OpenMetrics text the reporter writes
 * (OpenMetrics specification, "Text format"): "# TYPE name gauge" then
 * "# HELP name text" before a family's samples, samples
 * `name{label="value",...} number`, each family in one block, and "# EOF"
 * as the last line. Returns NULL, or what is wrong.
 */
static const char *openmetrics_problem(const char *text, size_t *samples)
{
	struct strbuf families = STRBUF_INIT, family = STRBUF_INIT;
	const char *line = text, *why = "no # EOF";

	*samples = 0;
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len;

		if (!end) {
			why = "the last line has no newline";
			break;
		}
		if (!strncmp(line, "# EOF\n", 6)) {
			why = line[6] ? "text after # EOF" : NULL;
			break;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			len = strspn(line + 7, name_chars);
			if (!len || strncmp(line + 7 + len, " gauge\n", 7)) {
				why = "bad TYPE line";
				break;
			}
			strbuf_reset(&family);
			strbuf_add(&family, line + 7, len);
			if (word_listed(families.buf, family.buf)) {
				why = "a family in two blocks";
				break;
			}
			strbuf_addf(&families, " %s ", family.buf);
		} else if (!strncmp(line, "# HELP ", 7)) {
			const char *help = line + 8 + family.len;

			if (!family.len ||
			    strncmp(line + 7, family.buf, family.len) ||
			    line[7 + family.len] != ' ') {
				why = "HELP not after its TYPE";
				break;
			}
			if ((why = escaped_problem(&help, '\n')))
				break;
			why = "no # EOF";
		} else {
			len = strspn(line, name_chars);
			if (!len || len != family.len ||
			    strncmp(line, family.buf, len)) {
				why = "a sample outside its family";
				break;
			}
			if ((why = sample_problem(line + len)))
				break;
			why = "no # EOF";
			(*samples)++;
		}
		line = end + 1;
	}
	strbuf_release(&families);
	strbuf_release(&family);
	return why;
}

TestSuite(openmetrics);

Test(openmetrics, gitlab_metrics_report_is_valid_and_escaped)
{
	struct metric_comparison items[3];
	struct comparison c;
	struct report_model model = { .comparison = &c };
	struct strbuf out = STRBUF_INIT;
	const char *problem_text;
	size_t samples;

	memset(&c, 0, sizeof(c));
	items[0] = sample_item("infer-batch32", VERDICT_REGRESSION);
	items[1] = sample_item("we\"ird\\name\nnext", VERDICT_IMPROVEMENT);
	items[1].change = -0.2;
	items[2] = sample_item("fresh", VERDICT_NEW);
	items[2].has_baseline = false;
	items[2].baseline.n = 0;
	items[2].baseline.median = items[2].centre_baseline = NAN;
	items[2].change = NAN;
	c.suite = (char *)"mlp";
	c.items = items;
	c.nr = 3;
	c.counts[VERDICT_REGRESSION] = 1;
	c.counts[VERDICT_IMPROVEMENT] = 1;
	c.counts[VERDICT_NEW] = 1;
	report_openmetrics(&model, &out);

	problem_text = openmetrics_problem(out.buf, &samples);
	cr_assert_null(problem_text, "%s in:\n%s", problem_text, out.buf);
	/* 3 medians, 2 baseline medians, 2 changes, 3 verdicts, 8 counts. */
	cr_assert_eq(samples, 18, "%zu samples:\n%s", samples, out.buf);
	cr_assert(
		strstr(out.buf,
		       "benchgate_median{suite=\"mlp\",benchmark=\"infer-batch32\","
		       "variant=\"quantized\",device=\"cpu\",metric=\"latency\","
		       "unit=\"ms\"} 1.81\n"),
		"%s", out.buf);
	cr_assert(strstr(out.buf, "benchmark=\"we\\\"ird\\\\name\\nnext\""),
		  "%s", out.buf);
	cr_assert(strstr(out.buf,
			 "benchgate_change{suite=\"mlp\",benchmark="
			 "\"infer-batch32\",variant=\"quantized\",device="
			 "\"cpu\",metric=\"latency\",unit=\"ms\"} 0.065\n"));
	cr_assert(strstr(out.buf,
			 "benchgate_verdict{suite=\"mlp\",benchmark="
			 "\"infer-batch32\",variant=\"quantized\",device="
			 "\"cpu\",metric=\"latency\",unit=\"ms\"} 3\n"));
	cr_assert(strstr(out.buf, "benchgate_metrics{suite=\"mlp\","
				  "verdict=\"regression\"} 1\n"));
	cr_assert(!strstr(out.buf, "NaN") && !strstr(out.buf, "nan"));
	strbuf_release(&out);
}

Test(openmetrics, is_a_report_format_written_as_metrics_txt)
{
	struct metric_comparison item = sample_item("b", VERDICT_UNCHANGED);
	struct comparison c;
	struct report_model model = { .comparison = &c };
	struct strbuf written = STRBUF_INIT, path = STRBUF_INIT;
	unsigned mask = 0;
	char *dir = test_tmpdir(), *text;

	memset(&c, 0, sizeof(c));
	c.items = &item;
	c.nr = 1;
	cr_assert_eq(report_parse_formats("openmetrics", &mask), BG_OK);
	cr_assert_eq(mask, REPORT_OPENMETRICS);
	cr_assert(REPORT_ALL & REPORT_OPENMETRICS);
	cr_assert_eq(report_write_all(&model, dir, mask, &written), BG_OK, "%s",
		     bg_error_last());
	strbuf_addf(&path, "%s/metrics.txt", dir);
	text = test_read_file(path.buf);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "# EOF\n"));
	free(text);
	strbuf_release(&path);
	strbuf_release(&written);
	test_rmtree(dir);
	free(dir);
}

/* GitHub annotations */

TestSuite(annotations);

Test(annotations, one_error_per_regression_with_user_text_escaped)
{
	struct metric_comparison items[3];
	struct comparison c;
	struct strbuf out = STRBUF_INIT;
	struct report_model model = { 0 };

	memset(&c, 0, sizeof(c));
	items[0] = sample_item("infer-batch32", VERDICT_REGRESSION);
	/* A name that would end the command and start another, and would
	 * decode %0A, if it were not escaped; and would erase the log's
	 * screen and reverse its text. */
	items[1] = sample_item("x%0A::warning::y\r\n::add-mask::z,a:b"
			       "\x1b[2J\xe2\x80\xae\xff",
			       VERDICT_REGRESSION);
	items[2] = sample_item("fine", VERDICT_UNCHANGED);
	c.items = items;
	c.nr = 3;
	model.comparison = &c;
	report_model_build(&model);
	report_github_annotations(&model, &out);
	report_model_release(&model);

	/* Every '%' is escaped, benchgate's own included: the runner
	 * decodes %25 back, and only an escaped name is inert. */
	cr_assert_str_eq(
		out.buf,
		"::error title=benchgate regression::infer-batch32/quantized/cpu "
		"latency +6.5%25 (1.70 ms -> 1.81 ms, threshold 3%25, "
		"p 0.0004)\n"
		"::error title=benchgate regression::x%250A::warning::y\\x0d"
		"\\x0a::add-mask::z,a:b\\x1b[2J\\xe2\\x80\\xae\\xff/"
		"quantized/cpu latency +6.5%25 (1.70 ms -> 1.81 ms, threshold "
		"3%25, p 0.0004)\n");
	strbuf_release(&out);
}

Test(annotations, printed_only_under_github_actions)
{
	struct metric_comparison item = sample_item("b", VERDICT_REGRESSION);
	struct comparison c;
	struct report_model model = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *to;

	memset(&c, 0, sizeof(c));
	c.items = &item;
	c.nr = 1;
	model.comparison = &c;
	report_model_build(&model);
	unsetenv("GITHUB_ACTIONS");
	to = open_memstream(&text, &len);
	report_annotate_ci(to, &model);
	fclose(to);
	cr_assert_eq(len, 0);
	free(text);

	setenv("GITHUB_ACTIONS", "true", 1);
	to = open_memstream(&text, &len);
	report_annotate_ci(to, &model);
	fclose(to);
	cr_assert(!strncmp(text, "::error title=benchgate regression::b/", 38),
		  "%s", text);
	free(text);
	report_model_release(&model);
}
