/* Adaptive repeats: which cells have their median to within the precision, and why the others do not. */
#include "testutil.h"

#include <math.h>

#include "results/precision.h"

/* Ten startup trials of a cell whose values come from f(i). */
static void add_cell(struct res_doc *d, const char *runtime, double (*f)(unsigned))
{
	for (unsigned i = 0; i < 10; i++) {
		struct trial_result *t = res_doc_add(d);

		res_trial_init(t, "startup", runtime, "pinned", i + 1, (unsigned)d->ntrials);
		t->have |= RES_HAVE_STARTUP;
		t->startup.wall_ms.median = f(i);
	}
}

static double tight(unsigned i)
{
	return 30 + 0.1 * (double)((i * 3) % 10) / 10; /* within 0.3% */
}

static double two_modes(unsigned i)
{
	return (i * 7) % 10 < 5 ? 4.3 + 0.01 * i : 5.8 + 0.01 * i; /* bun's 4.3 vs 5.8 ms */
}

static double drifting(unsigned i)
{
	return 40 * (1 + 0.03 * i) + ((i * 3) % 4) * 0.3; /* 3% slower every trial */
}

static void test_converged_bimodal_trend(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	struct prec_cell *c = NULL;
	size_t n = 0;
	char why[256];

	(void)state;
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	add_cell(&d, "node24", tight);
	add_cell(&d, "bun", two_modes);
	add_cell(&d, "deno", drifting);
	assert_int_equal(prec_check(&d, "startup", 0.02, &c, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_true(c[0].converged && c[0].halfwidth < 0.02);
	assert_int_equal(c[0].metric, RES_M_STARTUP_MEDIAN_MS);
	assert_false(c[1].converged);
	assert_true(c[1].bimodality > SIG_BIMODAL);
	prec_why(&c[1], why, sizeof(why));
	assert_non_null(strstr(why, "bimodal"));
	assert_false(c[2].converged);
	assert_true(c[2].have_trend && c[2].trend.p < 0.05 && c[2].trend.stat > 0.9);
	prec_why(&c[2], why, sizeof(why));
	assert_non_null(strstr(why, "a trend over trial order"));
	assert_null(strstr(why, "bimodal"));
	assert_false(prec_converged(c, n));
	assert_true(prec_converged(c, 1));
	free(c);
	assert_int_equal(prec_check(&d, "http-hello", 0.02, &c, &n, &err), 0); /* no such cells */
	assert_int_equal(n, 0);
	assert_true(prec_converged(c, n));
	free(c);
	res_doc_free(&d);
}

/* Before the first look no cell converges, however tight: four trials within 0.1% converged before, from a
 * bootstrap of the median that covers the truth 75% of the time at n = 3. */
static void test_no_judgement_before_the_first_look(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	struct prec_cell *c = NULL;
	size_t n = 0;
	char why[256];

	(void)state;
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	for (unsigned i = 0; i < 4; i++) {
		struct trial_result *t = res_doc_add(&d);

		res_trial_init(t, "startup", "node24", "pinned", i + 1, i + 1);
		t->have |= RES_HAVE_STARTUP;
		t->startup.wall_ms.median = 30 + 0.01 * i;
	}
	assert_int_equal(prec_check(&d, "startup", 0.05, &c, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_false(c[0].converged);
	assert_int_equal(c[0].look, 0);
	prec_why(&c[0], why, sizeof(why));
	assert_non_null(strstr(why, "4 trials passed: judged from 10"));
	free(c);
	res_doc_free(&d);
}

static uint64_t sm(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double normal(uint64_t *x)
{
	double u = ((double)(sm(x) >> 11) + 0.5) * 0x1p-53, v = ((double)(sm(x) >> 11) + 0.5) * 0x1p-53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Optional stopping, as run --precision does it: a trial at a time, judged after each, stopped at the first
 * convergence or at 30 trials; lognormal trials whose true median is 10. Of the runs that stopped converged, the
 * claim (the CI, and the true median within +-P of the estimate) must hold at least 95% of the time, here at
 * least 93% with the simulation's margin. Through prec_check itself, as the run calls it. */
static void test_optional_stopping(void **state)
{
	static const struct {
		double cv, precision;
	} cases[] = {{0.03, 0.03}, {0.10, 0.10}, {0.20, 0.10}};
	uint64_t seed = 0x57095;

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double sigma = sqrt(log1p(cases[k].cv * cases[k].cv));
		unsigned stopped = 0, ci_ok = 0, claim_ok = 0, runs = 300;

		for (unsigned r = 0; r < runs; r++) {
			struct res_doc d;
			struct hx_err err = {0};

			assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
			for (unsigned i = 0; i < 30; i++) {
				struct trial_result *t = res_doc_add(&d);
				struct prec_cell *c = NULL;
				size_t n = 0;

				res_trial_init(t, "startup", "node24", "pinned", i + 1, i + 1);
				t->have |= RES_HAVE_STARTUP;
				t->startup.wall_ms.median = 10 * exp(sigma * normal(&seed));
				/* the judgement moves only at a look: the run's calls in between answer the same */
				if (i + 1 != 10 && i + 1 != 15 && i + 1 != 20 && i + 1 != 30)
					continue;
				assert_int_equal(prec_check(&d, "startup", cases[k].precision, &c, &n, &err), 0);
				if (c[0].converged) {
					stopped++;
					ci_ok += c[0].low <= 10 && 10 <= c[0].high;
					claim_ok += fabs(c[0].median - 10) <= cases[k].precision * c[0].median;
					free(c);
					break;
				}
				free(c);
			}
			res_doc_free(&d);
		}
		print_message("# --precision %g%% at CV %g%%: %u of %u runs converged; a false CI in %.1f%% of runs, a "
			      "false claim in %.1f%%; of those that converged, the CI held in %.1f%%\n",
			      cases[k].precision * 100, cases[k].cv * 100, stopped, runs,
			      100.0 * (stopped - ci_ok) / runs, 100.0 * (stopped - claim_ok) / runs,
			      stopped ? 100.0 * ci_ok / stopped : 100.0);
		/* the promise: any look's CI misses with at most 5%, over all runs (with the binomial margin) */
		assert_true(stopped - ci_ok <= 0.05 * runs + 2.33 * sqrt(0.05 * 0.95 * runs));
		assert_true(stopped - claim_ok <= stopped - ci_ok);
		if (stopped >= 100) /* and where most runs stop, their claims hold as often */
			assert_true(ci_ok >= 0.93 * stopped);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converged_bimodal_trend),
		cmocka_unit_test(test_no_judgement_before_the_first_look),
		cmocka_unit_test(test_optional_stopping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
