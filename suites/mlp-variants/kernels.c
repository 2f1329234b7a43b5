/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"

#include <stddef.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The fixed final order of the eight partial sums. */
static float combine8(const float *acc)
{
	return ((acc[0] + acc[4]) + (acc[1] + acc[5])) +
	       ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static float dot_tail(float sum, const float *a, const float *b, uint32_t i,
		      uint32_t n)
{
	for (; i < n; i++)
		sum += a[i] * b[i];
	return sum;
}

#ifdef __SSE2__

float dot_f32(const float *a, const float *b, uint32_t n)
{
	__m128 lo = _mm_setzero_ps(), hi = _mm_setzero_ps();
	float acc[8];
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		lo = _mm_add_ps(lo, _mm_mul_ps(_mm_loadu_ps(a + i),
					       _mm_loadu_ps(b + i)));
		hi = _mm_add_ps(hi, _mm_mul_ps(_mm_loadu_ps(a + i + 4),
					       _mm_loadu_ps(b + i + 4)));
	}
	_mm_storeu_ps(acc, lo);
	_mm_storeu_ps(acc + 4, hi);
	return dot_tail(combine8(acc), a, b, i, n);
}

/* Four dot products of one weight row with x[0], x[stride], ... */
static void dot4_f32(float *out, const float *x, uint32_t stride,
		     const float *w, uint32_t n)
{
	__m128 lo[4], hi[4];
	float acc[8];
	uint32_t i, s;

	for (s = 0; s < 4; s++)
		lo[s] = hi[s] = _mm_setzero_ps();
	for (i = 0; i + 8 <= n; i += 8) {
		__m128 w0 = _mm_loadu_ps(w + i), w1 = _mm_loadu_ps(w + i + 4);

		for (s = 0; s < 4; s++) {
			const float *xs = x + (size_t)s * stride + i;

			__m128 x0 = _mm_loadu_ps(xs), x1 = _mm_loadu_ps(xs + 4);

			lo[s] = _mm_add_ps(lo[s], _mm_mul_ps(x0, w0));
			hi[s] = _mm_add_ps(hi[s], _mm_mul_ps(x1, w1));
		}
	}
	for (s = 0; s < 4; s++) {
		_mm_storeu_ps(acc, lo[s]);
		_mm_storeu_ps(acc + 4, hi[s]);
		out[s] = dot_tail(combine8(acc), x + (size_t)s * stride, w, i,
				  n);
	}
}

/* Sign-extends 16 int8 lanes into two vectors of 8 int16. */
static void widen_i8(__m128i v, __m128i *lo, __m128i *hi)
{
	*lo = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
	*hi = _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8);
}

/*
 * out[s] = the sum of the four lanes of acc[s]: a 4x4 transpose by
 * unpacking, then three vector adds instead of twelve scalar ones.
 */
static void sum4_i32(int32_t *out, const __m128i *acc)
{
	__m128i t0 = _mm_unpacklo_epi32(acc[0], acc[1]);
	__m128i t1 = _mm_unpackhi_epi32(acc[0], acc[1]);
	__m128i t2 = _mm_unpacklo_epi32(acc[2], acc[3]);
	__m128i t3 = _mm_unpackhi_epi32(acc[2], acc[3]);
	__m128i sum = _mm_add_epi32(_mm_add_epi32(_mm_unpacklo_epi64(t0, t2),
						  _mm_unpackhi_epi64(t0, t2)),
				    _mm_add_epi32(_mm_unpacklo_epi64(t1, t3),
						  _mm_unpackhi_epi64(t1, t3)));

	_mm_storeu_si128((__m128i *)out, sum);
}

/*
 * Four int8 dot products of one weight row, 16 lanes at a time. The inputs
 * come sign-extended to 16 bits (SSE2 has no 8-bit multiply); the row is
 * widened here, once per four samples, and pmaddwd multiplies 8 lanes and
 * adds them in pairs into int32.
 */
