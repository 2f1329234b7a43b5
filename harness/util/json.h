/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_JSON_H
#define BENCHGATE_JSON_H

#include "harness/util/strbuf.h"

#include <cjson/cJSON.h>

/*
 * Writing user-controlled strings into cJSON documents: names, notes and
 * log tails may hold any bytes, but a JSON document must be UTF-8, so
 * every string (values and member names alike) goes through utf8.h first.
 * NULL strings become JSON null.
 */

/* A string item (null for NULL) with invalid UTF-8 replaced. */
cJSON *json_string(const char *s);

/* object[key] = json_string(s). */
void json_add_string(cJSON *object, const char *key, const char *s);

/* object[key] = item, with the key made valid UTF-8. */
void json_add_item(cJSON *object, const char *key, cJSON *item);

/* object[key] = [low, high]: an interval (NaN and infinities print as
 * null, an unknown bound). */
void json_add_pair(cJSON *object, const char *key, double low, double high);

/* Appends item pretty-printed (cJSON_Print()) and a newline to out; out of
 * memory aborts, as everywhere. */
void json_print(struct strbuf *out, const cJSON *item);

#endif
