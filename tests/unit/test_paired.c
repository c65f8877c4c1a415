/* The paired statistics of harness ab pinned to scipy's values (tests/fixtures/paired/gen.py printed the
 * fixture block), the verdict rules, the looks of --precision; with --sim, the stopping rule's coverage
 * experiment of tests/stats/coverage.py (experiments on stdin, one line each). */
#include "testutil.h"

#include <math.h>

#include "base/cleanup.h"
#include "stats/paired.h"

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
static const double CA[] = {22021.7, 21276.5, 20802.0, 21438.1, 16893.2, 20240.1, 17655.1, 20494.2, 19714.2, 19328.5,
			    20851.4, 17316.6, 20100.0, 23260.0, 21541.6, 18549.0, 20622.3, 19729.7, 20740.2, 18212.4,
			    20706.7, 20001.0, 18244.3, 21047.9, 22056.7, 21730.6, 16039.1, 20522.2, 20547.9, 19708.8,
			    19737.3, 20640.6, 21011.3, 18910.7, 20328.1, 19645.1, 18873.7, 20558.9, 19136.7, 17351.7};
static const double CB[] = {23133.0, 18954.8, 20976.0, 21104.3, 17062.8, 19239.5, 18053.6, 20486.2, 20458.5, 19939.2,
			    20348.7, 15621.1, 21273.5, 23215.6, 21701.7, 17944.9, 20067.5, 18837.3, 22159.6, 17574.1,
			    18606.2, 19778.3, 18549.5, 20482.7, 23071.7, 19965.4, 16910.0, 19370.3, 21823.4, 19023.4,
			    20500.7, 18811.6, 20118.8, 20318.5, 18781.1, 21122.5, 18652.8, 20363.0, 19010.1, 17491.9};
static const double CC[] = {-1.0, 1.0, 0.0, 0.0, 0.0,  0.0,  0.0, 0.0,	-1.0, 0.0, 0.0,	 1.0, -1.0, 0.0,
			    0.0,  1.0, 0.0, 0.0, -1.0, 0.0,  1.0, 0.0,	0.0,  0.0, -1.0, 1.0, -1.0, 1.0,
			    -1.0, 0.0, 0.0, 1.0, 0.0,  -1.0, 1.0, -1.0, 0.0,  0.0, 0.0,	 0.0};
#define C_GM	 0.9891200289360941
#define C_SLOPE	 -0.07033309113177781
#define C_WIL_P	 0.004244452147759148
#define C_T_LO	 0.9818537977489902
#define C_T_HI	 0.9964400340310707
#define C_RAW_LO 0.97462273978258
static const double RA[] = {21099.6, 20321.8, 20505.6, 17195.1, 21081.2, 21884.3, 19847.9, 21267.3, 21194.6, 21883.6,
			    18835.1, 19224.6, 21213.7, 21161.8, 22158.9, 19649.7, 20043.8, 18944.1, 19688.5, 22128.7,
			    20030.7, 20836.1, 19939.0, 19560.8, 19996.4, 19964.7, 18521.7, 18874.0, 19714.4, 20893.4,
			    19881.1, 17637.0, 24027.8, 20473.2, 19528.0, 20175.3, 20005.6, 20063.4, 20882.0, 20726.8,
			    20260.1, 21693.8, 18609.9, 23151.1, 20434.1, 18538.0, 17084.2, 20452.8, 21179.2, 19510.0,
			    19694.2, 19423.9, 20969.7, 20474.7, 17819.7, 20689.7, 20135.3, 20748.3, 18747.0, 21307.6};
static const double RB[] = {23475.8, 19631.2, 19660.8, 17327.4, 22770.3, 20472.6, 19873.0, 21554.5, 22755.9, 19578.7,
			    20914.2, 18364.1, 21954.9, 20831.0, 24509.9, 19787.7, 19404.4, 20870.9, 19315.4, 24808.8,
			    18960.5, 21242.0, 18952.8, 21122.8, 19840.8, 20335.4, 18488.5, 17628.6, 21221.3, 20547.6,
			    21750.0, 17387.9, 24779.3, 19332.2, 19995.7, 21554.9, 19994.2, 20471.6, 21806.7, 20400.9,
			    18299.6, 21407.1, 19038.1, 23201.6, 22483.4, 18444.6, 16773.5, 20344.4, 19907.5, 20477.5,
			    21486.3, 19700.9, 21171.5, 19554.5, 18819.1, 20602.4, 20601.4, 19668.2, 20580.5, 20445.1};
