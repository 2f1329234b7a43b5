/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mlp_train: builds the four models of the mlp-variants suite.
 *
 *   mlp_train --out DIR [--seed N] [--quiet]
 *
 * Generates the synthetic data set, trains the original MLP on it and
 * derives the quantized, pruned and distilled variants, then writes
 * DIR/mlp-{fp32,int8,pruned,distilled}.bin and the test split
 * DIR/mlp-test.bin. Every random choice comes from the seed, so two runs
 * write the same bytes. Each model is reloaded from its file and scored
 * with the inference kernels mlp_bench uses, so the accuracies printed
 * here are the ones the benchmark reports.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dataset.h"
#include "infer.h"
#include "model.h"
#include "net.h"
#include "rng.h"
#include "util.h"

#define TRAIN_BATCH	    32
#define CALIBRATION_SAMPLES 2000
#define PATH_MAX_LEN	    4096
#define MIN_ACCURACY	    0.85
#define MAX_ACCURACY_LOSS   0.04

static const uint32_t teacher_width[] = { DATASET_FEATURES, 256, 256,
					  DATASET_CLASSES };
static const uint32_t student_width[] = { DATASET_FEATURES, 64,
					  DATASET_CLASSES };

/*
 * Gradual magnitude pruning: removing weights in steps with some training
 * in between lets the survivors take over the work of the removed ones. The
 * small output layer is pruned less; in total 89 % of the weights go.
 */
static const double prune_hidden[] = { 0.5, 0.7, 0.8, 0.85 };
static const double prune_output[] = { 0.3, 0.5, 0.6, 0.6 };
#define PRUNE_STEPS (sizeof(prune_hidden) / sizeof(prune_hidden[0]))

struct train_opts {
	uint32_t epochs;
	float lr; /* decays along a cosine to 0 over all epochs */
	float momentum;
	float decay;
	const float *soft; /* teacher probabilities at `temperature`, or NULL */
	float temperature;
	float soft_weight; /* share of the soft (distillation) loss */
};

static int quiet;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void softmax(float *out, const float *z, uint32_t n, float temperature)
{
	float max = z[0], sum = 0;
	uint32_t i;

	for (i = 1; i < n; i++)
		if (z[i] > max)
			max = z[i];
	for (i = 0; i < n; i++) {
		out[i] = expf((z[i] - max) / temperature);
		sum += out[i];
	}
	for (i = 0; i < n; i++)
		out[i] /= sum;
}

/*
 * d loss / d logits for one sample, divided by the batch size. The soft
 * term is Hinton et al.'s distillation loss scaled by T^2, whose gradient
 * is T * (softmax(z / T) - teacher) after the 1 / T of the chain rule.
 * Returns the sample's hard cross-entropy, for the log.
 */
static float loss_grad(float *grad, const float *z, uint32_t label,
		       const float *soft, const struct train_opts *opts,
		       uint32_t batch)
{
	float p[DATASET_CLASSES], q[DATASET_CLASSES];
	float hard = soft ? 1 - opts->soft_weight : 1;
	uint32_t c;

	softmax(p, z, DATASET_CLASSES, 1);
	if (soft)
		softmax(q, z, DATASET_CLASSES, opts->temperature);
	for (c = 0; c < DATASET_CLASSES; c++) {
		float g = hard * (p[c] - (c == label));

		if (soft)
			g += opts->soft_weight * opts->temperature *
			     (q[c] - soft[c]);
		grad[c] = g / (float)batch;
	}
	return -logf(p[label] > 1e-30f ? p[label] : 1e-30f);
}

static void shuffle(uint32_t *order, uint32_t n, struct rng *rng)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = rng_below(rng, i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
}

