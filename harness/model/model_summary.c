/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/model/model_summary.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/json.h"

#include <stdlib.h>

/* 2^53: the largest count a JSON number keeps exactly */
#define COUNT_MAX (UINT64_C(1) << 53)

static const char *const summary_keys[] = { "params", "trainable", "nonzero",
					    "layers", NULL };
static const char *const layer_keys[] = {
	"name", "type", "output_shape", "params", "trainable", NULL,
};

static void read_layer(struct json_reader *rd, const cJSON *item,
		       struct model_layer *layer)
{
	if (!cJSON_IsObject(item)) {
		json_reader_fail(rd, "expected a layer object, found %s",
				 json_type_name(item));
		return;
	}
	json_read_check_keys(rd, item, layer_keys);
	json_read_string(rd, item, "name", JSON_REQUIRED | JSON_PRINTABLE,
			 &layer->name);
	json_read_string(rd, item, "type",
			 JSON_REQUIRED | JSON_NONEMPTY | JSON_PRINTABLE,
			 &layer->type);
	json_read_string(rd, item, "output_shape", JSON_PRINTABLE,
			 &layer->output_shape);
	json_read_uint64(rd, item, "params", JSON_REQUIRED, COUNT_MAX,
			 &layer->params);
	json_read_uint64(rd, item, "trainable", JSON_REQUIRED, COUNT_MAX,
			 &layer->trainable);
	if (!rd->error && !layer->output_shape)
		layer->output_shape = xstrdup("");
}

int model_summary_read(struct json_reader *rd, const cJSON *object,
		       struct model_summary **out)
{
	struct model_summary *summary = xcalloc(1, sizeof(*summary));
	const cJSON *layers, *item;
	int index = 0, error;

	*out = NULL;
	if (!cJSON_IsObject(object)) {
		error = json_reader_fail(rd,
					 "expected a model summary object, "
					 "found %s",
					 json_type_name(object));
		goto done;
	}
	json_read_check_keys(rd, object, summary_keys);
	json_read_uint64(rd, object, "params", JSON_REQUIRED, COUNT_MAX,
			 &summary->params);
	json_read_uint64(rd, object, "trainable", JSON_REQUIRED, COUNT_MAX,
			 &summary->trainable);
	json_read_uint64(rd, object, "nonzero", JSON_REQUIRED, COUNT_MAX,
			 &summary->nonzero);
	layers = json_read_array(rd, object, "layers", JSON_REQUIRED);
	if (layers && cJSON_GetArraySize(layers) > MODEL_SUMMARY_LAYERS_MAX) {
		json_reader_push_key(rd, "layers");
		json_reader_fail(rd, "%d layers; at most %d are kept",
				 cJSON_GetArraySize(layers),
				 MODEL_SUMMARY_LAYERS_MAX);
		json_reader_pop(rd);
	}
	if (!rd->error && layers) {
		size_t nr = (size_t)cJSON_GetArraySize(layers);

		summary->layers = xcalloc(nr + 1, sizeof(*summary->layers));
		json_reader_push_key(rd, "layers");
		cJSON_ArrayForEach(item, layers)
		{
			json_reader_push_index(rd, index);
			read_layer(rd, item, &summary->layers[index++]);
			summary->layers_nr++;
			json_reader_pop(rd);
			if (rd->error)
				break;
		}
		json_reader_pop(rd);
	}
	error = rd->error;
	if (!error) {
		*out = summary;
		summary = NULL;
	}
done:
	model_summary_free(summary);
	return error;
}

cJSON *model_summary_to_json(const struct model_summary *summary)
{
	cJSON *object = cJSON_CreateObject();
	cJSON *layers;

	cJSON_AddNumberToObject(object, "params", (double)summary->params);
	cJSON_AddNumberToObject(object, "trainable",
				(double)summary->trainable);
	cJSON_AddNumberToObject(object, "nonzero", (double)summary->nonzero);
	layers = cJSON_AddArrayToObject(object, "layers");
	for (size_t i = 0; i < summary->layers_nr; i++) {
		const struct model_layer *layer = &summary->layers[i];
		cJSON *item = cJSON_CreateObject();

		json_add_string(item, "name", layer->name);
		json_add_string(item, "type", layer->type);
		json_add_string(item, "output_shape", layer->output_shape);
		cJSON_AddNumberToObject(item, "params", (double)layer->params);
		cJSON_AddNumberToObject(item, "trainable",
					(double)layer->trainable);
		cJSON_AddItemToArray(layers, item);
	}
	return object;
}

void model_summary_free(struct model_summary *summary)
{
	if (!summary)
		return;
	for (size_t i = 0; i < summary->layers_nr; i++) {
		free(summary->layers[i].name);
		free(summary->layers[i].type);
		free(summary->layers[i].output_shape);
	}
	free(summary->layers);
	free(summary);
}
