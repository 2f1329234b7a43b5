/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/json.h"

#include "harness/util/strbuf.h"

#include <criterion/criterion.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * json_print() and the writer write what cJSON_Print() wrote before them,
 * byte for byte: every result, comparison and history document keeps its
 * text. cJSON itself is the reference here.
 */

static char *cjson_text(const cJSON *item)
{
	char *text = cJSON_Print(item);
	size_t len;

	cr_assert_not_null(text);
	len = strlen(text);
	text = realloc(text, len + 2);
	text[len] = '\n';
	text[len + 1] = 0;
	return text;
}

static void assert_prints_as_cjson(const cJSON *item)
{
	struct strbuf out = STRBUF_INIT;
	char *expected = cjson_text(item);

	json_print(&out, item);
	cr_assert_str_eq(out.buf, expected);
	strbuf_release(&out);
	free(expected);
}

/* Numbers of every kind cJSON prints differently: integers that fit an
 * int and those that do not, the saturated ends, 15 and 17 digits, tiny
 * and huge exponents, negative zero, NaN and the infinities. */
static const double numbers[] = {
	0,
	-0.0,
	1,
	-1,
	42,
	0.5,
	0.1,
	1.0 / 3,
	2.0 / 3,
	1e-300,
	4.9e-324,
	DBL_MAX,
	-DBL_MAX,
	DBL_MIN,
	1e15,
	1e16,
	123456789012345678.0,
	(double)INT_MAX,
	(double)INT_MAX + 1,
	(double)INT_MIN,
	(double)INT_MIN - 1,
	2147483647.5,
	-2147483648.5,
	0.12033083521291843,
	236.311,
	264.7465,
	9.88,
	3238.87,
	0.1 + 0.2,
	1e21,
	1e-7,
	-1234.5678e-9,
};

/* object[key] = [low, high], the tree json_write_value_pair() writes */
static void add_pair(cJSON *object, const char *key, double low, double high)
{
	cJSON *pair = cJSON_CreateArray();

	cJSON_AddItemToArray(pair, cJSON_CreateNumber(low));
	cJSON_AddItemToArray(pair, cJSON_CreateNumber(high));
	json_add_item(object, key, pair);
}

static cJSON *number_array(void)
{
	cJSON *array = cJSON_CreateArray();

	for (size_t i = 0; i < sizeof(numbers) / sizeof(*numbers); i++)
		cJSON_AddItemToArray(array, cJSON_CreateNumber(numbers[i]));
	cJSON_AddItemToArray(array, cJSON_CreateNumber(NAN));
	cJSON_AddItemToArray(array, cJSON_CreateNumber(INFINITY));
	cJSON_AddItemToArray(array, cJSON_CreateNumber(-INFINITY));
	return array;
}

Test(json, numbers_print_as_cjson_prints_them)
{
	cJSON *array = number_array();
	uint64_t state = 88172645463325252ULL;

	/* and many more: random bit patterns, random decimals */
	for (int i = 0; i < 20000; i++) {
		double d;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		if (i % 2) {
			memcpy(&d, &state, sizeof(d));
		} else {
			d = (double)(state % 1000000007) /
			    pow(10, (double)(state % 13));
		}
		cJSON_AddItemToArray(array, cJSON_CreateNumber(d));
	}
	assert_prints_as_cjson(array);
	cJSON_Delete(array);
}

/* Strings: quotes, backslashes, every control byte, DEL, UTF-8, invalid
 * UTF-8 (sanitised by json_string() before either printer sees it), and
 * the same as member names; empty and nested containers at every depth. */
static cJSON *mixed_document(void)
{
	cJSON *root = cJSON_CreateObject(), *array, *nested;
	char controls[40];

	for (int c = 1; c < 32; c++)
		controls[c - 1] = (char)c;
	controls[31] = 0x7f;
	controls[32] = 0;
	json_add_string(root, "plain", "abc");
	json_add_string(root, "quotes \"and\" \\ slashes", "\"q\" \\ / x");
	json_add_string(root, "controls", controls);
	json_add_string(root, "utf-8", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
	json_add_string(root, "invalid \xff", "bad \xc3 byte \xed\xa0\x80");
	json_add_string(root, "null", NULL);
	json_add_string(root, "", "");
	cJSON_AddTrueToObject(root, "yes");
	cJSON_AddFalseToObject(root, "no");
	cJSON_AddObjectToObject(root, "empty object");
	cJSON_AddArrayToObject(root, "empty array");
	add_pair(root, "pair", 0.25, NAN);
	array = cJSON_AddArrayToObject(root, "objects");
	for (int i = 0; i < 3; i++) {
		nested = cJSON_CreateObject();
		cJSON_AddNumberToObject(nested, "i", i);
		cJSON_AddItemToObject(nested, "deeper", cJSON_CreateObject());
		cJSON_AddItemToArray(cJSON_AddArrayToObject(nested, "a"),
				     cJSON_CreateObject());
		cJSON_AddItemToArray(array, nested);
	}
	cJSON_AddItemToArray(array, cJSON_CreateArray());
	cJSON_AddItemToArray(array, number_array());
	return root;
}

Test(json, documents_print_as_cjson_prints_them)
{
	cJSON *root = mixed_document();

	assert_prints_as_cjson(root);
	cJSON_Delete(root);
	root = cJSON_CreateObject();
	assert_prints_as_cjson(root);
	cJSON_Delete(root);
	root = cJSON_CreateString("alone");
	assert_prints_as_cjson(root);
	cJSON_Delete(root);
}

/* What cJSON's parser gives prints back as the text it was parsed from:
 * the property the history and comparison tests lean on. */
Test(json, a_printed_document_reads_back_to_the_same_text)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	cJSON *root = mixed_document(), *again;

	/* but for the largest doubles, whose 15 digits read back as infinity
	 * (null): no benchgate document holds them */
	cJSON_DeleteItemFromObject(root, "objects");

	json_print(&first, root);
	again = cJSON_Parse(first.buf);
	cr_assert_not_null(again);
	json_print(&second, again);
	cr_assert_str_eq(second.buf, first.buf);
	cJSON_Delete(again);
	cJSON_Delete(root);
	strbuf_release(&first);
	strbuf_release(&second);
}

