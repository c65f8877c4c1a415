/* Adaptive repeats: which cells have their median to within the precision, and why the others do not. */
#include "testutil.h"

#include <math.h>

#include "report/precision.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converged_bimodal_trend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
