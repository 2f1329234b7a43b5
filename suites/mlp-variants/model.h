/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_MODEL_H
#define MLP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/*
 * A trained multi-layer perceptron in one of four encodings, and its file
 * format. ReLU after every layer but the last; the last layer's outputs are
 * the class logits.
 *
 * File format "BGML", version 1, all integers and floats little-endian:
 *
 *   u8[4]  magic "BGML"
 *   u32    version (1)
 *   u32    kind: 1 fp32, 2 int8, 3 pruned, 4 distilled (enum mlp_kind)
 *   u32    layers L (1..MLP_MAX_LAYERS)
 *   u64    seed of the data set the model was trained on
 *   u32    width[L + 1]: inputs, hidden widths..., classes (1..65535)
 *   layer payloads, layer 0 first (in = width[l], out = width[l + 1]):
 *     fp32, distilled: f32 weight[out][in], f32 bias[out]
 *     int8:            f32 input_scale, f32 weight_scale[out],
 *                      i8 weight[out][in] (-127..127), i32 bias[out]
 *     pruned:          u32 nnz, u32 row_start[out + 1], u16 column[nnz],
 *                      f32 value[nnz], f32 bias[out]   (CSR, rows = units)
 *   u32    CRC-32 of every byte before it
 *
 * Row j of a weight matrix feeds output unit j.
 */

#define MLP_MAGIC      "BGML"
#define MLP_VERSION    1
#define MLP_MAX_LAYERS 8

enum mlp_kind {
	MLP_FP32 = 1,	   /* the original: dense float32 */
	MLP_INT8 = 2,	   /* int8 weights and activations, int32 sums */
	MLP_PRUNED = 3,	   /* float32 in CSR, most weights removed */
	MLP_DISTILLED = 4, /* a smaller dense float32 student */
};

struct mlp_layer {
	uint32_t in, out;

	/* MLP_FP32, MLP_DISTILLED */
	float *weight; /* out x in */
	/* MLP_FP32, MLP_DISTILLED, MLP_PRUNED */
	float *bias; /* out */

	/* MLP_INT8: real input = input_scale * int8 input */
	float input_scale;
	float *weight_scale; /* out, one per row */
	int8_t *qweight;     /* out x in */
	int32_t *qbias;	     /* out, in steps of input_scale * weight_scale */

	/* MLP_PRUNED */
	uint32_t nnz;
	uint32_t *row_start; /* out + 1: row j spans [row_start[j], [j + 1]) */
	uint16_t *column;    /* nnz, increasing within a row */
	float *value;	     /* nnz */
};

struct mlp {
	enum mlp_kind kind;
	uint64_t data_seed;
	uint32_t layers;
	uint32_t width[MLP_MAX_LAYERS + 1];
	struct mlp_layer layer[MLP_MAX_LAYERS];
};

/* "fp32", "int8", "pruned", "distilled"; "unknown" otherwise. */
const char *mlp_kind_name(enum mlp_kind kind);

/* The suite's variant name: "original", "quantized", "pruned", "distilled". */
const char *mlp_variant_name(enum mlp_kind kind);

/*
 * Sets up `m` for `layers` layers of the given widths and allocates the
 * zeroed arrays the kind needs, except the CSR arrays whose size is only
 * known later: call mlp_layer_alloc_sparse() for those. Release with
 * mlp_release().
 */
void mlp_init(struct mlp *m, enum mlp_kind kind, uint64_t data_seed,
	      uint32_t layers, const uint32_t *width);

/* Allocates column[nnz] and value[nnz] of a pruned layer. */
void mlp_layer_alloc_sparse(struct mlp_layer *layer, uint32_t nnz);

/* Frees every array of `m`. NULL-safe. */
void mlp_release(struct mlp *m);

/* Encodes `m` in the file format above and writes it atomically. */
int mlp_save(const struct mlp *m, const char *path);

/*
 * Reads and validates a model file into `out` (release with mlp_release()).
 * Every structural problem is an error naming the file and what is wrong:
 * bad magic, unknown version or kind, checksum mismatch (truncated or
 * corrupt), impossible widths, bad CSR indices, non-finite numbers. Stores
 * the size of the file in `*file_bytes`.
 */
int mlp_load(struct mlp *out, size_t *file_bytes, const char *path);

/* Weights and biases of the architecture, whether zero or not. */
uint64_t mlp_params(const struct mlp *m);

/* Weights and biases whose value is not zero, in whatever encoding. */
uint64_t mlp_nonzero_params(const struct mlp *m);

#endif
