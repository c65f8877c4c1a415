/* Within one run: quota against its pinned twin, paired by trial index, so that a disturbance both modes shared
 * cancels out; and the rule that flags a noisy trial from its evidence. */
#include "testutil.h"

#include <math.h>

#include "results/results.h"
#include "stats/signif.h"

/* Trials i of pinned and quota side by side; a drift common to both (±30%) and quota `factor` times pinned
 * with a little noise of its own. */
static void fill(struct res_doc *d, double factor, int failed_pinned)
{
	struct hx_err err = {0};

	assert_int_equal(res_doc_init(d, "9.9.9", "abc", &err), 0);
	for (unsigned i = 0; i < 8; i++) {
		double drift = 1 + 0.3 * ((double)((i * 5) % 8) / 7 - 0.5) * 2;

		for (int q = 0; q < 2; q++) {
			struct trial_result *t = res_doc_add(d);

			res_trial_init(t, "http-hello", "bun", q ? "quota" : "pinned", i + 1, 2 * i + 1 + (unsigned)q);
			t->have |= RES_HAVE_LOAD;
			t->load.rps = 50000 * drift * (q ? factor * (1 + 0.004 * ((i % 3) - 1.0)) : 1);
			if (!q && (int)i == failed_pinned)
				t->status = TRIAL_FAILED;
		}
	}
}

static void test_paired_finds_what_unpaired_cannot(void **state)
{
	struct res_doc d;
	struct res_summary *g = NULL;
	struct hx_err err = {0};
	double a[8], b[8];
	struct sig_test mw;
	size_t ng;

	(void)state;
	fill(&d, 0.93, -1);
	assert_int_equal(res_summarize(d.trials, d.ntrials, &g, &ng, &err), 0);
	assert_int_equal(ng, 2);
	assert_false(g[0].vs_pinned.have); /* pinned itself */
	assert_true(g[1].vs_pinned.have);
	assert_int_equal(g[1].vs_pinned.metric, RES_M_RPS);
	assert_true(g[1].vs_pinned.paired);
	assert_int_equal(g[1].vs_pinned.pairs, 8);
	assert_true(fabs(g[1].vs_pinned.p - 2.0 / 256) < 1e-12); /* every pair lower: exact signed-rank */
	assert_true(g[1].vs_pinned.ci95_low > 0.9 && g[1].vs_pinned.ci95_high < 0.95);
	assert_true(g[1].vs_pinned.significant);
	/* the same values unpaired: the shared drift swamps a 7% difference */
	for (size_t i = 0; i < 8; i++) {
		a[i] = d.trials[2 * i].load.rps;
		b[i] = d.trials[2 * i + 1].load.rps;
	}
	assert_int_equal(sig_mann_whitney(a, 8, b, 8, &mw), 0);
	assert_true(mw.p > 0.05);
	free(g);
	res_doc_free(&d);
}

static void test_no_difference_and_a_failed_twin(void **state)
{
	struct res_doc d;
	struct res_summary *g = NULL;
	struct hx_err err = {0};
	size_t ng;
	cJSON *j, *v;

	(void)state;
	fill(&d, 1.0, 3); /* pinned trial 4 failed: its quota partner has no pair */
	assert_int_equal(res_summarize(d.trials, d.ntrials, &g, &ng, &err), 0);
	assert_true(g[1].vs_pinned.have && g[1].vs_pinned.paired);
	assert_int_equal(g[1].vs_pinned.pairs, 7);
	assert_false(g[1].vs_pinned.significant);
	assert_true(g[1].vs_pinned.ci95_low <= 1 && g[1].vs_pinned.ci95_high >= 1);
	j = res_doc_json(&d, &err); /* the results file stores it with the quota summary */
	assert_non_null(j);
	v = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "summaries"), 1), "vs_pinned");
	assert_string_equal(cJSON_GetObjectItem(v, "test")->valuestring, "wilcoxon-signed-rank");
	assert_int_equal(cJSON_GetObjectItem(v, "pairs")->valueint, 7);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(v, "significant")));
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "summaries"), 0), "vs_pinned"));
	cJSON_Delete(j);
	free(g);
	res_doc_free(&d);
}

