/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/error.h"
#include "harness/util/jsonread.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Every expected line:column below is counted by hand in the text beside
 * it: lines and columns from 1, columns in bytes. */

TestSuite(jsonread);

static struct json_reader rd;

static void parse_ok(const char *text)
{
	cr_assert_eq(json_reader_parse(&rd, "doc.json", text, strlen(text)),
		     BG_OK, "%s", bg_error_last());
}

static void assert_error(const char *message)
{
	cr_assert_eq(rd.error, BG_EINPUT);
	cr_assert_str_eq(bg_error_last(), message);
}

static void assert_syntax_error(const char *text, const char *message)
{
	cr_assert_eq(json_reader_parse(&rd, "doc.json", text, strlen(text)),
		     BG_EINPUT, "parsed: %s", text);
	cr_assert_null(rd.root);
	assert_error(message);
	json_reader_release(&rd);
}

Test(jsonread, trailing_comma_is_named_at_the_comma)
{
	/* line 2: `  "a": [1,]`, the ',' is column 10 */
	assert_syntax_error("{\n  \"a\": [1,]\n}",
			    "doc.json:2:10: not valid JSON: a trailing ',' "
			    "before ']': JSON allows no comma after the last "
			    "element; remove it");
	/* an object's: line 2 `  "a": 1,` the ',' is column 9; cJSON stops
	 * at the end of the text there */
	assert_syntax_error("{\n  \"a\": 1,\n}\n",
			    "doc.json:2:9: not valid JSON: a trailing ',' "
			    "before '}': JSON allows no comma after the last "
			    "member; remove it");
	/* a comma inside a string before a bracket is no trailing comma */
	assert_syntax_error("{\"a\": \",]\" x}",
			    "doc.json:1:12: not valid JSON: unexpected 'x'; "
			    "expected a value, ',' or a closing bracket");
}

static void parse_commented(const char *text)
{
	cr_assert_eq(json_reader_parse_opts(&rd, "doc.json", text,
					    strlen(text), JSON_COMMENTS),
		     BG_OK, "%s", bg_error_last());
}

Test(jsonread, comments_read_as_white_space_where_allowed)
{
	const char *text = "// a suite\n{ /* one\n two */ \"a\": \"//x/*\", "
			   "// end\n  \"b\": [1, /**/ 2] }";
	double b = 0;

	parse_commented(text);
	cr_assert_str_eq(cJSON_GetObjectItem(rd.root, "a")->valuestring,
			 "//x/*");
	json_read_number(&rd, rd.root, "a", 0, &b);
	/* positions are the file's: the value of "a" is at line 3, column 14 */
	assert_error("doc.json:3:14: a: expected a number, found a string");
	json_reader_release(&rd);

	/* without the flag, a comment is a syntax error */
	assert_syntax_error("{ // c\n}", "doc.json:1:4: not valid JSON: "
					     "unexpected '/'; expected a value, "
					     "',' or a closing bracket");
}

Test(jsonread, comment_left_open_is_named_at_its_start)
{
	const char *text = "{\"a\": 1 /* open\n";

	cr_assert_eq(json_reader_parse_opts(&rd, "doc.json", text,
					    strlen(text), JSON_COMMENTS),
		     BG_EINPUT);
	assert_error("doc.json:1:9: not valid JSON: the comment '/*' is not "
		     "closed by '*/'");
	json_reader_release(&rd);
}

Test(jsonread, stray_token_names_the_character)
{
	/* `{"a": nope}`: the 'n' is column 7 */
	assert_syntax_error("{\"a\": nope}",
			    "doc.json:1:7: not valid JSON: unexpected 'n'; "
			    "expected a value, ',' or a closing bracket");
}

