/* The script workload's metrics line: the last line of stdout, strictly a flat object of numbers. */
#include "testutil.h"

#include <math.h>

#include "run/script.h"

static const char need[2][32] = {"p50_ms", "p99_ms"};

static void test_last_line_wins(void **state)
{
	struct hx_err err = {0};
	struct res_script o = {0};

	(void)state;
	assert_int_equal(script_parse_metrics("seeded 100 rows\n{\"progress\":1}\n"
					      "{\"ops\":1000,\"seconds\":0.5,\"ops_per_s\":2000,\"p50_ms\":1.5,"
					      "\"p99_ms\":4,\"rows\":100}\n\n",
					      need, 2, &o, &err),
			 0);
	assert_true(res_script_value(&o, "ops_per_s") == 2000);
	assert_true(res_script_value(&o, "rows") == 100);
	assert_true(isnan(res_script_value(&o, "progress")));
	assert_int_equal(o.n, 6);
	assert_string_equal(o.name[0], "ops"); /* the order printed */
}

static void expect_bad(const char *out, const char *needle)
{
	struct hx_err err = {0};
	struct res_script o = {.n = 99};

	assert_true(script_parse_metrics(out, need, 2, &o, &err) < 0);
	assert_int_equal(o.n, 99); /* untouched on failure */
	assert_int_equal(err.exit, HX_EXIT_VERDICT);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_bad("", "printed nothing");
	expect_bad("\n \n", "printed nothing");
	expect_bad("done\n", "not a JSON object: done");
	expect_bad("[1,2]", "not a JSON object");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":1,\"p99_ms\":1} trailing", "not a JSON object");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":\"fast\",\"p50_ms\":1,\"p99_ms\":1}",
		   "\"ops_per_s\" is not a finite number");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":-1,\"p99_ms\":1}", "\"p50_ms\" is not");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1e999,\"p50_ms\":1,\"p99_ms\":1}", "\"ops_per_s\" is not");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":1,\"nested\":{}}", "\"nested\" is not");
	expect_bad("{\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":1,\"p99_ms\":1}", "\"ops\" is missing");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":1}", "\"p99_ms\" is missing (the scenario");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":1,\"p99_ms\":1,"
		   "\"a_name_of_more_than_thirty_one_chars\":1}",
		   "longer than 31 characters");
	expect_bad("{\"ops\":1,\"seconds\":1,\"ops_per_s\":1,\"p50_ms\":1,\"p99_ms\":1,\"\":2}", "is empty");
	expect_bad("{\"ops\":1,\"seconds\":1,\"seconds\":2,\"ops_per_s\":1,\"p50_ms\":1,\"p99_ms\":1}",
		   "\"seconds\" is there twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_line_wins),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