static void test_noisy_rule(void **state)
{
	struct trial_result t;
	struct cg_stats *sut = &t.slices[CG_SLICE_SUT];

	(void)state;
	res_trial_init(&t, "http-hello", "bun", "pinned", 1, 1);
	t.wall_s = 2;
	assert_int_equal(res_trial_noisy(&t), 0); /* no evidence, no flag */
	t.slices_have = 1u << CG_SLICE_SUT;
	sut->have[CG_STAT_NR_THROTTLED] = true;
	sut->psi[CG_PSI_CPU].have = true;
	sut->psi[CG_PSI_CPU].some_total_usec = 900000; /* 45% of the trial: a busy runtime of its own */
	assert_int_equal(res_trial_noisy(&t), 0);
	sut->psi[CG_PSI_CPU].some_total_usec = 1100000; /* 55%: something else wanted its CPU */
	assert_int_equal(res_trial_noisy(&t), 1u << RES_NOISY_CPU_PRESSURE);
	sut->v[CG_STAT_NR_THROTTLED] = 3;
	t.have |= RES_HAVE_LOAD;
	t.load.client.saturated = true;
	assert_int_equal(res_trial_noisy(&t), 7u);
	snprintf(t.mode, sizeof(t.mode), "quota"); /* throttling is what quota does */
	assert_int_equal(res_trial_noisy(&t), (1u << RES_NOISY_CPU_PRESSURE) | (1u << RES_NOISY_CLIENT_SATURATED));
	assert_string_equal(res_noisy_names[RES_NOISY_CPU_PRESSURE], "cpu_pressure");
}

/* Contended: PSI cpu full on the runtime's slice above 3% of the trial (measured: 0-1% quiet, 4-17% beside
 * other work); a slice its own quota throttled is not contended by someone else. */
static void test_contended_rule(void **state)
{
	struct trial_result t;
	struct cg_stats *sut = &t.slices[CG_SLICE_SUT];
	char why[256];

	(void)state;
	res_trial_init(&t, "http-hello", "bun", "pinned", 1, 1);
	t.wall_s = 2;
	t.slices_have = 1u << CG_SLICE_SUT;
	sut->have[CG_STAT_NR_THROTTLED] = true;
	sut->psi[CG_PSI_CPU].have = true;
	sut->psi[CG_PSI_CPU].some_total_usec = 600000; /* its own threads queueing for its one CPU: no flag */
	sut->psi[CG_PSI_CPU].full_total_usec = 20000;  /* 1%: a quiet host */
	assert_int_equal(res_trial_noisy(&t), 0);
	sut->psi[CG_PSI_CPU].full_total_usec = 250000; /* 12.5%: another process held its CPU */
	assert_int_equal(res_trial_noisy(&t), 1u << RES_NOISY_CONTENDED);
	assert_string_equal(res_noisy_names[RES_NOISY_CONTENDED], "contended");
	res_noisy_reason(&t, RES_NOISY_CONTENDED, why, sizeof(why));
	assert_string_equal(why,
			    "contended: none of the runtime's tasks could run while one waited for a CPU 0.25 s of "
			    "the trial's 2.0 s (above 3%: something else held its CPUs)");
	snprintf(t.mode, sizeof(t.mode), "quota");
	sut->v[CG_STAT_NR_THROTTLED] = 40; /* its budget stalled it, not a neighbour */
	assert_int_equal(res_trial_noisy(&t), 0);
}

/* The workerd trial of issue 20: p99 1.7 s and a max of 9.0 s in a 9.1 s load is a stall; 2 s in 9.1 s is
 * not (under a quarter); a chat round trip is judged the same way. */
