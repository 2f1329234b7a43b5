/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate bisect` at its default settings names the
 * planted commit of a generated 64-commit repository whose benchmark is
 * noisy (CV 5 %), in at least 9 of 10 seeds, and prints what that rests
 * on.
 *
 * The benchmark reports its metric through the metrics file: the level
 * of the tree (the file `level`: 100 up to c36, 120 from the planted c37
 * on, +20 %) times exp(d + 0.05 z): z about standard normal (twelve
 * uniforms less 6), the run's own noise (CV 5 %); d the machine's drift,
 * a first-order autoregression from run to run (phi 0.98, standard
 * deviation 10 %), as a shared runner's load comes and goes over minutes.
 * Both come from one Park-Miller (Lehmer) stream per seed, its state kept
 * outside the checkouts and advanced by every run. So the noise is the
 * seed's alone: the machine's load moves nothing the gate sees, and the
 * test costs only the starting of small processes, which mostly wait: the
 * ten bisects run at once, each with its own store, scratch, machine lock
 * and stream.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMITS 64
#define PLANTED 37 /* the first slow commit: c37 */
#define SEEDS	10

static struct test_git_area area;
static char hex[COMMITS][41];

static void setup(void)
{
	struct strbuf script = STRBUF_INIT;

	strbuf_addf(
		&script,
		"cat > noisy.awk <<'EOF'\n"
		"function normal(  z, i) {\n"
		"  z = 0\n"
		"  for (i = 0; i < 12; i++) {\n"
		"    x = (x * 16807) %% 2147483647; z += x / 2147483647 }\n"
		"  return z - 6 }\n"
		"BEGIN {\n"
		"  state = ENVIRON[\"NOISE_STATE\"] \"/lehmer\"\n"
		"  if ((getline line < state) > 0) split(line, s)\n"
		"  else { s[1] = ENVIRON[\"NOISE_SEED\"] * 7919 + 1; s[2] = 0 }\n"
		"  close(state)\n"
		"  x = s[1]\n"
		"  drift = 0.98 * s[2] + 0.0199 * normal()\n"
		"  getline level < ARGV[1]\n"
		"  value = level * exp(drift + 0.05 * normal())\n"
		"  print x, drift > state\n"
		"  printf \"value %%.6f ms\\n\", value "
		"> ENVIRON[\"BENCHGATE_METRICS_FILE\"]\n"
		"}\n"
		"EOF\n"
		"cat > suite.json <<'EOF'\n"
		"{ \"benchgate\": 1, \"suite\": \"noisy\",\n"
		"  \"defaults\": { \"warmup\": 0 },\n"
		"  \"benchmarks\": [ { \"name\": \"step\",\n"
		"    \"command\": [ \"awk\", \"-f\", \"${suite_dir}/noisy.awk\", "
		"\"${suite_dir}/level\" ],\n"
		"    \"metrics\": [ { \"name\": \"value\", \"from\": "
		"\"metrics\" } ] } ] }\n"
		"EOF\n"
		"echo 100 > level\n"
		"i=0\n"
		"while [ $i -lt %d ]; do\n"
		"  echo $i > counter\n"
		"  if [ $i = %d ]; then\n"
		"    echo 120 > level\n"
		"    git add -A && GIT_AUTHOR_NAME=Planter "
		"GIT_AUTHOR_EMAIL=planter@example.invalid git commit -qm slow\n"
		"  else\n"
		"    git add -A && git commit -qm c$i\n"
		"  fi\n"
		"  i=$((i + 1))\n"
		"done\n"
		"git log --first-parent --reverse --format=%%H > ../ids\n",
		COMMITS, PLANTED);
	test_git_area_init(&area, script.buf);
	strbuf_release(&script);
	test_read_commit_ids(area.dir, "ids", hex, COMMITS);
}

static void teardown(void)
{
	test_git_area_release(&area);
}

TestSuite(bisect_noise, .init = setup, .fini = teardown, .timeout = 600);

/*
 * The ten bisects of c0 .. c63 at defaults, at once: seed N's in
 * seed-N/ (its stream's state, $TMPDIR, machine lock and store), its
 * stdout in seed-N/out, its stderr in seed-N/err, its exit status in
 * seed-N/status.
 */
static void bisect_all(void)
{
	struct strbuf script = STRBUF_INIT;

	strbuf_addf(&script,
		    "for n in $(seq 1 %d); do\n"
		    "  d=\"$PWD/seed-$n\"; mkdir \"$d\"\n"
		    "  (cd repo && NOISE_SEED=$n NOISE_STATE=\"$d\" "
		    "TMPDIR=\"$d\" BENCHGATE_LOCK=\"$d/lock\" '%s' bisect "
		    "suite.json --good %s --bad %s --build true --store "
		    "\"$d/store\" --quiet > \"$d/out\" 2> \"$d/err\" && "
		    "s=0 || s=$?; echo $s > \"$d/status\") &\n"
		    "done\n"
		    "wait\n",
		    SEEDS, BENCHGATE_BIN, hex[0], hex[COMMITS - 1]);
	test_shell(area.dir, script.buf);
	strbuf_release(&script);
}

/* seed-N/NAME's text (free it). */
static char *seed_file(int seed, const char *name)
{
	char path[4200];
	char *text;

	snprintf(path, sizeof(path), "%s/seed-%d/%s", area.dir, seed, name);
	text = test_read_file(path);
	cr_assert_not_null(text, "%s", path);
	return text;
}

Test(bisect_noise, names_the_planted_commit_in_nine_of_ten_seeds)
{
	char expected[256];
	int right = 0;

	snprintf(expected, sizeof(expected),
		 "first bad commit: %s \"slow\" by Planter", hex[PLANTED]);
	bisect_all();
	for (int seed = 1; seed <= SEEDS; seed++) {
		char *out = seed_file(seed, "out"), *err = seed_file(seed, "err");
		char *status = seed_file(seed, "status");
		bool named = strstr(out, expected) != NULL;

		cr_assert_str_eq(status, "0\n", "seed %d: %s%s", seed, out,
				 err);
		if (named) {
			right++;
			/* what the answer rests on, with the confidence */
			cr_assert(strstr(out, "each at the gate's confidence "
					      "of 99 %, its rounds measured "
					      "beside both ends"),
				  "%s", out);
		}
		cr_log_info("seed %d: %s\n%s", seed,
			    named ? "the planted commit" : "NOT named", out);
		free(out);
		free(err);
		free(status);
	}
	cr_assert_geq(right, SEEDS - 1, "the planted commit in %d of %d seeds",
		      right, SEEDS);
}
