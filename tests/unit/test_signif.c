/* Significance tests pinned to scipy's values (tests/fixtures/signif/gen.py printed the fixture block) and the
 * bootstrap pinned to a replay of its seeded resampling, bit for bit. */
#include "testutil.h"

#include <math.h>

#include "stats/signif.h"

#define N(v) (sizeof(v) / sizeof((v)[0]))
/* Relative closeness: the formulas are scipy's, so only rounding may differ. */
#define assert_close(x, want, rel) assert_true(fabs((x) - (want)) <= (rel)*fmax(1e-300, fabs(want)))

/* ---- fixture block: the output of tests/fixtures/signif/gen.py ---- */
static const double A5[] = {5.1, 4.9, 6.2, 5.8, 6.0};
static const double B6[] = {6.5, 7.1, 5.9, 6.8, 7.4, 6.9};
static const double A10[] = {14210.5, 13980.2, 14550.9, 12890.4, 14102.7, 14388.1, 13760.3, 14901.6, 14020.8, 13555.0};
static const double B10[] = {13640.1, 13420.7, 14010.3, 12400.9, 13588.2, 13902.5, 13301.4, 14290.8, 13490.6, 13080.3};
static const double TA[] = {3, 5, 5, 7, 8, 8, 8, 10, 12};
static const double TB[] = {5, 8, 9, 9, 11, 12, 13, 13, 14, 15};
static const double PA[] = {4.31, 5.82, 4.35, 5.79, 4.4, 4.29, 5.9, 4.33};
static const double PB[] = {4.52, 5.99, 4.41, 6.07, 4.63, 4.38, 6.15, 4.59};
static const double ZA[] = {10, 12, 12, 15, 11, 13, 14, 10, 12, 16, 11};
static const double ZB[] = {10, 11, 14, 13, 11, 12, 12, 12, 14, 13, 10};
static const double TREND[] = {5.0, 5.1, 4.9, 5.3, 5.2, 5.6, 5.4, 5.8, 5.7, 6.0, 5.9, 6.2};
#define MWU_SMALL_U    2
#define MWU_SMALL_P    0.017316017316017316
#define MWU_TEN_U      78
#define MWU_TEN_P      0.035462989023360536
#define MWU_TIES_U     16
#define MWU_TIES_P     0.019049427556436752
#define MWU_SIXTY_U    1661
#define MWU_SIXTY_P    0.46726487137976436
#define WIL_EXACT_W    0
#define WIL_EXACT_P    0.0078125
#define WIL_TIES_W     18
#define WIL_TIES_P     0.58595657719465244
#define WELCH_T	       2.1571313989229175
#define WELCH_P	       0.044804728518323407
#define WELCH_SMALL_T  -3.515857116174117
#define WELCH_SMALL_P  0.0074660057689967599
#define TREND_RHO      0.95104895104895115
#define TREND_P	       2.0384246324655723e-06
#define FLAT_RHO       -0.15151515151515149
#define FLAT_P	       0.67606517599785376
#define BC_PA	       0.5261497566413641
#define BC_A10	       0.2573332753518317
#define HL_TEN	       -522.34999999999945
#define HL_SMALL       1.1000000000000001
#define CI_TEN_EST     0.96285312994470829
#define CI_TEN_LO      0.93330453712982486
#define CI_TEN_HI      0.99536710682179896
#define CI_PAIRED_EST  1.0537142857142856
#define CI_PAIRED_LO   1.020979020979021
#define CI_PAIRED_HI   1.0600461893764435
#define CI_SMALL90_EST 1.1810344827586208
#define CI_SMALL90_LO  1.0833333333333333
#define CI_SMALL90_HI  1.392156862745098
static const double MDE[][3] = {
	/* mde cv 0.05 n 5 */ {0.050000000000000003, 5, 0.10103140824864282},
	/* mde cv 0.129 n 10 */ {0.129, 10, 0.17093542110876103},
	/* mde cv 0.224 n 10 */ {0.224, 10, 0.29681809556870126},
	/* mde cv 0.02 n 30 */ {0.02, 30, 0.014715167587001378},
};
static const double BETAI[][4] = {
	/* betainc */ {2.5, 0.5, 0.29999999999999999, 0.018927124071945651},
	/* betainc */ {0.5, 0.5, 0.90000000000000002, 0.79516723530086619},
	/* betainc */ {10, 3, 0.77000000000000002, 0.4549502239452401},
	/* betainc */ {40, 0.5, 0.97999999999999998, 0.20503186500749221},
};
static const double TCDF[][3] = {
	/* t cdf */ {-2.2999999999999998, 4, 0.041469518556191187},
	/* t cdf */ {0.69999999999999996, 17.5, 0.75343560299583134},
	/* t cdf */ {3.1000000000000001, 1, 0.90067390780088141},
	/* t cdf */ {-0.20000000000000001, 120, 0.42090955895720533},
};
static const double TPPF[][3] = {
	/* t ppf */ {0.97499999999999998, 8, 2.3060041350333704},
	/* t ppf */ {0.80000000000000004, 18, 0.86204866798959878},
	/* t ppf */ {0.995, 3.2999999999999998, 5.34430607069089},
};
#define NORM_PPF_975 1.959963984540054
/* ---- end of fixture block ---- */

