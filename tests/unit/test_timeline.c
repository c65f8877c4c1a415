/* The load's timeline (per-thread intervals merged after join, coarsened when full) and the trial's
 * timeline model: intervals sum to the totals exactly, JSON round trip, the steady and leak tests. */
#include "testutil.h"

#include <math.h>
#include <signal.h>
#include <sys/wait.h>

#include "load/timeline.h"
#include "report/html.h"
#include "report/report.h"
#include "results/results.h"
#include "run/sampler.h"
#include "stats/trend.h"

struct counters {
	uint64_t requests, bytes, errors[3];
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A thread's load of `events` responses at random gaps (some beyond an interval): counters and ticks as the
 * load client's hot loop makes them. */
static void drive(struct tl *t, struct counters *c, uint64_t origin, uint64_t seed, unsigned events, uint64_t max_gap)
{
	struct tl_totals tot = {&c->requests, &c->bytes, c->errors, 3};
	uint64_t now = origin;

	for (unsigned i = 0; i < events; i++) {
		now += xorshift(&seed) % max_gap;
		tl_tick(t, now, &tot);
		tl_latency(t, 1000 + xorshift(&seed) % 100000);
		c->requests++;
		c->bytes += 100 + xorshift(&seed) % 50;
		if (xorshift(&seed) % 17 == 0)
			c->errors[xorshift(&seed) % 3]++;
	}
	tl_close(t, &tot);
}

static void assert_sums(const struct tl *t, uint64_t requests, uint64_t bytes, uint64_t errors)
{
	uint64_t r = 0, b = 0, e = 0, hist = 0;

	for (unsigned i = 0; i < t->n; i++) {
		r += t->iv[i].requests;
		b += t->iv[i].bytes;
		e += t->iv[i].errors;
		for (unsigned k = 0; k < TL_BUCKETS; k++)
			hist += t->iv[i].counts[k];
	}
	assert_true(r == requests && b == bytes && e == errors);
	assert_true(hist == requests); /* every response's latency in some interval */
}

static void test_sums_exact_after_merge(void **state)
{
	struct tl a, b, sum;
	struct counters ca = {0}, cb = {0};
	uint64_t origin = 5000000000u;

	(void)state;
	assert_int_equal(tl_init(&a, origin, 1000000), 0);
	assert_int_equal(tl_init(&b, origin, 1000000), 0);
	/* b runs long enough to fill TL_MAX_INTERVALS and coarsen (twice as long intervals) */
	drive(&a, &ca, origin, 7, 20000, 50000);
	drive(&b, &cb, origin, 9, 5000, 800000);
	assert_true(b.interval_ns > a.interval_ns);
	assert_sums(&a, ca.requests, ca.bytes, ca.errors[0] + ca.errors[1] + ca.errors[2]);
	assert_sums(&b, cb.requests, cb.bytes, cb.errors[0] + cb.errors[1] + cb.errors[2]);
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(tl_merge(&sum, &a), 0);
	assert_int_equal(tl_merge(&sum, &b), 0);
	assert_true(sum.interval_ns == b.interval_ns);
	assert_true(sum.n <= TL_MAX_INTERVALS);
	assert_sums(&sum, ca.requests + cb.requests, ca.bytes + cb.bytes,
		    ca.errors[0] + ca.errors[1] + ca.errors[2] + cb.errors[0] + cb.errors[1] + cb.errors[2]);
	tl_free(&a);
	tl_free(&b);
	tl_free(&sum);
}

static void test_quantile_coarse(void **state)
{
	static struct tl_interval iv;
	uint64_t p50, p99;

	(void)state;
	for (uint64_t v = 1; v <= 1000; v++)
		iv.counts[hist_index(v * 1000) >> TL_SHIFT]++; /* 1 µs .. 1 ms, uniform */
	p50 = tl_quantile(&iv, 0.5);
	p99 = tl_quantile(&iv, 0.99);
	assert_true(fabs((double)p50 - 500000) <= 0.033 * 500000);
	assert_true(fabs((double)p99 - 990000) <= 0.033 * 990000);
	memset(&iv, 0, sizeof(iv));
	assert_true(tl_quantile(&iv, 0.5) == 0);
}

/* An interval without an answer has no latency (null in the JSON), never 0. */
static void test_empty_interval(void **state)
{
	struct tl t;
	struct res_timeline r;
	uint64_t req = 0, bytes = 0, errs = 0;
	struct tl_totals tot = {&req, &bytes, &errs, 1};

	(void)state;
	assert_int_equal(tl_init(&t, 1000, 100), 0);
	tl_tick(&t, 1010, &tot);
	tl_latency(&t, 5000);
	req++;
	tl_tick(&t, 1350, &tot); /* intervals 1 and 2 pass with nothing */
	tl_latency(&t, 7000);
	req++;
	tl_close(&t, &tot);
	assert_int_equal(res_timeline_from_tl(&t, &r), 0);
	assert_int_equal(r.n, 4);
	assert_true(r.requests[0] == 1 && r.requests[1] == 0 && r.requests[3] == 1);
	assert_true(isnan(r.p99_us[1]) && isnan(r.p50_us[2]));
	assert_true(fabs(r.p99_us[3] - 7) < 0.25);
	res_timeline_free(&r);
	tl_free(&t);
}

static void test_off(void **state)
{
	struct tl t;
	struct counters c = {0};

	(void)state;
	assert_int_equal(tl_init(&t, 1, 0), 0);
	drive(&t, &c, 1, 3, 100, 1000);
	assert_null(t.iv);
	tl_free(&t);
}

/* A timeline of n intervals of 100 ms: rps(i) requests/s, and RSS samples every 100 ms at
 * base + grow_per_req bytes per request answered so far, up to grow_until requests (jittered): past it,
 * a heap that has reached its working size. */
static void synth_until(struct res_timeline *t, unsigned n, double (*rps)(unsigned), double grow_per_req,
			double grow_until)
{
	uint64_t seed = 11;
	double done = 0;

	assert_int_equal(res_timeline_from_tl(&(struct tl){0}, t), 0);
	t->interval_ms = 100;
	t->n = n;
	t->requests = calloc(n, sizeof(uint64_t));
	t->errors = calloc(n, sizeof(uint64_t));
	t->bytes = calloc(n, sizeof(uint64_t));
	t->p50_us = calloc(n, sizeof(double));
	t->p99_us = calloc(n, sizeof(double));
	assert_int_equal(res_timeline_samples(t, n), 0);
	t->sample_ms = 100;
	for (unsigned i = 0; i < n; i++) {
		t->requests[i] = (uint64_t)(rps(i) / 10 + (double)(xorshift(&seed) % 40) - 20);
		t->bytes[i] = t->requests[i] * 120;
		t->p50_us[i] = 50;
		t->p99_us[i] = i == 3 ? NAN : 400;
		done += (double)t->requests[i];
		t->t_ms[i] = (i + 1) * 100.0;
		t->cpu_ms[i] = 95;
		t->rss_kb[i] = round(
			(50e6 + grow_per_req * fmin(done, grow_until) + (double)(xorshift(&seed) % 200000)) / 1024);
		t->memory_kb[i] = t->rss_kb[i] + 1000;
	}
	res_timeline_analyse(t);
}

static void synth(struct res_timeline *t, unsigned n, double (*rps)(unsigned), double grow_per_req)
{
	synth_until(t, n, rps, grow_per_req, INFINITY);
}

static double flat(unsigned i)
{
	(void)i;
	return 10000;
}

static double speeding_up(unsigned i)
{
	return 5000 + 100.0 * i; /* 5k -> 13k req/s over 8 s */
}

static void test_steady_and_leak(void **state)
{
	struct res_timeline t;

	(void)state;
	synth(&t, 80, flat, 0);
	assert_true(t.steady.tested && !t.steady.not_steady);
	assert_true(t.growth.tested && !t.growth.leak);
	res_timeline_free(&t);
	synth(&t, 80, speeding_up, 0);
	assert_true(t.steady.not_steady);
	assert_true(t.steady.change > 0.5);
	res_timeline_free(&t);
	synth(&t, 80, flat, 4096); /* keeps 4 KB a request */
	assert_true(t.growth.leak);
	assert_true(fabs(t.growth.rss - 4096 * 1000) < 0.05 * 4096 * 1000);
	assert_true(t.growth.rss_low < 4096 * 1000 && t.growth.rss_high > 4096 * 1000);
	assert_true(!t.steady.not_steady);
	res_timeline_free(&t);
	synth(&t, 5, flat, 4096); /* too short to say */
	assert_false(t.steady.tested || t.growth.tested);
	res_timeline_free(&t);
}

/* A heap that grows to its working size in the first part of the load and then stays (V8's young generation
 * sizing up on a hello server) is not a leak: a leak is growth that lasts to the end of the phase. Both shapes
 * were flagged before the rule asked for growth in the phase's last half too. */
static void test_plateau_is_not_leak(void **state)
{
	struct res_timeline t;

	(void)state;
	synth_until(&t, 80, flat, 4096, 50000); /* 50 of 80 intervals growing 4 KB a request, then flat */
	assert_true(t.growth.tested && t.growth.rss > RES_LEAK_MIN_BYTES_PER_1K && t.growth.rss_low > 0);
	assert_false(t.growth.leak);
	res_timeline_free(&t);
	synth_until(&t, 12, flat, 2500, 4000); /* a 1.2 s trial: 4 intervals growing, 8 flat (quick's node24) */
	assert_false(t.growth.leak);
	res_timeline_free(&t);
	synth(&t, 12, flat, 4096); /* a leak of 4 KB a request over the same 1.2 s: too short to tell it apart */
	assert_true(t.growth.tested && t.growth.rss_late_low > 0 && !t.growth.leak);
	res_timeline_free(&t);
	synth(&t, 20, flat, 4096); /* over 2 s it is one */
	assert_true(t.growth.leak && fabs(t.growth.rss - 4096 * 1000) < 0.05 * 4096 * 1000);
	res_timeline_free(&t);
}

/* tests/fixtures/trend/steady_fp.py's counts over the same series: how many of TRIALS steady AR(1) series of
 * m tested intervals the rule flags, and how many the rule before it did (plain Mann-Kendall p < 0.01 and the
 * Theil-Sen line moving more than 10%). */
#define FP_TRIALS 2000
static const struct {
	unsigned m;
	double phi;
	unsigned flagged, flagged_before;
} fp_cases[] = {
	{20, 0, 6, 17},
	{20, 0.5, 81, 200},
	{20, 0.80000000000000004, 251, 575},
	{45, 0.5, 4, 230},
};

/* 50000 req/s, 15% AR(1) noise of lag-1 correlation phi: tests/fixtures/trend/gen.py's ar1(). */
static void ar1_rps(uint64_t seed, unsigned n, double phi, double *y)
{
	double e = 0;

	for (unsigned i = 0; i < n + 50; i++) {
		double u1, u2;

		u1 = ((double)(xorshift(&seed) >> 11) + 0.5) / (double)(UINT64_C(1) << 53);
		u2 = (double)(xorshift(&seed) >> 11) / (double)(UINT64_C(1) << 53);
		e = phi * e + sqrt(1 - phi * phi) * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		if (i >= 50)
			y[i - 50] = 50000 * (1 + 0.15 * e);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static bool flagged_before(const struct res_timeline *t)
{
	unsigned lead = res_steady_lead(t), m = t->n - lead - 1;
	double x[64], y[64], sorted[64];
	struct trend_mk mk;
	struct trend_ts ts;

	for (unsigned i = 0; i < m; i++) {
		x[i] = (i + 1) * 0.1;
		y[i] = sorted[i] = (double)t->requests[i + lead] / 0.1;
	}
	qsort(sorted, m, sizeof(*sorted), cmp_double);
	trend_mann_kendall(y, m, &mk);
	assert_int_equal(trend_theil_sen(x, y, m, &ts), 0);
	return mk.p < 0.01 && fabs(ts.slope * (x[m - 1] - x[0]) / trend_quantile_sorted(sorted, m, 0.5)) > 0.10;
}

/* A steady server on a shared host: its 100 ms intervals are correlated (a slow stretch spans several), which
 * the plain Mann-Kendall test takes for a trend. */
static void test_steady_false_positives(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(fp_cases) / sizeof(fp_cases[0]); c++) {
		unsigned m = fp_cases[c].m, flagged = 0, before = 0, lead;
		double y[64];

		for (unsigned k = 0; k < FP_TRIALS; k++) {
			struct res_timeline t;

			ar1_rps(1 + k + 100000 * (uint64_t)c, m + 2, fp_cases[c].phi, y);
			assert_int_equal(res_timeline_from_tl(&(struct tl){0}, &t), 0);
			t.interval_ms = 100;
			/* the series' first value is the lead-in's (untested), the last the partial interval */
			lead = res_steady_lead(&t);
			t.n = m + lead + 1;
			t.requests = calloc(t.n, sizeof(*t.requests));
			for (unsigned i = 0; i < t.n; i++)
				t.requests[i] = (uint64_t)floor(y[i < lead ? 0 : i - lead + 1] / 10 + 0.5);
			res_timeline_analyse(&t);
			assert_int_equal(t.steady.intervals, m);
			assert_true(t.steady.tested);
			flagged += t.steady.not_steady;
			before += flagged_before(&t);
			res_timeline_free(&t);
		}
		printf("# steady AR(1) series, %u intervals, lag-1 correlation %.1f: %u of %u flagged not_steady "
		       "(%.1f%%); the rule before: %u (%.1f%%)\n",
		       m, fp_cases[c].phi, flagged, FP_TRIALS, 100.0 * flagged / FP_TRIALS, before,
		       100.0 * before / FP_TRIALS);
		/* numpy/scipy counted the same series alike (a value on a knife's edge may round otherwise) */
		assert_true(abs((int)flagged - (int)fp_cases[c].flagged) <= 2);
		assert_true(abs((int)before - (int)fp_cases[c].flagged_before) <= 2);
		assert_true(flagged * 2 < before);
		if (fp_cases[c].phi <= 0.5) /* at 1% on independent intervals, at most 5% on correlated ones */
			assert_true(flagged <= (fp_cases[c].phi == 0 ? 0.01 : 0.05) * FP_TRIALS);
	}
}

static void timeline_of(struct res_timeline *t, const double *rps, unsigned n)
{
	assert_int_equal(res_timeline_from_tl(&(struct tl){0}, t), 0);
	t->interval_ms = 100;
	t->n = n;
	t->requests = calloc(n, sizeof(*t->requests));
	for (unsigned i = 0; i < n; i++)
		t->requests[i] = (uint64_t)floor(rps[i] / 10 + 0.5);
	res_timeline_analyse(t);
}

/* timeline-speedup's server (each answer spins 1 ms falling to nothing over 4 s; 4 connections, 60 µs an
 * answer besides) measured from its first 50 ms: a curve, flat then steep, that a line fitted to it would
 * leave as correlated residuals; and two of timeline-steady's trials on the shared host (requests per 100 ms
 * after the first), flagged by the rule before for one slow stretch each, that are steady. */
static void test_steady_curve_and_bursts(void **state)
{
	static const double burst1[] = {1498, 2937, 5361, 3976, 4746, 4103, 3995, 5599, 6133, 2895, 2444,
					1856, 5189, 5459, 4790, 6483, 6552, 6504, 6365, 5835, 6516, 764},
			    burst2[] = {1418, 3371, 5800, 6361, 3715, 3544, 4747, 4803, 4956, 4898,
					5938, 6915, 6079, 6849, 6784, 6281, 5228, 6677, 5636};
	double y[64], rps[64];
	struct res_timeline t;
	unsigned flagged = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		ar1_rps(seed, 48, 0.5, y);
		for (unsigned i = 0; i < 48; i++) {
			double at = 0.05 + 0.1 * i, spin = at < 4 ? 1e-3 * (1 - at / 4) : 0;

			rps[i] = 4 / (spin + 60e-6) * y[i] / 50000;
		}
		timeline_of(&t, rps, 48);
		flagged += t.steady.not_steady;
		assert_true(t.steady.change > 1);
		res_timeline_free(&t);
	}
	assert_int_equal(flagged, 20);
	for (unsigned i = 0; i < sizeof(burst1) / sizeof(burst1[0]); i++)
		rps[i] = burst1[i] * 10;
	timeline_of(&t, rps, sizeof(burst1) / sizeof(burst1[0]));
	assert_true(t.steady.tested && !t.steady.not_steady);
	assert_true(t.steady.rho > 0.3); /* the slow stretch spans three intervals */
	res_timeline_free(&t);
	for (unsigned i = 0; i < sizeof(burst2) / sizeof(burst2[0]); i++)
		rps[i] = burst2[i] * 10;
	timeline_of(&t, rps, sizeof(burst2) / sizeof(burst2[0]));
	assert_true(t.steady.tested && !t.steady.not_steady);
	res_timeline_free(&t);
}

/* The measured phase's lead-in is not tested: timeline-steady's trials on node20 (requests per 100 ms) whose
 * first 300 ms were the server's answer to the measured client after the warm-up's (deoptimised functions
 * optimised again on its one CPU), then steady, which the test flagged from the second interval on; and one after
 * a warm-up of 10,000 requests that steps up where V8's young generation grew (~79,500 requests into the
 * server's life), flagged still. 300 ms is three intervals at 100 ms, eight at 40, one at 500. */
static void test_steady_lead_in(void **state)
{
	static const double lead1[] = {1060, 2090, 4024, 4514, 5737, 5827, 5961, 6392, 6902, 6058,
				       6403, 5726, 6169, 6520, 6349, 6444, 6575, 5979, 1270},
			    lead2[] = {1425, 1073, 3237, 3958, 4498, 3496, 3874, 3675, 4664, 5837, 5773,
				       4321, 3585, 5401, 5862, 4705, 5340, 5469, 6286, 6053, 5897, 5571},
			    young[] = {1726, 4132, 5712, 3849, 3294, 4162, 3967, 4415, 4784, 4432,
				       3984, 4656, 4697, 6219, 7220, 6254, 6955, 7267, 6813, 5462};
	const struct {
		const double *v;
		unsigned n;
		bool not_steady;
	} cases[] = {{lead1, sizeof(lead1) / sizeof(lead1[0]), false},
		     {lead2, sizeof(lead2) / sizeof(lead2[0]), false},
		     {young, sizeof(young) / sizeof(young[0]), true}};
	struct res_timeline t = {.interval_ms = 40};
	double rps[64];

	(void)state;
	assert_int_equal(res_steady_lead(&t), 8);
	t.interval_ms = 500;
	assert_int_equal(res_steady_lead(&t), 1);
	t.interval_ms = 100;
	assert_int_equal(res_steady_lead(&t), 3);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (unsigned i = 0; i < cases[c].n; i++)
			rps[i] = cases[c].v[i] * 10;
		timeline_of(&t, rps, cases[c].n);
		assert_true(t.steady.tested && t.steady.intervals == cases[c].n - 4);
		assert_true(t.steady.not_steady == cases[c].not_steady);
		res_timeline_free(&t);
	}
}

