/* Topology from the literal sysfs fixture trees. */
#include "testutil.h"

#include "cgroups/topo.h"

static struct cg_topo *read_tree(const char *name)
{
	static struct cg_topo t;
	struct hx_err err = {0};
	char rel[256];

	snprintf(rel, sizeof(rel), "sysfs/%s", name);
	if (cg_topo_read(fixture(rel), &t, &err) < 0)
		fail_msg("%s: %s", name, err.msg);
	return &t;
}

static void test_vm2(void **state)
{
	struct cg_topo *t = read_tree("vm2");

	(void)state;
	assert_cpus(&t->online, "0-1");
	assert_int_equal(t->nr_packages, 1);
	assert_int_equal(t->nr_cores, 2);
	assert_int_equal(t->threads_per_core, 1);
	assert_int_equal(t->nr_nodes, 1);
	assert_int_equal(t->cpu[1].core_idx, 1);
	assert_int_equal(t->cpu[1].smt_rank, 0);
}

static void test_two_sockets_smt(void **state)
{
	struct cg_topo *t = read_tree("smt2x8x2");
	struct cg_cpus core;

	(void)state;
	assert_cpus(&t->online, "0-31");
	assert_int_equal(t->nr_packages, 2);
	assert_int_equal(t->nr_cores, 16);
	assert_int_equal(t->threads_per_core, 2);
	assert_int_equal(t->nr_nodes, 2);
	/* core_id repeats across sockets: CPUs 3 and 11 are different cores */
	assert_int_not_equal(t->cpu[3].core_idx, t->cpu[11].core_idx);
	cg_topo_core_cpus(t, 3, &core);
	assert_cpus(&core, "3,19");
	assert_int_equal(t->cpu[19].smt_rank, 1);
	assert_int_equal(t->cpu[3].smt_rank, 0);
	assert_int_equal(t->cpu[27].node, 1);
	assert_int_equal(t->cpu[27].package, 1);
}

static void test_offline(void **state)
{
	struct cg_topo *t = read_tree("offline");
	struct cg_cpus core;

	(void)state;
	assert_cpus(&t->online, "0-1,3-4,7");
	assert_cpus(&t->present, "0-7");
	assert_int_equal(t->nr_cores, 3); /* core 2 is gone entirely */
	cg_topo_core_cpus(t, 1, &core);
	assert_cpus(&core, "1"); /* its sibling 5 is offline */
	cg_topo_core_cpus(t, 3, &core);
	assert_cpus(&core, "3,7");
	assert_int_equal(t->threads_per_core, 2);
}

static void test_isolated_no_numa(void **state)
{
	struct cg_topo *t = read_tree("isolated");

	(void)state;
	assert_cpus(&t->isolated, "4-7");
	assert_int_equal(t->nr_nodes, 1);
	assert_int_equal(t->cpu[6].node, 0);
	assert_int_equal(t->nr_cores, 8);
}

static void test_missing_root(void **state)
{
	struct cg_topo t;
	struct hx_err err = {0};

	(void)state;
	assert_true(cg_topo_read("/nonexistent-sysfs", &t, &err) < 0);
	assert_non_null(strstr(err.msg, "topology"));
	assert_non_null(strstr(err.msg, "/nonexistent-sysfs/devices/system/cpu/online"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm2),	     cmocka_unit_test(test_two_sockets_smt),
		cmocka_unit_test(test_offline),	     cmocka_unit_test(test_isolated_no_numa),
		cmocka_unit_test(test_missing_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