/* The writer, call by call, against the tree the same calls build. */
Test(json, the_writer_writes_the_text_of_the_tree)
{
	struct strbuf out = STRBUF_INIT;
	struct json_writer w;
	cJSON *root = cJSON_CreateObject(), *points, *point;
	char *expected;

	json_writer_init(&w, &out, 0);
	json_write_object(&w);
	json_write_key(&w, "name \xfe");
	json_write_value_string(&w, "x\ty\"z");
	json_add_string(root, "name \xfe", "x\ty\"z");
	json_write_key(&w, "nothing");
	json_write_value_null(&w);
	cJSON_AddNullToObject(root, "nothing");
	json_write_key(&w, "none");
	json_write_array(&w);
	json_write_end(&w);
	cJSON_AddArrayToObject(root, "none");
	json_write_key(&w, "empty");
	json_write_object(&w);
	json_write_end(&w);
	cJSON_AddObjectToObject(root, "empty");
	json_write_key(&w, "points");
	json_write_array(&w);
	points = cJSON_AddArrayToObject(root, "points");
	for (size_t i = 0; i < sizeof(numbers) / sizeof(*numbers); i++) {
		json_write_object(&w);
		json_write_key(&w, "n");
		json_write_value_number(&w, numbers[i]);
		json_write_key(&w, "ci");
		json_write_value_pair(&w, numbers[i] / 3, -numbers[i]);
		json_write_key(&w, "tags");
		json_write_array(&w);
		json_write_value_string(&w, "a");
		json_write_value_string(&w, NULL);
		json_write_end(&w);
		json_write_end(&w);
		point = cJSON_CreateObject();
		cJSON_AddNumberToObject(point, "n", numbers[i]);
		add_pair(point, "ci", numbers[i] / 3, -numbers[i]);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(point, "tags"),
				     json_string("a"));
		cJSON_AddItemToArray(cJSON_GetObjectItem(point, "tags"),
				     json_string(NULL));
		cJSON_AddItemToArray(points, point);
	}
	json_write_end(&w);
	json_write_end(&w);
	strbuf_addch(&out, '\n');
	expected = cjson_text(root);
	cr_assert_str_eq(out.buf, expected);
	free(expected);
	cJSON_Delete(root);
	strbuf_release(&out);
}

/* A writer that starts inside a document indents as the printer would at
 * that depth: the history document writes each series that way. */
Test(json, a_writer_at_a_depth_indents_as_the_printer)
{
	struct strbuf out = STRBUF_INIT;
	struct json_writer w;
	cJSON *root = cJSON_CreateObject(), *series, *object;
	char *expected;

	series = cJSON_AddArrayToObject(root, "series");
	strbuf_addstr(&out, "{\n\t\"series\":\t[");
	for (int i = 0; i < 2; i++) {
		if (i)
			strbuf_addstr(&out, ", ");
		json_writer_init(&w, &out, 2);
		json_write_object(&w);
		json_write_key(&w, "i");
		json_write_value_number(&w, i);
		json_write_key(&w, "inner");
		json_write_object(&w);
		json_write_key(&w, "x");
		json_write_value_string(&w, "y");
		json_write_end(&w);
		json_write_end(&w);
		object = cJSON_CreateObject();
		cJSON_AddNumberToObject(object, "i", i);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(object, "inner"),
					"x", "y");
		cJSON_AddItemToArray(series, object);
	}
	strbuf_addstr(&out, "]\n}\n");
	expected = cjson_text(root);
	cr_assert_str_eq(out.buf, expected);
	free(expected);
	cJSON_Delete(root);
	strbuf_release(&out);
}

/* Keys at every depth to past the tabs written in one piece (16), plain,
 * empty and needing escapes, as the printer writes them. */
Test(json, keys_at_every_depth_print_as_cjson_prints_them)
{
	static const char *const keys[] = { "plain", "", "a\"b", "tab\tkey",
					    "back\\slash", "\x01" };
	struct strbuf out = STRBUF_INIT;
	struct json_writer w;
	cJSON *root = cJSON_CreateObject(), *object = root;
	char *expected;
	size_t depth = 20;

	json_writer_init(&w, &out, 0);
	json_write_object(&w);
	for (size_t d = 0; d < depth; d++) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			json_write_key(&w, keys[k]);
			json_write_value_number(&w, (double)(d * 10 + k));
			cJSON_AddNumberToObject(object, keys[k],
						(double)(d * 10 + k));
		}
		json_write_key(&w, "next");
		json_write_object(&w);
		object = cJSON_AddObjectToObject(object, "next");
	}
	for (size_t d = 0; d <= depth; d++)
		json_write_end(&w);
	strbuf_addch(&out, '\n');
	expected = cjson_text(root);
	cr_assert_str_eq(out.buf, expected);
	free(expected);
	cJSON_Delete(root);
	strbuf_release(&out);
}
