/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/init.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/name.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* python/benchgate.py, generated into the build (CMakeLists.txt). */
extern const char init_python_helper[];

static const char bench_py[] =
	"\"\"\"A benchmark for benchgate: time the code you care about and "
	"report it.\n"
	"\n"
	"benchgate runs this file once to warm up, then ten times (as "
	"benchgate.json\n"
	"says), and reads what it records. Run by hand, it only prints. "
	"Replace\n"
	"work() with the code you want to keep fast.\n"
	"\"\"\"\n"
	"import time\n"
	"\n"
	"import benchgate  # benchgate.py, beside this file\n"
	"\n"
	"\n"
	"def work():\n"
	"    # stands in for the code you measure\n"
	"    return sorted(str(i) for i in range(20000))\n"
	"\n"
	"\n"
	"latencies = []\n"
	"for _ in range(20):\n"
	"    start = time.perf_counter()\n"
	"    work()\n"
	"    latencies.append((time.perf_counter() - start) * 1000)\n"
	"\n"
	"with benchgate.metrics() as m:\n"
	"    m.record(\"latency_ms\", latencies, unit=\"ms\")  # this run's "
	"samples\n"
	"print(\"median %.3f ms\" % sorted(latencies)[len(latencies) // 2])\n";

/* The suite's name: the directory's, kept to the name alphabet. */
static void suite_name(struct strbuf *out, const char *dir)
{
	char resolved[PATH_MAX];
	const char *base = realpath(dir, resolved) ? strrchr(resolved, '/')
						   : NULL;

	for (const char *p = base ? base + 1 : ""; *p; p++) {
		char c[2] = { *p, 0 };

		strbuf_addch(out, name_valid(c) ? *p : '-');
	}
	if (!out->len || !name_valid(out->buf)) {
		strbuf_reset(out);
		strbuf_addstr(out, "example");
	}
}

/* text as a JSON string, quotes included. */
static void json_quote(struct strbuf *out, const char *text)
{
	cJSON *string = cJSON_CreateString(text);
	char *quoted = cJSON_PrintUnformatted(string);

	strbuf_addstr(out, quoted);
	free(quoted);
	cJSON_Delete(string);
}

static void suite_text(struct strbuf *out, const char *dir,
		       const struct init_options *opts)
{
	struct strbuf name = STRBUF_INIT;

	suite_name(&name, dir);
	strbuf_addstr(
		out,
		"// A benchgate suite: what to run and what to measure.\n"
		"// Every key: docs/reference/suite.md. Comments are allowed.\n"
		"{\n"
		"  \"$schema\": \"https://github.com/benchgate/benchgate/raw/"
		"main/schema/suite.schema.json\",\n"
		"  \"benchgate\": 1,\n");
	strbuf_addf(out, "  \"suite\": \"%s\",  // results are stored "
			 "under this name\n",
		    name.buf);
	strbuf_addstr(
		out,
		"  // one warmup run, then ten measured ones; a change under "
		"5 % never fails\n"
		"  \"defaults\": { \"warmup\": 1, \"runs\": 10, \"threshold\": "
		"\"5%\" },\n"
		"  \"benchmarks\": [{\n");
	if (opts->kind == INIT_PYTHON) {
		strbuf_addstr(
			out,
			"    \"name\": \"example\",\n"
			"    // an argv, run without a shell in this file's "
			"directory\n"
			"    \"command\": [\"python3\", \"bench.py\"],\n"
			"    \"metrics\": [\n"
			"      // what bench.py records with "
			"benchgate.metrics(); lower is better\n"
			"      { \"name\": \"latency\", \"from\": \"metrics\", "
			"\"key\": \"latency_ms\", \"unit\": \"ms\" }\n"
			"    ]\n");
	} else {
		strbuf_addstr(out, "    \"name\": \"command\",\n"
				   "    // a shell command line (\"command\": "
				   "[...] runs an argv without a shell)\n"
				   "    \"shell\": ");
		json_quote(out, opts->command);
		strbuf_addstr(out,
			      ",\n"
			      "    \"metrics\": [\n"
			      "      // the seconds each run took\n"
			      "      { \"name\": \"wall_time\", \"from\": "
			      "\"wall\" }\n"
			      "    ]\n");
	}
	strbuf_addstr(out, "  }]\n}\n");
	strbuf_release(&name);
}

int init_write(const char *dir, const struct init_options *opts,
	       struct strbuf *written)
{
	struct strbuf suite = STRBUF_INIT, path = STRBUF_INIT;
	const struct {
		const char *name;
		const char *text;
	} files[] = {
		{ INIT_SUITE_FILE, NULL },
		{ "bench.py", bench_py },
		{ "benchgate.py", init_python_helper },
	};
	size_t nr = opts->kind == INIT_PYTHON ? 3 : 1;
	int error = BG_OK;

	suite_text(&suite, dir, opts);
	for (size_t i = 0; i < nr && !opts->force; i++) {
		struct stat st;

		strbuf_reset(&path);
		if (strcmp(dir, "."))
			strbuf_addf(&path, "%s/", dir);
		strbuf_addstr(&path, files[i].name);
		if (lstat(path.buf, &st) == 0) {
			error = bg_input_error("'%s' exists; --force replaces "
					       "it",
					       path.buf);
			goto done;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		const char *text = files[i].text ? files[i].text : suite.buf;

		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, files[i].name);
		/* its message names the file */
		if ((error = write_file_atomic(path.buf, text, strlen(text))) <
		    0)
			goto done;
		strbuf_addf(written, "%s%s", written->len ? ", " : "",
			    files[i].name);
	}
done:
	strbuf_release(&suite);
	strbuf_release(&path);
	return error;
}