static void test_round_trip(void **state)
{
	struct res_doc d, back;
	struct hx_err err = {0};
	struct trial_result *tr;
	char dir[] = "/tmp/test-timeline-XXXXXX", path[64];
	cJSON *a, *b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	tr = res_doc_add(&d);
	res_trial_init(tr, "http-hello", "node24", "pinned", 1, 1);
	snprintf(tr->workload, sizeof(tr->workload), "http");
	synth(&tr->timeline, 80, speeding_up, 4096);
	tr->warmup_auto =
		(struct res_warmup){.have = true, .steady = true, .rounds = 3, .requests = 7000, .seconds = 4.25};
	assert_int_equal(res_write(&d, path, &err), 0);
	assert_int_equal(res_read(path, &back, &err), 0);
	assert_int_equal(back.ntrials, 1);
	a = res_trial_json(&d.trials[0]);
	b = res_trial_json(&back.trials[0]);
	assert_true(cJSON_Compare(a, b, true));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "timeline"), "server"));
	cJSON_Delete(a);
	cJSON_Delete(b);
	assert_int_equal(back.trials[0].timeline.n, 80);
	assert_int_equal(back.trials[0].timeline.ns, 80);
	assert_true(back.trials[0].timeline.requests[7] == d.trials[0].timeline.requests[7]);
	assert_true(isnan(back.trials[0].timeline.p99_us[3])); /* an empty interval stays empty */
	assert_true(back.trials[0].timeline.growth.leak && back.trials[0].timeline.steady.not_steady);
	assert_true(res_trial_noisy(&back.trials[0]) & (1u << RES_NOISY_NOT_STEADY));
	assert_true(back.trials[0].warmup_auto.have && back.trials[0].warmup_auto.steady);
	assert_true(back.trials[0].warmup_auto.rounds == 3 && back.trials[0].warmup_auto.requests == 7000);
	assert_true(back.trials[0].warmup_auto.seconds == 4.25);
	{ /* the text report says what the timeline found */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_int_equal(report_render(&back, RPT_TABLE, f, &err), 0);
		fclose(f);
		assert_non_null(
			strstr(text, "http-hello node24 pinned trial 1: leak: RSS +4000 KB per 1,000 requests"));
		assert_non_null(strstr(text, "not steady: throughput +"));
		assert_non_null(strstr(text, "warm-up (auto): 3 rounds, 4.2 s, 7000 requests, steady"));
		free(text);
		f = open_memstream(&text, &len);
		assert_int_equal(html_render(&back, "r.json", f, &err), 0);
		fclose(f);
		{ /* four charts sharing the time axis, the flagged trial named */
			const char *fig = strstr(text, "data-chart=\"timeline\""), *p = fig;
			int charts = 0;

			assert_non_null(fig);
			while ((p = strstr(p + 1, "<svg")) && p < strstr(fig, "</figure>"))
				charts++;
			assert_int_equal(charts, 4);
			assert_non_null(strstr(fig, "Dashed: flagged node24 trial 1 (not_steady, leak)"));
		}
		free(text);
	}
	res_doc_free(&d);
	res_doc_free(&back);
	unlink(path);
	rmdir(dir);
}

