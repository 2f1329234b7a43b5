/* SPDX-License-Identifier: Apache-2.0 */
/* github-action-benchmark's customSmallerIsBetter and customBiggerIsBetter
 * arrays (bridge.h). */
#include "harness/bridge/formats.h"

#include <stdlib.h>

static void read_entry(struct bridge_doc *doc, struct json_reader *rd,
		       const cJSON *entry, enum better better)
{
	char *name = NULL, *unit = NULL;
	double value;

	if (!cJSON_IsObject(entry)) {
		json_reader_fail(rd, "expected an object, found %s",
				 json_type_name(entry));
		return;
	}
	if (bridge_read_name(rd, entry, "name", JSON_REQUIRED, &name) == 1 &&
	    json_read_string(rd, entry, "unit", JSON_REQUIRED | JSON_PRINTABLE,
			     &unit) == 1 &&
	    bridge_read_number(rd, entry, "value", JSON_REQUIRED, &value) == 1)
		bridge_series_push(bridge_series_get(doc, name, "value", unit,
						     better, true),
				   value);
	free(name);
	free(unit);
}

int bridge_read_gab(struct bridge_doc *doc, struct json_reader *rd,
		    enum better better)
{
	const cJSON *entry;
	int index = 0;

	if (!cJSON_IsArray(rd->root))
		return json_reader_fail(rd, "expected an array of {\"name\", "
					    "\"unit\", \"value\"}, found %s",
					json_type_name(rd->root));
	cJSON_ArrayForEach(entry, rd->root)
	{
		json_reader_push_index(rd, index++);
		read_entry(doc, rd, entry, better);
		json_reader_pop(rd);
		if (rd->error)
			break;
	}
	return rd->error;
}