Test(jsonread, text_cut_short_is_an_unexpected_end_of_file)
{
	/* cut inside a string, after a number, after a newline and after an
	 * opening bracket: each reported where the text ends */
	assert_syntax_error("{\"a\": \"abc",
			    "doc.json:1:11: not valid JSON: unexpected end of "
			    "file (an object or array is not closed)");
	assert_syntax_error("{\"a\": 12",
			    "doc.json:1:9: not valid JSON: unexpected end of "
			    "file (an object or array is not closed)");
	assert_syntax_error("{\"a\": 1,\n",
			    "doc.json:2:1: not valid JSON: unexpected end of "
			    "file (an object or array is not closed)");
	assert_syntax_error("{\"a\": [",
			    "doc.json:1:8: not valid JSON: unexpected end of "
			    "file (an object or array is not closed)");
}

Test(jsonread, empty_text_is_named_as_such)
{
	assert_syntax_error("", "doc.json:1:1: not valid JSON: the file is "
				"empty");
	assert_syntax_error(" \n", "doc.json:2:1: not valid JSON: the file is "
				   "empty");
}

Test(jsonread, text_is_read_no_further_than_its_length)
{
	/* a git blob has no NUL after it: what follows len is not the
	 * document, here a closing brace that would make it valid */
	static const char text[] = "{\"a\": 1}";

	cr_assert_eq(json_reader_parse(&rd, "doc.json", text, 7), BG_EINPUT);
	assert_error("doc.json:1:8: not valid JSON: unexpected end of file "
		     "(an object or array is not closed)");
	json_reader_release(&rd);
}

Test(jsonread, wrong_type_is_reported_at_the_value_with_its_path)
{
	const cJSON *cases, *first;
	char *name = NULL;

	/* line 3: `  {"name": 42}`, the 42 is column 12 */
	parse_ok("{\"cases\": [\n  {\"name\": \"a\"},\n  {\"name\": 42}\n]}");
	cases = json_read_array(&rd, rd.root, "cases", JSON_REQUIRED);
	cr_assert_not_null(cases);
	json_reader_push_key(&rd, "cases");
	first = cJSON_GetArrayItem(cases, 0);
	json_reader_push_index(&rd, 0);
	cr_assert_eq(json_read_string(&rd, first, "name", 0, &name), 1);
	cr_assert_str_eq(name, "a");
	json_reader_pop(&rd);
	json_reader_push_index(&rd, 1);
	cr_assert_eq(json_read_string(&rd, cJSON_GetArrayItem(cases, 1), "name",
				      0, &name),
		     0);
	cr_assert_str_eq(name, "a", "left alone on an error");
	assert_error("doc.json:3:12: cases[1].name: expected a string, found "
		     "a number");
	free(name);
	json_reader_release(&rd);
}

Test(jsonread, missing_required_key_is_reported_at_its_object)
{
	const cJSON *git;
	char *commit = NULL;

	/* line 2: `"git": {"branch": "main"}`, the '{' is column 8 */
	parse_ok("{\"v\": 1,\n\"git\": {\"branch\": \"main\"}}");
	git = json_read_object(&rd, rd.root, "git", JSON_REQUIRED);
	json_reader_push_key(&rd, "git");
	cr_assert_eq(json_read_string(&rd, git, "commit", JSON_REQUIRED,
				      &commit),
		     0);
	cr_assert_null(commit);
	assert_error("doc.json:2:8: git: missing required key 'commit'");
	json_reader_release(&rd);
}

Test(jsonread, optional_key_absent_or_null_is_no_error)
{
	double n = -1;
	char *s = NULL;

	parse_ok("{\"n\": null, \"s\": null}");
	cr_assert_eq(json_read_number(&rd, rd.root, "n", JSON_NULLABLE, &n), 0);
	cr_assert_eq(json_read_number(&rd, rd.root, "x", 0, &n), 0);
	cr_assert_eq(json_read_string(&rd, rd.root, "s", JSON_NULLABLE, &s), 0);
	cr_assert_eq(rd.error, BG_OK);
	cr_assert_eq(n, -1);
	cr_assert_null(s);
	/* without JSON_NULLABLE, null is a value of the wrong type */
	cr_assert_eq(json_read_number(&rd, rd.root, "n", 0, &n), 0);
	assert_error("doc.json:1:7: n: expected a number, found null");
	json_reader_release(&rd);
}

