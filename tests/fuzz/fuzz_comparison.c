/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the comparison reader (harness/gate/compare.h,
 * comparison_parse()) on any bytes, as `benchgate report FILE` reads
 * them. A document it accepts must survive its own round trip.
 */
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	struct comparison *comparison = NULL, *again = NULL;

	bg_error_clear();
	if (comparison_parse(&comparison, (const char *)data, size,
			     "fuzz.json") < 0) {
		FUZZ_CHECK(!comparison && *bg_error_last());
		return 0;
	}
	comparison_to_json(comparison, &first);
	FUZZ_CHECK(comparison_parse(&again, first.buf, first.len,
				    "copy.json") == BG_OK);
	comparison_to_json(again, &second);
	FUZZ_CHECK(first.len == second.len &&
		   !memcmp(first.buf, second.buf, first.len));
	comparison_free(again);
	comparison_free(comparison);
	strbuf_release(&first);
	strbuf_release(&second);
	return 0;
}
