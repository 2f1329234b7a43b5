/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_MODEL_SUMMARY_H
#define BENCHGATE_MODEL_SUMMARY_H

#include "harness/util/jsonread.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The architecture of the ML model a case ran: its layers, with their
 * output shapes and parameters, and the totals. It ties a variant's size
 * and speed to what it is made of (the pruned model's non-zero count, the
 * distilled model's smaller layers). The Python helper's
 * benchgate.model_summary() writes it into the metrics file as one line
 *
 *     @model {"params": 1234, "trainable": 1234, "nonzero": 980,
 *             "layers": [{"name": "fc1", "type": "Linear",
 *                         "output_shape": "[64, 128]", "params": 100480,
 *                         "trainable": 100480}, ...]}
 *
 * and the result keeps it, in the same form, as the case's "model".
 */

struct model_layer {
	char *name;	    /* "encoder.fc1": printable text */
	char *type;	    /* "Linear" */
	char *output_shape; /* "[64, 128]", or "" when unknown */
	uint64_t params, trainable;
};

struct model_summary {
	uint64_t params, trainable, nonzero;
	struct model_layer *layers;
	size_t layers_nr;
};

/* The most layers a summary keeps: a model's leaf modules, not every op. */
#define MODEL_SUMMARY_LAYERS_MAX 10000

/*
 * Reads the summary at `object` (the value at rd's current path) into
 * *out (the caller's; model_summary_free() it). Every string must be
 * printable text and every count a whole number; an unknown key is an
 * error. On an error returns it (rd says where) and *out is NULL.
 */
int model_summary_read(struct json_reader *rd, const cJSON *object,
		       struct model_summary **out);

/* The summary as a JSON object, in the form model_summary_read() reads. */
cJSON *model_summary_to_json(const struct model_summary *summary);

void model_summary_free(struct model_summary *summary);

#endif