static void test_mann_whitney_exact(void **state)
{
	struct sig_test t;

	(void)state;
	assert_int_equal(sig_mann_whitney(A5, N(A5), B6, N(B6), &t), 0);
	assert_true(t.exact);
	assert_true(t.stat == MWU_SMALL_U);
	assert_close(t.p, MWU_SMALL_P, 1e-12);
	assert_int_equal(sig_mann_whitney(A10, N(A10), B10, N(B10), &t), 0);
	assert_true(t.exact && t.stat == MWU_TEN_U);
	assert_close(t.p, MWU_TEN_P, 1e-12);
	/* swapping the sides gives the other U and the same two-sided p */
	assert_int_equal(sig_mann_whitney(B10, N(B10), A10, N(A10), &t), 0);
	assert_true(t.stat == N(A10) * N(B10) - MWU_TEN_U);
	assert_close(t.p, MWU_TEN_P, 1e-12);
	assert_int_equal(sig_mann_whitney(A5, 0, B6, N(B6), &t), -1);
}

static void test_mann_whitney_normal(void **state)
{
	double a[60], b[60];
	struct sig_test t;

	(void)state;
	assert_int_equal(sig_mann_whitney(TA, N(TA), TB, N(TB), &t), 0);
	assert_false(t.exact); /* ties */
	assert_true(t.stat == MWU_TIES_U);
	assert_close(t.p, MWU_TIES_P, 1e-12);
	for (int i = 0; i < 60; i++) { /* as gen.py's A60 and B60 */
		a[i] = 100 + (i * 37) % 61 + i / 1000.0;
		b[i] = 104 + (i * 23) % 59 + i / 997.0;
	}
	assert_int_equal(sig_mann_whitney(a, 60, b, 60, &t), 0);
	assert_false(t.exact); /* more than SIG_EXACT_MAX per side */
	assert_true(t.stat == MWU_SIXTY_U);
	assert_close(t.p, MWU_SIXTY_P, 1e-12);
}

static void test_wilcoxon(void **state)
{
	struct sig_test t;

	(void)state;
	assert_int_equal(sig_wilcoxon(PA, PB, N(PA), &t), 0);
	assert_true(t.exact && t.stat == WIL_EXACT_W);
	assert_close(t.p, WIL_EXACT_P, 1e-12);
	/* the same data unpaired: the bimodal spread hides the shift that pairing shows */
	{
		struct sig_test u;

		assert_int_equal(sig_mann_whitney(PA, N(PA), PB, N(PB), &u), 0);
		assert_true(u.p > 0.05);
	}
	assert_int_equal(sig_wilcoxon(ZA, ZB, N(ZA), &t), 0);
	assert_false(t.exact); /* zeros dropped, tied differences */
	assert_true(t.stat == WIL_TIES_W);
	assert_close(t.p, WIL_TIES_P, 1e-12);
	assert_int_equal(sig_wilcoxon(PA, PA, N(PA), &t), -1); /* no differences at all */
}

