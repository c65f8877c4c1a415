/* The paired statistics of harness ab pinned to scipy's values (tests/fixtures/paired/gen.py printed the
 * fixture block), the verdict rules, the looks of --precision; with --sim, the stopping rule's coverage
 * experiment of tests/stats/coverage.py (experiments on stdin, one line each). */
#include "testutil.h"

#include <math.h>

#include "report/paired.h"

#define N(v)			   (sizeof(v) / sizeof((v)[0]))
#define assert_close(x, want, rel) assert_true(fabs((x) - (want)) <= (rel)*fmax(1e-300, fabs(want)))

/* ---- fixture block: the output of tests/fixtures/paired/gen.py ---- */
static const double PA[] = {19412.2, 20074.9, 19752.2, 19748.0, 20093.9, 19661.4, 20445.4, 19926.7, 20852.1, 19014.5,
			    19459.0, 18715.9, 17495.1, 16651.3, 20090.2, 18754.2, 18867.3, 19128.9, 20626.6, 20851.7,
			    21029.0, 21387.2, 24473.8, 20442.1, 20231.6, 16726.7, 17473.9, 23289.4, 24118.7, 20669.5};
static const double PB[] = {18808.3, 19699.9, 18403.8, 18962.1, 19342.6, 19754.2, 19451.7, 19478.7, 20531.0, 18855.6,
			    18722.6, 17914.9, 16254.8, 16534.4, 19962.9, 18022.5, 18394.5, 18052.4, 19933.4, 20532.0,
			    20211.1, 20781.3, 24278.8, 20077.6, 19394.5, 16765.1, 17570.1, 23059.3, 23688.8, 20347.8};
#define GM	  0.9734874984528222
#define WIL_P	  2.60770320892334e-08
#define TREND_RHO 0.32547274749721916
#define TREND_P	  0.07924513206597926
#define T_LO	  0.966032093161628
#define T_HI	  0.9810004412403889
/* ---- end of the fixture block ---- */

static const struct paired_opts THROUGHPUT = {.threshold = 0.02, .level = 0.95, .seed = 29};

static void test_against_scipy(void **state)
{
	struct paired_result r;

	(void)state;
	assert_int_equal(paired_analyze(PA, PB, N(PA), &THROUGHPUT, &r), 0);
	assert_int_equal(r.n, 30);
	assert_close(r.ratio, GM, 1e-12);
	assert_close(r.p, WIL_P, 1e-9);
	assert_close(r.trend_rho, TREND_RHO, 1e-9);
	assert_close(r.trend_p, TREND_P, 1e-6);
	/* the expanded bootstrap matches the t interval on near-normal log ratios: each end within 15% of its
	 * distance from the estimate (the resampling's own error at 2000 resamples is a few %) */
	assert_true(fabs(log(r.low) - log(T_LO)) < 0.15 * (log(GM) - log(T_LO)));
	assert_true(fabs(log(r.high) - log(T_HI)) < 0.15 * (log(T_HI) - log(GM)));
	assert_false(r.drift); /* p 0.08 is no trend at 0.01 */
	assert_true(r.significant);
	/* B has 2.7% fewer req/s: slower beyond 2% */
	assert_int_equal(r.verdict, PV_SLOWER);
	assert_string_equal(paired_verdict_keys[r.verdict], "slower");
}

/* The same pairs read as a cost (latency, startup): B's smaller values are faster. */
static void test_direction(void **state)
{
	struct paired_opts o = THROUGHPUT;
	struct paired_result r;

	(void)state;
	o.smaller_better = true;
	assert_int_equal(paired_analyze(PA, PB, N(PA), &o, &r), 0);
	assert_int_equal(r.verdict, PV_FASTER);
}

/* B = A times a fixed factor with a little noise: each verdict where its rule says. */
static enum paired_verdict verdict_for(double factor, double noise, size_t n, double threshold)
{
	double a[400], b[400];
	struct paired_opts o = {.threshold = threshold, .level = 0.95, .seed = 1, .smaller_better = true};
	struct paired_result r;

	for (size_t i = 0; i < n; i++) {
		double e = noise * ((double)((i * 7919) % 101) - 50) / 50; /* deterministic, symmetric, mean 0 */

		a[i] = 100 + (double)(i % 5);
		b[i] = a[i] * factor * exp(e);
	}
	assert_int_equal(paired_analyze(a, b, n, &o, &r), 0);
	return r.verdict;
}