/* d written, read back and rendered as the HTML page (the report's own path); the page, malloc'd. */
static void page_of(struct res_doc *d, char **ret_text)
{
	struct res_doc back;
	struct hx_err err = {0};
	char dir[] = "/tmp/test-timeline-XXXXXX", path[64];
	size_t len = 0;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(res_write(d, path, &err), 0);
	assert_int_equal(res_read(path, &back, &err), 0);
	f = open_memstream(ret_text, &len);
	assert_int_equal(html_render(&back, "r.json", f, &err), 0);
	fclose(f);
	res_doc_free(&back);
	unlink(path);
	rmdir(dir);
}

/* The count of needle in [from, to). */
static unsigned count_in(const char *from, const char *to, const char *needle)
{
	unsigned n = 0;

	for (const char *p = from; (p = strstr(p, needle)) && p < to; p++)
		n++;
	return n;
}

static struct trial_result *http_trial(struct res_doc *d, const char *scn, const char *runtime, const char *mode,
				       unsigned trial, double (*rps)(unsigned), double grow)
{
	struct trial_result *tr = res_doc_add(d);

	res_trial_init(tr, scn, runtime, mode, trial, trial);
	snprintf(tr->workload, sizeof(tr->workload), "http");
	synth(&tr->timeline, 60, rps, grow);
	return tr;
}

