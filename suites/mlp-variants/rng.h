/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_RNG_H
#define MLP_RNG_H

#include <math.h>
#include <stdint.h>

/*
 * splitmix64 (Steele, Lea, Flood 2014; the seeder of xoshiro). Our own
 * generator rather than rand() so the data set and the trained weights are
 * the same on every libc, which keeps accuracy and model size exact metrics.
 */
struct rng {
	uint64_t state;
};

static inline void rng_init(struct rng *rng, uint64_t seed)
{
	rng->state = seed;
}

static inline uint64_t rng_next(struct rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double rng_uniform(struct rng *rng)
{
	return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), n > 0; the bias of the multiply-shift is < 2^-32. */
static inline uint32_t rng_below(struct rng *rng, uint32_t n)
{
	return (uint32_t)(((rng_next(rng) >> 32) * n) >> 32);
}

/* Standard normal by Box-Muller; the second value is dropped for simplicity. */
static inline double rng_gauss(struct rng *rng)
{
	double u1 = 1.0 - rng_uniform(rng); /* (0, 1]: log() stays finite */
	double u2 = rng_uniform(rng);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
