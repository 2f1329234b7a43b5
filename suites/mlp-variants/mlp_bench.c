/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mlp_bench: the workload of the mlp-variants suite.
 *
 *   mlp_bench --model PATH [--data PATH] [--batch N] [--batches K]
 *             [--device cpu]
 *
 * Loads a model of any kind (the file header says which), runs it over the
 * test split in batches of N and reports per-batch latency, throughput,
 * accuracy, model size and parameter counts: on stdout as one line, and
 * through the benchgate metrics file protocol when BENCHGATE_METRICS_FILE
 * is set. See README.md for what the numbers mean.
 *
 * Exit status: 0 ok, 1 the model or data could not be used, 2 usage error
 * or a device this build cannot drive.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataset.h"
#include "infer.h"
#include "model.h"
#include "util.h"

#define DEFAULT_BATCH 32
#define MAX_BATCH     4096
/* Enough batches that the fp32 model runs ~0.2 s in a Release build. */
#define DEFAULT_BATCHES 500
#define MAX_BATCHES	1000000
#define WARMUP_BATCHES	2
#define MAX_SLOWDOWN	100.0
#define TEST_FILE	"mlp-test.bin"

struct options {
	const char *model;
	const char *data;
	const char *device;
	uint32_t batch;
	uint32_t batches;
	double slowdown; /* MLP_BENCH_SLOWDOWN: extra share of each batch */
};

struct measurement {
	double *latency_ms; /* one per timed batch */
	uint32_t batches;
	uint64_t samples; /* of the timed batches */
	/* every sample run through the model, the untimed warmup batches
	 * too: what a whole run's energy is divided by */
	uint64_t inferred;
	uint32_t correct; /* over the first pass through the test split */
	uint32_t scored;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "mlp_bench: %s\n", why);
	fprintf(stderr,
		"usage: mlp_bench --model PATH [--data PATH] [--batch N] "
		"[--batches K] [--device cpu]\n");
	return 2;
}

static int parse_count(uint32_t *out, const char *text, uint32_t max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v < 1 || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Accepts "--name VALUE" and "--name=VALUE"; returns the value or NULL. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(argv[*i], name, len))
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int parse_args(struct options *opts, int argc, char **argv)
{
	const char *v;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(NULL);
			exit(0);
		} else if ((v = option_value(argc, argv, &i, "--model"))) {
			opts->model = v;
		} else if ((v = option_value(argc, argv, &i, "--data"))) {
			opts->data = v;
		} else if ((v = option_value(argc, argv, &i, "--device"))) {
			opts->device = v;
		} else if ((v = option_value(argc, argv, &i, "--batches"))) {
			if (parse_count(&opts->batches, v, MAX_BATCHES) < 0)
				return usage("--batches wants 1..1000000");
		} else if ((v = option_value(argc, argv, &i, "--batch"))) {
			if (parse_count(&opts->batch, v, MAX_BATCH) < 0)
				return usage("--batch wants 1..4096");
		} else {
			fprintf(stderr,
				"mlp_bench: unknown or incomplete "
				"option '%s'\n",
				argv[i]);
			return usage(NULL);
		}
	}
	if (!opts->model)
		return usage("--model is required");
	return 0;
}

/* MLP_BENCH_SLOWDOWN=0.2 makes every batch take 20 % longer. */
static int parse_slowdown(double *out)
{
	const char *text = getenv("MLP_BENCH_SLOWDOWN");
	char *end;

	*out = 0;
	if (!text || !*text)
		return 0;
	errno = 0;
	*out = strtod(text, &end);
	if (errno || *end || !(*out >= 0 && *out <= MAX_SLOWDOWN)) {
		fprintf(stderr,
			"mlp_bench: MLP_BENCH_SLOWDOWN='%s', expected "
			"a fraction from 0 to %g\n",
			text, MAX_SLOWDOWN);
		return -1;
	}
	return 0;
}

