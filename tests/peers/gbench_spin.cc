/* SPDX-License-Identifier: Apache-2.0 */
// A Google Benchmark program for the import tests (tests/e2e/test_import.c):
// BM_spin sums a fixed number of integers per iteration, more by the
// fraction in SPIN_SLOWDOWN (1: twice as many), as tests/workloads/spin.c
// spins longer, so a test can plant a slowdown of a known size.
#include <benchmark/benchmark.h>

#include <cstdlib>

static void BM_spin(benchmark::State &state)
{
	const char *slowdown = std::getenv("SPIN_SLOWDOWN");
	long n = state.range(0), sum = 0;

	if (slowdown)
		n = (long)((double)n * (1 + std::atof(slowdown)));
	for (auto _ : state)
		for (long i = 0; i < n; i++)
			benchmark::DoNotOptimize(sum += i);
	state.counters["items_per_second"] = benchmark::Counter(
		(double)n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_spin)->Arg(20000);

BENCHMARK_MAIN();
