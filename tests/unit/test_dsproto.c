/* The document store's frames: answers read as the store writes them and refused when they are not (a cut
 * value, a missing brace, an id past 19 digits), JSON spans and array counts with strings holding brackets and
 * escapes, integers, and the documents: equal for an equal key and version, different otherwise, and
 * recognised only whole. */
#include "testutil.h"

#include "load/docstore.h"
#include "load/dsproto.h"

static bool parse(const char *s, struct ds_answer *a)
{
	return ds_answer_parse(s, strlen(s), a);
}

static void test_answers(void **state)
{
	struct ds_answer a;

	(void)state;
	assert_true(parse("{\"id\":4097,\"ok\":true,\"value\":{\"stats\":{\"hits\":3}}}", &a));
	assert_int_equal(a.id, 4097);
	assert_true(a.ok);
	assert_int_equal(a.value_len, strlen("{\"stats\":{\"hits\":3}}"));
	assert_memory_equal(a.value, "{\"stats\":{\"hits\":3}}", a.value_len);
	assert_true(parse("{\"id\":0,\"ok\":true,\"value\":null}", &a));
	assert_int_equal(a.value_len, 4);
	assert_true(parse("{\"id\":7,\"ok\":false,\"error\":\"logout: no such session\"}", &a));
	assert_false(a.ok);
	assert_int_equal(a.value_len, strlen("logout: no such session"));
	assert_memory_equal(a.value, "logout: no such session", a.value_len);
	/* what is not the store's frame */
	assert_false(parse("{\"id\":7,\"ok\":true,\"value\":\"abc}", &a));    /* the string cut */
	assert_false(parse("{\"id\":7,\"ok\":true,\"value\":\"abc\"", &a));   /* no closing brace */
	assert_false(parse("{\"id\":7,\"ok\":true,\"value\":\"abc\"x}", &a)); /* bytes after the value */
	assert_false(parse("{\"id\":7,\"ok\":true,\"value\":}", &a));	      /* no value */
	assert_false(parse("{\"id\":,\"ok\":true,\"value\":1}", &a));	      /* no id */
	assert_false(parse("{\"id\":12345678901234567890,\"ok\":true,\"value\":1}", &a));
	assert_false(parse("{\"id\":1,\"ok\":maybe,\"value\":1}", &a));
	assert_false(parse("{\"id\":1,\"ok\":false,\"error\":\"a\\\"}", &a)); /* an escaped quote is not the end */
	assert_false(parse("", &a));
}

static void test_spans_and_counts(void **state)
{
	static const char rows[] = "[[\"scan:00000\",\"a]b\"],[\"scan:00001\",\"c\\\",[d\"],{\"k\":[1,2]},-1.5e3,true]";

	(void)state;
	assert_int_equal(ds_json_span(rows, strlen(rows)), strlen(rows));
	assert_int_equal(ds_json_count(rows, strlen(rows)), 5);
	assert_int_equal(ds_json_count("[]", 2), 0);
	assert_int_equal(ds_json_count("[1]", 3), 1);
	assert_int_equal(ds_json_count("[1,]", 4), -1);
	assert_int_equal(ds_json_count("{\"a\":1}", 7), -1);
	assert_int_equal(ds_json_count("[1,2", 4), -1);
	assert_int_equal(ds_json_span("\"a\\u0041\" tail", 14), 9);
	assert_int_equal(ds_json_span("nul", 3), 0);
	assert_int_equal(ds_json_span("{\"a\" 1}", 7), 0);
	assert_int_equal(ds_json_span("\"a\nb\"", 5), 0); /* a raw control character */
}

static void test_deep_nesting_refused(void **state)
{
	char deep[200];

	(void)state;
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	assert_int_equal(ds_json_span(deep, 200), 0);
	assert_int_equal(ds_json_span(deep + 40, 120), 120); /* 60 deep is within the bound */
}

static void test_ints(void **state)
{
	int64_t v = 5;

	(void)state;
	assert_true(ds_json_int("1234", 4, false, &v));
	assert_int_equal(v, 1234);
	assert_true(ds_json_int("-17", 3, false, &v));
	assert_int_equal(v, -17);
	assert_true(ds_json_int("null", 4, true, &v));
	assert_int_equal(v, 0);
	assert_false(ds_json_int("null", 4, false, &v));
	assert_false(ds_json_int("1.5", 3, false, &v));
	assert_false(ds_json_int("-", 1, false, &v));
	assert_false(ds_json_int("\"3\"", 3, false, &v));
	assert_false(ds_json_int("1234567890123456789", 19, false, &v)); /* past what int64 surely holds */
}

static void test_documents(void **state)
{
	char a[1026], b[1026];

	(void)state;
	ds_doc("p:1", 3, 1024, a);
	ds_doc("p:1", 3, 1024, b);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(a[0], '"');
	assert_int_equal(a[1025], '"');
	for (size_t i = 1; i < 1025; i++)
		assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz0123456789", a[i]));
	assert_true(ds_doc_is(a, sizeof(a), "p:1", 3, 1024));
	ds_doc("p:1", 4, 1024, b); /* the next version: a stale read must not pass */
	assert_memory_not_equal(a, b, sizeof(a));
	assert_false(ds_doc_is(b, sizeof(b), "p:1", 3, 1024));
	ds_doc("p:2", 3, 1024, b);
	assert_false(ds_doc_is(b, sizeof(b), "p:1", 3, 1024));
	assert_false(ds_doc_is(a, sizeof(a) - 1, "p:1", 3, 1024)); /* cut short */
	a[512] = a[512] == 'a' ? 'b' : 'a';
	assert_false(ds_doc_is(a, sizeof(a), "p:1", 3, 1024)); /* one byte changed */
}

static void test_scenario_lists(void **state)
{
	struct hx_err err = {0};
	unsigned mask = 0;
	char name[32];

	(void)state;
	assert_int_equal(ds_parse_list("all", &mask, &err), 0);
	assert_int_equal(mask, DS_ALL);
	assert_false(mask & 1u << DS_MEMORY_AFTER); /* only after harness's restart, by name */
	assert_int_equal(ds_parse_list("memory/after-restart", &mask, &err), 0);
	assert_int_equal(mask, 1u << DS_MEMORY_AFTER);
	assert_int_equal(ds_parse_list("get-hot,nested-merge/contended,payload-64kb/set+get", &mask, &err), 0);
	assert_int_equal(mask, 1u << DS_GET_HOT | 1u << DS_NESTED | 1u << DS_PAYLOAD);
	assert_int_equal(ds_parse_list("set-small/pipelined", &mask, &err), 0);
	assert_int_equal(mask, 1u << DS_SET_PIPE);
	assert_true(ds_parse_list("get-cold", &mask, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "'get-cold' is not a scenario of the suite"));
	assert_true(ds_parse_list("has,,get-hot", &mask, &err) < 0);
	ds_name(DS_PAYLOAD, 512, name, sizeof(name));
	assert_string_equal(name, "payload-512kb/set+get");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_spans_and_counts),
		cmocka_unit_test(test_deep_nesting_refused),
		cmocka_unit_test(test_ints),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_scenario_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
