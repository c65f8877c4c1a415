/* The CPU allocator and the budget planner on the fixture trees. */
#include "testutil.h"

#include "cgroups/alloc.h"
#include "cgroups/plan.h"
#include "cgroups/topo.h"
#include "base/util.h"

static struct cg_topo topo;

static const struct cg_topo *load(const char *name)
{
	struct hx_err err = {0};
	char rel[256];

	snprintf(rel, sizeof(rel), "sysfs/%s", name);
	if (cg_topo_read(fixture(rel), &topo, &err) < 0)
		fail_msg("%s: %s", name, err.msg);
	return &topo;
}

/* Every allocation: the counts asked for, inside usable, pairwise disjoint. */
static void check_invariants(const struct cg_alloc *a, const struct cg_cpus *usable, const unsigned want[])
{
	for (int s = 0; s < CG_NR_SLICES; s++) {
		struct cg_cpus outside = a->cpus[s];

		assert_int_equal(cg_cpus_count(&a->cpus[s]), want[s]);
		cg_cpus_andnot(&outside, usable);
		assert_true(cg_cpus_empty(&outside));
		for (int o = s + 1; o < CG_NR_SLICES; o++) {
			struct cg_cpus both = a->cpus[s];

			cg_cpus_and(&both, &a->cpus[o]);
			assert_true(cg_cpus_empty(&both));
		}
	}
}

static void alloc_ok(const struct cg_topo *t, const struct cg_cpus *usable, const unsigned want[], struct cg_alloc *a)
{
	struct hx_err err = {0};

	if (cg_alloc_cpus(t, usable, want, a, &err) < 0)
		fail_msg("allocation failed: %s", err.msg);
	check_invariants(a, usable, want);
}

/* The physical cores a set touches. */
static unsigned cores_of(const struct cg_topo *t, const struct cg_cpus *s)
{
	struct cg_cpus seen = {0};

	CG_CPUS_FOREACH (cpu, s)
		cg_cpus_set(&seen, (unsigned)t->cpu[cpu].core_idx);
	return cg_cpus_count(&seen);
}

static void test_vm2_one_each(void **state)
{
	const struct cg_topo *t = load("vm2");
	unsigned want[CG_NR_SLICES] = {1, 1, 0, 0};
	struct cg_alloc a;

	(void)state;
	alloc_ok(t, &t->online, want, &a);
	assert_cpus(&a.cpus[CG_SLICE_SUT], "1"); /* CPU 0, the housekeeping CPU, goes to the client */
	assert_cpus(&a.cpus[CG_SLICE_CLIENT], "0");
	assert_cpus(&a.mems[CG_SLICE_SUT], "0");
}

static void test_vm2_too_many(void **state)
{
	const struct cg_topo *t = load("vm2");
	unsigned want[CG_NR_SLICES] = {2, 1, 0, 0};
	struct cg_alloc a;
	struct hx_err err = {0};

	(void)state;
	assert_true(cg_alloc_cpus(t, &t->online, want, &a, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "this host has 2 usable CPUs: pinned mode can give the runtime 1"));
	assert_non_null(strstr(err.msg, "--cpus 1"));
}

static void test_cpu0_avoided(void **state)
{
	const struct cg_topo *t = load("isolated");
	unsigned want[CG_NR_SLICES] = {2, 2, 1, 1};
	struct cg_cpus usable;
	struct cg_alloc a;

	(void)state;
	cg_cpus_parse("0-3", &usable); /* not the isolated ones: as without taskset */
	want[CG_SLICE_FIXTURE] = 0;
	want[CG_SLICE_NOISE] = 0;
	want[CG_SLICE_CLIENT] = 1;
	alloc_ok(t, &usable, want, &a);
	assert_false(cg_cpus_test(&a.cpus[CG_SLICE_SUT], 0));
	assert_false(cg_cpus_test(&a.cpus[CG_SLICE_CLIENT], 0));
}