Test(jsonread, duplicate_key_is_reported_at_its_second_occurrence)
{
	/* line 3: the second "a" is column 1 */
	parse_ok("{\"a\": 1,\n\"b\": 2,\n\"a\": 3}");
	cr_assert_eq(json_read_check_keys(&rd, rd.root, NULL), BG_EINPUT);
	assert_error("doc.json:3:1: a: duplicate key 'a'");
	json_reader_release(&rd);
}

Test(jsonread, unknown_key_lists_the_allowed_ones)
{
	static const char *const allowed[] = { "name", "from", NULL };

	/* `{"name": "x", "frm": 1}`: "frm" is column 15 */
	parse_ok("{\"name\": \"x\", \"frm\": 1}");
	cr_assert_eq(json_read_check_keys(&rd, rd.root, allowed), BG_EINPUT);
	assert_error("doc.json:1:15: frm: unknown key 'frm'; expected one of: "
		     "name, from");
	json_reader_release(&rd);
}

Test(jsonread, integer_out_of_range_names_the_range)
{
	int runs = 7;

	/* `{"runs": 2.5, "warmup": 3, "max": 11}`: 2.5 is column 10, 11 is
	 * column 35 */
	parse_ok("{\"runs\": 2.5, \"warmup\": 3, \"max\": 11}");
	cr_assert_eq(json_read_int(&rd, rd.root, "warmup", 0, 0, 10, &runs), 1);
	cr_assert_eq(runs, 3);
	cr_assert_eq(json_read_int(&rd, rd.root, "max", 0, 0, 11, &runs), 1);
	cr_assert_eq(json_read_int(&rd, rd.root, "max", 0, 0, 10, &runs), 0);
	cr_assert_eq(runs, 11);
	assert_error("doc.json:1:35: max: expected a whole number from 0 to "
		     "10");
	json_reader_release(&rd);

	parse_ok("{\"runs\": 2.5, \"warmup\": 3, \"max\": 11}");
	cr_assert_eq(json_read_int(&rd, rd.root, "runs", 0, 1, 10, &runs), 0);
	assert_error("doc.json:1:10: runs: expected a whole number from 1 to "
		     "10");
	json_reader_release(&rd);
}

Test(jsonread, wrong_element_of_a_string_array_is_reported_at_the_element)
{
	char **strings = NULL;
	size_t nr = 0;

	/* `{"gpus": ["a", true]}`: the true is column 16 */
	parse_ok("{\"gpus\": [\"a\", true], \"ok\": [\"x\", \"y\"]}");
	cr_assert_eq(json_read_strings(&rd, rd.root, "ok", 0, &strings, &nr),
		     1);
	cr_assert_eq(nr, 2);
	cr_assert_str_eq(strings[1], "y");
	cr_assert_null(strings[2]);
	for (size_t i = 0; i < nr; i++)
		free(strings[i]);
	free(strings);
	cr_assert_eq(json_read_strings(&rd, rd.root, "gpus", 0, &strings, &nr),
		     0);
	assert_error("doc.json:1:16: gpus[1]: expected a string, found a "
		     "boolean");
	json_reader_release(&rd);
}

Test(jsonread, only_the_first_error_is_kept)
{
	bool flag = false;

	parse_ok("{\"a\": 1, \"b\": \"x\"}");
	json_read_bool(&rd, rd.root, "a", 0, &flag);
	json_read_bool(&rd, rd.root, "b", 0, &flag);
	json_reader_push_key(&rd, "b");
	cr_assert_eq(json_reader_fail(&rd, "later"), BG_EINPUT);
	json_reader_pop(&rd);
	assert_error("doc.json:1:7: a: expected true or false, found a number");
	json_reader_release(&rd);
}

Test(jsonread, failure_at_a_key_points_at_the_key)
{
	/* line 2: `  "shell": "true"`, the key is column 3, the value 12 */
	parse_ok("{\n  \"shell\": \"true\"}");
	json_reader_push_key(&rd, "shell");
	json_reader_fail_at_key(&rd, "not here");
	assert_error("doc.json:2:3: shell: not here");
	rd.error = BG_OK;
	json_reader_fail(&rd, "bad value");
	assert_error("doc.json:2:12: shell: bad value");
	json_reader_release(&rd);
}

