/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/source.h"

static const char *const source_names[METRIC_SOURCES_NR] = {
	[SOURCE_WALL] = "wall",		  [SOURCE_RUSAGE] = "rusage",
	[SOURCE_PERF] = "perf",		  [SOURCE_NVML] = "nvml",
	[SOURCE_ROCM] = "rocm",
	[SOURCE_RAPL] = "rapl",		  [SOURCE_SYSTEM] = "system",
	[SOURCE_CALLGRIND] = "callgrind", [SOURCE_METRICS] = "metrics",
	[SOURCE_STDOUT] = "stdout",	  [SOURCE_STDERR] = "stderr",
	[SOURCE_FILE] = "file",		  [SOURCE_COMMAND] = "command",
	/* bridge_format_names' */
	[SOURCE_GBENCH] = "gbench",	  [SOURCE_HYPERFINE] = "hyperfine",
	[SOURCE_PYTEST_BENCHMARK] = "pytest-benchmark",
	[SOURCE_GAB_SMALLER] = "customSmallerIsBetter",
	[SOURCE_GAB_BIGGER] = "customBiggerIsBetter",
	[SOURCE_OPTIMUM] = "optimum",
};

const char *metric_source_name(enum metric_source source)
{
	return source_names[source];
}