static void test_stall_rule(void **state)
{
	struct trial_result t;

	(void)state;
	memset(&t, 0, sizeof(t));
	snprintf(t.mode, sizeof(t.mode), "pinned");
	t.have = RES_HAVE_LOAD;
	t.load.duration_s = 9.1;
	t.load.latency_us.p99 = 1.7e6;
	t.load.latency_us.max = 9.0e6;
	assert_int_equal(res_trial_noisy(&t), 1u << RES_NOISY_STALL);
	assert_string_equal(res_noisy_names[RES_NOISY_STALL], "stall");
	{
		char why[256];

		res_noisy_reason(&t, RES_NOISY_STALL, why, sizeof(why));
		assert_string_equal(why,
				    "stall: a request waited 9.0 s of a 9.1 s load (the rule: at least 1 s and 25% "
				    "of it)");
	}
	t.load.latency_us.max = 2.0e6;
	assert_int_equal(res_trial_noisy(&t), 0);
	t.load.duration_s = 0.85; /* a quick load's first answer: 0.79 s of 0.85 s, under the 1 s floor */
	t.load.latency_us.max = 0.79e6;
	assert_int_equal(res_trial_noisy(&t), 0);
	t.have = RES_HAVE_CHAT;
	t.chat.duration_s = 4;
	t.chat.rtt_us.max = 1.5e6; /* a chat round trip: the same rule */
	assert_int_equal(res_trial_noisy(&t), 1u << RES_NOISY_STALL);
}

/* Evidence from outside the trial: steal over a long enough window, other tasks on the runtime's CPUs over
 * enough samples, and a startup trial's runs spread wider than its scenario expects. */
static void test_outside_rules(void **state)
{
	struct trial_result t;
	char why[256];

	(void)state;
	res_trial_init(&t, "startup", "bun", "pinned", 1, 1);
	t.have = RES_HAVE_EXTERNAL;
	t.external.have_stat = true;
	t.external.seconds = 0.4; /* 40 ticks: 14% of them is noise in the clock, not a finding */
	t.external.steal_pct = 14.6;
	t.external.samples = 2;
	t.external.foreign_runnable_mean = 2;
	assert_int_equal(res_trial_noisy(&t), 0);
	t.external.seconds = 3;
	t.external.samples = 15;
	assert_int_equal(res_trial_noisy(&t), (1u << RES_NOISY_STEAL) | (1u << RES_NOISY_FOREIGN));
	t.external.steal_pct = 5.0; /* the rule is "more than" */
	t.external.foreign_runnable_mean = 0.3;
	t.external.foreign_runnable_max = 2;
	assert_int_equal(res_trial_noisy(&t), 0);
	t.external.foreign_runnable_mean = 0.5;
	assert_int_equal(res_trial_noisy(&t), 1u << RES_NOISY_FOREIGN);
	res_noisy_reason(&t, RES_NOISY_FOREIGN, why, sizeof(why));
	assert_string_equal(why, "foreign: 0.5 tasks outside the trial ran or waited on the runtime's CPUs on average "
				 "(at most 2; the rule: 0.5)");
	t.external.foreign_runnable_mean = 0;

	t.have |= RES_HAVE_STARTUP;
	t.startup.wall_ms.n = 30;
	t.startup.wall_ms.cv = 0.25;
	assert_int_equal(res_trial_noisy(&t), 0); /* no expectation (a file from before the rule): no flag */
	t.startup.expected_cv = RES_EXPECTED_CV;
	assert_int_equal(res_trial_noisy(&t), 1u << RES_NOISY_SPREAD);
	res_noisy_reason(&t, RES_NOISY_SPREAD, why, sizeof(why));
	assert_string_equal(why, "spread: the runs' CV was 25.0%, above the scenario's expected 20.0%");
	t.startup.expected_cv = 0.3;
	assert_int_equal(res_trial_noisy(&t), 0);
	assert_string_equal(res_noisy_names[RES_NOISY_SPREAD], "spread");
	assert_string_equal(res_noisy_names[RES_NOISY_STEAL], "steal");
}

