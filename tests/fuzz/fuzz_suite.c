/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the suite loader (harness/suite/suite.h) on any bytes.
 * A suite either loads or is refused with a message; nothing it holds
 * may crash the loader, leak, or do anything undefined.
 */
#include "harness/suite/suite.h"
#include "harness/util/error.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct suite *suite = NULL;
	int error;

	bg_error_clear();
	error = suite_parse(&suite, "fuzz.json", (const char *)data, size);
	/* a refusal always says why */
	FUZZ_CHECK(error == BG_OK ? suite != NULL : *bg_error_last() != '\0');
	suite_free(suite);
	return 0;
}