static void test_smt_whole_cores_first(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	unsigned want[CG_NR_SLICES] = {4, 4, 2, 1};
	struct cg_alloc a;

	(void)state;
	alloc_ok(t, &t->online, want, &a);
	/* 4 CPUs on 4 distinct cores, and no core shared between two slices */
	assert_int_equal(cores_of(t, &a.cpus[CG_SLICE_SUT]), 4);
	assert_int_equal(cores_of(t, &a.cpus[CG_SLICE_CLIENT]), 4);
	for (int s = 0; s < CG_NR_SLICES; s++)
		CG_CPUS_FOREACH (cpu, &a.cpus[s]) {
			struct cg_cpus core;

			cg_topo_core_cpus(t, cpu, &core);
			for (int o = 0; o < CG_NR_SLICES; o++) {
				struct cg_cpus both = core;

				cg_cpus_and(&both, &a.cpus[o]);
				if (o != s && !cg_cpus_empty(&both))
					fail_msg("CPU %d's core is shared by %s and %s", cpu, cg_slice_names[s],
						 cg_slice_names[o]);
			}
		}
	assert_false(cg_cpus_test(&a.cpus[CG_SLICE_SUT], 0));
	/* one NUMA node per slice */
	assert_int_equal(cg_cpus_count(&a.mems[CG_SLICE_SUT]), 1);
	assert_int_equal(cg_cpus_count(&a.mems[CG_SLICE_CLIENT]), 1);
}

static void test_smt_siblings_of_own_cores(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	unsigned want[CG_NR_SLICES] = {12, 4, 0, 0};
	struct cg_alloc a;

	(void)state;
	alloc_ok(t, &t->online, want, &a);
	/* one socket holds it: 8 whole cores, then 4 siblings of those same cores */
	assert_int_equal(cores_of(t, &a.cpus[CG_SLICE_SUT]), 8);
	assert_int_equal(cg_cpus_count(&a.mems[CG_SLICE_SUT]), 1);
}

static void test_smt_spans_nodes(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	unsigned want[CG_NR_SLICES] = {20, 4, 0, 0};
	struct cg_alloc a;

	(void)state;
	alloc_ok(t, &t->online, want, &a);
	assert_cpus(&a.mems[CG_SLICE_SUT], "0-1");
	assert_int_equal(cores_of(t, &a.cpus[CG_SLICE_SUT]), 16); /* all 16 whole cores before 4 siblings */
}

static void test_offline_never_used(void **state)
{
	const struct cg_topo *t = load("offline");
	unsigned want[CG_NR_SLICES] = {2, 2, 0, 0};
	struct cg_alloc a;

	(void)state;
	alloc_ok(t, &t->online, want, &a);
	assert_int_equal(cores_of(t, &a.cpus[CG_SLICE_SUT]), 2);
	assert_false(cg_cpus_test(&a.cpus[CG_SLICE_SUT], 0));
}

static void test_isolated_first_for_sut(void **state)
{
	const struct cg_topo *t = load("isolated");
	unsigned want[CG_NR_SLICES] = {2, 2, 0, 0};
	struct cg_alloc a;

	(void)state;
	alloc_ok(t, &t->online, want, &a); /* harness started under taskset -c 0-7 */
	assert_cpus(&a.cpus[CG_SLICE_SUT], "4-5");
	assert_cpus(&a.cpus[CG_SLICE_CLIENT], "1-2");
}

static void plan(const char *tree, enum cg_cpu_mode mode, unsigned cpus, struct cg_slice_plan *p, struct hx_err *err,
		 int expect)
{
	const struct cg_topo *t = load(tree);
	struct cg_budget b = {.mode = mode, .cpus = cpus, .memory_max = 64 << 20};

	assert_int_equal(cg_plan_slices(t, &t->online, &b, p, err) < 0, expect < 0);
}

