/* SPDX-License-Identifier: Apache-2.0 */
#include "infer.h"

#include <assert.h>
#include <stdlib.h>

#include "kernels.h"

struct mlp_workspace {
	uint32_t max_batch;
	float *act[2];	 /* float activations, ping-pong between layers */
	int8_t *qact[2]; /* int8 activations of the quantized model */
	int32_t *sum;	 /* int32 sums of one quantized layer */
	int16_t *wide;	 /* its int8 input, sign-extended for the kernel */
	float *dequant[MLP_MAX_LAYERS]; /* int32 sum -> real, per unit */
	float *requant[MLP_MAX_LAYERS]; /* int32 sum -> next int8 input */
	float input_inv_scale;
};

static uint32_t max_width(const struct mlp *m)
{
	uint32_t l, w = 0;

	for (l = 0; l <= m->layers; l++)
		if (m->width[l] > w)
			w = m->width[l];
	return w;
}

/*
 * Folding the three scales of a layer into one multiplier per unit keeps
 * the inner loop of the quantized model to integer work.
 */
static void precompute_scales(struct mlp_workspace *ws, const struct mlp *m)
{
	uint32_t l, j;

	ws->input_inv_scale = 1.0f / m->layer[0].input_scale;
	for (l = 0; l < m->layers; l++) {
		const struct mlp_layer *layer = &m->layer[l];
		int last = l + 1 == m->layers;

		ws->dequant[l] = xmalloc(layer->out * sizeof(float));
		ws->requant[l] = xmalloc(layer->out * sizeof(float));
		for (j = 0; j < layer->out; j++) {
			float real =
				layer->input_scale * layer->weight_scale[j];

			ws->dequant[l][j] = real;
			ws->requant[l][j] =
				last ? 0 : real / m->layer[l + 1].input_scale;
		}
	}
}

struct mlp_workspace *mlp_workspace_new(const struct mlp *m, uint32_t max_batch)
{
	struct mlp_workspace *ws = xcalloc(1, sizeof(*ws));
	size_t n = (size_t)max_batch * max_width(m);
	int i;

	assert(max_batch > 0);
	ws->max_batch = max_batch;
	for (i = 0; i < 2; i++) {
		ws->act[i] = xcalloc(n, sizeof(float));
		if (m->kind == MLP_INT8)
			ws->qact[i] = xcalloc(n, sizeof(int8_t));
	}
	if (m->kind == MLP_INT8) {
		ws->sum = xcalloc(n, sizeof(int32_t));
		ws->wide = xcalloc(n, sizeof(int16_t));
		precompute_scales(ws, m);
	}
	return ws;
}

void mlp_workspace_free(struct mlp_workspace *ws)
{
	int i;

	if (!ws)
		return;
	for (i = 0; i < 2; i++) {
		free(ws->act[i]);
		free(ws->qact[i]);
	}
	free(ws->sum);
	free(ws->wide);
	for (i = 0; i < MLP_MAX_LAYERS; i++) {
		free(ws->dequant[i]);
		free(ws->requant[i]);
	}
	free(ws);
}

