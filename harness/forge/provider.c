/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/forge/provider.h"

#include "harness/forge/http.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void provider_add_path_segment(struct strbuf *out, const char *s, size_t len)
{
	http_add_escaped(out, s, len);
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