static void test_plan_modes(void **state)
{
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	plan("vm2", CG_CPU_PINNED, 0, &p, &err, 0);
	assert_int_equal(p.cpus, 1);
	assert_cpus(&p.limits[CG_SLICE_SUT].cpus, "1");
	assert_cpus(&p.limits[CG_SLICE_CLIENT].cpus, "0");
	assert_int_equal(p.limits[CG_SLICE_SUT].cpu_quota_us, 0);
	assert_int_equal(p.limits[CG_SLICE_SUT].memory_max, 64 << 20);

	plan("vm2", CG_CPU_QUOTA, 1, &p, &err, 0);
	assert_cpus(&p.limits[CG_SLICE_CLIENT].cpus, "0"); /* where pinned mode puts it */
	assert_cpus(&p.limits[CG_SLICE_SUT].cpus, "1");	   /* every CPU but the client's */
	assert_false(p.sut_shares_client);
	assert_true(p.client_as_pinned);
	assert_int_equal(p.limits[CG_SLICE_SUT].cpu_quota_us, 100000);
	assert_int_equal(p.limits[CG_SLICE_SUT].cpu_period_us, 100000);
	plan("vm2", CG_CPU_QUOTA, 2, &p, &err, 0);
	assert_cpus(&p.limits[CG_SLICE_SUT].cpus, "0-1"); /* no room beside the client: shared, recorded */
	assert_true(p.sut_shares_client);
	assert_false(p.client_as_pinned); /* pinned mode cannot give 2 + 1 CPUs of 2: no placement to keep */

	plan("vm2", CG_CPU_NONE, 0, &p, &err, 0);
	assert_cpus(&p.limits[CG_SLICE_SUT].cpus, "0-1");
	assert_int_equal(p.limits[CG_SLICE_SUT].cpu_quota_us, 0);

	plan("smt2x8x2", CG_CPU_PINNED, 0, &p, &err, 0);
	assert_int_equal(p.cpus, 4); /* a 4-vCPU CI runner by default */
	assert_int_equal(p.client_cpus, 4);

	/* quota on a big host: the runtime may use every CPU but the client's, which stay its own */
	plan("smt2x8x2", CG_CPU_QUOTA, 4, &p, &err, 0);
	assert_int_equal(p.limits[CG_SLICE_SUT].cpu_quota_us, 400000);
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_CLIENT].cpus), 4);
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_SUT].cpus), cg_cpus_count(&load("smt2x8x2")->online) - 4);
	{
		struct cg_cpus both = p.limits[CG_SLICE_SUT].cpus;

		cg_cpus_and(&both, &p.limits[CG_SLICE_CLIENT].cpus);
		assert_true(cg_cpus_empty(&both));
	}
	assert_false(p.sut_shares_client);
}

/* Quota and none keep the client's and the fixture's CPUs of pinned mode at the same budget: the modes differ
 * in the runtime's CPU limit alone; the runtime's quota runs on every other CPU. */
static void test_plan_client_as_pinned(void **state)
{
	static const struct {
		const char *tree;
		unsigned cpus;
		bool fixture;
	} cases[] = {{"vm2", 1, false},	    {"vm2", 1, true},	    {"smt2x8x2", 4, false}, {"smt2x8x2", 4, true},
		     {"smt2x8x2", 1, true}, {"smt2x8x2", 8, false}, {"isolated", 1, false}, {"offline", 1, false}};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cg_topo *t = load(cases[i].tree);
		struct cg_budget b = {.mode = CG_CPU_PINNED, .cpus = cases[i].cpus, .fixture = cases[i].fixture};
		struct cg_slice_plan pinned, other;
		struct hx_err err = {0};
		struct cg_cpus rest = t->online;

		assert_int_equal(cg_plan_slices(t, &t->online, &b, &pinned, &err), 0);
		for (enum cg_cpu_mode m = CG_CPU_QUOTA; m <= CG_CPU_NONE; m++) {
			b.mode = m;
			assert_int_equal(cg_plan_slices(t, &t->online, &b, &other, &err), 0);
			assert_true(other.client_as_pinned);
			assert_true(cg_cpus_equal(&other.limits[CG_SLICE_CLIENT].cpus,
						  &pinned.limits[CG_SLICE_CLIENT].cpus));
			assert_true(cg_cpus_equal(&other.limits[CG_SLICE_FIXTURE].cpus,
						  &pinned.limits[CG_SLICE_FIXTURE].cpus));
			assert_int_equal(other.fixture_shared, pinned.fixture_shared);
		}
		/* quota: the runtime on every CPU but the client's and the fixture's, pinned mode's own among them */
		b.mode = CG_CPU_QUOTA;
		assert_int_equal(cg_plan_slices(t, &t->online, &b, &other, &err), 0);
		cg_cpus_andnot(&rest, &pinned.limits[CG_SLICE_CLIENT].cpus);
		if (!pinned.fixture_shared)
			cg_cpus_andnot(&rest, &pinned.limits[CG_SLICE_FIXTURE].cpus);
		assert_true(cg_cpus_equal(&other.limits[CG_SLICE_SUT].cpus, &rest));
		{
			struct cg_cpus own = pinned.limits[CG_SLICE_SUT].cpus;

			cg_cpus_andnot(&own, &other.limits[CG_SLICE_SUT].cpus);
			assert_true(cg_cpus_empty(&own));
		}
		assert_false(other.sut_shares_client);
	}
}

static void test_plan_does_not_fit(void **state)
{
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	plan("vm2", CG_CPU_PINNED, 2, &p, &err, -1);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	plan("vm2", CG_CPU_QUOTA, 3, &p, &err, -1);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "quota mode can give the runtime at most 2"));
}