static void train_net(struct net *net, const struct dataset *ds,
		      const struct train_opts *opts, struct rng *rng,
		      const char *what)
{
	uint32_t features = ds->features, classes = ds->classes;
	uint32_t *order = xmalloc(ds->samples * sizeof(*order));
	float *x = xmalloc((size_t)TRAIN_BATCH * features * sizeof(float));
	float *grad = xmalloc((size_t)TRAIN_BATCH * classes * sizeof(float));
	uint32_t steps = (ds->samples + TRAIN_BATCH - 1) / TRAIN_BATCH;
	double total_steps = (double)opts->epochs * steps;
	uint64_t step = 0;
	uint32_t epoch, i, b;

	for (i = 0; i < ds->samples; i++)
		order[i] = i;
	for (epoch = 0; epoch < opts->epochs; epoch++) {
		double loss = 0, start = now_seconds();

		shuffle(order, ds->samples, rng);
		for (i = 0; i < ds->samples; i += TRAIN_BATCH, step++) {
			uint32_t batch = ds->samples - i < TRAIN_BATCH
						 ? ds->samples - i
						 : TRAIN_BATCH;
			float lr = (float)(opts->lr * 0.5 *
					   (1 + cos(3.141592653589793 * step /
						    total_steps)));
			const float *logits;

			for (b = 0; b < batch; b++)
				memcpy(x + (size_t)b * features,
				       ds->x + (size_t)order[i + b] * features,
				       features * sizeof(float));
			logits = net_forward(net, x, batch);
			for (b = 0; b < batch; b++) {
				uint32_t s = order[i + b];
				const float *soft = NULL;

				if (opts->soft)
					soft = opts->soft + (size_t)s * classes;
				loss += loss_grad(grad + (size_t)b * classes,
						  logits + (size_t)b * classes,
						  ds->label[s], soft, opts,
						  batch);
			}
			net_backward(net, grad, batch);
			net_step(net, lr, opts->momentum, opts->decay);
		}
		say("  %s epoch %2u/%u  loss %.4f  %.2f s\n", what, epoch + 1,
		    opts->epochs, loss / ds->samples, now_seconds() - start);
	}
	free(order);
	free(x);
	free(grad);
}

/* Runs the net over the whole data set; `fn` sees each sample's logits. */
static void net_each_logits(struct net *net, const struct dataset *ds,
			    void (*fn)(void *ctx, uint32_t sample,
				       const float *logits),
			    void *ctx)
{
	uint32_t i, b;

	for (i = 0; i < ds->samples; i += net->max_batch) {
		uint32_t batch = ds->samples - i < net->max_batch
					 ? ds->samples - i
					 : net->max_batch;
		const float *logits = net_forward(
			net, ds->x + (size_t)i * ds->features, batch);

		for (b = 0; b < batch; b++)
			fn(ctx, i + b, logits + (size_t)b * ds->classes);
	}
}

struct soft_targets {
	float *prob;
	uint32_t classes;
	float temperature;
};

