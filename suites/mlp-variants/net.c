/* SPDX-License-Identifier: Apache-2.0 */
#include "net.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

void net_init(struct net *net, uint32_t layers, const uint32_t *width,
	      uint32_t max_batch, struct rng *rng)
{
	uint32_t l;
	size_t i;

	assert(layers >= 1 && layers <= MLP_MAX_LAYERS);
	memset(net, 0, sizeof(*net));
	net->layers = layers;
	net->max_batch = max_batch;
	memcpy(net->width, width, (layers + 1) * sizeof(*width));
	for (l = 0; l <= layers; l++) {
		net->act[l] =
			xcalloc((size_t)max_batch * width[l], sizeof(float));
		net->grad[l] =
			xcalloc((size_t)max_batch * width[l], sizeof(float));
	}
	for (l = 0; l < layers; l++) {
		size_t n = (size_t)width[l] * width[l + 1];
		double stddev = sqrt(2.0 / width[l]);

		net->weight[l] = xmalloc(n * sizeof(float));
		net->weight_grad[l] = xcalloc(n, sizeof(float));
		net->weight_vel[l] = xcalloc(n, sizeof(float));
		net->bias[l] = xcalloc(width[l + 1], sizeof(float));
		net->bias_grad[l] = xcalloc(width[l + 1], sizeof(float));
		net->bias_vel[l] = xcalloc(width[l + 1], sizeof(float));
		for (i = 0; i < n; i++)
			net->weight[l][i] = (float)(stddev * rng_gauss(rng));
	}
}

void net_release(struct net *net)
{
	uint32_t l;

	for (l = 0; l <= MLP_MAX_LAYERS; l++) {
		free(net->act[l]);
		free(net->grad[l]);
	}
	for (l = 0; l < MLP_MAX_LAYERS; l++) {
		free(net->weight[l]);
		free(net->bias[l]);
		free(net->weight_grad[l]);
		free(net->bias_grad[l]);
		free(net->weight_vel[l]);
		free(net->bias_vel[l]);
		free(net->mask[l]);
	}
	memset(net, 0, sizeof(*net));
}

const float *net_forward(struct net *net, const float *x, uint32_t batch)
{
	uint32_t l;

	assert(batch <= net->max_batch);
	memcpy(net->act[0], x, (size_t)batch * net->width[0] * sizeof(float));
	for (l = 0; l < net->layers; l++)
		dense_f32(net->weight[l], net->bias[l], net->width[l],
			  net->width[l + 1], net->act[l], batch,
			  net->act[l + 1], l + 1 < net->layers);
	return net->act[net->layers];
}

/*
 * Gradients of layer l from the gradient at its output. Samples whose unit
 * was cut off by the ReLU have a zero gradient and are skipped: that is
 * most of them, and skipping changes no result.
 */
static void backward_layer(struct net *net, uint32_t l, uint32_t batch)
{
	uint32_t in = net->width[l], out = net->width[l + 1];
	const float *delta = net->grad[l + 1];
	uint32_t j, b;
	size_t i;

	memset(net->weight_grad[l], 0, (size_t)in * out * sizeof(float));
	memset(net->bias_grad[l], 0, out * sizeof(float));
	for (j = 0; j < out; j++) {
		float *wg = net->weight_grad[l] + (size_t)j * in;

		for (b = 0; b < batch; b++) {
			float g = delta[(size_t)b * out + j];

			if (g == 0)
				continue;
			net->bias_grad[l][j] += g;
			axpy_f32(wg, g, net->act[l] + (size_t)b * in, in);
		}
	}
	if (l == 0)
		return;
	memset(net->grad[l], 0, (size_t)batch * in * sizeof(float));
	for (b = 0; b < batch; b++) {
		float *gi = net->grad[l] + (size_t)b * in;

		for (j = 0; j < out; j++) {
			float g = delta[(size_t)b * out + j];

			if (g != 0)
				axpy_f32(gi, g, net->weight[l] + (size_t)j * in,
					 in);
		}
	}
	/* Through the ReLU that produced act[l]. */
	for (i = 0; i < (size_t)batch * in; i++)
		if (net->act[l][i] <= 0)
			net->grad[l][i] = 0;
}

void net_backward(struct net *net, const float *logit_grad, uint32_t batch)
{
	uint32_t l = net->layers;

	memcpy(net->grad[l], logit_grad,
	       (size_t)batch * net->width[l] * sizeof(float));
	while (l-- > 0)
		backward_layer(net, l, batch);
}

static void step_array(float *w, float *v, const float *g, size_t n, float lr,
		       float momentum, float decay)
{
	size_t i;

	for (i = 0; i < n; i++) {
		v[i] = momentum * v[i] + g[i] + decay * w[i];
		w[i] -= lr * v[i];
	}
}

void net_step(struct net *net, float lr, float momentum, float decay)
{
	uint32_t l;
	size_t i;

	for (l = 0; l < net->layers; l++) {
		size_t n = (size_t)net->width[l] * net->width[l + 1];

		step_array(net->weight[l], net->weight_vel[l],
			   net->weight_grad[l], n, lr, momentum, decay);
		step_array(net->bias[l], net->bias_vel[l], net->bias_grad[l],
			   net->width[l + 1], lr, momentum, 0);
		if (!net->mask[l])
			continue;
		for (i = 0; i < n; i++)
			if (!net->mask[l][i])
				net->weight[l][i] = net->weight_vel[l][i] = 0;
	}
}

struct ranked {
	float magnitude;
	uint32_t index;
};

static int by_magnitude_desc(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->magnitude != b->magnitude)
		return a->magnitude > b->magnitude ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

void net_prune_layer(struct net *net, uint32_t l, uint32_t keep)
{
	size_t i, n = (size_t)net->width[l] * net->width[l + 1];
	struct ranked *rank = xmalloc(n * sizeof(*rank));

	assert(keep <= n);
	if (!net->mask[l])
		net->mask[l] = xmalloc(n);
	for (i = 0; i < n; i++) {
		rank[i].magnitude = fabsf(net->weight[l][i]);
		rank[i].index = (uint32_t)i;
	}
	qsort(rank, n, sizeof(*rank), by_magnitude_desc);
	for (i = 0; i < n; i++)
		net->mask[l][rank[i].index] = i < keep;
	for (i = 0; i < n; i++)
		if (!net->mask[l][i])
			net->weight[l][i] = net->weight_vel[l][i] = 0;
	free(rank);
}