/* A duet's sut-b slice: exactly the sut's limits, in every mode; the other slices as they were. */
static void test_plan_duet(void **state)
{
	static const enum cg_cpu_mode modes[] = {CG_CPU_PINNED, CG_CPU_QUOTA, CG_CPU_NONE};
	struct cg_slice_plan p, before;
	struct hx_err err = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		plan("vm2", modes[i], 1, &p, &err, 0);
		before = p;
		cg_plan_duet(&p);
		assert_true(p.slices & (1u << CG_SLICE_SUT_B));
		assert_memory_equal(&p.limits[CG_SLICE_SUT_B], &p.limits[CG_SLICE_SUT], sizeof(p.limits[0]));
		assert_memory_equal(&p.limits[CG_SLICE_CLIENT], &before.limits[CG_SLICE_CLIENT], sizeof(p.limits[0]));
		assert_int_equal(p.slices & ~(1u << CG_SLICE_SUT_B), before.slices);
	}
	assert_string_equal(cg_slice_names[CG_SLICE_SUT_B], "sut-b");
}

static const enum cg_slice simul_slices[] = {CG_SLICE_SUT, CG_SLICE_SUT_B, CG_SLICE_CLIENT, CG_SLICE_CLIENT_B};

/* A simultaneous duet's four sets: pairwise disjoint, inside usable, the sides' of one size and the clients' of one
 * size, and the sides' with no SMT sibling in common where whole cores suffice. */
static void check_simul(const struct cg_slice_plan *p, const struct cg_cpus *usable, unsigned side, unsigned client)
{
	for (size_t i = 0; i < HX_ARRAY_SIZE(simul_slices); i++) {
		struct cg_cpus outside = p->limits[simul_slices[i]].cpus;

		assert_true(p->slices & (1u << simul_slices[i]));
		assert_int_equal(cg_cpus_count(&p->limits[simul_slices[i]].cpus), i < 2 ? side : client);
		cg_cpus_andnot(&outside, usable);
		assert_true(cg_cpus_empty(&outside));
		assert_true(p->limits[simul_slices[i]].memory_max > 0 && p->limits[simul_slices[i]].pids_max > 0);
		for (size_t j = i + 1; j < HX_ARRAY_SIZE(simul_slices); j++) {
			struct cg_cpus both = p->limits[simul_slices[i]].cpus;

			cg_cpus_and(&both, &p->limits[simul_slices[j]].cpus);
			assert_true(cg_cpus_empty(&both));
		}
	}
	assert_int_equal(p->limits[CG_SLICE_SUT].memory_max, p->limits[CG_SLICE_SUT_B].memory_max);
	assert_int_equal(p->limits[CG_SLICE_SUT].pids_max, p->limits[CG_SLICE_SUT_B].pids_max);
	assert_int_equal(p->limits[CG_SLICE_SUT].cpu_quota_us, 0);
	assert_false(p->slices & (1u << CG_SLICE_FIXTURE | 1u << CG_SLICE_NOISE));
}

static void test_plan_simul(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	struct cg_budget b = {.mode = CG_CPU_PINNED, .memory_max = 64 << 20, .simultaneous = true};
	struct cg_slice_plan p;
	struct hx_err err = {0};
	struct cg_cpus six;
	bool shared = true;

	(void)state;
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	check_simul(&p, &t->online, 4, 4); /* a quarter of 32, at most 4 */
	assert_int_equal(p.limits[CG_SLICE_SUT_B].memory_max, 64 << 20);
	assert_int_equal(cg_topo_siblings_shared(fixture("sysfs/smt2x8x2"), &p.limits[CG_SLICE_SUT].cpus,
						 &p.limits[CG_SLICE_SUT_B].cpus, &shared, &err),
			 0);
	assert_false(shared);
	b.cpus = 3;
	b.client_cpus = 1;
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	check_simul(&p, &t->online, 3, 1);
	/* the guest's 6 CPUs: one each, two left over */
	assert_int_equal(cg_cpus_parse("0-5", &six), 0);
	b.cpus = b.client_cpus = 0;
	assert_int_equal(cg_plan_slices(t, &six, &b, &p, &err), 0);
	check_simul(&p, &six, 1, 1);
}