/* Small multiples: one figure per runtime x mode cell of the scenario, in the page's runtime order, with that
 * cell's trials and no other's; two charts each (throughput with p99, RSS with CPU); a flagged trial dashed
 * and named in its own cell only. */
static void test_html_cells(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	const char *cell[3], *end;
	char *text = NULL;

	(void)state;
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	http_trial(&d, "http-hello", "node24", "pinned", 1, flat, 0);
	http_trial(&d, "http-hello", "bun", "pinned", 1, flat, 0);
	http_trial(&d, "http-hello", "node24", "quota", 1, flat, 0);
	http_trial(&d, "http-hello", "node24", "pinned", 2, speeding_up, 4096); /* not_steady and leak */
	http_trial(&d, "http-hello", "bun", "pinned", 2, flat, 0);
	http_trial(&d, "http-other", "deno", "pinned", 1, flat, 0); /* another scenario's cell */
	assert_true(d.trials[3].timeline.steady.not_steady && d.trials[3].timeline.growth.leak);
	page_of(&d, &text);
	cell[0] = strstr(text, "<figure data-chart=\"timeline-cell\" data-runtime=\"node24\" data-mode=\"pinned\"");
	cell[1] = strstr(text, "<figure data-chart=\"timeline-cell\" data-runtime=\"node24\" data-mode=\"quota\"");
	cell[2] = strstr(text, "<figure data-chart=\"timeline-cell\" data-runtime=\"bun\" data-mode=\"pinned\"");
	assert_true(cell[0] && cell[1] && cell[2]);
	assert_true(cell[0] < cell[1] && cell[1] < cell[2]); /* node24 first, as in the page's order */
	end = strstr(cell[2], "</div>");
	assert_non_null(end);
	/* http-hello's three cells, then http-other's one */
	assert_int_equal(count_in(strstr(text, "data-scenario=\"http-hello\""), end, "data-chart=\"timeline-cell\""),
			 3);
	assert_int_equal(count_in(text, text + strlen(text), "data-chart=\"timeline-cell\""), 4);
	assert_non_null(strstr(end, "data-chart=\"timeline-cell\" data-runtime=\"deno\""));
	for (int k = 0; k < 3; k++) {
		const char *stop = strstr(cell[k], "</figure>");

		assert_int_equal(count_in(cell[k], stop, "<svg"), 2);
		assert_int_equal(count_in(cell[k], stop, "<title id=\"chart-"), 2);
		/* each trial a line per series: throughput and p99, then RSS and CPU */
		assert_int_equal(count_in(cell[k], stop, "<polyline"), k == 1 ? 4 : 8);
		assert_int_equal(count_in(cell[k], stop, "stroke-dasharray"), k == 0 ? 4 : 0);
	}
	assert_non_null(
		strstr(cell[0], "node24 · pinned: 2 trials</strong>; dashed: trial 2 (not_steady, leak)</figcaption>"));
	assert_non_null(strstr(cell[1], "node24 · quota: 1 trial</strong></figcaption>"));
	assert_non_null(strstr(cell[2], "bun · pinned: 2 trials</strong></figcaption>"));
	assert_non_null(strstr(cell[0], "throughput and p99 over the measured load"));
	assert_non_null(strstr(cell[0], "server RSS and CPU over the measured load"));
	free(text);
	res_doc_free(&d);
}

