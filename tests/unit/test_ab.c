/* The harness-ab/1 document: which windows make pairs (the warm-up pair and noisy pairs left out), the verdict and
 * exit rule from them, the first line, and the JSON written and read back to the same analysis. */
#include "testutil.h"

#include <math.h>

#include "base/util.h"
#include "report/ab.h"

/* n pairs after the warm-up one; B's throughput is factor times A's (with a little alternating noise); pair
 * `noisy` (0: none) has a foreign task in B's window only. */
static void make_doc(struct ab_doc *d, size_t n, double factor, size_t noisy)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->scenario, sizeof(d->scenario), "http-hello");
	snprintf(d->workload, sizeof(d->workload), "http");
	d->threshold = 0.02;
	d->window_s = 0.5;
	d->seed = 3;
	for (size_t p = 0; p <= n; p++)
		for (int k = 0; k < 2; k++) {
			struct ab_window *w = ab_window_add(d);
			bool b = (p % 2) ? k == 0 : k == 1; /* BA on odd pairs */
			double noise = 1 + 0.004 * (double)((p * 7 + (size_t)k) % 5) - 0.008;
			double rps = 20000 * noise * (b ? factor : 1);

			assert_non_null(w);
			w->pair = (unsigned)p;
			w->side = b ? 'B' : 'A';
			w->warmup = p == 0;
			w->duration_s = 0.5;
			w->requests = (uint64_t)(rps * 0.5);
			w->p50_us = w->p99_us = 1e6 / rps * 50;
			w->foreign_ms = p == noisy && b && noisy ? 100 : 2;
			if (p == noisy && b && noisy)
				w->requests /= 2; /* what the foreign task took */
		}
}

static void test_pairs_leave_out_warmup_and_noisy(void **state)
{
	struct ab_doc d;
	double *a, *b;
	size_t n;

	(void)state;
	make_doc(&d, 30, 1.0, 7);
	assert_int_equal(ab_pairs(&d, AB_RPS, &a, &b, &n), 0);
	assert_int_equal(n, 29); /* 31 pairs, less the warm-up and the noisy one */
	for (size_t i = 0; i < n; i++)
		assert_true(fabs(b[i] / a[i] - 1) < 0.02);
	free(a);
	free(b);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.noisy_pairs, 1);
	assert_int_equal(d.pairs, 29);
	assert_int_equal(d.metric[AB_RPS].verdict, PV_EQUIVALENT);
	assert_false(ab_regressed(&d));
	ab_free(&d);
}

static void test_slower_is_a_regression(void **state)
{
	struct ab_doc d;

	(void)state;
	make_doc(&d, 30, 1 / 1.05, 0);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_RPS].verdict, PV_SLOWER);
	assert_int_equal(d.metric[AB_P50].verdict, PV_SLOWER); /* latency up: a cost */
	assert_true(ab_regressed(&d));
	ab_free(&d);
	make_doc(&d, 30, 1.05, 0);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_RPS].verdict, PV_FASTER);
	assert_false(ab_regressed(&d));
	ab_free(&d);
}

static void test_first_line(void **state)
{
	struct ab_doc d;
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	make_doc(&d, 30, 1 / 1.05, 0);
	assert_int_equal(ab_analyze(&d), 0);
	ab_print(f, &d, RPT_TABLE);
	fclose(f);
	assert_true(strncmp(buf, "B ran 1.05", 10) == 0);
	assert_non_null(strstr(buf, "slower than A: slower beyond 2%\n"));
	assert_non_null(strstr(buf, "throughput"));
	ab_free(&d);
}

static void test_round_trip(void **state)
{
	struct ab_doc d, r;
	struct hx_err err = {0};
	char path[] = "/tmp/test_ab-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_doc(&d, 24, 1 / 1.03, 5);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_true(ab_is_file(path));
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_int_equal(r.nw, d.nw);
	assert_int_equal(r.noisy_pairs, 1);
	assert_true(fabs(r.metric[AB_RPS].ratio - d.metric[AB_RPS].ratio) < 1e-12);
	assert_int_equal(r.metric[AB_RPS].verdict, d.metric[AB_RPS].verdict);
	for (size_t i = 0; i < d.nw; i++) {
		assert_int_equal(r.w[i].side, d.w[i].side);
		assert_int_equal(r.w[i].requests, d.w[i].requests);
	}
	ab_free(&d);
	ab_free(&r);
	/* a results file of the other kind is not one */
	assert_int_equal(util_write_atomic(path, "{\"schema\":\"harness-results/1\"}", 30, &err), 0);
	assert_false(ab_is_file(path));
	assert_true(ab_read(path, &r, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_leave_out_warmup_and_noisy),
		cmocka_unit_test(test_slower_is_a_regression),
		cmocka_unit_test(test_first_line),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