/* Between blocks the sides exchange their sets and so do their clients; two swaps give the plan back. */
static void test_plan_simul_swap(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	struct cg_budget b = {.mode = CG_CPU_PINNED, .cpus = 2, .simultaneous = true};
	struct cg_slice_plan p, before;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	before = p;
	cg_plan_simul_swap(&p);
	assert_memory_equal(&p.limits[CG_SLICE_SUT].cpus, &before.limits[CG_SLICE_SUT_B].cpus, sizeof(struct cg_cpus));
	assert_memory_equal(&p.limits[CG_SLICE_SUT_B].cpus, &before.limits[CG_SLICE_SUT].cpus, sizeof(struct cg_cpus));
	assert_memory_equal(&p.limits[CG_SLICE_CLIENT].cpus, &before.limits[CG_SLICE_CLIENT_B].cpus,
			    sizeof(struct cg_cpus));
	assert_memory_equal(&p.limits[CG_SLICE_CLIENT_B].cpus, &before.limits[CG_SLICE_CLIENT].cpus,
			    sizeof(struct cg_cpus));
	assert_memory_not_equal(&p.limits[CG_SLICE_SUT].cpus, &before.limits[CG_SLICE_SUT].cpus,
				sizeof(struct cg_cpus));
	check_simul(&p, &t->online, 2, 2);
	cg_plan_simul_swap(&p);
	assert_memory_equal(&p, &before, sizeof(p));
}

/* Too few CPUs for four disjoint sets: exit 3 naming what it needs and the interleaved duet; other modes: exit 2. */
static void test_plan_simul_refused(void **state)
{
	const struct cg_topo *t = load("vm2");
	struct cg_budget b = {.mode = CG_CPU_PINNED, .simultaneous = true};
	struct cg_slice_plan p;
	struct hx_err err = {0};
	struct cg_cpus five;

	(void)state;
	assert_true(cg_plan_slices(t, &t->online, &b, &p, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "needs 4 usable CPUs"));
	assert_non_null(strstr(err.msg, "this host has 2"));
	assert_non_null(strstr(err.msg, "--duet interleaved"));
	t = load("smt2x8x2");
	assert_int_equal(cg_cpus_parse("0-4", &five), 0);
	b.cpus = 2;
	err = (struct hx_err){0};
	assert_true(cg_plan_slices(t, &five, &b, &p, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "needs 8 usable CPUs"));
	assert_non_null(strstr(err.msg, "try --cpus 1"));
	b.mode = CG_CPU_QUOTA;
	err = (struct hx_err){0};
	assert_true(cg_plan_slices(t, &t->online, &b, &p, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "pinned mode only"));
}

/* A simultaneous startup duet (no_client): two disjoint sets, a half of the host each (1 to 4), no client slice; the
 * 2-CPU VM fits one CPU a side, one CPU does not. */
static void test_plan_simul_no_client(void **state)
{
	const struct cg_topo *t = load("vm2");
	struct cg_budget b = {.mode = CG_CPU_PINNED, .simultaneous = true, .no_client = true};
	struct cg_slice_plan p;
	struct hx_err err = {0};
	struct cg_cpus both, one;

	(void)state;
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	assert_int_equal(p.slices, 1u << CG_SLICE_SUT | 1u << CG_SLICE_SUT_B);
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_SUT].cpus), 1);
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_SUT_B].cpus), 1);
	both = p.limits[CG_SLICE_SUT].cpus;
	cg_cpus_and(&both, &p.limits[CG_SLICE_SUT_B].cpus);
	assert_true(cg_cpus_empty(&both));
	assert_int_equal(p.limits[CG_SLICE_SUT].pids_max, p.limits[CG_SLICE_SUT_B].pids_max);
	t = load("smt2x8x2");
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_SUT].cpus), 4); /* a half of 32, at most 4 */
	assert_false(p.slices & (1u << CG_SLICE_CLIENT | 1u << CG_SLICE_CLIENT_B));
	assert_int_equal(cg_cpus_parse("3", &one), 0);
	err = (struct hx_err){0};
	assert_true(cg_plan_slices(t, &one, &b, &p, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "needs 2 usable CPUs (1 for each side); this host has 1"));
	assert_non_null(strstr(err.msg, "--duet interleaved"));
}

/* SMT siblings from thread_siblings_list: 0 and 16 are one core's threads on smt2x8x2, 0 and 1 are not. */
static void test_siblings_shared(void **state)
{
	struct cg_cpus a, b;
	struct hx_err err = {0};
	bool shared = false;

	(void)state;
	assert_int_equal(cg_cpus_parse("0", &a), 0);
	assert_int_equal(cg_cpus_parse("16", &b), 0);
	assert_int_equal(cg_topo_siblings_shared(fixture("sysfs/smt2x8x2"), &a, &b, &shared, &err), 0);
	assert_true(shared);
	assert_int_equal(cg_cpus_parse("1-3,17-19", &b), 0);
	assert_int_equal(cg_topo_siblings_shared(fixture("sysfs/smt2x8x2"), &a, &b, &shared, &err), 0);
	assert_false(shared);
	assert_int_equal(cg_topo_siblings_shared(fixture("sysfs/vm2"), &a, &b, &shared, &err), 0);
	assert_false(shared);
}