/* A route-matrix trial's cell into tr: route at conns, its timeline synthesised. */
static void matrix_cell(struct trial_result *tr, const char *route, unsigned conns, double (*rps)(unsigned),
			double grow)
{
	struct res_cell *c = res_cell_add(tr);

	assert_non_null(c);
	snprintf(c->route, sizeof(c->route), "%s", route);
	c->connections = conns;
	synth(&c->timeline, 50, rps, grow);
	for (unsigned i = 0; i < c->timeline.n; i++)
		c->load.requests += c->timeline.requests[i];
	c->load.duration_s = 5;
}

static struct trial_result *matrix_trial(struct res_doc *d, const char *runtime, unsigned trial)
{
	struct trial_result *tr = res_doc_add(d);

	res_trial_init(tr, "route-matrix", runtime, "pinned", trial, trial);
	snprintf(tr->workload, sizeof(tr->workload), "http");
	return tr;
}

/* A route matrix's trials keep a timeline per cell and none of their own: no overview, but small multiples, a
 * figure per runtime x mode x route x connections with that cell's trials overlaid, in the page's runtime
 * order and each trial's cell order; a flagged cell dashed and named in its own figure only. */
static void test_html_matrix_cells(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	struct trial_result *tr;
	const char *fig[4], *end;
	char *text = NULL;

	(void)state;
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	matrix_cell(matrix_trial(&d, "node24", 1), "version", 10, flat, 0);
	for (unsigned k = 1; k <= 2; k++) {
		tr = matrix_trial(&d, "bun", k);
		matrix_cell(tr, "version", 10, flat, 0);
		matrix_cell(tr, "search", 10, k == 2 ? speeding_up : flat, k == 2 ? 4096 : 0);
		matrix_cell(tr, "version", 50, flat, 0);
	}
	assert_true(d.trials[2].cells[1].timeline.steady.not_steady && d.trials[2].cells[1].timeline.growth.leak);
	page_of(&d, &text);
	assert_null(strstr(text, "data-chart=\"timeline\"")); /* no trial kept a timeline of its own */
	fig[0] = strstr(text, "data-runtime=\"node24\" data-mode=\"pinned\" data-scenario=\"route-matrix\" "
			      "data-route=\"version\" data-connections=\"10\">");
	fig[1] = strstr(text, "data-runtime=\"bun\" data-mode=\"pinned\" data-scenario=\"route-matrix\" "
			      "data-route=\"version\" data-connections=\"10\">");
	fig[2] = strstr(text, "data-runtime=\"bun\" data-mode=\"pinned\" data-scenario=\"route-matrix\" "
			      "data-route=\"search\" data-connections=\"10\">");
	fig[3] = strstr(text, "data-runtime=\"bun\" data-mode=\"pinned\" data-scenario=\"route-matrix\" "
			      "data-route=\"version\" data-connections=\"50\">");
	assert_true(fig[0] && fig[1] && fig[2] && fig[3]);
	assert_true(fig[0] < fig[1] && fig[1] < fig[2] && fig[2] < fig[3]);
	assert_non_null(end = strstr(fig[3], "</div>"));
	assert_int_equal(count_in(text, text + strlen(text), "data-chart=\"timeline-cell\""), 4);
	for (int k = 0; k < 4; k++) {
		const char *stop = strstr(fig[k], "</figure>");
		unsigned trials = k == 0 ? 1 : 2;

		assert_int_equal(count_in(fig[k], stop, "<svg"), 2);
		/* each trial a line per series: throughput and p99, then RSS and CPU */
		assert_int_equal(count_in(fig[k], stop, "<polyline"), 4 * trials);
		assert_int_equal(count_in(fig[k], stop, "stroke-dasharray"), k == 2 ? 4 : 0);
	}
	assert_non_null(strstr(fig[0], "node24 · pinned · version × 10: 1 trial</strong></figcaption>"));
	assert_non_null(strstr(fig[2], "bun · pinned · search × 10: 2 trials</strong>; dashed: trial 2 (not_steady, "
				       "leak)</figcaption>"));
	assert_non_null(strstr(fig[3], "bun · pinned · version × 50: 2 trials</strong></figcaption>"));
	assert_non_null(strstr(fig[2], "route search at 10 connections: throughput and p99 over the measured cell"));
	assert_non_null(strstr(fig[2], "route search at 10 connections: server RSS and CPU over the measured cell"));
	free(text);
	res_doc_free(&d);
}
/* The largest x of the points of the first polyline after p. */
static double polyline_max_x(const char *p)
{
	const char *q = strstr(strstr(p, "<polyline"), "points=\"") + 8, *e = strchr(q, '"');
	double hi = -1;

	while (q < e) {
		char *next;
		double x = strtod(q, &next);

		if (next == q)
			break;
		hi = fmax(hi, x);
		strtod(next + 1, &next);
		q = next;
	}
	return hi;
}

