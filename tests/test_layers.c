/* SPDX-License-Identifier: Apache-2.0 */
#include "testutil.h"

#include "harness/util/alloc.h"
#include "harness/util/strbuf.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The architecture as a test: the folders are layers (docs/development.md, "Layout"),
 * and a file may include only from its own layer and the layers below it,
 * so data flows one way. This reads every `#include "..."` of harness/ and
 * reporters/ and fails on an include that goes up, directly or through a
 * chain of headers, or on modules (x.c and x.h together) that include each
 * other round a cycle.
 */

struct layer_rule {
	const char *prefix; /* a folder, or one file */
	const char *may[12]; /* the folders its files may include from */
};

/*
 * Most specific prefix first. Bottom to top: util, model (the result
 * document), git, store, bridge (the peers' documents), probe (what the
 * machine can tell), suite, run, gate (the maths), app (the use cases),
 * cli. forge (the forges' HTTP clients) stands beside them on util.
 * reporters/ reads the model's data (the result, the comparison, the
 * history) and util only: the gate makes the comparisons and histories
 * the reports show, and only the report model's builder (report.c) calls
 * its statistics. The bisect view has its own input
 * (reporters/bisect_view.h), so no reporter reaches app/.
 */
static const struct layer_rule rules[] = {
	{ "reporters/report.c",
	  { "reporters/", "harness/util/", "harness/model/",
	    "harness/gate/" } },
	{ "reporters/", { "reporters/", "harness/model/", "harness/util/" } },
	{ "harness/util/", { "harness/util/" } },
	{ "harness/model/", { "harness/model/", "harness/util/" } },
	{ "harness/git/", { "harness/git/", "harness/model/", "harness/util/" } },
	{ "harness/store/",
	  { "harness/store/", "harness/git/", "harness/model/",
	    "harness/util/" } },
	{ "harness/bridge/",
	  { "harness/bridge/", "harness/model/", "harness/util/" } },
	{ "harness/probe/",
	  { "harness/probe/", "harness/model/", "harness/util/" } },
	{ "harness/suite/",
	  { "harness/suite/", "harness/probe/", "harness/bridge/",
	    "harness/model/", "harness/util/" } },
	{ "harness/run/",
	  { "harness/run/", "harness/suite/", "harness/probe/",
	    "harness/bridge/", "harness/store/", "harness/git/",
	    "harness/model/", "harness/util/" } },
	/* not suite/: the gate judges by the settings the result records
	 * (docs/gate-settings.md) */
	{ "harness/gate/",
	  { "harness/gate/", "harness/probe/", "harness/store/",
	    "harness/git/", "harness/model/", "harness/util/" } },
	{ "harness/forge/", { "harness/forge/", "harness/util/" } },
	{ "harness/app/", { "harness/", "reporters/" } },
	{ "harness/cli/", { "harness/", "reporters/" } },
};

struct include {
	char *from; /* relative to the root: "harness/run/session.c" */
	char *to;   /* as written: "harness/store/store.h" */
	int line;
};

struct include_graph {
	struct include *edges;
	size_t nr, alloc;
	const char *root;
};

static struct include_graph *walking;

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void read_includes(struct include_graph *graph, const char *path,
			  const char *relative)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int nr = 0;

	cr_assert_not_null(f, "cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		char target[512];

		nr++;
		if (sscanf(line, " # include \"%511[^\"]\"", target) != 1)
			continue;
		ALLOC_GROW(graph->edges, graph->nr + 1, graph->alloc);
		graph->edges[graph->nr++] = (struct include){ xstrdup(relative),
							      xstrdup(target),
							      nr };
	}
	fclose(f);
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	size_t len = strlen(path);

	(void)st;
	(void)ftw;
	if (type == FTW_F && len > 2 &&
	    (strcmp(path + len - 2, ".c") == 0 ||
	     strcmp(path + len - 2, ".h") == 0))
		read_includes(walking, path, path + strlen(walking->root) + 1);
	return 0;
}

static void graph_load(struct include_graph *graph, const char *root)
{
	static const char *const folders[] = { "harness", "reporters" };
	struct strbuf dir = STRBUF_INIT;

	*graph = (struct include_graph){ .root = root };
	walking = graph;
	for (size_t i = 0; i < sizeof(folders) / sizeof(*folders); i++) {
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/%s", root, folders[i]);
		nftw(dir.buf, visit, 16, FTW_PHYS);
	}
	walking = NULL;
	strbuf_release(&dir);
}

