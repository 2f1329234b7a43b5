/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the result reader (harness/model/result.h) on any
 * bytes. A document it accepts must survive its own round trip: written
 * back and read again, it is read as the same result and written as the
 * same bytes (result_split() and the git store rely on that).
 */
#include "harness/model/result.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	struct result *result = NULL, *again = NULL;

	bg_error_clear();
	if (result_parse(&result, (const char *)data, size, "fuzz.json") < 0) {
		FUZZ_CHECK(!result && *bg_error_last());
		return 0;
	}
	result_to_json(result, &first);
	/* what the reader accepted, its own writer must not turn into
	 * something it refuses */
	FUZZ_CHECK(result_parse(&again, first.buf, first.len, "copy.json") ==
		   BG_OK);
	result_to_json(again, &second);
	FUZZ_CHECK(first.len == second.len &&
		   !memcmp(first.buf, second.buf, first.len));
	result_free(again);
	result_free(result);
	strbuf_release(&first);
	strbuf_release(&second);
	return 0;
}
