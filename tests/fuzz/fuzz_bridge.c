/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the readers of the peers' documents (harness/bridge/)
 * on any bytes, the first byte choosing the format. A document one of them
 * accepts becomes a result (as `import` makes it) that the result reader
 * accepts in turn: nothing a peer's file holds may make a result that
 * benchgate then refuses to read back, or a name outside its alphabet.
 */
#include "harness/bridge/bridge.h"
#include "harness/model/result.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf json = STRBUF_INIT;
	struct result *result, *again = NULL;
	struct bridge_doc doc;
	enum bridge_format format;

	if (!size)
		return 0;
	format = (enum bridge_format)(data[0] % 6);
	bg_error_clear();
	if (bridge_parse(&doc, format, (const char *)data + 1, size - 1,
			 "fuzz.json") < 0) {
		FUZZ_CHECK(*bg_error_last());
		bridge_doc_release(&doc);
		return 0;
	}
	result = result_new();
	result->suite = strdup("fuzz");
	if (bridge_add_to_result(&doc, result, "fuzz.json") == BG_OK) {
		result_to_json(result, &json);
		FUZZ_CHECK(result_parse(&again, json.buf, json.len,
					"copy.json") == BG_OK);
		result_free(again);
	}
	result_free(result);
	bridge_doc_release(&doc);
	strbuf_release(&json);
	return 0;
}
