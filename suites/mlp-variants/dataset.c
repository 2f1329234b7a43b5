/* SPDX-License-Identifier: Apache-2.0 */
#include "dataset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "util.h"

#define LATENT		   12
#define CLUSTERS_PER_CLASS 3
#define CLUSTER_SPREAD	   1.0
#define CLUSTER_SIGMA	   0.7
#define EMBED_GAIN	   1.4
#define FEATURE_NOISE	   0.45

#define DATASET_MAGIC	  "BGDS"
#define DATASET_VERSION	  1
#define DATASET_MAX_BYTES ((size_t)1 << 30)

struct generator {
	double center[DATASET_CLASSES][CLUSTERS_PER_CLASS][LATENT];
	double embed[DATASET_FEATURES][LATENT];
	double offset[DATASET_FEATURES];
};

static void generator_init(struct generator *gen, struct rng *rng)
{
	int c, m, f, d;

	for (c = 0; c < DATASET_CLASSES; c++)
		for (m = 0; m < CLUSTERS_PER_CLASS; m++)
			for (d = 0; d < LATENT; d++)
				gen->center[c][m][d] =
					CLUSTER_SPREAD * rng_gauss(rng);
	for (f = 0; f < DATASET_FEATURES; f++) {
		for (d = 0; d < LATENT; d++)
			gen->embed[f][d] = rng_gauss(rng) / sqrt(LATENT);
		gen->offset[f] = 0.5 * rng_gauss(rng);
	}
}

static void generator_sample(const struct generator *gen, struct rng *rng,
			     float *x, uint8_t *label)
{
	uint32_t c = rng_below(rng, DATASET_CLASSES);
	uint32_t m = rng_below(rng, CLUSTERS_PER_CLASS);
	double z[LATENT];
	int f, d;

	for (d = 0; d < LATENT; d++)
		z[d] = gen->center[c][m][d] + CLUSTER_SIGMA * rng_gauss(rng);
	for (f = 0; f < DATASET_FEATURES; f++) {
		double a = gen->offset[f];

		for (d = 0; d < LATENT; d++)
			a += gen->embed[f][d] * z[d];
		x[f] = (float)(tanh(EMBED_GAIN * a) +
			       FEATURE_NOISE * rng_gauss(rng));
	}
	*label = (uint8_t)c;
}

static void dataset_alloc(struct dataset *ds, uint32_t samples,
			  uint32_t features, uint32_t classes, uint64_t seed)
{
	ds->samples = samples;
	ds->features = features;
	ds->classes = classes;
	ds->seed = seed;
	ds->x = xmalloc((size_t)samples * features * sizeof(*ds->x));
	ds->label = xmalloc(samples);
}

static void fill(struct dataset *ds, const struct generator *gen,
		 struct rng *rng)
{
	uint32_t i;

	for (i = 0; i < ds->samples; i++)
		generator_sample(gen, rng, ds->x + (size_t)i * ds->features,
				 &ds->label[i]);
}

void dataset_generate(struct dataset *train, struct dataset *test,
		      uint64_t seed)
{
	struct generator *gen = xmalloc(sizeof(*gen));
	struct rng rng;

	rng_init(&rng, seed);
	generator_init(gen, &rng);
	dataset_alloc(train, DATASET_TRAIN, DATASET_FEATURES, DATASET_CLASSES,
		      seed);
	dataset_alloc(test, DATASET_TEST, DATASET_FEATURES, DATASET_CLASSES,
		      seed);
	fill(train, gen, &rng);
	fill(test, gen, &rng);
	free(gen);
}

void dataset_release(struct dataset *ds)
{
	if (!ds)
		return;
	free(ds->x);
	free(ds->label);
	ds->x = NULL;
	ds->label = NULL;
	ds->samples = 0;
}

