/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the history index reader (harness/gate/history_index.h)
 * on any bytes, as its file. It must never crash, leak or ask for more
 * memory than the bytes could describe; an index it accepts must survive
 * its own round trip: written, read back and written again, the same
 * bytes.
 */
#include "harness/gate/history.h"
#include "harness/gate/history_index.h"
#include "harness/util/strbuf.h"

#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	struct history_index *index, *again;
	const char *why = NULL;

	index = history_index_parse(data, size, HISTORY_CONFIDENCE, &why);
	if (!index) {
		FUZZ_CHECK(why && *why);
		return 0;
	}
	history_index_encode(index, &first);
	again = history_index_parse(first.buf, first.len, HISTORY_CONFIDENCE,
				    &why);
	FUZZ_CHECK(again);
	history_index_encode(again, &second);
	FUZZ_CHECK(first.len == second.len &&
		   !memcmp(first.buf, second.buf, first.len));
	history_index_free(again);
	history_index_free(index);
	strbuf_release(&first);
	strbuf_release(&second);
	return 0;
}
