/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_DATASET_H
#define MLP_DATASET_H

#include <stdint.h>

/*
 * The synthetic classification data set every variant is trained and
 * measured on.
 *
 * Each class is a union of a few gaussian clusters in a small latent space;
 * samples are lifted into the feature space through a fixed random linear
 * map and a tanh, then feature noise is added. The classes are not linearly
 * separable (several clusters per class, a curved embedding) and they
 * overlap a little, so an MLP reaches the low-to-mid 90s and small changes
 * to a model show up in its accuracy.
 */

#define DATASET_FEATURES 128
#define DATASET_CLASSES	 10
#define DATASET_TRAIN	 6000
#define DATASET_TEST	 2000
#define DATASET_SEED	 0x62656e6368676174ull /* "benchgat" */

struct dataset {
	uint32_t samples;
	uint32_t features;
	uint32_t classes;
	uint64_t seed;
	float *x;	/* samples x features, row-major */
	uint8_t *label; /* samples, each < classes */
};

/*
 * Fills `train` and `test` (caller releases both) from one seed. The two
 * splits are drawn from the same distribution; the same seed always gives
 * the same bytes.
 */
void dataset_generate(struct dataset *train, struct dataset *test,
		      uint64_t seed);

/* Frees the arrays of `ds`; the struct can be filled again. NULL-safe. */
void dataset_release(struct dataset *ds);

/*
 * File format "BGDS", version 1, little-endian:
 *   u8[4] magic "BGDS", u32 version, u32 samples, u32 features,
 *   u32 classes, u64 seed, f32 x[samples * features], u8 label[samples],
 *   u32 CRC-32 of every byte before it.
 */
int dataset_write(const struct dataset *ds, const char *path);

/* Reads and validates a file written by dataset_write(); fills `out`. */
int dataset_read(struct dataset *out, const char *path);

#endif