static void test_verdicts(void **state)
{
	(void)state;
	assert_int_equal(verdict_for(1.03, 0.01, 60, 0.02), PV_SLOWER);
	assert_int_equal(verdict_for(1 / 1.03, 0.01, 60, 0.02), PV_FASTER);
	assert_int_equal(verdict_for(1.0, 0.01, 60, 0.02), PV_EQUIVALENT);
	assert_int_equal(verdict_for(1.01, 0.01, 200, 0.02), PV_BELOW_THRESHOLD);
	assert_int_equal(verdict_for(1.0, 0.2, 10, 0.02), PV_INCONCLUSIVE);
	assert_string_equal(paired_verdict_names[PV_BELOW_THRESHOLD], "below threshold");
	assert_string_equal(paired_verdict_keys[PV_BELOW_THRESHOLD], "below_threshold");
}

static void test_inconclusive_says_what_settles_it(void **state)
{
	double a[10], b[10];
	struct paired_opts o = {.threshold = 0.02, .level = 0.95, .seed = 1};
	struct paired_result r;

	(void)state;
	for (size_t i = 0; i < 10; i++) {
		a[i] = 100;
		b[i] = 100 * (1 + 0.06 * ((i % 2) ? 1 : -1));
	}
	assert_int_equal(paired_analyze(a, b, 10, &o, &r), 0);
	assert_int_equal(r.verdict, PV_INCONCLUSIVE);
	assert_true(r.pairs_needed > 10);
	/* fewer pairs than the minimum: no CI at all */
	assert_int_equal(paired_analyze(a, b, 4, &o, &r), 0);
	assert_true(isnan(r.low));
	assert_int_equal(r.verdict, PV_INCONCLUSIVE);
}

static void test_drift_and_bimodal(void **state)
{
	double a[40], b[40];
	struct paired_opts o = {.threshold = 0.02, .level = 0.95, .seed = 1};
	struct paired_result r;

	(void)state;
	for (size_t i = 0; i < 40; i++) {
		a[i] = 100;
		b[i] = 100 * (1 + 0.002 * (double)i + 0.001 * (double)(i % 3));
	}
	assert_int_equal(paired_analyze(a, b, 40, &o, &r), 0);
	assert_true(r.drift);
	for (size_t i = 0; i < 40; i++)
		b[i] = 100 * ((i * 7) % 2 ? 1.05 : 0.95) * (1 + 0.001 * (double)(i % 4));
	assert_int_equal(paired_analyze(a, b, 40, &o, &r), 0);
	assert_true(r.bimodal);
	assert_false(r.drift);
}

static void test_looks(void **state)
{
	static const size_t want[] = {20, 24, 29, 35, 42, 51};
	size_t looks[8], k = 0;

	(void)state;
	for (size_t n = 1; n <= 60 && k < 8; n++)
		if (paired_is_look(n))
			looks[k++] = n;
	assert_int_equal(k, N(want));
	for (size_t i = 0; i < N(want); i++)
		assert_int_equal(looks[i], want[i]);
	assert_false(paired_is_look(19));
}

/* Two looks in a row within the precision, never one. */
static void test_stop_rule(void **state)
{
	bool was = false;

	(void)state;
	assert_false(paired_stop(&was, true));
	assert_false(paired_stop(&was, false));
	assert_false(paired_stop(&was, true));
	assert_true(paired_stop(&was, true));
}

static void test_bad_input(void **state)
{
	const double a[] = {1, 2, 3, 4, 5, 6}, b[] = {1, 2, 0, 4, 5, 6};
	struct paired_result r;

	(void)state;
	assert_int_equal(paired_analyze(a, b, 6, &THROUGHPUT, &r), -1);
}

/* --sim PRECISION: each stdin line is "MAX r1 ... rMAX" (ratios); the stopping rule of --precision runs over
 * it (a look at each paired_is_look, stop at half-width <= PRECISION or at MAX) and prints "n low high". */
static int simulate(double precision)
{
	static double r[100000];
	size_t max;

	while (scanf("%zu", &max) == 1 && max <= N(r)) {
		double gm = NAN, lo = NAN, hi = NAN;
		size_t n = 0;
		bool was = false;

		for (size_t i = 0; i < max; i++)
			if (scanf("%lf", &r[i]) != 1)
				return 2;
		for (n = PAIRED_FIRST_LOOK; n <= max; n++) {
			if (!paired_is_look(n) && n != max)
				continue;
			if (paired_ci(r, n, 0.95, 29 + n, &gm, &lo, &hi) < 0)
				return 2;
			if (paired_stop(&was, (hi - lo) / 2 / gm <= precision) || n == max)
				break;
		}
		printf("%zu %.17g %.17g\n", n, lo, hi);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_scipy),	  cmocka_unit_test(test_direction),
		cmocka_unit_test(test_verdicts),	  cmocka_unit_test(test_inconclusive_says_what_settles_it),
		cmocka_unit_test(test_drift_and_bimodal), cmocka_unit_test(test_looks),
		cmocka_unit_test(test_stop_rule),	  cmocka_unit_test(test_bad_input),
	};

	if (argc == 3 && strcmp(argv[1], "--sim") == 0)
		return simulate(strtod(argv[2], NULL));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