static void test_welch(void **state)
{
	struct sig_test t;
	const double flat[] = {3, 3, 3};

	(void)state;
	assert_int_equal(sig_welch(A10, N(A10), B10, N(B10), &t), 0);
	assert_close(t.stat, WELCH_T, 1e-12);
	assert_close(t.p, WELCH_P, 1e-10);
	assert_int_equal(sig_welch(A5, N(A5), B6, N(B6), &t), 0);
	assert_close(t.stat, WELCH_SMALL_T, 1e-12);
	assert_close(t.p, WELCH_SMALL_P, 1e-10);
	assert_int_equal(sig_welch(flat, 3, flat, 3, &t), 0);
	assert_true(t.p == 1);
	assert_int_equal(sig_welch(A5, 1, B6, N(B6), &t), -1);
}

static void test_trend_and_bimodality(void **state)
{
	struct sig_test t;

	(void)state;
	assert_int_equal(sig_trend(TREND, N(TREND), &t), 0);
	assert_close(t.stat, TREND_RHO, 1e-12);
	assert_close(t.p, TREND_P, 1e-9);
	assert_int_equal(sig_trend(A10, N(A10), &t), 0);
	assert_close(t.stat, FLAT_RHO, 1e-12);
	assert_close(t.p, FLAT_P, 1e-10);
	assert_close(sig_bimodality(PA, N(PA)), BC_PA, 1e-12);
	assert_close(sig_bimodality(A10, N(A10)), BC_A10, 1e-12);
	assert_true(sig_bimodality(A10, N(A10)) < SIG_BIMODAL);
	assert_true(isnan(sig_bimodality(A5, 3)));
}

/* Flagged only where it can be seen: bun's 4.3 / 5.8 ms startup in 5 trials scores below 5/9 (before: "no
 * second mode" by silence); from 10 trials a half-and-half mixture is flagged, one mode is not. */
static void test_bimodal_needs_trials(void **state)
{
	double five[] = {4.30, 5.80, 4.31, 5.79, 4.32}, ten[10], one[10];

	(void)state;
	assert_false(sig_bimodal(five, 5));
	assert_true(sig_bimodality(five, 5) < SIG_BIMODAL); /* the coefficient itself is blind there */
	for (int i = 0; i < 10; i++) {
		ten[i] = (i % 2 ? 5.8 : 4.3) * (1 + 0.002 * i);
		one[i] = 5 * (1 + 0.01 * ((i * 7) % 10));
	}
	assert_false(sig_bimodal(ten, 9));
	assert_true(sig_bimodal(ten, 10));
	assert_false(sig_bimodal(one, 10));
}

static void test_hodges_lehmann(void **state)
{
	(void)state;
	assert_close(sig_hodges_lehmann(A10, N(A10), B10, N(B10)), HL_TEN, 1e-12);
	assert_close(sig_hodges_lehmann(A5, N(A5), B6, N(B6)), HL_SMALL, 1e-12);
}