/* Trials 1..8 of a quiet and of a second group (mode `mode`, noise `noise`), every second-group trial exactly
 * 1.10x its quiet twin of the same index, the values of different indices far apart; the trials in fail_q and
 * fail_o (-1: none) failed. */
static void fill_exact(struct res_doc *d, const char *mode, const char *noise, int fail_q, int fail_o, int fail_o2)
{
	struct hx_err err = {0};

	assert_int_equal(res_doc_init(d, "9.9.9", "abc", &err), 0);
	for (unsigned i = 0; i < 8; i++)
		for (int o = 0; o < 2; o++) {
			struct trial_result *t = res_doc_add(d);

			res_trial_init(t, "http-hello", "bun", o && mode ? mode : "pinned", i + 1,
				       2 * i + 1 + (unsigned)o);
			if (o && noise)
				snprintf(t->noise, sizeof(t->noise), "%s", noise);
			t->have |= RES_HAVE_LOAD;
			t->load.rps = 40000 * (1 + 0.1 * i) * (o ? 1.10 : 1);
			if ((!o && (int)i == fail_q) || (o && ((int)i == fail_o || (int)i == fail_o2)))
				t->status = TRIAL_FAILED;
		}
}

/* The isolation shift pairs quiet and noisy trials by trial index: before, by position, so that a quiet trial 3
 * and a noisy trial 6 that failed shifted every later pair; and its p was Mann-Whitney's beside a paired CI.
 * Every pair is exactly 1.10x: the shift, its CI and its signed-rank p say so. */
static void test_isolation_pairs_by_index(void **state)
{
	struct res_doc d;
	struct res_summary *g = NULL;
	struct hx_err err = {0};
	size_t ng;

	(void)state;
	fill_exact(&d, NULL, "cpu:1", 2, 5, -1);
	assert_int_equal(res_summarize(d.trials, d.ntrials, &g, &ng, &err), 0);
	assert_int_equal(ng, 2);
	assert_true(g[1].shift.have);
	assert_true(g[1].shift.paired);
	assert_int_equal(g[1].shift.pairs, 6);
	assert_true(fabs(g[1].shift.ratio - 1.10) < 1e-12);
	assert_true(fabs(g[1].shift.ci95_low - 1.10) < 1e-12 && fabs(g[1].shift.ci95_high - 1.10) < 1e-12);
	assert_true(fabs(g[1].shift.p - 2.0 / 64) < 1e-12); /* six pairs, all one way: exact signed-rank */
	free(g);
	res_doc_free(&d);
}

/* vs pinned: the ratio from the pairs its CI resampled. Before, from all trials: with two quota trials failed
 * the estimate (1.04x) fell outside its own CI (1.10-1.10). */
static void test_vs_pinned_estimate_from_pairs(void **state)
{
	struct res_doc d;
	struct res_summary *g = NULL;
	struct hx_err err = {0};
	size_t ng;

	(void)state;
	fill_exact(&d, "quota", NULL, -1, 6, 7);
	assert_int_equal(res_summarize(d.trials, d.ntrials, &g, &ng, &err), 0);
	assert_true(g[1].vs_pinned.have && g[1].vs_pinned.paired);
	assert_int_equal(g[1].vs_pinned.pairs, 6);
	assert_true(fabs(g[1].vs_pinned.ratio - 1.10) < 1e-12);
	assert_true(g[1].vs_pinned.ci95_low <= g[1].vs_pinned.ratio &&
		    g[1].vs_pinned.ratio <= g[1].vs_pinned.ci95_high);
	free(g);
	res_doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired_finds_what_unpaired_cannot),
		cmocka_unit_test(test_no_difference_and_a_failed_twin),
		cmocka_unit_test(test_noisy_rule),
		cmocka_unit_test(test_contended_rule),
		cmocka_unit_test(test_stall_rule),
		cmocka_unit_test(test_outside_rules),
		cmocka_unit_test(test_isolation_pairs_by_index),
		cmocka_unit_test(test_vs_pinned_estimate_from_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