/* The prepare slice is limited in memory, processes and CPU time, on whatever CPUs harness may use. */
static void test_plan_prepare_limited(void **state)
{
	struct cg_limits l;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(cg_plan_prepare(&l, &err), 0);
	assert_int_equal(l.memory_max, (uint64_t)2 << 30);
	assert_int_equal(l.pids_max, 1024);
	assert_false(cg_cpus_empty(&l.cpus));
	assert_true(l.cpu_quota_us >= l.cpu_period_us && l.cpu_period_us > 0);
	assert_true(l.cpu_quota_us <= (uint64_t)(cg_cpus_count(&l.cpus) + 1) / 2 * l.cpu_period_us ||
		    cg_cpus_count(&l.cpus) == 1);
}

/* No slice of a plan is left without a memory and a pids limit, whatever the budget leaves out. */
static void test_plan_every_slice_limited(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	struct cg_budget b = {.mode = CG_CPU_PINNED, .cpus = 2, .fixture = true, .noise_cpus = 1};
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	assert_false(p.slices & (1u << CG_SLICE_SUT_B)); /* a duet's only (cg_plan_duet) */
	cg_plan_duet(&p);
	for (int s = 0; s < CG_NR_SLICES; s++) {
		if (s == CG_SLICE_CLIENT_B) { /* a simultaneous duet's only (test_plan_simul) */
			assert_false(p.slices & (1u << s));
			continue;
		}
		if (s == CG_SLICE_PREPARE) { /* a tree of its own, outside every trial's plan */
			assert_false(p.slices & (1u << s));
			continue;
		}
		assert_true(p.slices & (1u << s));
		assert_true(p.limits[s].memory_max > 0);
		assert_true(p.limits[s].pids_max > 0);
	}
	assert_int_equal(p.limits[CG_SLICE_SUT].memory_max, (uint64_t)2 << 30);
	assert_int_equal(p.limits[CG_SLICE_CLIENT].memory_max, (uint64_t)1 << 30);
	assert_int_equal(p.limits[CG_SLICE_NOISE].pids_max, 64);
	/* what the budget says wins */
	b.memory_max = 64 << 20;
	b.client_memory_max = 8 << 20;
	b.pids_max = 20;
	assert_int_equal(cg_plan_slices(t, &t->online, &b, &p, &err), 0);
	assert_int_equal(p.limits[CG_SLICE_SUT].memory_max, 64 << 20);
	assert_int_equal(p.limits[CG_SLICE_CLIENT].memory_max, 8 << 20);
	assert_int_equal(p.limits[CG_SLICE_SUT].pids_max, 20);
}

static void plan_fixture(const char *tree, enum cg_cpu_mode mode, unsigned cpus, struct cg_slice_plan *p)
{
	const struct cg_topo *t = load(tree);
	struct cg_budget b = {.mode = mode, .cpus = cpus, .fixture = true, .fixture_memory_max = 32 << 20};
	struct hx_err err = {0};

	assert_int_equal(cg_plan_slices(t, &t->online, &b, p, &err), 0);
	assert_true(p->slices & (1u << CG_SLICE_FIXTURE));
	assert_int_equal(p->limits[CG_SLICE_FIXTURE].memory_max, 32 << 20);
}

static void test_plan_fixture(void **state)
{
	struct cg_slice_plan p;

	(void)state;
	/* two CPUs: runtime and client take one each, the fixture shares the client's */
	plan_fixture("vm2", CG_CPU_PINNED, 1, &p);
	assert_true(p.fixture_shared);
	assert_cpus(&p.limits[CG_SLICE_FIXTURE].cpus, "0");
	assert_cpus(&p.limits[CG_SLICE_FIXTURE].mems, "0");
	/* sixteen cores: a whole core of its own, apart from the other two */
	plan_fixture("smt2x8x2", CG_CPU_PINNED, 4, &p);
	assert_false(p.fixture_shared);
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_FIXTURE].cpus), 1);
	{
		struct cg_cpus both = p.limits[CG_SLICE_FIXTURE].cpus;

		cg_cpus_and(&both, &p.limits[CG_SLICE_SUT].cpus);
		assert_true(cg_cpus_empty(&both));
		both = p.limits[CG_SLICE_FIXTURE].cpus;
		cg_cpus_and(&both, &p.limits[CG_SLICE_CLIENT].cpus);
		assert_true(cg_cpus_empty(&both));
	}
	/* quota: the runtime's quota counts, not its (whole-host) set */
	plan_fixture("smt2x8x2", CG_CPU_QUOTA, 4, &p);
	assert_false(p.fixture_shared);
	plan_fixture("vm2", CG_CPU_QUOTA, 1, &p);
	assert_true(p.fixture_shared);
}

