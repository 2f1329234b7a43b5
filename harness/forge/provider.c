/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/forge/provider.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void provider_add_path_segment(struct strbuf *out, const char *s, size_t len)
{
	/* libcurl keeps exactly RFC 3986's unreserved set. */
	char *escaped = curl_easy_escape(NULL, s, (int)len);

	if (!escaped) {
		fputs("benchgate: out of memory\n", stderr);
		abort();
	}
	strbuf_addstr(out, escaped);
	curl_free(escaped);
}

bool provider_add_id(struct strbuf *out, const cJSON *number)
{
	double value;

	if (!cJSON_IsNumber(number))
		return false;
	value = number->valuedouble;
	/* Ids are exact in a double up to 2^53. */
	if (!(value >= 1 && value <= 9007199254740992.0) ||
	    value != (double)(int64_t)value)
		return false;
	strbuf_addf(out, "%" PRId64, (int64_t)value);
	return true;
}