static void test_ratio_ci(void **state)
{
	struct sig_ci ci, again;

	(void)state;
	assert_int_equal(sig_ratio_ci(A10, N(A10), B10, N(B10), false, 0.95, SIG_SEED, &ci), 0);
	assert_true(ci.estimate == CI_TEN_EST && ci.low == CI_TEN_LO && ci.high == CI_TEN_HI);
	assert_true(ci.seed == SIG_SEED && ci.resamples == SIG_BOOTSTRAP && !ci.paired);
	assert_int_equal(sig_ratio_ci(A10, N(A10), B10, N(B10), false, 0.95, SIG_SEED, &again), 0);
	assert_memory_equal(&ci, &again, sizeof(ci));
	assert_int_equal(sig_ratio_ci(PA, N(PA), PB, N(PB), true, 0.95, SIG_SEED, &ci), 0);
	assert_true(ci.estimate == CI_PAIRED_EST && ci.low == CI_PAIRED_LO && ci.high == CI_PAIRED_HI);
	assert_int_equal(sig_ratio_ci(A5, N(A5), B6, N(B6), false, 0.90, SIG_SEED, &ci), 0);
	assert_true(ci.estimate == CI_SMALL90_EST && ci.low == CI_SMALL90_LO && ci.high == CI_SMALL90_HI);
	/* another seed gives another interval: the seed is what makes it reproducible */
	assert_int_equal(sig_ratio_ci(A10, N(A10), B10, N(B10), false, 0.95, 1, &again), 0);
	assert_true(again.low != CI_TEN_LO || again.high != CI_TEN_HI);
	assert_int_equal(sig_ratio_ci(A5, N(A5), B6, N(B6), true, 0.95, SIG_SEED, &ci), -1); /* unequal pairs */
}

static void test_mde(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(MDE); i++) {
		double m = sig_mde(MDE[i][0], (size_t)MDE[i][1], 0.05, 0.8);

		assert_close(m, MDE[i][2], 1e-9);
		/* the trials that detect exactly this effect are the n it came from */
		assert_int_equal(sig_trials_for(MDE[i][0], m * (1 + 1e-9), 0.05, 0.8, 10000), (size_t)MDE[i][1]);
	}
	assert_int_equal(sig_trials_for(0.2, 0.001, 0.05, 0.8, 100), 0); /* beyond the cap */
	assert_true(isnan(sig_mde(0.1, 1, 0.05, 0.8)));
}

static void test_distributions(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(BETAI); i++)
		assert_close(sig_betai(BETAI[i][0], BETAI[i][1], BETAI[i][2]), BETAI[i][3], 1e-12);
	for (size_t i = 0; i < N(TCDF); i++)
		assert_close(sig_t_cdf(TCDF[i][0], TCDF[i][1]), TCDF[i][2], 1e-12);
	/* scipy's t.ppf is good to about 1e-10; its own t.cdf of our quantile gives back p to the last bits */
	for (size_t i = 0; i < N(TPPF); i++) {
		assert_close(sig_t_ppf(TPPF[i][0], TPPF[i][1]), TPPF[i][2], 1e-9);
		assert_close(sig_t_cdf(sig_t_ppf(TPPF[i][0], TPPF[i][1]), TPPF[i][1]), TPPF[i][0], 1e-15);
	}
	assert_close(sig_norm_ppf(0.975), NORM_PPF_975, 1e-12);
	assert_close(sig_norm_cdf(NORM_PPF_975), 0.975, 1e-14);
}

/* The floor of the exact rank test: its smallest two-sided p (scipy's mannwhitneyu of samples wholly apart:
 * 0.1, 0.02857142857142857, 0.007936507936507936 and 0.016666666666666666 for 7 against 3), and the trials a
 * level needs. */
static void test_mwu_floor(void **state)
{
	(void)state;
	assert_close(sig_mwu_min_p(3, 3), 0.1, 1e-14);
	assert_close(sig_mwu_min_p(4, 4), 0.02857142857142857, 1e-14);
	assert_close(sig_mwu_min_p(5, 5), 0.007936507936507936, 1e-14);
	assert_close(sig_mwu_min_p(7, 3), 0.016666666666666666, 1e-14);
	assert_close(sig_mwu_min_p(1, 1), 1.0, 0.0);
	assert_int_equal(sig_mwu_trials_for(0.05, 100), 4);
	assert_int_equal(sig_mwu_trials_for(0.05 / 12, 100), 6);
	assert_int_equal(sig_mwu_trials_for(1e-300, 100), 0);
}

