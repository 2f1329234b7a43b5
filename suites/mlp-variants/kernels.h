/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_KERNELS_H
#define MLP_KERNELS_H

#include <stdint.h>

/*
 * The inner loops of training and inference.
 *
 * Float sums are kept in eight partial sums per dot product, combined in a
 * fixed order at the end. The SSE2 path (x86-64) holds the eight in two
 * vector registers and the portable path in an array: both add the same
 * numbers in the same order, so every build computes the same bits and
 * accuracy stays an exact metric. No -ffast-math is needed or wanted.
 * Integer sums are exact in any order.
 */

/* Sum of a[i] * b[i] over n values, in the eight-lane order above. */
float dot_f32(const float *a, const float *b, uint32_t n);

/* y += alpha * x, elementwise: vectorises and stays exact in any order. */
static inline void axpy_f32(float *restrict y, float alpha,
			    const float *restrict x, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		y[i] += alpha * x[i];
}

/*
 * A dense float layer over a batch: y[b][j] = bias[j] + x[b] . w[j], with
 * ReLU when `relu`. x is batch x in, w is out x in, y is batch x out, all
 * row-major. Each weight row is applied to four samples at a time, so it is
 * loaded once per four and the four sums run in parallel; every sum is
 * still exactly dot_f32().
 */
void dense_f32(const float *w, const float *bias, uint32_t in, uint32_t out,
	       const float *x, uint32_t batch, float *y, int relu);

/*
 * The integer part of an int8 layer: sum[b][j] = bias[j] + x[b] . w[j],
 * int8 operands and int32 sums; x is batch x in, w is out x in, sum is
 * batch x out. Values must be in -127..127, so no pair of products can
 * overflow the int32 lanes of pmaddwd. `wide` is scratch for batch x in
 * int16: the input is sign-extended once per layer, not once per row.
 */
void dense_i8(const int8_t *w, const int32_t *bias, uint32_t in, uint32_t out,
	      const int8_t *x, uint32_t batch, int16_t *wide, int32_t *sum);

#endif