static void test_plan_no_fixture(void **state)
{
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	plan("smt2x8x2", CG_CPU_PINNED, 4, &p, &err, 0);
	assert_false(p.slices & (1u << CG_SLICE_FIXTURE));
	assert_true(cg_cpus_empty(&p.limits[CG_SLICE_FIXTURE].cpus));
}

static int plan_noise(const char *tree, enum cg_cpu_mode mode, unsigned cpus, unsigned client_cpus, unsigned noise,
		      enum cg_noise_placement where, struct cg_slice_plan *p, struct hx_err *err)
{
	const struct cg_topo *t = load(tree);
	struct cg_budget b = {.mode = mode,
			      .cpus = cpus,
			      .client_cpus = client_cpus,
			      .noise_cpus = noise,
			      .noise_placement = where,
			      .noise_memory_max = 96 << 20};

	return cg_plan_slices(t, &t->online, &b, p, err);
}

/* No CPU of the noise on a core of the given slice. */
static void assert_apart(const struct cg_topo *t, const struct cg_slice_plan *p, enum cg_slice s)
{
	CG_CPUS_FOREACH (cpu, &p->limits[CG_SLICE_NOISE].cpus) {
		struct cg_cpus core;

		cg_topo_core_cpus(t, cpu, &core);
		cg_cpus_and(&core, &p->limits[s].cpus);
		if (!cg_cpus_empty(&core))
			fail_msg("noise CPU %d shares a core with the %s slice", cpu, cg_slice_names[s]);
	}
}

/* Two CPUs: the runtime and the client take one each; the noise can only share the client's, and says so. */
static void test_noise_vm2_shares_client(void **state)
{
	struct cg_slice_plan quiet, p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(plan_noise("vm2", CG_CPU_PINNED, 1, 0, 0, CG_NOISE_APART, &quiet, &err), 0);
	assert_int_equal(plan_noise("vm2", CG_CPU_PINNED, 1, 0, 2, CG_NOISE_APART, &p, &err), 0);
	assert_false(quiet.slices & (1u << CG_SLICE_NOISE));
	assert_true(p.slices & (1u << CG_SLICE_NOISE));
	assert_cpus(&p.limits[CG_SLICE_SUT].cpus, "1");
	assert_cpus(&p.limits[CG_SLICE_NOISE].cpus, "0");
	assert_int_equal(p.noise_shares, 1u << CG_SLICE_CLIENT);
	assert_int_equal(p.limits[CG_SLICE_NOISE].memory_max, 96 << 20);
	assert_int_equal(p.limits[CG_SLICE_NOISE].cpu_quota_us, 0); /* pinned: its set is its limit */
	/* the noise changes no other slice's placement */
	for (int s = 0; s < CG_SLICE_NOISE; s++)
		assert_true(cg_cpus_equal(&quiet.limits[s].cpus, &p.limits[s].cpus));
}

static void test_noise_smt_apart(void **state)
{
	const struct cg_topo *t = load("smt2x8x2");
	struct cg_slice_plan quiet, p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(plan_noise("smt2x8x2", CG_CPU_PINNED, 4, 4, 0, CG_NOISE_APART, &quiet, &err), 0);
	assert_int_equal(plan_noise("smt2x8x2", CG_CPU_PINNED, 4, 4, 3, CG_NOISE_APART, &p, &err), 0);
	t = load("smt2x8x2");
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_NOISE].cpus), 3);
	assert_apart(t, &p, CG_SLICE_SUT);
	assert_apart(t, &p, CG_SLICE_CLIENT);
	assert_int_equal(p.noise_shares, 0);
	for (int s = 0; s < CG_SLICE_NOISE; s++)
		assert_true(cg_cpus_equal(&quiet.limits[s].cpus, &p.limits[s].cpus));
}

/* The runtime holds every core of node 0 (12 CPUs on 8 cores), the client node 1's (12 on 8): the only
 * free CPUs are SMT siblings. The runtime's are never taken; the client's are, and recorded. */
