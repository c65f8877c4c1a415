/* Summary statistics: exact values on small data, the MAD outlier test, bootstrap CI properties. */
#include "testutil.h"

#include <math.h>

#include "stats/stats.h"

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

static size_t outliers_of(const double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(v, n, &s);
	return s.outliers;
}

/* hyperfine's own cases (src/outlier_detection.rs): |x - median| / MAD above 14.826, a MAD of 0 as epsilon.
 * Before: 0.6745 |x - median| / MAD above 14 (20.8 MADs), and no outlier at all when the MAD is 0. */
static void test_outliers_as_hyperfine(void **state)
{
	const double low[] = {-0.2, 0.0, 0.2}, one[] = {-0.2, 0.0, 0.2, 4.0}, five[] = {0.5, 0.30, 0.29, 0.31, 0.30};
	const double normal[] = {2.33269488, 1.42195907,  -0.57527698, -0.31293437, 2.2948158, 0.75813273,
				 -1.0712388, -0.96394741, -1.15897446, 1.10976285,  20.0,      -500.0};
	const double flat[] = {10, 10, 10, 10, 10, 10, 10, 100, 100};
	const double between[] = {10, 10.5, 11, 11.5, 12, 12.5, 13, 30}; /* 18.25 MADs: 14.826 < 18.25 < 20.8 */

	(void)state;
	assert_int_equal(outliers_of(low, 3), 0);
	assert_int_equal(outliers_of(one, 4), 1);
	assert_int_equal(outliers_of(five, 5), 1);
	assert_int_equal(outliers_of(normal, 10), 0);
	assert_int_equal(outliers_of(normal, 12), 2);
	assert_int_equal(outliers_of(flat, 8), 1);
	assert_int_equal(outliers_of(flat, 9), 2);
	assert_int_equal(outliers_of(between, 8), 1);
	assert_true(STATS_OUTLIER_MADS == 1.4826 * 10.0);
}

/* No CI below STATS_MIN_CI_N trials: a bootstrap of 3 values only restates their extremes. */
static void test_ci_needs_trials(void **state)
{
	const double v[] = {5, 1, 4, 2, 3, 6};
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 5, &s);
	assert_false(stats_has_ci(&s));
	stats_summarize(v, 6, &s);
	assert_true(stats_has_ci(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_even_median_and_single),
		cmocka_unit_test(test_outliers_and_determinism),
		cmocka_unit_test(test_outliers_as_hyperfine),
		cmocka_unit_test(test_ci_needs_trials),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