uint32_t argmax_f32(const float *v, uint32_t n)
{
	uint32_t i, best = 0;

	for (i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

static void infer_dense(const struct mlp *m, struct mlp_workspace *ws,
			const float *x, uint32_t batch, float *logits)
{
	const float *in = x;
	uint32_t l;

	for (l = 0; l < m->layers; l++) {
		int last = l + 1 == m->layers;
		float *out = last ? logits : ws->act[l & 1];

		const struct mlp_layer *layer = &m->layer[l];

		dense_f32(layer->weight, layer->bias, layer->in, layer->out, in,
			  batch, out, !last);
		in = out;
	}
}

/* Symmetric rounding to -127..127 (half away from zero); NaN goes to 127. */
static inline int8_t quantize(float steps)
{
	if (!(steps <= 127.0f))
		steps = 127.0f;
	if (steps < -127.0f)
		steps = -127.0f;
	return (int8_t)(steps >= 0 ? (int)(steps + 0.5f)
				   : -(int)(0.5f - steps));
}

/*
 * The int32 sums of a layer become either logits (the last layer) or the
 * next layer's int8 input: scale, ReLU, round.
 */
static void requantize(const int32_t *sum, uint32_t batch, uint32_t out,
		       const float *dequant, const float *requant, int8_t *qy,
		       float *logits)
{
	uint32_t b, j;

	for (b = 0; b < batch; b++, sum += out) {
		if (logits) {
			for (j = 0; j < out; j++)
				logits[(size_t)b * out + j] =
					(float)sum[j] * dequant[j];
			continue;
		}
		for (j = 0; j < out; j++) {
			float steps = (float)sum[j] * requant[j];

			qy[(size_t)b * out + j] = steps > 0 ? quantize(steps)
							    : 0;
		}
	}
}

static void infer_int8(const struct mlp *m, struct mlp_workspace *ws,
		       const float *x, uint32_t batch, float *logits)
{
	size_t i, n = (size_t)batch * m->width[0];
	const int8_t *in = ws->qact[1];
	uint32_t l;

	/* Quantizing the input is part of the model's cost: it is timed. */
	for (i = 0; i < n; i++)
		ws->qact[1][i] = quantize(x[i] * ws->input_inv_scale);
	for (l = 0; l < m->layers; l++) {
		int last = l + 1 == m->layers;
		int8_t *out = ws->qact[l & 1];

		const struct mlp_layer *layer = &m->layer[l];

		dense_i8(layer->qweight, layer->qbias, layer->in, layer->out,
			 in, batch, ws->wide, ws->sum);
		requantize(ws->sum, batch, layer->out, ws->dequant[l],
			   ws->requant[l], out, last ? logits : NULL);
		in = out;
	}
}

/*
 * Sparse layer on feature-major activations (x[k * batch + b]): row j of
 * the CSR matrix adds value * (input row k) into output row j for each of
 * its stored weights.
 */
static void sparse_f32(const struct mlp_layer *layer, const float *x,
		       uint32_t batch, float *y, int relu)
{
	uint32_t j, p, b;

	for (j = 0; j < layer->out; j++) {
		float *row = y + (size_t)j * batch;

		for (b = 0; b < batch; b++)
			row[b] = layer->bias[j];
		for (p = layer->row_start[j]; p < layer->row_start[j + 1]; p++)
			axpy_f32(row, layer->value[p],
				 x + (size_t)layer->column[p] * batch, batch);
		if (relu)
			for (b = 0; b < batch; b++)
				row[b] = row[b] < 0 ? 0 : row[b];
	}
}

static void infer_pruned(const struct mlp *m, struct mlp_workspace *ws,
			 const float *x, uint32_t batch, float *logits)
{
	uint32_t features = m->width[0], classes = m->width[m->layers];
	float *in = ws->act[1];
	uint32_t l, k, b;

	for (b = 0; b < batch; b++)
		for (k = 0; k < features; k++)
			in[(size_t)k * batch + b] = x[(size_t)b * features + k];
	for (l = 0; l < m->layers; l++) {
		int last = l + 1 == m->layers;
		float *out = ws->act[l & 1];

		sparse_f32(&m->layer[l], in, batch, out, !last);
		in = out;
	}
	for (b = 0; b < batch; b++)
		for (k = 0; k < classes; k++)
			logits[(size_t)b * classes + k] =
				in[(size_t)k * batch + b];
}

void mlp_infer(const struct mlp *m, struct mlp_workspace *ws, const float *x,
	       uint32_t batch, float *logits)
{
	assert(batch >= 1 && batch <= ws->max_batch);
	switch (m->kind) {
	case MLP_FP32:
	case MLP_DISTILLED:
		infer_dense(m, ws, x, batch, logits);
		break;
	case MLP_INT8:
		infer_int8(m, ws, x, batch, logits);
		break;
	case MLP_PRUNED:
		infer_pruned(m, ws, x, batch, logits);
		break;
	}
}
