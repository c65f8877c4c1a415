/* The thrashing rule: a slice whose every task waited on memory for at least 10% of the last 10 s or more
 * thrashes (when its memory is at its limit); a shorter window, a lower share, an unreadable counter or one that went back does not. */
#include "testutil.h"

#include "run/thrash.h"

#define S 1000000000ull

/* Feed a sample a second, stalling share of each second (µs of the full total), from t0 for n seconds; the
 * verdict of the last. */
static bool feed_seconds(struct thr_ring *r, uint64_t *t, uint64_t *total, unsigned n, double share, double *ret)
{
	bool v = false;

	for (unsigned i = 0; i < n; i++) {
		*t += S;
		*total += (uint64_t)(share * 1e6);
		v = thr_feed(r, *t, *total, ret);
	}
	return v;
}

static void test_half_of_ten_seconds_thrashes(void **state)
{
	struct thr_ring r = {0};
	uint64_t t = 100 * S, total = 5000;
	double share = 0;

	(void)state;
	assert_false(thr_feed(&r, t, total, &share));
	/* 9 s at 90%: not yet a window */
	assert_false(feed_seconds(&r, &t, &total, 9, 0.9, &share));
	/* the 10th second: a window at 90% */
	assert_true(feed_seconds(&r, &t, &total, 1, 0.9, &share));
	assert_true(share > 0.89 && share < 0.91);
}

static void test_below_the_share_never_thrashes(void **state)
{
	struct thr_ring r = {0};
	uint64_t t = S, total = 0;
	double share = 0;

	(void)state;
	/* a minute just below the share (a busy runtime near its limit, still getting on) */
	assert_false(feed_seconds(&r, &t, &total, 60, THR_SHARE - 0.02, &share));
	assert_true(share > THR_SHARE - 0.03 && share < THR_SHARE - 0.01);
	/* a burst of 0.9 s after 9 s of nothing: 9%, no */
	assert_false(feed_seconds(&r, &t, &total, 9, 0, &share));
	assert_false(feed_seconds(&r, &t, &total, 1, 0.9, &share));
	/* a second more of it, all stalled: 1.9 of the last 10 s, yes */
	assert_true(feed_seconds(&r, &t, &total, 1, 1.0, &share));
	assert_true(share > 0.18 && share < 0.2);
}

/* At its limit: within a tenth of it; a slice with no limit (or none known) never is. */
static void test_at_the_limit(void **state)
{
	const uint64_t mib = 1 << 20;

	(void)state;
	assert_true(thr_at_limit(96 * mib, 96 * mib));
	assert_true(thr_at_limit(87 * mib, 96 * mib));
	assert_false(thr_at_limit(86 * mib, 96 * mib));
	assert_false(thr_at_limit(40 * mib, 96 * mib)); /* a host short of memory stalls it too, far below */
	assert_false(thr_at_limit(96 * mib, UINT64_MAX));
	assert_false(thr_at_limit(UINT64_MAX, 96 * mib));
	assert_false(thr_at_limit(0, 0));
}

static void test_unreadable_or_backwards_starts_again(void **state)
{
	struct thr_ring r = {0};
	uint64_t t = S, total = 1000000;
	double share = 0;

	(void)state;
	assert_false(feed_seconds(&r, &t, &total, 8, 1.0, &share));
	/* an unreadable sample is skipped, not taken as no stall */
	assert_false(thr_feed(&r, t + S / 2, UINT64_MAX, &share));
	assert_true(feed_seconds(&r, &t, &total, 3, 1.0, &share));
	/* a counter that went back (the slice made again) forgets the history: its first sample starts a window */
	total = 0;
	assert_false(feed_seconds(&r, &t, &total, 10, 1.0, &share));
	assert_true(feed_seconds(&r, &t, &total, 1, 1.0, &share));
}

static void test_irregular_looks_use_the_newest_full_window(void **state)
{
	struct thr_ring r = {0};
	double share = 0;

	(void)state;
	/* looks 0.1 s apart for 20 s, more than the ring holds: the window is still measured from a sample >= 10 s
	 * old, kept every 0.5 s */
	uint64_t t = S, total = 0;
	bool v = false;

	for (unsigned i = 0; i < 200; i++) {
		t += S / 10;
		total += 60000; /* 60 ms of each 100 */
		v = thr_feed(&r, t, total, &share);
		if (i < 99)
			assert_false(v);
	}
	assert_true(v);
	assert_true(share > 0.59 && share < 0.61);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_of_ten_seconds_thrashes),
		cmocka_unit_test(test_below_the_share_never_thrashes),
		cmocka_unit_test(test_at_the_limit),
		cmocka_unit_test(test_unreadable_or_backwards_starts_again),
		cmocka_unit_test(test_irregular_looks_use_the_newest_full_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