static void graph_release(struct include_graph *graph)
{
	for (size_t i = 0; i < graph->nr; i++) {
		free(graph->edges[i].from);
		free(graph->edges[i].to);
	}
	free(graph->edges);
}

static const struct layer_rule *rule_for(const char *file)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		if (starts_with(file, rules[i].prefix))
			return &rules[i];
	return NULL;
}

static bool allowed_by(const struct layer_rule *rule, const char *to)
{
	for (size_t j = 0; j < 12 && rule->may[j]; j++)
		if (starts_with(to, rule->may[j]))
			return true;
	return false;
}

/* Appends "file:line: includes 'x', above its layer" per upward include. */
static void find_upward(const struct include_graph *graph, struct strbuf *found)
{
	for (size_t i = 0; i < graph->nr; i++) {
		const struct include *inc = &graph->edges[i];
		const struct layer_rule *rule = rule_for(inc->from);

		if (rule && !allowed_by(rule, inc->to))
			strbuf_addf(found,
				    "%s:%d: includes '%s', above its layer "
				    "(%s)\n",
				    inc->from, inc->line, inc->to,
				    rule->prefix);
	}
}

struct chain_walk {
	const struct include_graph *graph;
	const char *file; /* the file held to its rule */
	const struct layer_rule *rule;
	const char **path; /* the headers between file and the current one */
	size_t depth;
	const char **seen;
	size_t seen_nr;
	struct strbuf *found;
};

static bool walk_seen(struct chain_walk *w, const char *header)
{
	for (size_t i = 0; i < w->seen_nr; i++)
		if (!strcmp(w->seen[i], header))
			return true;
	w->seen[w->seen_nr++] = header;
	return false;
}

/* Everything `from` includes, held to w->file's rule when it is reached
 * through at least one header (find_upward() checks the direct ones). */
static void walk_chain(struct chain_walk *w, const char *from)
{
	for (size_t i = 0; i < w->graph->nr; i++) {
		const struct include *inc = &w->graph->edges[i];

		if (strcmp(inc->from, from) || walk_seen(w, inc->to))
			continue;
		if (w->depth && !allowed_by(w->rule, inc->to)) {
			strbuf_addf(w->found, "%s: includes '%s' through ",
				    w->file, inc->to);
			for (size_t j = 0; j < w->depth; j++)
				strbuf_addf(w->found, "%s%s", j ? " -> " : "",
					    w->path[j]);
			strbuf_addf(w->found, ", above its layer (%s)\n",
				    w->rule->prefix);
			continue;
		}
		w->path[w->depth++] = inc->to;
		walk_chain(w, inc->to);
		w->depth--;
	}
}

/* Appends "file: includes 'x' through a.h -> b.h, above its layer" for
 * each header a file reaches through a chain that its rule forbids. */
static void find_upward_chains(const struct include_graph *graph,
			       struct strbuf *found)
{
	struct chain_walk w = { .graph = graph, .found = found };

	w.path = xcalloc(graph->nr + 1, sizeof(*w.path));
	w.seen = xcalloc(graph->nr + 1, sizeof(*w.seen));
	for (size_t i = 0; i < graph->nr; i++) {
		const char *file = graph->edges[i].from;

		/* each file once: its edges are read together */
		if ((i && !strcmp(graph->edges[i - 1].from, file)) ||
		    !(w.rule = rule_for(file)))
			continue;
		w.file = file;
		w.seen_nr = 0;
		w.depth = 0;
		walk_chain(&w, file);
	}
	free(w.path);
	free(w.seen);
}

/* A module is a file's path without its extension: x.c and x.h are one. */
static size_t module_len(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? (size_t)(dot - path) : strlen(path);
}

static bool same_module(const char *a, const char *b)
{
	size_t len = module_len(a);

	return len == module_len(b) && strncmp(a, b, len) == 0;
}

enum {
	UNSEEN,
	ON_PATH,
	DONE
};