/* A memory run's phases: marked from the monotonic clock against the origin, kept in the file in order (a name
 * not known, a time going back or out of range is left out on reading), and drawn as labelled bands over a
 * time axis that reaches the last sample, which the sampler took after the load. */
static void test_memory_phases(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	struct trial_result *tr;
	struct res_timeline back;
	const char *cell, *stop, *rss;
	char *text = NULL;
	cJSON *o;
	uint64_t origin = UINT64_C(5000000000);

	(void)state;
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	tr = http_trial(&d, "http-hello", "node24", "pinned", 1, flat, 0);
	/* 6 s of load, then samples on through 2 s idle and a restart: 40 more samples, to 10 s */
	res_timeline_free(&tr->timeline);
	synth(&tr->timeline, 60, flat, 0);
	{
		struct res_timeline *t = &tr->timeline;
		unsigned n = 100;

		free(t->t_ms), free(t->cpu_ms), free(t->memory_kb), free(t->rss_kb);
		assert_int_equal(res_timeline_samples(t, n), 0);
		for (unsigned i = 0; i < n; i++) {
			t->t_ms[i] = (i + 1) * 100.0;
			t->cpu_ms[i] = i < 60 ? 95 : 1;
			t->rss_kb[i] = i < 60 ? 60000 : i < 80 ? 50000 : i < 85 ? NAN : 30000;
			t->memory_kb[i] = t->rss_kb[i];
		}
		t->origin_ns = origin;
		res_timeline_phase(t, RES_TL_LOAD, origin);
		res_timeline_phase(t, RES_TL_IDLE_HINT, origin + UINT64_C(6000000000));
		res_timeline_phase(t, RES_TL_RESTART, origin + UINT64_C(8000000000));
		res_timeline_phase(t, RES_TL_AFTER_RESTART, origin + UINT64_C(8512300000));
		res_timeline_analyse(t);
		assert_int_equal(t->nphases, 4);
		assert_true(t->phases[3].t_ms == 8512.3);
	}
	o = res_timeline_json(&tr->timeline, false);
	{
		char *js = cJSON_PrintUnformatted(cJSON_GetObjectItem(o, "phases"));

		assert_string_equal(
			js, "[{\"name\":\"load\",\"t_ms\":0},{\"name\":\"idle_after_hint\",\"t_ms\":6000},"
			    "{\"name\":\"restart\",\"t_ms\":8000},{\"name\":\"after_restart\",\"t_ms\":8512.3}]");
		free(js);
	}
	/* a file's phases: the unknown name, the time going back and the negative one are left out */
	cJSON_ReplaceItemInObject(
		o, "phases",
		cJSON_Parse("[{\"name\":\"load\",\"t_ms\":0},{\"name\":\"<b>\",\"t_ms\":1},{\"name\":\"idle\",\"t_ms\":"
			    "6000},{\"name\":\"restart\",\"t_ms\":5000},{\"name\":\"restart\",\"t_ms\":-1},"
			    "{\"name\":\"after_restart\",\"t_ms\":9000},{\"name\":7,\"t_ms\":9500}]"));
	assert_int_equal(res_timeline_parse(o, &back), 0);
	assert_int_equal(back.nphases, 3);
	assert_true(back.phases[1].phase == RES_TL_IDLE && back.phases[1].t_ms == 6000);
	assert_true(back.phases[2].phase == RES_TL_AFTER_RESTART);
	/* the growth over the load only: the idle samples' drop is not a shrinking heap per request */
	assert_true(back.growth.tested && fabs(back.growth.rss) < 1000);
	res_timeline_free(&back);
	cJSON_Delete(o);
	http_trial(&d, "http-hello", "node24", "pinned", 2, flat, 0); /* no memory run: no phases */
	page_of(&d, &text);
	cell = strstr(text, "<figure data-chart=\"timeline-cell\" data-runtime=\"node24\" data-mode=\"pinned\"");
	assert_non_null(cell);
	stop = strstr(cell, "</figure>");
	assert_int_equal(count_in(cell, stop, "<rect class=\"phase\""), 8); /* 4 phases in each of 2 charts */
	assert_int_equal(count_in(cell, stop, ">idle after hint</text>"), 2);
	assert_int_equal(count_in(cell, stop, ">after restart</text>"), 2);
	assert_non_null(strstr(cell, "2 trials</strong>; bands: the memory run&#39;s phases of node24 trial 1 (its "
				     "samples go on through them)</figcaption>"));
	/* the server's series (CPU on the right axis drawn first, then RSS) reach the last sample within the plot */
	rss = strstr(strstr(cell, "server RSS and CPU"), "<polyline");
	assert_non_null(rss);
	for (int k = 0; k < 2; k++, rss = strstr(rss + 1, "<polyline")) { /* CPU, then RSS */
		assert_true(polyline_max_x(rss) <= 360 - 46 + 0.05);
		assert_true(polyline_max_x(rss) > 300); /* out past the load's 6 s, to the last sample's 10 s */
	}
	/* the overview's charts have the bands too */
	assert_int_equal(count_in(strstr(text, "data-chart=\"timeline\""), cell, "<rect class=\"phase\""), 16);
	free(text);
	res_doc_free(&d);
}