Test(jsonread, value_at_the_top_is_named_by_position_alone)
{
	parse_ok("\n  [1, 2]");
	json_reader_fail(&rd, "expected an object, found %s",
			 json_type_name(rd.root));
	assert_error("doc.json:2:3: expected an object, found an array");
	json_reader_release(&rd);
}

Test(jsonread, value_not_in_the_text_is_named_by_its_path_alone)
{
	/* a key path the reader was pushed to but the document lacks */
	parse_ok("{\"a\": {}}");
	json_reader_push_key(&rd, "a");
	json_reader_push_key(&rd, "b");
	json_reader_fail(&rd, "expected %s", "a string");
	assert_error("doc.json: a.b: expected a string");
	json_reader_release(&rd);
}

Test(jsonread, a_key_written_with_escapes_is_found_in_the_text)
{
	const cJSON *object;

	/* line 2: `"a\tb": {"c\u00e9": "one"}`, "one" is column 21; the key path
	 * is only found when the escapes are read as the parser reads them */
	parse_ok("{\"x\": 0,\n\"a\\tb\": {\"c\\u00e9\": \"one\"}}");
	object = cJSON_GetObjectItemCaseSensitive(rd.root, "a\tb");
	json_reader_push_key(&rd, "a\tb");
	json_read_bool(&rd, object, "c\xc3\xa9", 0, &(bool){ false });
	assert_error(
		"doc.json:2:21: a\\x09b.c\xc3\xa9: expected true or false, "
		"found a string");
	json_reader_release(&rd);
}

Test(jsonread, control_characters_never_reach_a_message_raw)
{
	/* The message goes to a terminal or a CI log: a newline could start
	 * a line with a workflow command (::add-mask::), an ESC a terminal
	 * sequence, U+202E reverse what follows; each of their bytes reads
	 * as \xNN, as does a byte that is no UTF-8. Other text stays. */
	parse_ok("{\"k\": 1}");
	json_reader_push_key(&rd, "k");
	json_reader_fail(&rd, "found '%s'",
			 "\xc2\xb5s\n::add-mask::x\x1b[2J\xe2\x80\xae\xff");
	assert_error("doc.json:1:7: k: found '\xc2\xb5s\\x0a::add-mask::x\\x1b"
		     "[2J\\xe2\\x80\\xae\\xff'");
	json_reader_release(&rd);
	/* the file's own name too */
	cr_assert_eq(json_reader_parse(&rd, "a\nb.json", "[", 1), BG_EINPUT);
	assert_error("a\\x0ab.json:1:2: not valid JSON: unexpected end of file "
		     "(an object or array is not closed)");
	json_reader_release(&rd);
}

Test(jsonread, names_follow_one_rule_and_text_must_be_printable)
{
	char *s = NULL;

	/* `{"a": "ok-1.2+x", "b": "a b", "u": "\u00b5s", "v": "::x"}`:
	 * "a b" is column 24, "::x" column 52 */
	parse_ok("{\"a\": \"ok-1.2+x\", \"b\": \"a b\", \"u\": \"\\u00b5s\", "
		 "\"v\": \"::x\"}");
	cr_assert_eq(json_read_string(&rd, rd.root, "a", JSON_NAME, &s), 1);
	cr_assert_str_eq(s, "ok-1.2+x");
	cr_assert_eq(json_read_string(&rd, rd.root, "u", JSON_PRINTABLE, &s),
		     1);
	cr_assert_str_eq(s, "\xc2\xb5s");
	cr_assert_eq(json_read_string(&rd, rd.root, "b", JSON_NAME, &s), 0);
	cr_assert_str_eq(s, "\xc2\xb5s", "left alone on an error");
	assert_error("doc.json:1:24: b: expected a name of letters, digits, "
		     "'-', '_', '.' and '+', found 'a b'");
	rd.error = BG_OK;
	cr_assert_eq(json_read_string(&rd, rd.root, "v", JSON_PRINTABLE, &s),
		     0);
	assert_error("doc.json:1:52: v: expected printable text (no control "
		     "characters or bidirectional overrides, not starting with "
		     "'::'), found '::x'");
	/* a name read otherwise (a key, an array element), at the current
	 * path */
	rd.error = BG_OK;
	json_reader_push_key(&rd, "a");
	cr_assert_eq(json_reader_check(&rd, "ok", JSON_NAME), BG_OK);
	cr_assert_eq(json_reader_check(&rd, "", JSON_NAME), BG_EINPUT);
	assert_error("doc.json:1:7: a: expected a name of letters, digits, "
		     "'-', '_', '.' and '+', found ''");
	free(s);
	json_reader_release(&rd);
}

