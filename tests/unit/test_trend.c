/* Mann-Kendall and Theil-Sen pinned to scipy's kendalltau (asymptotic) and theilslopes, and Mann-Kendall
 * allowing for autocorrelation pinned to the same steps in numpy/scipy: the blocks below are what
 * tests/fixtures/trend/gen.py printed, on series made by the same generators. */
#include "testutil.h"

#include <math.h>

#include "stats/trend.h"

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

static const struct {
	uint64_t seed;
	unsigned n;
	double phi, trend;
	double rho, factor, p;
} ar1_cases[] = {
	{11, 20, 0, 0, 0, 1, 0.51641226839603838},
	{12, 20, 0.5, 0, 0.83265986820598537, 5.3390292241179873, 0.57435338198239361},
	{13, 20, 0.80000000000000004, 0, 0.017008102174721013, 1.0280120936319674, 0.0017131514333768993},
	{14, 40, 0.5, 300, 0.51525994975724643, 2.7444954318991606, 0.027221663559918102},
	{15, 46, 0.29999999999999999, -150, 0.51867708945957836, 2.8045178616184421, 0.73018582113305364},
	{16, 12, 0.90000000000000002, 0, 0.34297243154102602, 1.6542514951806564, 0.10972056289822588},
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

/* 50000 req/s, 15% AR(1) noise of lag-1 correlation phi (Box-Muller normals, 50 values of burn-in), plus
 * trend req/s per value: gen.py's ar1(). */
static void ar1_series(uint64_t seed, unsigned n, double phi, double trend, double *y)
{
	double e = 0;

	for (unsigned i = 0; i < n + 50; i++) {
		double u1, u2;

		seed = xorshift(seed);
		u1 = ((double)(seed >> 11) + 0.5) / (double)(UINT64_C(1) << 53);
		seed = xorshift(seed);
		u2 = (double)(seed >> 11) / (double)(UINT64_C(1) << 53);
		e = phi * e + sqrt(1 - phi * phi) * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		if (i >= 50)
			y[i - 50] = 50000 * (1 + 0.15 * e) + trend * (i - 50);
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

static void test_ar1_against_numpy(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(ar1_cases) / sizeof(ar1_cases[0]); k++) {
		double y[64];
		struct trend_mk mk, plain;

		ar1_series(ar1_cases[k].seed, ar1_cases[k].n, ar1_cases[k].phi, ar1_cases[k].trend, y);
		assert_int_equal(trend_mann_kendall_ar1(y, ar1_cases[k].n, &mk), 0);
		trend_mann_kendall(y, ar1_cases[k].n, &plain);
		assert_close(mk.rho + 1, ar1_cases[k].rho + 1, 1e-9);
		assert_close(mk.var_factor, ar1_cases[k].factor, 1e-9);
		assert_close(mk.p, ar1_cases[k].p, 1e-9);
		assert_true(mk.s == plain.s && mk.tau == plain.tau); /* only the variance is allowed for */
		assert_true(mk.p >= plain.p);
	}
}

static void test_isotonic_and_quantile(void **state)
{
	double y[6] = {1, 3, 2, 4, 0, 5}, fit[6], v[4] = {1, 2, 4, 8};

	(void)state;
	assert_int_equal(trend_isotonic(y, 6, true, fit), 0);
	assert_close(fit[0], 1, 1e-15);
	assert_close(fit[1], 2.25, 1e-15); /* 3, 2, 4, 0 pooled */
	assert_close(fit[4], 2.25, 1e-15);
	assert_close(fit[5], 5, 1e-15);
	assert_int_equal(trend_isotonic(y, 6, false, fit), 0);
	for (unsigned i = 1; i < 6; i++)
		assert_true(fit[i] <= fit[i - 1]);
	assert_close(fit[0], 2.5, 1e-15); /* the mean: no fall fits but the flat line's tail */
	/* numpy.quantile([1, 2, 4, 8], [0.1, 0.5, 0.9]) */
	assert_close(trend_quantile_sorted(v, 4, 0.1), 1.3, 1e-15);
	assert_close(trend_quantile_sorted(v, 4, 0.5), 3, 1e-15);
	assert_close(trend_quantile_sorted(v, 4, 0.9), 6.8, 1e-15);
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
		cmocka_unit_test(test_ar1_against_numpy),
		cmocka_unit_test(test_isotonic_and_quantile),
		cmocka_unit_test(test_degenerate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