/* A route matrix's cells each keep their timeline, written and read back with the cell (the trial has none of its
 * own), steady and growth recomputed per cell. */
static void test_cells_round_trip(void **state)
{
	struct res_doc d, back;
	struct hx_err err = {0};
	struct trial_result *tr;
	struct res_cell *c;
	char dir[] = "/tmp/test-timeline-XXXXXX", path[64];
	cJSON *o;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	tr = res_doc_add(&d);
	res_trial_init(tr, "route-matrix", "bun", "pinned", 1, 1);
	snprintf(tr->workload, sizeof(tr->workload), "http");
	for (int k = 0; k < 2; k++) {
		assert_non_null(c = res_cell_add(tr));
		snprintf(c->route, sizeof(c->route), "%s", k ? "search" : "version");
		c->connections = 10;
		synth(&c->timeline, 50, k ? speeding_up : flat, k ? 4096 : 0);
		for (unsigned i = 0; i < c->timeline.n; i++)
			c->load.requests += c->timeline.requests[i];
		c->load.duration_s = 5;
	}
	assert_int_equal(res_write(&d, path, &err), 0);
	assert_int_equal(res_read(path, &back, &err), 0);
	assert_int_equal(back.trials[0].ncells, 2);
	assert_int_equal(back.trials[0].timeline.n, 0);
	o = res_trial_json(&back.trials[0]);
	assert_null(cJSON_GetObjectItem(o, "timeline"));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "cells"), 1), "timeline"));
	cJSON_Delete(o);
	for (int k = 0; k < 2; k++) {
		const struct res_timeline *a = &d.trials[0].cells[k].timeline, *b = &back.trials[0].cells[k].timeline;

		assert_int_equal(b->n, 50);
		assert_int_equal(b->ns, 50);
		assert_true(a->requests[9] == b->requests[9] && a->rss_kb[9] == b->rss_kb[9]);
		assert_true(b->steady.tested && b->growth.tested);
		assert_true(b->steady.not_steady == (k == 1) && b->growth.leak == (k == 1));
	}
	res_doc_free(&d);
	res_doc_free(&back);
	unlink(path);
	rmdir(dir);
}