struct cycle_search {
	const struct include_graph *graph;
	const char **modules; /* one representative path per module */
	int *state;
	size_t nr;
	const char **path; /* the modules on the current DFS path */
	size_t depth;
};

static size_t module_index(const struct cycle_search *search, const char *file)
{
	for (size_t i = 0; i < search->nr; i++)
		if (same_module(search->modules[i], file))
			return i;
	return search->nr;
}

/* Depth-first from module m; an include of a module that is still on the
 * path closes a cycle, appended as "a -> b -> a" (each back edge once). */
static void find_cycles_from(struct cycle_search *search, size_t m,
			     struct strbuf *found)
{
	search->state[m] = ON_PATH;
	search->path[search->depth++] = search->modules[m];
	for (size_t i = 0; i < search->graph->nr; i++) {
		const struct include *inc = &search->graph->edges[i];
		size_t to = module_index(search, inc->to);
		size_t start = 0;

		if (!same_module(inc->from, search->modules[m]) ||
		    to == search->nr || to == m)
			continue;
		if (search->state[to] == UNSEEN) {
			find_cycles_from(search, to, found);
			continue;
		}
		if (search->state[to] != ON_PATH)
			continue;
		while (search->path[start] != search->modules[to])
			start++;
		for (size_t j = start; j < search->depth; j++)
			strbuf_addf(found, "%.*s -> ",
				    (int)module_len(search->path[j]),
				    search->path[j]);
		strbuf_addf(found, "%.*s\n",
			    (int)module_len(search->modules[to]),
			    search->modules[to]);
	}
	search->depth--;
	search->state[m] = DONE;
}

static void find_cycles(const struct include_graph *graph, struct strbuf *found)
{
	struct cycle_search search = { .graph = graph };

	search.modules = xcalloc(graph->nr + 1, sizeof(*search.modules));
	search.path = xcalloc(graph->nr + 1, sizeof(*search.path));
	search.state = xcalloc(graph->nr + 1, sizeof(*search.state));
	for (size_t i = 0; i < graph->nr; i++)
		if (module_index(&search, graph->edges[i].from) == search.nr)
			search.modules[search.nr++] = graph->edges[i].from;
	for (size_t m = 0; m < search.nr; m++)
		if (search.state[m] == UNSEEN)
			find_cycles_from(&search, m, found);
	free(search.modules);
	free(search.path);
	free(search.state);
}

static void check_tree(const char *root, struct strbuf *found)
{
	struct include_graph graph;

	graph_load(&graph, root);
	cr_assert_gt(graph.nr, 0, "no includes read under %s", root);
	find_upward(&graph, found);
	find_upward_chains(&graph, found);
	find_cycles(&graph, found);
	graph_release(&graph);
}

TestSuite(layers);

Test(layers, no_file_includes_from_a_layer_above_and_no_module_cycles)
{
	struct strbuf found = STRBUF_INIT;

	check_tree(BENCHGATE_SOURCE_DIR, &found);
	cr_expect_eq(found.len, 0, "the layering is broken:\n%s", found.buf);
	strbuf_release(&found);
}

/* The checker's own failure paths, on a small tree made here: a store
 * module that calls up into the gate, and two util modules in a cycle. */
/* An include that goes up through a chain of headers: gate may include
 * probe, but probe/devices.h may not include suite.h (probe is below
 * suite), and neither may a gate file see it through devices.h. */
Test(layers, an_upward_include_through_a_header_chain_is_reported)
{
	char *root = test_tmpdir();
	struct strbuf found = STRBUF_INIT;

	free(test_write_file(root, "harness/gate/compare.c",
			     "#include \"harness/gate/compare.h\"\n"));
	free(test_write_file(root, "harness/gate/compare.h",
			     "#include \"harness/probe/devices.h\"\n"));
	free(test_write_file(root, "harness/probe/devices.h",
			     "#include \"harness/suite/suite.h\"\n"));
	free(test_write_file(root, "harness/suite/suite.h", "\n"));
	check_tree(root, &found);
	cr_expect(strstr(found.buf,
			 "harness/gate/compare.c: includes "
			 "'harness/suite/suite.h' through "
			 "harness/gate/compare.h -> harness/probe/devices.h, "
			 "above its layer (harness/gate/)"),
		  "%s", found.buf);
	cr_expect(strstr(found.buf,
			 "harness/gate/compare.h: includes "
			 "'harness/suite/suite.h' through "
			 "harness/probe/devices.h"),
		  "%s", found.buf);
	cr_expect(strstr(found.buf, "harness/probe/devices.h:1: includes "
				    "'harness/suite/suite.h', above its layer "
				    "(harness/probe/)"),
		  "%s", found.buf);
	strbuf_release(&found);
	test_rmtree(root);
	free(root);
}

