/* CPU set bitmaps and the kernel's list format. */
#include "testutil.h"

static void roundtrip(const char *in, const char *out, unsigned count)
{
	struct cg_cpus s;

	assert_int_equal(cg_cpus_parse(in, &s), 0);
	assert_cpus(&s, out);
	assert_int_equal(cg_cpus_count(&s), count);
}

static void test_parse_format(void **state)
{
	(void)state;
	roundtrip("0-3,8,10-11\n", "0-3,8,10-11", 7);
	roundtrip("5,1,3,2", "1-3,5", 4);
	roundtrip("", "", 0);
	roundtrip("\n", "", 0);
	roundtrip("1023", "1023", 1);
	roundtrip("0-1023", "0-1023", 1024);
	roundtrip("62-65", "62-65", 4);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {"a", "1-", "-1", "3-1", "1,,2", "1 2", "1024", "0-1024", "1;2"};
	struct cg_cpus s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cg_cpus_parse(bad[i], &s) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
	}
}

static void test_set_ops(void **state)
{
	struct cg_cpus a, b;

	(void)state;
	cg_cpus_parse("0-7", &a);
	cg_cpus_parse("4-11", &b);
	cg_cpus_and(&a, &b);
	assert_cpus(&a, "4-7");
	cg_cpus_parse("0-7", &a);
	cg_cpus_andnot(&a, &b);
	assert_cpus(&a, "0-3");
	cg_cpus_or(&a, &b);
	assert_cpus(&a, "0-11");
	assert_int_equal(cg_cpus_next(&b, 0), 4);
	assert_int_equal(cg_cpus_next(&b, 12), -1);
	cg_cpus_clear(&b, 4);
	assert_false(cg_cpus_test(&b, 4));
	assert_true(cg_cpus_test(&b, 5));
}

static void test_format_truncates(void **state)
{
	struct cg_cpus s;
	char buf[6];

	(void)state;
	cg_cpus_parse("1,3,5,7,9,11", &s);
	cg_cpus_format(&s, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_set_ops),
		cmocka_unit_test(test_format_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