static const double RC[] = {-1.0, 0.0, 1.0,  0.0, -1.0, 1.0,  0.0,  0.0, -1.0, 1.0,  -1.0, 1.0, 0.0, 0.0,  -1.0,
			    0.0,  1.0, -1.0, 1.0, -1.0, 1.0,  -1.0, 1.0, -1.0, 0.0,  0.0,  0.0, 1.0, -1.0, 0.0,
			    -1.0, 0.0, 0.0,  1.0, 0.0,	-1.0, 0.0,  0.0, 0.0,  0.0,  1.0,  0.0, 0.0, 0.0,  -1.0,
			    0.0,  0.0, 0.0,  1.0, -1.0, -1.0, 0.0,  0.0, 1.0,  -1.0, 0.0,  0.0, 1.0, -1.0, 1.0};
static const unsigned RG[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
			      3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
#define R_GM	1.0084417442171465
#define R_SLOPE -0.0684374833915365
#define R_T_P	0.13896957642868624
#define R_T_LO	0.9961263189455414
#define R_T_HI	1.0209094289931295
#define R_SD	0.011708688630758376
/* ---- end of the fixture block ---- */

/* The analysis of one round's pairs. */
static int analyze(const double *a, const double *b, const double *carry, size_t n, const struct paired_opts *o,
		   struct paired_result *r)
{
	return paired_analyze(&(struct paired_input){a, b, carry, NULL, n}, o, r);
}

static const struct paired_opts THROUGHPUT = {.threshold = 0.02, .level = 0.95, .seed = 29};

static void test_against_scipy(void **state)
{
	struct paired_result r;

	(void)state;
	assert_int_equal(analyze(PA, PB, NULL, N(PA), &THROUGHPUT, &r), 0);
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

/* A carry-over in a random order: numpy's least-squares intercept and slope, scipy's Wilcoxon of the adjusted
 * log ratios, and a CI about as wide as the intercept's t interval and narrower than the unadjusted one. */
static void test_carry_against_numpy(void **state)
{
	struct paired_result r, raw;

	(void)state;
	assert_int_equal(analyze(CA, CB, CC, N(CA), &THROUGHPUT, &r), 0);
	assert_close(r.ratio, C_GM, 1e-12);
	assert_close(r.carry, C_SLOPE, 1e-12);
	assert_close(r.p, C_WIL_P, 1e-9);
	assert_true(fabs(log(r.low) - log(C_T_LO)) < 0.15 * (log(C_GM) - log(C_T_LO)));
	assert_true(fabs(log(r.high) - log(C_T_HI)) < 0.15 * (log(C_T_HI) - log(C_GM)));
	assert_true(r.sd_log < r.sd_log_raw);
	/* without the covariate: the same pairs' CI, wider (its low end near the plain t interval's) */
	assert_int_equal(analyze(CA, CB, NULL, N(CA), &THROUGHPUT, &raw), 0);
	assert_true(isnan(raw.carry));
	assert_true(fabs(log(raw.low) - log(C_RAW_LO)) < 0.15 * (log(raw.ratio) - log(C_RAW_LO)));
	assert_true(raw.half_width > 1.5 * r.half_width);
	/* a covariate the same for every pair explains nothing: no adjustment, the plain analysis */
	{
		double same[N(CA)];

		for (size_t i = 0; i < N(CA); i++)
			same[i] = 1;
		assert_int_equal(analyze(CA, CB, same, N(CA), &THROUGHPUT, &r), 0);
		assert_true(isnan(r.carry));
		assert_close(r.ratio, raw.ratio, 1e-12);
	}
}

/* Rounds: the slope within rounds and the round means' t interval and t test, as numpy and scipy; the same pairs
 * as one round have a narrower CI that does not hold the rounds' differences. Rounds out of order are refused. */
static void test_rounds_against_scipy(void **state)
{
	struct paired_result r, one;
	struct paired_input in = {RA, RB, RC, RG, N(RA)};
	unsigned bad[N(RG)];

	(void)state;
	assert_int_equal(paired_analyze(&in, &THROUGHPUT, &r), 0);
	assert_int_equal(r.rounds, 6);
	assert_int_equal(r.n, N(RA));
	assert_close(r.carry, R_SLOPE, 1e-12);
	assert_close(r.ratio, R_GM, 1e-12);
	assert_close(r.low, R_T_LO, 1e-9);
	assert_close(r.high, R_T_HI, 1e-9);
	assert_close(r.p, R_T_P, 1e-6);
	assert_close(r.sd_round, R_SD, 1e-9);
	in.round = NULL;
	assert_int_equal(paired_analyze(&in, &THROUGHPUT, &one), 0);
	assert_int_equal(one.rounds, 1);
	assert_true(isnan(one.sd_round));
	assert_true(one.half_width < r.half_width);
	/* fewer rounds than a CI needs: none */
	in.round = RG;
	in.n = 2 * 10;
	assert_int_equal(paired_analyze(&in, &THROUGHPUT, &r), 0);
	assert_true(isnan(r.low));
	assert_int_equal(r.verdict, PV_INCONCLUSIVE);
	memcpy(bad, RG, sizeof(bad));
	bad[30] = 0;
	in = (struct paired_input){RA, RB, RC, bad, N(RA)};
	assert_int_equal(paired_analyze(&in, &THROUGHPUT, &r), -1);
}

/* The same pairs read as a cost (latency, startup): B's smaller values are faster. */
static void test_direction(void **state)
{
	struct paired_opts o = THROUGHPUT;
	struct paired_result r;

	(void)state;
	o.smaller_better = true;
	assert_int_equal(analyze(PA, PB, NULL, N(PA), &o, &r), 0);
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
	assert_int_equal(analyze(a, b, NULL, n, &o, &r), 0);
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
	assert_int_equal(analyze(a, b, NULL, 10, &o, &r), 0);
	assert_int_equal(r.verdict, PV_INCONCLUSIVE);
	assert_true(r.pairs_needed > 10);
	/* fewer pairs than the minimum: no CI at all */
	assert_int_equal(analyze(a, b, NULL, 4, &o, &r), 0);
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
	assert_int_equal(analyze(a, b, NULL, 40, &o, &r), 0);
	assert_true(r.drift);
	for (size_t i = 0; i < 40; i++)
		b[i] = 100 * ((i * 7) % 2 ? 1.05 : 0.95) * (1 + 0.001 * (double)(i % 4));
	assert_int_equal(analyze(a, b, NULL, 40, &o, &r), 0);
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
	assert_int_equal(analyze(a, b, NULL, 6, &THROUGHPUT, &r), -1);
}

/* --sim PRECISION: each stdin line is "MAX r1 ... rMAX [c1 ... cMAX [g1 ... gMAX]]": the ratios, then each
 * pair's carry-over and round if the experiment has them. The stopping rule of --precision runs over it with harness
 * ab's analysis: a look at each paired_is_look (with rounds: at each round's end, paired_is_round_look), stop at
 * half-width <= PRECISION at two looks in a row or at MAX; it prints "n low high". */
static double sim_r[100000], sim_c[100000], sim_one[100000];
static unsigned sim_g[100000];

static size_t sim_read(char *p, size_t max)
{
	size_t got = 0;
	char *end;

	for (; got < 3 * max; p = end) {
		double v = strtod(p, &end);

		if (end == p)
			break;
		if (got < max)
			sim_r[got] = v;
		else if (got < 2 * max)
			sim_c[got - max] = v;
		else
			sim_g[got - 2 * max] = (unsigned)v;
		got++;
	}
	return got;
}

/* Whether the first n pairs end at a look: a pair count of the schedule, or with rounds the end of a round. */
static bool sim_look(size_t n, size_t max, bool rounds)
{
	if (!rounds)
		return paired_is_look(n);
	if (n < max && sim_g[n] == sim_g[n - 1])
		return false;
	return paired_is_round_look(sim_g[n - 1] + 1);
}

static int simulate(double precision)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < N(sim_one); i++)
		sim_one[i] = 1;
	while (getline(&line, &cap, stdin) > 0) {
		struct paired_opts o = {.threshold = 0.02, .level = 0.95};
		struct paired_result res = {.low = NAN, .high = NAN};
		char *end;
		size_t max = strtoul(line, &end, 10), got, n;
		bool was = false, rounds;

		if (end == line || max > N(sim_r))
			return 2;
		got = sim_read(end, max);
		if (got != max && got != 2 * max && got != 3 * max)
			return 2;
		rounds = got == 3 * max;
		for (n = 1; n <= max; n++) {
			struct paired_input in = {sim_one, sim_r, got >= 2 * max ? sim_c : NULL, rounds ? sim_g : NULL,
						  n};

			if (!sim_look(n, max, rounds) && n != max)
				continue;
			o.seed = 29 + n;
			if (paired_analyze(&in, &o, &res) < 0)
				return 2;
			if (paired_stop(&was, paired_precise(&res, precision)) || n == max)
				break;
		}
		printf("%zu %.17g %.17g\n", n, res.low, res.high);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_scipy),
		cmocka_unit_test(test_carry_against_numpy),
		cmocka_unit_test(test_rounds_against_scipy),
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_inconclusive_says_what_settles_it),
		cmocka_unit_test(test_drift_and_bimodal),
		cmocka_unit_test(test_looks),
		cmocka_unit_test(test_stop_rule),
		cmocka_unit_test(test_bad_input),
	};

	if (argc == 3 && strcmp(argv[1], "--sim") == 0)
		return simulate(strtod(argv[2], NULL));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