static void dot4_i8(int32_t *out, const int16_t *x, uint32_t stride,
		    const int8_t *w, uint32_t n)
{
	__m128i acc[4];
	uint32_t i, s;

	for (s = 0; s < 4; s++)
		acc[s] = _mm_setzero_si128();
	for (i = 0; i + 16 <= n; i += 16) {
		__m128i w0, w1;

		widen_i8(_mm_loadu_si128((const __m128i *)(w + i)), &w0, &w1);
		for (s = 0; s < 4; s++) {
			const int16_t *xs = x + (size_t)s * stride + i;
			__m128i x0 = _mm_loadu_si128((const __m128i *)xs);
			__m128i x1 = _mm_loadu_si128((const __m128i *)(xs + 8));

			acc[s] = _mm_add_epi32(acc[s], _mm_madd_epi16(x0, w0));
			acc[s] = _mm_add_epi32(acc[s], _mm_madd_epi16(x1, w1));
		}
	}
	sum4_i32(out, acc);
	for (s = 0; s < 4 && i < n; s++) {
		const int16_t *xs = x + (size_t)s * stride;
		uint32_t k;

		for (k = i; k < n; k++)
			out[s] += xs[k] * w[k];
	}
}

#else /* portable C: the same sums in the same order */

float dot_f32(const float *a, const float *b, uint32_t n)
{
	float acc[8] = { 0 };
	uint32_t i, lane;

	for (i = 0; i + 8 <= n; i += 8)
		for (lane = 0; lane < 8; lane++)
			acc[lane] += a[i + lane] * b[i + lane];
	return dot_tail(combine8(acc), a, b, i, n);
}

static void dot4_f32(float *out, const float *x, uint32_t stride,
		     const float *w, uint32_t n)
{
	uint32_t s;

	for (s = 0; s < 4; s++)
		out[s] = dot_f32(x + (size_t)s * stride, w, n);
}

static void dot4_i8(int32_t *out, const int16_t *x, uint32_t stride,
		    const int8_t *w, uint32_t n)
{
	uint32_t s, k;

	for (s = 0; s < 4; s++) {
		const int16_t *xs = x + (size_t)s * stride;
		int32_t sum = 0;

		for (k = 0; k < n; k++)
			sum += xs[k] * w[k];
		out[s] = sum;
	}
}

#endif

void dense_f32(const float *w, const float *bias, uint32_t in, uint32_t out,
	       const float *x, uint32_t batch, float *y, int relu)
{
	uint32_t j, b, s;
	float sum[4];

	for (j = 0; j < out; j++) {
		const float *row = w + (size_t)j * in;

		for (b = 0; b < batch; b += 4) {
			uint32_t block = batch - b < 4 ? batch - b : 4;

			if (block == 4)
				dot4_f32(sum, x + (size_t)b * in, in, row, in);
			else
				for (s = 0; s < block; s++)
					sum[s] = dot_f32(x + (size_t)(b + s) *
									 in,
							 row, in);
			for (s = 0; s < block; s++) {
				float v = bias[j] + sum[s];

				y[(size_t)(b + s) * out + j] =
					relu && v < 0 ? 0 : v;
			}
		}
	}
}

void dense_i8(const int8_t *w, const int32_t *bias, uint32_t in, uint32_t out,
	      const int8_t *x, uint32_t batch, int16_t *wide, int32_t *sum)
{
	size_t i, n = (size_t)batch * in;
	uint32_t j, b, s, k;
	int32_t part[4];

	for (i = 0; i < n; i++)
		wide[i] = x[i];
	for (j = 0; j < out; j++) {
		const int8_t *row = w + (size_t)j * in;

		for (b = 0; b + 4 <= batch; b += 4) {
			dot4_i8(part, wide + (size_t)b * in, in, row, in);
			for (s = 0; s < 4; s++)
				sum[(size_t)(b + s) * out + j] =
					bias[j] + part[s];
		}
		for (; b < batch; b++) {
			const int8_t *xs = x + (size_t)b * in;
			int32_t total = bias[j];

			for (k = 0; k < in; k++)
				total += xs[k] * row[k];
			sum[(size_t)b * out + j] = total;
		}
	}
}