/* Holm's step-down: sorted p times m, m-1, ...; never below an earlier one; capped at 1; NAN outside. */
static void test_holm(void **state)
{
	double p[] = {0.01, 0.04, NAN, 0.03, 0.5}, adj[5];

	(void)state;
	sig_holm(p, 5, adj);
	assert_close(adj[0], 0.04, 1e-15); /* 4 x 0.01 */
	assert_close(adj[3], 0.09, 1e-15); /* 3 x 0.03 */
	assert_close(adj[1], 0.09, 1e-15); /* 2 x 0.04 = 0.08, but not below 0.09 */
	assert_close(adj[4], 0.5, 1e-15);
	assert_true(isnan(adj[2]));
}

/* Trials that would settle a row, from the rule itself: never fewer than the floor, more for more noise, and at
 * the advised n the simulated chance is at least the power asked. At CV 10% an A/A row needs the CI inside
 * +-5%: about a hundred and more trials, not the ~76 of the t formula (at which it stays inconclusive). */
static void test_trials_to_settle(void **state)
{
	size_t lo, hi, big;

	(void)state;
	lo = sig_trials_to_settle(0.03, 1.3, 0.05, 0.05, 0.95, 0.8, 4, 1000);
	assert_int_equal(lo, 4); /* 30% at CV 3%: the floor decides */
	hi = sig_trials_to_settle(0.10, 1.3, 0.05, 0.05, 0.95, 0.8, 4, 1000);
	assert_true(hi >= lo && hi < 10);
	big = sig_trials_to_settle(0.10, 1.0, 0.05, 0.05, 0.95, 0.8, 4, 1000);
	assert_true(big > 100 && big <= 250);
	assert_true(sig_settle_power(0.10, 1.0, 0.05, 0.05, 0.95, big) >= 0.8);
	assert_true(sig_settle_power(0.10, 1.0, 0.05, 0.05, 0.95, 76) < 0.5);
	assert_int_equal(sig_trials_to_settle(0.40, 1.0, 0.05, 0.05, 0.95, 0.8, 4, 1000), 0);	/* beyond the cap */
	assert_int_equal(sig_trials_to_settle(0.10, 1.3, 0.05, 0.05, 0.95, 0.8, 20, 1000), 20); /* at least nmin */
}

/* The one verdict rule: beyond the threshold (at it counts), within it, equivalent only when not significant and
 * the whole CI inside, and undecided otherwise, whichever side the estimate is on. */
static void test_against_threshold(void **state)
{
	(void)state;
	assert_int_equal(sig_against(1.05, 1.03, 1.07, true, 0.02), SIG_ABOVE);
	assert_int_equal(sig_against(0.95, 0.93, 0.97, true, 0.02), SIG_BELOW);
	assert_int_equal(sig_against(1.02, 1.01, 1.03, true, 0.02), SIG_ABOVE); /* at the threshold */
	assert_int_equal(sig_against(1.01, 1.005, 1.03, true, 0.02), SIG_WITHIN);
	assert_int_equal(sig_against(0.99, 0.97, 0.995, true, 0.02), SIG_WITHIN);
	assert_int_equal(sig_against(1.00, 0.99, 1.01, false, 0.02), SIG_EQUIVALENT);
	assert_int_equal(sig_against(1.00, 0.97, 1.01, false, 0.02), SIG_UNDECIDED); /* the CI reaches past it */
	assert_int_equal(sig_against(1.05, 0.99, 1.11, false, 0.02), SIG_UNDECIDED); /* large, not significant */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_normal),
		cmocka_unit_test(test_wilcoxon),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_trend_and_bimodality),
		cmocka_unit_test(test_bimodal_needs_trials),
		cmocka_unit_test(test_hodges_lehmann),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_mde),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_mwu_floor),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_trials_to_settle),
		cmocka_unit_test(test_against_threshold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