static void keep_soft_target(void *ctx, uint32_t sample, const float *logits)
{
	struct soft_targets *st = ctx;

	softmax(st->prob + (size_t)sample * st->classes, logits, st->classes,
		st->temperature);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Accuracy of a model file as mlp_bench will measure it. */
static int score_file(double *accuracy, const char *path,
		      const struct dataset *test)
{
	struct mlp m;
	struct mlp_workspace *ws;
	float logits[TRAIN_BATCH * DATASET_CLASSES];
	uint32_t i, b, correct = 0;
	size_t bytes;

	if (mlp_load(&m, &bytes, path) < 0)
		return -1;
	ws = mlp_workspace_new(&m, TRAIN_BATCH);
	for (i = 0; i < test->samples; i += TRAIN_BATCH) {
		uint32_t batch = test->samples - i < TRAIN_BATCH
					 ? test->samples - i
					 : TRAIN_BATCH;

		mlp_infer(&m, ws, test->x + (size_t)i * test->features, batch,
			  logits);
		for (b = 0; b < batch; b++) {
			const float *z = logits + (size_t)b * DATASET_CLASSES;

			correct += argmax_f32(z, DATASET_CLASSES) ==
				   test->label[i + b];
		}
	}
	*accuracy = (double)correct / test->samples;
	say("%-10s %-18s acc %.4f  %7zu bytes  %6llu params  %6llu nonzero\n",
	    mlp_variant_name(m.kind), base_name(path), *accuracy, bytes,
	    (unsigned long long)mlp_params(&m),
	    (unsigned long long)mlp_nonzero_params(&m));
	mlp_workspace_free(ws);
	mlp_release(&m);
	return 0;
}

static int save_dense(const struct net *net, enum mlp_kind kind, uint64_t seed,
		      const char *path)
{
	struct mlp m;
	uint32_t l;
	int error;

	mlp_init(&m, kind, seed, net->layers, net->width);
	for (l = 0; l < net->layers; l++) {
		memcpy(m.layer[l].weight, net->weight[l],
		       (size_t)net->width[l] * net->width[l + 1] *
			       sizeof(float));
		memcpy(m.layer[l].bias, net->bias[l],
		       net->width[l + 1] * sizeof(float));
	}
	error = mlp_save(&m, path);
	mlp_release(&m);
	return error;
}

struct calibration {
	struct net *net;
	float max_abs[MLP_MAX_LAYERS];
};

/*
 * The int8 input scale of each layer comes from the largest magnitude its
 * input reaches on training data. Inputs beyond it at test time clip.
 */
static void calibrate(struct calibration *cal, const struct dataset *ds)
{
	struct net *net = cal->net;
	uint32_t i, l;
	size_t k;

	memset(cal->max_abs, 0, sizeof(cal->max_abs));
	for (i = 0; i < CALIBRATION_SAMPLES && i < ds->samples;
	     i += net->max_batch) {
		uint32_t batch = ds->samples - i < net->max_batch
					 ? ds->samples - i
					 : net->max_batch;

		net_forward(net, ds->x + (size_t)i * ds->features, batch);
		for (l = 0; l < net->layers; l++)
			for (k = 0; k < (size_t)batch * net->width[l]; k++)
				if (fabsf(net->act[l][k]) > cal->max_abs[l])
					cal->max_abs[l] = fabsf(net->act[l][k]);
	}
}

static int8_t quantize_weight(float w, float scale)
{
	long q = lroundf(w / scale);

	return (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
}

static int save_int8(struct net *net, const struct dataset *train,
		     uint64_t seed, const char *path)
{
	struct calibration cal = { net, { 0 } };
	struct mlp m;
	uint32_t l, j, k;
	int error;

	calibrate(&cal, train);
	mlp_init(&m, MLP_INT8, seed, net->layers, net->width);
	for (l = 0; l < net->layers; l++) {
		struct mlp_layer *layer = &m.layer[l];
		uint32_t in = net->width[l];

		layer->input_scale = cal.max_abs[l] > 0 ? cal.max_abs[l] / 127
							: 1;
		for (j = 0; j < layer->out; j++) {
			const float *w = net->weight[l] + (size_t)j * in;
			float max = 0;
			double bias;

			for (k = 0; k < in; k++)
				if (fabsf(w[k]) > max)
					max = fabsf(w[k]);
			layer->weight_scale[j] = max > 0 ? max / 127 : 1;
			for (k = 0; k < in; k++)
				layer->qweight[(size_t)j * in + k] =
					quantize_weight(w[k],
							layer->weight_scale[j]);
			bias = net->bias[l][j] / ((double)layer->input_scale *
						  layer->weight_scale[j]);
			bias = bias > 2e9 ? 2e9 : bias < -2e9 ? -2e9 : bias;
			layer->qbias[j] = (int32_t)lround(bias);
		}
	}
	error = mlp_save(&m, path);
	mlp_release(&m);
	return error;
}

static int save_pruned(const struct net *net, uint64_t seed, const char *path)
{
	struct mlp m;
	uint32_t l, j, k, nnz;
	int error;

	mlp_init(&m, MLP_PRUNED, seed, net->layers, net->width);
	for (l = 0; l < net->layers; l++) {
		struct mlp_layer *layer = &m.layer[l];
		const float *w = net->weight[l];
		size_t n = (size_t)layer->in * layer->out, i;

		for (nnz = 0, i = 0; i < n; i++)
			nnz += w[i] != 0;
		mlp_layer_alloc_sparse(layer, nnz);
		for (nnz = 0, j = 0; j < layer->out; j++) {
			layer->row_start[j] = nnz;
			for (k = 0; k < layer->in; k++) {
				float v = w[(size_t)j * layer->in + k];

				if (v == 0)
					continue;
				layer->column[nnz] = (uint16_t)k;
				layer->value[nnz++] = v;
			}
		}
		layer->row_start[layer->out] = nnz;
		memcpy(layer->bias, net->bias[l], layer->out * sizeof(float));
	}
	error = mlp_save(&m, path);
	mlp_release(&m);
	return error;
}

static void prune_and_finetune(struct net *net, const struct dataset *train,
			       struct rng *rng)
{
	struct train_opts tune = { 1, 0.01f, 0.9f, 5e-4f, NULL, 1, 0 };
	uint32_t step, l;

	for (step = 0; step < PRUNE_STEPS; step++) {
		char what[32];

		for (l = 0; l < net->layers; l++) {
			double sparsity = l + 1 == net->layers
						  ? prune_output[step]
						  : prune_hidden[step];
			size_t n = (size_t)net->width[l] * net->width[l + 1];

			net_prune_layer(net, l,
					(uint32_t)lround(n * (1 - sparsity)));
		}
		snprintf(what, sizeof(what), "prune %.0f%%",
			 100 * prune_hidden[step]);
		if (step + 1 == PRUNE_STEPS)
			tune.epochs = 2;
		train_net(net, train, &tune, rng, what);
	}
}

/*
 * The suite is only a useful example if the variants trade a little
 * accuracy for speed or size: refuse to ship models that do not.
 */
static int check_accuracy(const double *acc)
{
	static const char *const name[] = { "quantized", "pruned",
					    "distilled" };
	int i;

	if (acc[0] < MIN_ACCURACY)
		return mlp_error("original accuracy %.4f is below %.2f", acc[0],
				 MIN_ACCURACY);
	for (i = 1; i < 4; i++)
		if (acc[i] < acc[0] - MAX_ACCURACY_LOSS)
			return mlp_error("%s accuracy %.4f is more than %.2f "
					 "below the original's %.4f",
					 name[i - 1], acc[i], MAX_ACCURACY_LOSS,
					 acc[0]);
	return 0;
}

static int out_path(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_MAX_LEN, "%s/%s", dir, name);

	if (n < 0 || n >= PATH_MAX_LEN)
		return mlp_error("output path too long: '%s/%s'", dir, name);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: mlp_train --out DIR [--seed N] [--quiet]\n");
	return 2;
}

struct paths {
	char test[PATH_MAX_LEN], fp32[PATH_MAX_LEN], int8[PATH_MAX_LEN];
	char pruned[PATH_MAX_LEN], distilled[PATH_MAX_LEN];
};

static int make_paths(struct paths *p, const char *dir)
{
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return mlp_error("cannot create '%s': %s", dir,
				 strerror(errno));
	if (out_path(p->test, dir, "mlp-test.bin") < 0 ||
	    out_path(p->fp32, dir, "mlp-fp32.bin") < 0 ||
	    out_path(p->int8, dir, "mlp-int8.bin") < 0 ||
	    out_path(p->pruned, dir, "mlp-pruned.bin") < 0 ||
	    out_path(p->distilled, dir, "mlp-distilled.bin") < 0)
		return -1;
	return 0;
}

static int run(const char *dir, uint64_t seed)
{
	struct train_opts teacher_opts = { 8, 0.05f, 0.9f, 5e-4f, NULL, 1, 0 };
	struct train_opts student_opts = {
		20, 0.05f, 0.9f, 1e-4f, NULL, 4, 0.7f
	};
	struct dataset train_set = { 0 }, test_set = { 0 };
	struct net teacher = { 0 }, student = { 0 };
	struct soft_targets soft = { NULL, DATASET_CLASSES, 4 };
	struct paths *p = xmalloc(sizeof(*p));
	double start = now_seconds(), t, acc[4];
	struct rng rng;
	int error;

	if ((error = make_paths(p, dir)) < 0)
		goto done;
	dataset_generate(&train_set, &test_set, seed);
	if ((error = dataset_write(&test_set, p->test)) < 0)
		goto done;

	t = now_seconds();
	rng_init(&rng, seed ^ 0x7465616368657231ull);
	net_init(&teacher, 3, teacher_width, 64, &rng);
	train_net(&teacher, &train_set, &teacher_opts, &rng, "teacher");
	say("teacher trained in %.2f s\n", now_seconds() - t);
	if ((error = save_dense(&teacher, MLP_FP32, seed, p->fp32)) < 0 ||
	    (error = save_int8(&teacher, &train_set, seed, p->int8)) < 0)
		goto done;

	t = now_seconds();
	soft.prob = xmalloc((size_t)train_set.samples * DATASET_CLASSES *
			    sizeof(float));
	net_each_logits(&teacher, &train_set, keep_soft_target, &soft);
	student_opts.soft = soft.prob;
	student_opts.temperature = soft.temperature;
	rng_init(&rng, seed ^ 0x73747564656e7431ull);
	net_init(&student, 2, student_width, 64, &rng);
	train_net(&student, &train_set, &student_opts, &rng, "student");
	say("student distilled in %.2f s\n", now_seconds() - t);
	if ((error = save_dense(&student, MLP_DISTILLED, seed, p->distilled)) <
	    0)
		goto done;

	t = now_seconds();
	rng_init(&rng, seed ^ 0x7072756e65723031ull);
	prune_and_finetune(&teacher, &train_set, &rng);
	say("pruned in %.2f s\n", now_seconds() - t);
	if ((error = save_pruned(&teacher, seed, p->pruned)) < 0)
		goto done;

	if ((error = score_file(&acc[0], p->fp32, &test_set)) < 0 ||
	    (error = score_file(&acc[1], p->int8, &test_set)) < 0 ||
	    (error = score_file(&acc[2], p->pruned, &test_set)) < 0 ||
	    (error = score_file(&acc[3], p->distilled, &test_set)) < 0)
		goto done;
	say("total %.2f s\n", now_seconds() - start);
	error = check_accuracy(acc);
done:
	free(soft.prob);
	net_release(&teacher);
	net_release(&student);
	dataset_release(&train_set);
	dataset_release(&test_set);
	free(p);
	return error;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	uint64_t seed = DATASET_SEED;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			char *end;

			errno = 0;
			seed = strtoull(argv[++i], &end, 0);
			if (errno || *end || end == argv[i])
				return usage();
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else {
			return usage();
		}
	}
	if (!dir)
		return usage();
	if (run(dir, seed) < 0) {
		fprintf(stderr, "mlp_train: %s\n", mlp_error_last());
		return 1;
	}
	return 0;
}
