/* Summary statistics: exact values on small data, the MAD outlier test, bootstrap CI properties. */
#include "testutil.h"

#include <math.h>

#include "report/stats.h"

static void test_basic(void **state)
{
	const double v[] = {5, 1, 4, 2, 3};
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 5, &s);
	assert_true(s.mean == 3);
	assert_true(s.median == 3);
	assert_true(s.min == 1 && s.max == 5);
	assert_true(fabs(s.stddev - sqrt(2.5)) < 1e-12);
	assert_true(s.mad == 1);
	assert_true(fabs(s.cv - sqrt(2.5) / 3) < 1e-12);
	assert_true(s.ci95_low <= s.median && s.median <= s.ci95_high);
	assert_true(s.ci95_low >= 1 && s.ci95_high <= 5);
	assert_int_equal(s.outliers, 0);
}

static void test_even_median_and_single(void **state)
{
	const double v[] = {4, 1, 3, 2};
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 4, &s);
	assert_true(s.median == 2.5);
	stats_summarize(v, 1, &s);
	assert_true(s.median == 4 && s.stddev == 0 && s.ci95_low == 4 && s.ci95_high == 4);
	stats_summarize(v, 0, &s);
	assert_int_equal(s.n, 0);
}

static void test_outliers_and_determinism(void **state)
{
	double v[40];
	struct stats_summary a, b;

	(void)state;
	for (int i = 0; i < 40; i++)
		v[i] = 40.0 + (i % 5) * 0.1; /* a tight cluster */
	v[7] = 400;			     /* one run ten times slower */
	stats_summarize(v, 40, &a);
	assert_int_equal(a.outliers, 1);
	assert_true(fabs(a.median - 40.2) < 1e-9);
	stats_summarize(v, 40, &b);
	assert_true(a.ci95_low == b.ci95_low && a.ci95_high == b.ci95_high); /* fixed seed */
	assert_true(a.ci95_high < 41);					     /* the median is robust */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_even_median_and_single),
		cmocka_unit_test(test_outliers_and_determinism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