/* The report model is no door: a renderer that sees the gate through
 * report.h is as wrong as one that includes it, while the model's builder
 * (report.c) calls the gate's statistics. */
Test(layers, a_renderer_that_reaches_the_gate_through_report_h_is_reported)
{
	char *root = test_tmpdir();
	struct strbuf found = STRBUF_INIT;

	free(test_write_file(root, "reporters/junit.c",
			     "#include \"reporters/report.h\"\n"));
	free(test_write_file(root, "reporters/report.c",
			     "#include \"reporters/report.h\"\n"
			     "#include \"harness/gate/stats.h\"\n"));
	free(test_write_file(root, "reporters/report.h",
			     "#include \"harness/model/comparison.h\"\n"
			     "#include \"harness/gate/compare.h\"\n"));
	free(test_write_file(root, "harness/model/comparison.h", "\n"));
	free(test_write_file(root, "harness/gate/compare.h",
			     "#include \"harness/store/store.h\"\n"));
	free(test_write_file(root, "harness/gate/stats.h", "\n"));
	free(test_write_file(root, "harness/store/store.h", "\n"));
	check_tree(root, &found);
	cr_expect(strstr(found.buf, "reporters/report.h:2: includes "
				    "'harness/gate/compare.h', above its layer "
				    "(reporters/)"),
		  "%s", found.buf);
	cr_expect(strstr(found.buf, "reporters/junit.c: includes "
				    "'harness/gate/compare.h' through "
				    "reporters/report.h, above its layer "
				    "(reporters/)"),
		  "%s", found.buf);
	cr_expect(strstr(found.buf,
			 "reporters/report.c: includes "
			 "'harness/store/store.h' through "
			 "reporters/report.h -> harness/gate/compare.h"),
		  "%s", found.buf);
	cr_expect_null(strstr(found.buf, "reporters/report.c:2:"), "%s",
		       found.buf);
	cr_expect_null(strstr(found.buf, "comparison.h"), "%s", found.buf);
	strbuf_release(&found);
	test_rmtree(root);
	free(root);
}

Test(layers, an_upward_include_and_a_cycle_are_reported)
{
	char *root = test_tmpdir();
	struct strbuf found = STRBUF_INIT;

	free(test_write_file(root, "harness/gate/stats.h", "\n"));
	free(test_write_file(root, "harness/model/result.c",
			     "#include \"harness/model/result.h\"\n"
			     "#include \"harness/gate/stats.h\"\n"));
	free(test_write_file(root, "harness/model/result.h", "\n"));
	free(test_write_file(root, "harness/util/a.h",
			     "#include \"harness/util/b.h\"\n"));
	free(test_write_file(root, "harness/util/b.c",
			     "#include \"harness/util/a.h\"\n"));
	free(test_write_file(root, "reporters/html.c",
			     "#include \"harness/model/result.h\"\n"
			     "  #  include \"harness/store/store.h\"\n"));
	free(test_write_file(root, "harness/store/store.h", "\n"));
	check_tree(root, &found);
	cr_expect(strstr(found.buf, "harness/model/result.c:2: includes "
				    "'harness/gate/stats.h', above its layer"),
		  "%s", found.buf);
	cr_expect(strstr(found.buf, "reporters/html.c:2: includes "
				    "'harness/store/store.h'"),
		  "%s", found.buf);
	cr_expect_null(strstr(found.buf, "reporters/html.c:1:"), "%s",
		       found.buf);
	cr_expect(strstr(found.buf, "harness/util/a -> harness/util/b -> "
				    "harness/util/a") ||
			  strstr(found.buf, "harness/util/b -> harness/util/a "
					    "-> harness/util/b"),
		  "%s", found.buf);
	strbuf_release(&found);
	test_rmtree(root);
	free(root);
}