/* The test split lives next to the models unless --data says otherwise. */
static int data_path(char *buf, size_t size, const struct options *opts)
{
	const char *slash = strrchr(opts->model, '/');
	int n;

	if (opts->data)
		n = snprintf(buf, size, "%s", opts->data);
	else if (slash)
		n = snprintf(buf, size, "%.*s/%s", (int)(slash - opts->model),
			     opts->model, TEST_FILE);
	else
		n = snprintf(buf, size, "%s", TEST_FILE);
	if (n < 0 || (size_t)n >= size)
		return mlp_error("data path too long");
	return 0;
}

static int check_match(const struct mlp *m, const struct dataset *ds,
		       const struct options *opts, const char *data)
{
	if (ds->features != m->width[0] || ds->classes != m->width[m->layers])
		return mlp_error("%s: %u features and %u classes, but '%s' "
				 "takes %u and gives %u",
				 data, ds->features, ds->classes, opts->model,
				 m->width[0], m->width[m->layers]);
	if (ds->seed != m->data_seed)
		return mlp_error("%s: data seed %#llx, but '%s' was trained on "
				 "seed %#llx",
				 data, (unsigned long long)ds->seed,
				 opts->model, (unsigned long long)m->data_seed);
	return 0;
}

/* Copies the next `batch` samples, wrapping around, so every batch is full. */
static void stage_batch(float *x, uint32_t *labels, const struct dataset *ds,
			uint64_t first, uint32_t batch)
{
	uint32_t b;

	for (b = 0; b < batch; b++) {
		uint32_t s = (uint32_t)((first + b) % ds->samples);

		memcpy(x + (size_t)b * ds->features,
		       ds->x + (size_t)s * ds->features,
		       ds->features * sizeof(float));
		labels[b] = ds->label[s];
	}
}

static void spin_until(double deadline)
{
	while (now_seconds() < deadline)
		;
}

/*
 * Times `opts->batches` batches (at least one full pass over the test
 * split, which is what accuracy is computed on), after a few untimed ones
 * that bring the weights into cache.
 */
static void measure(struct measurement *out, const struct mlp *m,
		    const struct dataset *ds, const struct options *opts)
{
	uint32_t classes = m->width[m->layers], batch = opts->batch;
	uint32_t pass = (ds->samples + batch - 1) / batch;
	uint32_t total = opts->batches > pass ? opts->batches : pass;
	struct mlp_workspace *ws = mlp_workspace_new(m, batch);
	float *x = xmalloc((size_t)batch * ds->features * sizeof(float));
	float *logits = xmalloc((size_t)batch * classes * sizeof(float));
	uint32_t *labels = xmalloc(batch * sizeof(*labels));
	uint64_t next = 0;
	uint32_t i, b;

	memset(out, 0, sizeof(*out));
	out->latency_ms = xmalloc(total * sizeof(double));
	for (i = 0; i < WARMUP_BATCHES; i++) {
		stage_batch(x, labels, ds, (uint64_t)i * batch, batch);
		mlp_infer(m, ws, x, batch, logits);
	}
	for (i = 0; i < total; i++, next += batch) {
		double start, elapsed;

		stage_batch(x, labels, ds, next, batch);
		start = now_seconds();
		mlp_infer(m, ws, x, batch, logits);
		elapsed = now_seconds() - start;
		if (opts->slowdown > 0)
			spin_until(start + elapsed * (1 + opts->slowdown));
		out->latency_ms[i] = (now_seconds() - start) * 1e3;
		for (b = 0; b < batch && next + b < ds->samples; b++) {
			out->scored++;
			out->correct += argmax_f32(logits + (size_t)b * classes,
						   classes) == labels[b];
		}
	}
	out->batches = total;
	out->samples = (uint64_t)total * batch;
	out->inferred = (uint64_t)(WARMUP_BATCHES + total) * batch;
	mlp_workspace_free(ws);
	free(x);
	free(logits);
	free(labels);
}

