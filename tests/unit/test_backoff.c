/* The readiness probes' back-off: 1, 2, 4, 8, 8... ms, never past the deadline. */
#include "testutil.h"

#include "base/backoff.h"
#include "base/util.h"

#define MS 1000000ull

static void test_doubles_to_the_cap(void **state)
{
	struct backoff b;
	const uint64_t want[] = {1 * MS, 2 * MS, 4 * MS, 8 * MS, 8 * MS, 8 * MS};

	(void)state;
	backoff_init(&b, BACKOFF_FIRST_NS, BACKOFF_MAX_NS);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(backoff_next(&b, 0, 1000 * MS), want[i]);
}

static void test_a_cap_that_is_no_power_of_two(void **state)
{
	struct backoff b;
	const uint64_t want[] = {3 * MS, 6 * MS, 10 * MS, 10 * MS};

	(void)state;
	backoff_init(&b, 3 * MS, 10 * MS);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(backoff_next(&b, 0, 1000 * MS), want[i]);
}

static void test_never_past_the_deadline(void **state)
{
	struct backoff b;

	(void)state;
	backoff_init(&b, 4 * MS, 8 * MS);
	assert_int_equal(backoff_next(&b, 100 * MS, 101 * MS), 1 * MS); /* 4 ms cut to what is left */
	assert_int_equal(backoff_next(&b, 101 * MS, 101 * MS), 0);
	assert_int_equal(backoff_next(&b, 102 * MS, 101 * MS), 0);
	assert_int_equal(backoff_next(&b, 0, 1000 * MS), 8 * MS); /* the schedule went on */
}

static void test_degenerate_bounds(void **state)
{
	struct backoff b;

	(void)state;
	backoff_init(&b, 50 * MS, 8 * MS); /* a first step above the cap starts at the cap */
	assert_int_equal(backoff_next(&b, 0, 1000 * MS), 8 * MS);
	backoff_init(&b, 0, 0);
	assert_int_equal(backoff_next(&b, 0, 1000 * MS), 1);
	assert_int_equal(backoff_next(&b, 0, 1000 * MS), 1);
	backoff_init(&b, 1, UINT64_MAX); /* doubling stops before it overflows */
	for (int i = 0; i < 70; i++)
		assert_true(backoff_next(&b, 0, UINT64_MAX) > 0);
	assert_int_equal(b.next_ns, UINT64_MAX);
}

static void test_sleeps_the_step(void **state)
{
	struct backoff b;
	uint64_t t0 = util_now_ns();

	(void)state;
	backoff_init(&b, 2 * MS, 8 * MS);
	assert_int_equal(backoff_sleep(&b, t0, t0 + 1000 * MS), 1);
	assert_true(util_now_ns() - t0 >= 2 * MS);
	assert_int_equal(backoff_sleep(&b, t0 + 5 * MS, t0 + 5 * MS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles_to_the_cap),	cmocka_unit_test(test_a_cap_that_is_no_power_of_two),
		cmocka_unit_test(test_never_past_the_deadline), cmocka_unit_test(test_degenerate_bounds),
		cmocka_unit_test(test_sleeps_the_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
