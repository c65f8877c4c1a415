/* Run ids: the plain and the tagged form, their parse, and what gc must not take for a run tree. */
#include "testutil.h"

#include "cgroups/cg.h"

static void test_format_and_parse(void **state)
{
	char id[64], tag[CG_TAG_MAX + 1];
	pid_t pid;
	unsigned long long start;

	(void)state;
	cg_run_id_format(id, sizeof(id), NULL, 1234, 98765);
	assert_string_equal(id, "harness-1234-98765");
	assert_int_equal(cg_run_id_parse(id, tag, sizeof(tag), &pid, &start), 0);
	assert_string_equal(tag, "");
	assert_int_equal(pid, 1234);
	assert_true(start == 98765);

	cg_run_id_format(id, sizeof(id), "t42x7", 55, 6);
	assert_string_equal(id, "harness-t42x7-55-6");
	assert_int_equal(cg_run_id_parse(id, tag, sizeof(tag), &pid, &start), 0);
	assert_string_equal(tag, "t42x7");
	assert_int_equal(pid, 55);
	assert_true(start == 6);
}

static void test_not_run_ids(void **state)
{
	static const char *const bad[] = {
		"harness-",	  "harness-12",
		"harness-12-",	  "harness-12-34x",
		"harness-0-5",	  "harness--1-5",
		"harness-T1-2-3", "harness-a_b-2-3",
		"harness-abc-2",  "harness-abc-2-3-4",
		"other-1-2",	  "harness-aaaaaaaaaaaaaaaaaaaaaaaaa-1-2", /* a tag one letter too long */
	};
	pid_t pid;
	unsigned long long start;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cg_run_id_parse(bad[i], NULL, 0, &pid, &start) == 0)
			fail_msg("'%s' parsed as a run id", bad[i]);
}

static void test_tag_from_env(void **state)
{
	struct hx_err err = {0};
	const char *tag;
	char id[64];

	(void)state;
	unsetenv("HARNESS_RUN_TAG");
	assert_int_equal(cg_run_tag(&tag, &err), 0);
	assert_null(tag);
	assert_int_equal(cg_run_id(id, sizeof(id), &err), 0);
	assert_int_equal(strncmp(id, "harness-", 8), 0);
	assert_true(id[8] >= '1' && id[8] <= '9');

	setenv("HARNESS_RUN_TAG", "bats7n3", 1);
	assert_int_equal(cg_run_id(id, sizeof(id), &err), 0);
	assert_int_equal(strncmp(id, "harness-bats7n3-", 16), 0);

	setenv("HARNESS_RUN_TAG", "../x", 1);
	assert_true(cg_run_id(id, sizeof(id), &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "HARNESS_RUN_TAG"));
	unsetenv("HARNESS_RUN_TAG");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_and_parse),
		cmocka_unit_test(test_not_run_ids),
		cmocka_unit_test(test_tag_from_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
