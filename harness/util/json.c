/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/json.h"

#include "harness/util/utf8.h"

#include <stdio.h>
#include <stdlib.h>

cJSON *json_string(const char *s)
{
	char *valid;
	cJSON *item;

	if (!s)
		return cJSON_CreateNull();
	valid = utf8_sanitized(s);
	item = cJSON_CreateString(valid);
	free(valid);
	return item;
}

void json_add_string(cJSON *object, const char *key, const char *s)
{
	json_add_item(object, key, json_string(s));
}

void json_add_item(cJSON *object, const char *key, cJSON *item)
{
	char *valid = utf8_sanitized(key);

	cJSON_AddItemToObject(object, valid, item);
	free(valid);
}

void json_add_pair(cJSON *object, const char *key, double low, double high)
{
	cJSON *pair = cJSON_CreateArray();

	cJSON_AddItemToArray(pair, cJSON_CreateNumber(low));
	cJSON_AddItemToArray(pair, cJSON_CreateNumber(high));
	json_add_item(object, key, pair);
}

void json_print(struct strbuf *out, const cJSON *item)
{
	char *text = cJSON_Print(item);

	if (!text) {
		fputs("benchgate: fatal: out of memory serialising JSON\n",
		      stderr);
		abort();
	}
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
}
