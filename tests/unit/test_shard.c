/* Shards of a trial plan: the I/N form, every trial in exactly one shard, the same answer every time,
 * and balanced by cost. */
#include "testutil.h"

#include "run/shard.h"

static void test_parse(void **state)
{
	struct hx_err err = {0};
	unsigned i = 0, n = 0;

	(void)state;
	assert_int_equal(shard_parse("2/4", &i, &n, &err), 0);
	assert_int_equal(i, 2);
	assert_int_equal(n, 4);
	assert_int_equal(shard_parse("1/1", &i, &n, &err), 0);
	for (const char *bad[] = {"0/4", "5/4", "2", "2/0", "a/b", "2/4x", "1/65", "-1/4", ""}, **b = bad;
	     b < bad + sizeof(bad) / sizeof(*bad); b++) {
		err = (struct hx_err){0};
		assert_true(shard_parse(*b, &i, &n, &err) < 0);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		assert_non_null(strstr(err.msg, "--shard takes I/N"));
	}
}

static void test_assign(void **state)
{
	/* two long http trials, many short startups, as a run's plan interleaves them */
	double cost[24];
	unsigned a[24], b[24], count[4] = {0};
	double load[4] = {0}, total = 0, most = 0;

	(void)state;
	for (int k = 0; k < 24; k++)
		total += cost[k] = k % 6 == 0 ? 12.0 : 1.5;
	shard_assign(cost, 24, 4, a);
	shard_assign(cost, 24, 4, b);
	assert_memory_equal(a, b, sizeof(a)); /* deterministic */
	for (int k = 0; k < 24; k++) {
		assert_true(a[k] < 4);
		count[a[k]]++;
		load[a[k]] += cost[k];
	}
	for (int s = 0; s < 4; s++) {
		assert_true(count[s] > 0);
		most = load[s] > most ? load[s] : most;
	}
	assert_true(most <= total / 4 * 4 / 3); /* longest-first is within 4/3 of the best */
	/* one shard: everything */
	shard_assign(cost, 24, 1, a);
	for (int k = 0; k < 24; k++)
		assert_int_equal(a[k], 0);
}

static void test_equal_costs_round(void **state)
{
	double cost[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	unsigned a[8];

	(void)state;
	shard_assign(cost, 8, 4, a);
	/* ties go to the earlier trial and the lower shard: 0 1 2 3 0 1 2 3 */
	for (int k = 0; k < 8; k++)
		assert_int_equal(a[k], (unsigned)(k % 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_assign),
		cmocka_unit_test(test_equal_costs_round),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