static void test_startup_first_run(void **state)
{
	double cold[8] = {100, 20, 20.5, 19.8, 20.2, 20.1, 19.9, 20.3},
	       warm[8] = {20.4, 20, 20.5, 19.8, 20.2, 20.1, 19.9, 20.3};
	double rising[8] = {20, 21, 22, 23, 24, 25, 26, 27};
	cJSON *a = res_startup_trend_json(cold, 8), *b = res_startup_trend_json(warm, 8),
	      *c = res_startup_trend_json(rising, 8);

	(void)state;
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(a, "first_run_slower")));
	assert_true(cJSON_GetObjectItem(a, "first_run_z")->valuedouble > 100);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(b, "first_run_slower")));
	assert_true(cJSON_GetObjectItem(c, "tau")->valuedouble == 1);
	assert_true(cJSON_GetObjectItem(c, "p")->valuedouble < 0.01);
	assert_null(res_startup_trend_json(cold, 2));
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

/* The server tree's RSS: a process and its descendants, read from /proc; a pid that is gone reads as such. */
static void test_tree_rss(void **state)
{
	int p[2];
	pid_t child;
	uint64_t alone, with_child;
	char c;

	(void)state;
	alone = smp_tree_rss_kb(getpid());
	assert_true(alone > 0 && alone != UINT64_MAX);
	assert_int_equal(pipe(p), 0);
	child = fork();
	if (child == 0) {
		static char touched[8 << 20];

		memset(touched, 1, sizeof(touched)); /* 8 MB of its own */
		close(p[0]);
		assert_int_equal(write(p[1], "x", 1), 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	with_child = smp_tree_rss_kb(getpid());
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(p[0]);
	assert_true(with_child >= alone + 8000);
	assert_true(smp_tree_rss_kb(child) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_exact_after_merge),
		cmocka_unit_test(test_quantile_coarse),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_empty_interval),
		cmocka_unit_test(test_steady_and_leak),
		cmocka_unit_test(test_plateau_is_not_leak),
		cmocka_unit_test(test_steady_false_positives),
		cmocka_unit_test(test_steady_curve_and_bursts),
		cmocka_unit_test(test_steady_lead_in),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_html_cells),
		cmocka_unit_test(test_html_matrix_cells),
		cmocka_unit_test(test_memory_phases),
		cmocka_unit_test(test_cells_round_trip),
		cmocka_unit_test(test_startup_first_run),
		cmocka_unit_test(test_tree_rss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