static void test_noise_smt_never_the_runtimes_sibling(void **state)
{
	const struct cg_topo *t;
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(plan_noise("smt2x8x2", CG_CPU_PINNED, 12, 12, 2, CG_NOISE_APART, &p, &err), 0);
	t = load("smt2x8x2");
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_NOISE].cpus), 2);
	assert_apart(t, &p, CG_SLICE_SUT);
	assert_int_equal(p.noise_shares, 1u << CG_SLICE_CLIENT);
}

static void test_noise_smt_sibling(void **state)
{
	const struct cg_topo *t;
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(plan_noise("smt2x8x2", CG_CPU_PINNED, 4, 4, 2, CG_NOISE_SIBLING, &p, &err), 0);
	t = load("smt2x8x2");
	assert_int_equal(cg_cpus_count(&p.limits[CG_SLICE_NOISE].cpus), 2);
	CG_CPUS_FOREACH (cpu, &p.limits[CG_SLICE_NOISE].cpus) {
		struct cg_cpus core;

		assert_false(cg_cpus_test(&p.limits[CG_SLICE_SUT].cpus, (unsigned)cpu));
		cg_topo_core_cpus(t, cpu, &core);
		cg_cpus_and(&core, &p.limits[CG_SLICE_SUT].cpus);
		assert_int_equal(cg_cpus_count(&core), 1); /* the runtime's thread on the same core */
	}
	assert_int_equal(p.noise_shares, 1u << CG_SLICE_SUT);
}

static void test_noise_sibling_without_smt(void **state)
{
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	assert_true(plan_noise("vm2", CG_CPU_PINNED, 1, 0, 1, CG_NOISE_SIBLING, &p, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_non_null(strstr(err.msg, "1 thread(s) per core"));
	assert_non_null(strstr(err.msg, "--noise-placement apart"));
	hx_clear(&err);
	assert_true(plan_noise("vm2", CG_CPU_QUOTA, 1, 0, 1, CG_NOISE_SIBLING, &p, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
}

/* Quota and none: the noise may run anywhere, as a co-tenant would, limited to its threads' worth. */
static void test_noise_quota_anywhere(void **state)
{
	struct cg_slice_plan p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(plan_noise("vm2", CG_CPU_QUOTA, 1, 0, 1, CG_NOISE_APART, &p, &err), 0);
	assert_cpus(&p.limits[CG_SLICE_NOISE].cpus, "0-1");
	assert_int_equal(p.limits[CG_SLICE_NOISE].cpu_quota_us, 100000);
	assert_int_equal(p.noise_shares, 0);
	assert_int_equal(plan_noise("smt2x8x2", CG_CPU_NONE, 4, 4, 6, CG_NOISE_APART, &p, &err), 0);
	assert_cpus(&p.limits[CG_SLICE_NOISE].cpus, "0-31");
	assert_int_equal(p.limits[CG_SLICE_NOISE].cpu_quota_us, 600000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm2_one_each),
		cmocka_unit_test(test_vm2_too_many),
		cmocka_unit_test(test_cpu0_avoided),
		cmocka_unit_test(test_smt_whole_cores_first),
		cmocka_unit_test(test_smt_siblings_of_own_cores),
		cmocka_unit_test(test_smt_spans_nodes),
		cmocka_unit_test(test_offline_never_used),
		cmocka_unit_test(test_isolated_first_for_sut),
		cmocka_unit_test(test_plan_modes),
		cmocka_unit_test(test_plan_client_as_pinned),
		cmocka_unit_test(test_plan_does_not_fit),
		cmocka_unit_test(test_plan_fixture),
		cmocka_unit_test(test_plan_no_fixture),
		cmocka_unit_test(test_noise_vm2_shares_client),
		cmocka_unit_test(test_noise_smt_apart),
		cmocka_unit_test(test_noise_smt_never_the_runtimes_sibling),
		cmocka_unit_test(test_noise_smt_sibling),
		cmocka_unit_test(test_noise_sibling_without_smt),
		cmocka_unit_test(test_noise_quota_anywhere),
		cmocka_unit_test(test_plan_every_slice_limited),
		cmocka_unit_test(test_plan_duet),
		cmocka_unit_test(test_plan_simul),
		cmocka_unit_test(test_plan_simul_swap),
		cmocka_unit_test(test_plan_simul_refused),
		cmocka_unit_test(test_plan_simul_no_client),
		cmocka_unit_test(test_siblings_shared),
		cmocka_unit_test(test_plan_prepare_limited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
