/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_FUZZ_H
#define BENCHGATE_FUZZ_H

/*
 * What the libFuzzer targets of tests/fuzz share. Each target defines
 * LLVMFuzzerTestOneInput(), feeds the bytes to one reader (and what it
 * builds from them to the writers) and checks properties with
 * FUZZ_CHECK(): a failed one aborts, which libFuzzer reports as a crash
 * with the input that caused it (README "Fuzzing").
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* assert() that survives NDEBUG, which release builds define. */
#define FUZZ_CHECK(condition)                                             \
	do {                                                              \
		if (!(condition)) {                                       \
			fprintf(stderr, "%s:%d: property violated: %s\n", \
				__FILE__, __LINE__, #condition);          \
			abort();                                          \
		}                                                         \
	} while (0)

#endif