int dataset_write(const struct dataset *ds, const char *path)
{
	struct bytebuf bb = BYTEBUF_INIT;
	size_t i, n = (size_t)ds->samples * ds->features;
	int error;

	bytebuf_put(&bb, DATASET_MAGIC, 4);
	bytebuf_put_u32(&bb, DATASET_VERSION);
	bytebuf_put_u32(&bb, ds->samples);
	bytebuf_put_u32(&bb, ds->features);
	bytebuf_put_u32(&bb, ds->classes);
	bytebuf_put_u64(&bb, ds->seed);
	for (i = 0; i < n; i++)
		bytebuf_put_f32(&bb, ds->x[i]);
	bytebuf_put(&bb, ds->label, ds->samples);
	bytebuf_put_u32(&bb, crc32_ieee(bb.buf, bb.len));
	error = file_write_atomic(path, bb.buf, bb.len);
	bytebuf_release(&bb);
	return error;
}

static int parse(struct dataset *out, const char *path, struct cursor *c)
{
	uint32_t version, samples, features, classes;
	uint64_t seed;
	char magic[4];
	size_t i, n;

	if (cursor_get(c, magic, 4) < 0 || memcmp(magic, DATASET_MAGIC, 4))
		return mlp_error("%s: not a benchgate data set (bad magic)",
				 path);
	if (cursor_get_u32(c, &version) < 0 || version != DATASET_VERSION)
		return mlp_error("%s: unsupported data set version %u "
				 "(this build reads %u)",
				 path, version, DATASET_VERSION);
	if (cursor_get_u32(c, &samples) < 0 ||
	    cursor_get_u32(c, &features) < 0 ||
	    cursor_get_u32(c, &classes) < 0 || cursor_get_u64(c, &seed) < 0)
		return mlp_error("%s: truncated header", path);
	if (!samples || !features || features > 65535 || classes < 2 ||
	    classes > 256)
		return mlp_error("%s: bad shape %u x %u, %u classes", path,
				 samples, features, classes);
	n = (size_t)samples * features;
	/* The payload size is known now: check it before allocating. */
	if (c->left != n * 4 + samples)
		return mlp_error("%s: %zu payload bytes, expected %zu", path,
				 c->left, n * 4 + samples);
	dataset_alloc(out, samples, features, classes, seed);
	for (i = 0; i < n; i++) {
		cursor_get_f32(c, &out->x[i]);
		if (!isfinite(out->x[i]))
			return mlp_error("%s: sample %zu, feature %zu is not "
					 "finite",
					 path, i / features, i % features);
	}
	cursor_get(c, out->label, samples);
	for (i = 0; i < samples; i++)
		if (out->label[i] >= classes)
			return mlp_error(
				"%s: sample %zu has label %u, expected "
				"< %u",
				path, i, out->label[i], classes);
	return 0;
}

int dataset_read(struct dataset *out, const char *path)
{
	struct bytebuf bb = BYTEBUF_INIT;
	struct cursor c;
	uint32_t stored;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = file_read_all(&bb, path, DATASET_MAX_BYTES)) < 0)
		goto done;
	if (bb.len < 8) {
		error = mlp_error("%s: too short for a data set (%zu bytes)",
				  path, bb.len);
		goto done;
	}
	c.p = bb.buf + bb.len - 4;
	c.left = 4;
	cursor_get_u32(&c, &stored);
	/* Name a foreign file as such before calling it corrupt. */
	if (memcmp(bb.buf, DATASET_MAGIC, 4)) {
		error = mlp_error("%s: not a benchgate data set (bad magic)",
				  path);
		goto done;
	}
	if (stored != crc32_ieee(bb.buf, bb.len - 4)) {
		error = mlp_error("%s: checksum mismatch: the file is "
				  "truncated or corrupt",
				  path);
		goto done;
	}
	c.p = bb.buf;
	c.left = bb.len - 4;
	error = parse(out, path, &c);
done:
	if (error < 0)
		dataset_release(out);
	bytebuf_release(&bb);
	return error;
}
