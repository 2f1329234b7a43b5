/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/bridge/formats.h"

#include <math.h>

int bridge_read_each(struct bridge_doc *doc, struct json_reader *rd,
		     const char *key, bridge_element_fn *read)
{
	const cJSON *list = json_read_array(rd, rd->root, key, JSON_REQUIRED);
	const cJSON *element;
	int index = 0;

	if (!list)
		return rd->error;
	json_reader_push_key(rd, key);
	cJSON_ArrayForEach(element, list)
	{
		json_reader_push_index(rd, index++);
		read(doc, rd, list, element);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
	return rd->error;
}

int bridge_read_finite(struct json_reader *rd, const cJSON *item, double *out)
{
	if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble)) {
		json_reader_fail(rd, "expected a finite number, found %s",
				 json_type_name(item));
		return 0;
	}
	*out = item->valuedouble;
	return 1;
}

void bridge_read_values(struct json_reader *rd, const cJSON *list,
			const char *key, struct bridge_series *series)
{
	const cJSON *item;
	int index = 0;

	json_reader_push_key(rd, key);
	cJSON_ArrayForEach(item, list)
	{
		double value;

		json_reader_push_index(rd, index++);
		if (bridge_read_finite(rd, item, &value))
			bridge_series_push(series, value);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	json_reader_pop(rd);
}

int bridge_read_number(struct json_reader *rd, const cJSON *object,
		       const char *key, unsigned flags, double *out)
{
	double value;
	int read = json_read_number(rd, object, key, flags, &value);

	if (read != 1)
		return read;
	json_reader_push_key(rd, key);
	read = bridge_read_finite(rd, cJSON_GetObjectItemCaseSensitive(object, key), out);
	json_reader_pop(rd);
	return read;
}

int bridge_read_name(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, char **out)
{
	return json_read_string(rd, object, key,
				flags | JSON_NONEMPTY | JSON_PRINTABLE, out);
}
