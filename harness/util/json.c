#include "harness/util/json.h"

#include "harness/util/utf8.h"

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