Test(jsonread, an_enumeration_names_its_values)
{
	static const char *const directions[] = { "lower", "higher", NULL };
	int better = -1;

	/* `{"a": "higher", "b": "up", "c": 1}`: "up" is column 22, 1
	 * column 33 */
	parse_ok("{\"a\": \"higher\", \"b\": \"up\", \"c\": 1}");
	cr_assert_eq(json_read_enum(&rd, rd.root, "a", 0, directions, &better),
		     1);
	cr_assert_eq(better, 1);
	cr_assert_eq(json_read_enum(&rd, rd.root, "x", 0, directions, &better),
		     0);
	cr_assert_eq(rd.error, BG_OK);
	cr_assert_eq(json_read_enum(&rd, rd.root, "b", 0, directions, &better),
		     0);
	cr_assert_eq(better, 1);
	assert_error("doc.json:1:22: b: unknown value 'up'; expected one of: "
		     "lower, higher");
	rd.error = BG_OK;
	json_read_enum(&rd, rd.root, "c", 0, directions, &better);
	assert_error("doc.json:1:33: c: expected a string, found a number");
	json_reader_release(&rd);
}

Test(jsonread, a_large_count_is_read_within_its_bound)
{
	uint64_t bytes = 0;

	/* 2^53 = 9007199254740992, the last integer a double holds exactly;
	 * `{"m": 9007199254740992, "n": -1, "i": 1e999}`: -1 is column 30,
	 * 1e999 (an infinity to cJSON) column 39 */
	parse_ok("{\"m\": 9007199254740992, \"n\": -1, \"i\": 1e999}");
	cr_assert_eq(json_read_uint64(&rd, rd.root, "m", 0, UINT64_C(1) << 53,
				      &bytes),
		     1);
	cr_assert_eq(bytes, UINT64_C(9007199254740992));
	cr_assert_eq(json_read_uint64(&rd, rd.root, "n", 0, UINT64_C(1) << 53,
				      &bytes),
		     0);
	assert_error("doc.json:1:30: n: expected a whole number from 0 to "
		     "9007199254740992");
	rd.error = BG_OK;
	json_read_uint64(&rd, rd.root, "i", 0, UINT64_C(1) << 53, &bytes);
	assert_error("doc.json:1:39: i: expected a whole number from 0 to "
		     "9007199254740992");
	cr_assert_eq(bytes, UINT64_C(9007199254740992));
	json_reader_release(&rd);
}

/* Found by fuzz_suite: cJSON reads a \u escape with a bad hex digit as
 * U+0000 (ending the key there), and finding such a key in the text once
 * decoded the digits as they came and failed an assertion on a code point
 * beyond U+10FFFF. */
Test(jsonread, a_key_with_a_broken_escape_is_found_as_cjson_reads_it)
{
	/* line 2: `"a\udqzz": 1`, cut by cJSON to "a" */
	parse_ok("{\"x\": 0,\n\"a\\udqzzb\": 1, \"a\": 2}");
	cr_assert_eq(json_read_check_keys(&rd, rd.root, NULL), BG_EINPUT);
	/* the second "a" is column 16 */
	assert_error("doc.json:2:16: a: duplicate key 'a'");
	json_reader_release(&rd);
}