static int by_value(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double median(const double *v, uint32_t n)
{
	double *sorted = xmalloc(n * sizeof(*sorted)), mid;

	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_value);
	mid = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	return mid;
}

struct report {
	const struct measurement *run;
	double throughput;
	double accuracy;
	size_t model_bytes;
	uint64_t params;
	uint64_t nonzero;
};

static int write_metrics(const struct report *r, const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t i;

	if (!f)
		return mlp_error("cannot create metrics file '%s': %s", path,
				 strerror(errno));
	fputs("{\"latency_ms\": [", f);
	for (i = 0; i < r->run->batches; i++)
		fprintf(f, "%s%.6f", i ? ", " : "", r->run->latency_ms[i]);
	fprintf(f,
		"], \"throughput\": %.3f, \"accuracy\": %.6f, "
		"\"model_size_bytes\": %zu, \"params\": %llu, "
		"\"nonzero_params\": %llu, \"samples\": %llu}\n",
		r->throughput, r->accuracy, r->model_bytes,
		(unsigned long long)r->params, (unsigned long long)r->nonzero,
		(unsigned long long)r->run->inferred);
	if (ferror(f) | (fclose(f) != 0))
		return mlp_error("cannot write metrics file '%s'", path);
	return 0;
}

static int run(const struct options *opts)
{
	struct mlp m = { 0 };
	struct dataset ds = { 0 };
	struct measurement run = { 0 };
	struct report r = { &run, 0, 0, 0, 0, 0 };
	char data[4096];
	const char *metrics = getenv("BENCHGATE_METRICS_FILE");
	double seconds = 0;
	uint32_t i;
	int error;

	if ((error = mlp_load(&m, &r.model_bytes, opts->model)) < 0)
		goto done;
	if ((error = data_path(data, sizeof(data), opts)) < 0)
		goto done;
	if ((error = dataset_read(&ds, data)) < 0 ||
	    (error = check_match(&m, &ds, opts, data)) < 0)
		goto done;

	measure(&run, &m, &ds, opts);
	for (i = 0; i < run.batches; i++)
		seconds += run.latency_ms[i] / 1e3;
	r.throughput = seconds > 0 ? (double)run.samples / seconds : 0;
	r.accuracy = (double)run.correct / run.scored;
	r.params = mlp_params(&m);
	r.nonzero = mlp_nonzero_params(&m);
	printf("model=%s kind=%s batch=%u batches=%u throughput=%.1f "
	       "samples/s accuracy=%.4f latency_p50_ms=%.4f "
	       "model_size_bytes=%zu params=%llu nonzero_params=%llu\n",
	       mlp_variant_name(m.kind), mlp_kind_name(m.kind), opts->batch,
	       run.batches, r.throughput, r.accuracy,
	       median(run.latency_ms, run.batches), r.model_bytes,
	       (unsigned long long)r.params, (unsigned long long)r.nonzero);
	if (metrics && *metrics)
		error = write_metrics(&r, metrics);
done:
	free(run.latency_ms);
	dataset_release(&ds);
	mlp_release(&m);
	return error;
}

int main(int argc, char **argv)
{
	struct options opts = {
		NULL, NULL, "cpu", DEFAULT_BATCH, DEFAULT_BATCHES, 0
	};
	int status;

	if ((status = parse_args(&opts, argc, argv)) != 0)
		return status;
	if (strcmp(opts.device, "cpu")) {
		fprintf(stderr,
			"mlp_bench: device '%s' not supported by this "
			"build\n",
			opts.device);
		return 2;
	}
	if (parse_slowdown(&opts.slowdown) < 0)
		return 2;
	if (run(&opts) < 0) {
		fprintf(stderr, "mlp_bench: %s\n", mlp_error_last());
		return 1;
	}
	return 0;
}
