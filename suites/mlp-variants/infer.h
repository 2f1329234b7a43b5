/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_INFER_H
#define MLP_INFER_H

#include <stdint.h>

#include "model.h"

/*
 * Batched inference for every model kind, each with the kernel that makes
 * its encoding pay off:
 *
 *   fp32, distilled  dense float dot products
 *   int8             the input is quantized once, every layer multiplies
 *                    int8 by int8 into int32 sums, requantizes its ReLU
 *                    output to int8 for the next layer, and only the
 *                    logits are turned back into floats
 *   pruned           sparse (CSR) times dense on activations stored
 *                    feature-major, so each stored weight updates a whole
 *                    batch with one contiguous loop and removed weights
 *                    cost nothing
 */

/* Scratch buffers and precomputed scales for one model and a batch size. */
struct mlp_workspace;

/*
 * Allocates the workspace for running `m` on batches of up to `max_batch`
 * samples. `m` must outlive it. Free with mlp_workspace_free().
 */
struct mlp_workspace *mlp_workspace_new(const struct mlp *m,
					uint32_t max_batch);

void mlp_workspace_free(struct mlp_workspace *ws);

/*
 * Runs `batch` (1..max_batch) samples, `x` holding them row-major with
 * m->width[0] floats each, and writes batch x classes logits to `logits`.
 */
void mlp_infer(const struct mlp *m, struct mlp_workspace *ws, const float *x,
	       uint32_t batch, float *logits);

/* Index of the largest of `n` values; the first one on ties. */
uint32_t argmax_f32(const float *v, uint32_t n);

#endif
