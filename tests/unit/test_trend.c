/* Mann-Kendall and Theil-Sen pinned to scipy's kendalltau (asymptotic) and theilslopes: the block below is
 * what tests/fixtures/trend/gen.py printed, on series made by the same generator. */
#include "testutil.h"

#include <math.h>

#include "report/trend.h"

static const struct {
	uint64_t seed;
	unsigned n;
	double slope, noise;
	int ties;
	double tau, p, ts_slope, ts_intercept, ts_low, ts_high;
} cases[] = {
	{1, 40, 0, 50, 0, -0.046153846153846156, 0.67489660964842035, -0.088686223783837087, 1002.0506308365029,
	 -0.60049382034768162, 0.35889417211397912},
	{2, 40, 2, 50, 0, 0.68717948717948718, 4.2392343473530786e-10, 2.0787657044204337, 1000.1594806514616,
	 1.5982325920467908, 2.5043099677677927},
	{3, 60, -1, 40, 1, -0.67918231254287609, 2.4347624040240805e-14, -1, 996.5, -1.1428571428571428,
	 -0.80000000000000004},
	{4, 25, 0.5, 10, 1, 0.49333587107582272, 0.00072225244019485837, 0.41042780748663099, 1002.0748663101605,
	 0.21428571428571427, 0.66666666666666663},
	{5, 200, 0.050000000000000003, 30, 0, 0.125929648241206, 0.0080925299199718168, 0.031985493923223793,
	 1000.8585835951948, 0.0088078328579572571, 0.053845314494779327},
};

static uint64_t xorshift(uint64_t s)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

static void series(uint64_t seed, unsigned n, double slope, double noise, int ties, double *y)
{
	for (unsigned i = 0; i < n; i++) {
		double u, v;

		seed = xorshift(seed);
		u = (double)(seed >> 11) / (double)(UINT64_C(1) << 53);
		v = 1000 + slope * i + noise * (u - 0.5);
		y[i] = ties ? nearbyint(v) : v; /* Python's round: half to even */
	}
}

static void assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want) + 1e-300)) {
		fprintf(stderr, "got %.17g, want %.17g\n", got, want);
		fail();
	}
}

static void test_against_scipy(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double y[256], x[256];
		struct trend_mk mk;
		struct trend_ts ts;

		series(cases[k].seed, cases[k].n, cases[k].slope, cases[k].noise, cases[k].ties, y);
		for (unsigned i = 0; i < cases[k].n; i++)
			x[i] = i;
		trend_mann_kendall(y, cases[k].n, &mk);
		assert_int_equal(trend_theil_sen(x, y, cases[k].n, &ts), 0);
		assert_close(mk.tau, cases[k].tau, 1e-12);
		assert_close(mk.p, cases[k].p, 1e-9);
		assert_close(ts.slope, cases[k].ts_slope, 1e-12);
		assert_close(ts.intercept, cases[k].ts_intercept, 1e-12);
		assert_close(ts.low, cases[k].ts_low, 1e-12);
		assert_close(ts.high, cases[k].ts_high, 1e-12);
	}
}

static void test_degenerate(void **state)
{
	double flat[5] = {3, 3, 3, 3, 3}, two[2] = {1, 2}, x[5] = {1, 1, 1, 1, 1};
	struct trend_mk mk;
	struct trend_ts ts;

	(void)state;
	trend_mann_kendall(flat, 5, &mk);
	assert_true(isnan(mk.p)); /* all tied: no trend can be told, none is made up */
	trend_mann_kendall(two, 2, &mk);
	assert_true(isnan(mk.p));
	assert_int_equal(trend_theil_sen(x, flat, 5, &ts), 0);
	assert_true(isnan(ts.slope)); /* no two x differ */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_scipy),
		cmocka_unit_test(test_degenerate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
