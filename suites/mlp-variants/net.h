/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_NET_H
#define MLP_NET_H

#include <stdint.h>

#include "model.h"
#include "rng.h"

/*
 * A float MLP being trained: forward and backward passes over a batch and
 * an SGD-with-momentum step. Weights are laid out as in the model file (row
 * j feeds unit j), so a trained net converts to an MLP_FP32 model by copy.
 *
 * An optional mask per layer pins removed weights at zero through later
 * training, which is how the pruned variant is fine-tuned.
 */
struct net {
	uint32_t layers;
	uint32_t width[MLP_MAX_LAYERS + 1];
	uint32_t max_batch;
	float *weight[MLP_MAX_LAYERS];
	float *bias[MLP_MAX_LAYERS];
	float *weight_grad[MLP_MAX_LAYERS];
	float *bias_grad[MLP_MAX_LAYERS];
	float *weight_vel[MLP_MAX_LAYERS];
	float *bias_vel[MLP_MAX_LAYERS];
	uint8_t *mask[MLP_MAX_LAYERS];	 /* NULL, or 1 = keep, 0 = removed */
	float *act[MLP_MAX_LAYERS + 1];	 /* act[0] input ... act[L] logits */
	float *grad[MLP_MAX_LAYERS + 1]; /* d loss / d act */
};

/*
 * Allocates a net of `layers` layers with He-initialised weights drawn from
 * `rng` and zero biases, for batches of up to `max_batch`. Release with
 * net_release().
 */
void net_init(struct net *net, uint32_t layers, const uint32_t *width,
	      uint32_t max_batch, struct rng *rng);

void net_release(struct net *net);

/* Runs `batch` rows of `x`; returns the logits (batch x classes), borrowed
 * from the net until the next call. */
const float *net_forward(struct net *net, const float *x, uint32_t batch);

/*
 * Back-propagates `logit_grad` (batch x classes, already divided by the
 * batch size) through the activations of the last net_forward() and
 * replaces the gradients with the result.
 */
void net_backward(struct net *net, const float *logit_grad, uint32_t batch);

/* v = momentum * v + grad + decay * w; w -= lr * v; masked weights stay 0. */
void net_step(struct net *net, float lr, float momentum, float decay);

/*
 * Keeps the `keep` largest-magnitude weights of layer `l` and masks the
 * rest (ties go to the lower index, so the count is exact).
 */
void net_prune_layer(struct net *net, uint32_t l, uint32_t keep);

#endif
