/* The latency histogram against exact percentiles of sorted random data. */
#include "testutil.h"

#include <math.h>

#include "load/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank quantile of sorted data. */
static uint64_t exact(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	return v[rank ? rank - 1 : 0];
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_against_exact(uint64_t *v, size_t n)
{
	static struct hist h;
	static const double qs[] = {0.5, 0.75, 0.9, 0.95, 0.99, 0.999};

	hist_init(&h);
	for (size_t i = 0; i < n; i++)
		hist_record(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = (double)exact(v, n, qs[i]), got = (double)hist_quantile(&h, qs[i]);

		if (fabs(got - want) > want * 0.01 + 1)
			fail_msg("q%.3f: histogram %.0f, exact %.0f", qs[i], got, want);
	}
	assert_int_equal(hist_quantile(&h, 1.0), v[n - 1]);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.count, n);
}

static void test_uniform_and_lognormal(void **state)
{
	static uint64_t v[200000];
	uint64_t s = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < 200000; i++)
		v[i] = 1000 + xorshift(&s) % 50000000; /* 1 µs .. 50 ms */
	check_against_exact(v, 200000);
	for (size_t i = 0; i < 200000; i++) {
		double u1 = ((double)(xorshift(&s) % 1000000) + 1) / 1000001.0;
		double u2 = ((double)(xorshift(&s) % 1000000) + 1) / 1000001.0;
		double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);

		v[i] = (uint64_t)exp(11.5 + 1.2 * z); /* median ~100 µs, a long tail */
	}
	check_against_exact(v, 200000);
}

static void test_relative_error_bound(void **state)
{
	(void)state;
	/* every value from 1 µs to 60 s lands in a bucket no wider than 1/128 of its value */
	for (uint64_t v = 1000; v < HIST_MAX_NS; v = v * 1.37 + 1) {
		unsigned i = hist_index(v);

		assert_true(hist_lowest(i) <= v);
		assert_true(hist_index(hist_lowest(i)) == i);
		if (i + 1 < HIST_BUCKETS)
			assert_true((double)(hist_lowest(i + 1) - hist_lowest(i)) <= (double)v / 128.0 + 1);
	}
	assert_true(hist_index(HIST_MAX_NS * 10) < HIST_BUCKETS);
	for (uint64_t v = 0; v < 256; v++)
		assert_int_equal(hist_lowest(hist_index(v)), v); /* small values are exact */
}

static void test_merge_and_moments(void **state)
{
	static struct hist a, b, all;
	uint64_t s = 7;

	(void)state;
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (int i = 0; i < 10000; i++) {
		uint64_t v = 5000 + xorshift(&s) % 100000;

		hist_record(i % 2 ? &a : &b, v);
		hist_record(&all, v);
	}
	hist_merge(&a, &b);
	assert_int_equal(a.count, all.count);
	assert_int_equal(a.min, all.min);
	assert_int_equal(a.max, all.max);
	assert_memory_equal(a.counts, all.counts, sizeof(a.counts));
	assert_true(fabs(hist_mean(&a) - hist_mean(&all)) < 1e-6 * hist_mean(&all));
	assert_true(fabs(hist_stddev(&a) - hist_stddev(&all)) < 1e-3 * hist_stddev(&all));
	/* uniform on [5000, 105000): stddev = 100000 / sqrt(12) */
	assert_true(fabs(hist_stddev(&all) - 28867.5) < 1000);
}

static void test_empty_and_single(void **state)
{
	static struct hist h;

	(void)state;
	hist_init(&h);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	assert_true(hist_mean(&h) == 0);
	hist_record(&h, 123456);
	assert_int_equal(hist_quantile(&h, 0.5), 123456);
	assert_int_equal(hist_quantile(&h, 0.99), 123456);
	assert_true(hist_stddev(&h) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform_and_lognormal),
		cmocka_unit_test(test_relative_error_bound),
		cmocka_unit_test(test_merge_and_moments),
		cmocka_unit_test(test_empty_and_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
