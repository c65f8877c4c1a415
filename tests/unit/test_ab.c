/* The harness-ab/1 document: which windows make pairs (the warm-up pair and noisy pairs left out), the verdict and
 * exit rule from them, the first line, and the JSON written and read back to the same analysis. */
#include "testutil.h"

#include <math.h>

#include "base/util.h"
#include "report/ab_report.h"
#include "report/html_ab.h"
#include "run/duet.h"
#include "stats/stats.h"

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
			w->drained = 40 + p; /* the answers of its drain, among the requests */
			w->p50_us = w->p99_us = 1e6 / rps * 50;
			w->foreign_ms = p == noisy && b && noisy ? 100 : 2;
			if (p == noisy && b && noisy)
				w->requests /= 2; /* what the foreign task took */
		}
}

/* The first lines ab prints for d, malloc'd. */
static char *head_of(const struct ab_doc *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	ab_print_head(f, d, false);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* An A/A duet in a random order whose windows carry over: one after the other side's window 8% slower than one
 * after its own side's, the rest of the noise 1%. The pairs carry it as -1, 0 or +1; the analysis finds the 8%,
 * takes it out of the spread and says so; a simultaneous duet's pairs carry nothing. */
static void test_carry_over(void **state)
{
	struct ab_doc d;
	uint64_t rng = 12345;
	const struct paired_result *r = &d.metric[AB_RPS];
	char *text = NULL;

	(void)state;
	memset(&d, 0, sizeof(d));
	snprintf(d.scenario, sizeof(d.scenario), "http-hello");
	snprintf(d.workload, sizeof(d.workload), "http");
	snprintf(d.duet, sizeof(d.duet), "interleaved");
	d.threshold = 0.02;
	d.window_s = 0.1;
	for (unsigned p = 0; p <= 200; p++) {
		bool b_first = stats_splitmix(&rng) & 1;

		for (int k = 0; k < 2; k++) {
			struct ab_window *w = ab_window_add(&d);
			double u = (double)(stats_splitmix(&rng) >> 11) / 9007199254740992.0;

			assert_non_null(w);
			w->pair = p;
			w->side = (k == 0) == b_first ? 'B' : 'A';
			w->warmup = p == 0;
			w->duration_s = 0.1;
			w->foreign_ms = 0;
			w->requests = (uint64_t)(10000 * (1 + 0.02 * (u - 0.5)) *
						 (d.nw > 1 && d.w[d.nw - 2].side != w->side ? 0.92 : 1));
		}
	}
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(fabs(exp(r->carry) - 0.92) < 0.005);
	assert_true(r->sd_log < 0.02 && r->sd_log_raw > 0.04);
	assert_true(fabs(r->ratio - 1) < 0.005);
	assert_int_equal(r->verdict, PV_EQUIVALENT);
	text = head_of(&d);
	assert_non_null(strstr(text, "carry-over: a window after the other side's measured throughput -8."));
	free(text);
	snprintf(d.duet, sizeof(d.duet), "simultaneous");
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(isnan(r->carry));
	assert_true(r->sd_log > 0.04);
	ab_free(&d);
}

static void test_pairs_leave_out_warmup_and_noisy(void **state)
{
	struct ab_doc d;
	struct ab_pairset p;

	(void)state;
	make_doc(&d, 30, 1.0, 7);
	assert_int_equal(ab_pairs(&d, AB_RPS, &p), 0);
	assert_int_equal(p.n, 29); /* 31 pairs, less the warm-up and the noisy one */
	for (size_t i = 0; i < p.n; i++)
		assert_true(fabs(p.b[i] / p.a[i] - 1) < 0.02);
	ab_pairset_free(&p);
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

/* A script duet's document: n pairs after the warm-up one, each window one run whose metric (higher better when
 * `higher`) is B's factor times A's, with each run's peak RSS B's mem_factor times A's. */
static void make_script_doc(struct ab_doc *d, size_t n, bool higher, double factor, double mem_factor)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->scenario, sizeof(d->scenario), "ab-script");
	snprintf(d->workload, sizeof(d->workload), "script");
	snprintf(d->metric_name, sizeof(d->metric_name), "%s", higher ? "ops_per_s" : "p50_ms");
	d->metric_higher = higher;
	d->threshold = 0.02;
	d->seed = 3;
	for (size_t p = 0; p <= n; p++)
		for (int k = 0; k < 2; k++) {
			struct ab_window *w = ab_window_add(d);
			bool b = (p % 3) ? k == 0 : k == 1;
			double noise = 1 + 0.01 * (double)((p * 7 + (size_t)k) % 5) - 0.02;

			assert_non_null(w);
			*w = (struct ab_window){.pair = (unsigned)p,
						.side = b ? 'B' : 'A',
						.warmup = p == 0,
						.start_s = (double)(2 * p + (size_t)k) * 0.1,
						.duration_s = 0.1,
						.value = 1000 * noise * (b ? factor : 1),
						.rss_kb = 50000 * (b ? mem_factor : 1) * (1 + 0.001 * (double)(p % 3)),
						.memory_kb = NAN};
		}
}

/* The script's metric takes its direction from the scenario: a rate that falls is B slower (the exit's
 * regression), a time that falls is B faster; memory is "larger" or "smaller"; the first line's cost ratio is
 * the rate inverted. A sign error anywhere here calls a slower B faster. */
static void test_script_direction(void **state)
{
	struct ab_doc d;
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	double c, lo, hi;

	(void)state;
	make_script_doc(&d, 30, true, 1 / 1.15, 1.5);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(ab_headline(&d), AB_SCRIPT);
	assert_int_equal(d.pairs, 30);
	assert_int_equal(d.metric[AB_SCRIPT].verdict, PV_SLOWER);
	assert_true(ab_regressed(&d));
	assert_true(fabs(d.metric[AB_SCRIPT].ratio - 1 / 1.15) < 0.01);
	ab_cost(&d, AB_SCRIPT, &c, &lo, &hi);
	assert_true(fabs(c - 1.15) < 0.02 && lo < c && c < hi);
	assert_int_equal(d.metric[AB_MEMORY].verdict, PV_SLOWER);
	assert_string_equal(ab_verdict_name(AB_MEMORY, d.metric[AB_MEMORY].verdict), "larger");
	assert_true(fabs(d.metric[AB_MEMORY].ratio - 1.5) < 0.01);
	assert_false(ab_has_metric(&d, AB_RPS));
	assert_true(ab_has_metric(&d, AB_SCRIPT) && ab_has_metric(&d, AB_MEMORY));
	ab_print(f, &d, RPT_TABLE);
	fclose(f);
	assert_true(strncmp(buf, "B ran 1.1", 9) == 0);
	assert_non_null(strstr(buf, "slower than A: slower beyond 2%\n"));
	assert_non_null(strstr(buf, "single runs, each in a fresh sandbox"));
	assert_non_null(strstr(buf, "\nops_per_s "));
	assert_non_null(strstr(buf, "larger\n"));
	assert_null(strstr(buf, "throughput"));
	ab_free(&d);
	/* the same numbers of a time: B's lower is B faster, no regression */
	make_script_doc(&d, 30, false, 1 / 1.15, 1 / 1.5);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_SCRIPT].verdict, PV_FASTER);
	assert_false(ab_regressed(&d));
	assert_string_equal(ab_verdict_name(AB_MEMORY, d.metric[AB_MEMORY].verdict), "smaller");
	ab_free(&d);
	/* A/A: equal memory in every pair is equivalent, its ratio 1 */
	make_script_doc(&d, 30, true, 1, 1);
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(fabs(d.metric[AB_MEMORY].ratio - 1) < 1e-9);
	assert_int_equal(d.metric[AB_MEMORY].verdict, PV_EQUIVALENT);
	assert_false(ab_regressed(&d));
	ab_free(&d);
}

/* An http duet's memory: each window's server RSS, paired as the other metrics; a window without it (a file from
 * before, a server gone) leaves its pair out of that metric only. */
static void test_http_memory(void **state)
{
	struct ab_doc d;

	(void)state;
	make_doc(&d, 30, 1.0, 0);
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].rss_kb = d.w[i].side == 'B' ? 80000 : 60000;
	d.w[7].rss_kb = NAN;
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_MEMORY].n, 29);
	assert_int_equal(d.metric[AB_RPS].n, 30);
	assert_true(fabs(d.metric[AB_MEMORY].ratio - 80.0 / 60) < 1e-9);
	assert_int_equal(d.metric[AB_MEMORY].verdict, PV_SLOWER);
	assert_false(ab_regressed(&d)); /* the exit is the headline's: throughput */
	assert_true(ab_has_metric(&d, AB_MEMORY) && ab_has_metric(&d, AB_P99) && !ab_has_metric(&d, AB_SCRIPT));
	ab_free(&d);
}

/* A script duet's document read back: the metric's name and direction, each run's value and RSS, the same
 * verdicts; the JSON names the script's verdict and memory's in its words. */
static void test_script_round_trip(void **state)
{
	struct ab_doc d, r;
	struct hx_err err = {0};
	char path[] = "/tmp/test_ab-XXXXXX";
	int fd = mkstemp(path);
	char *text = NULL;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_script_doc(&d, 24, true, 1 / 1.1, 1.3);
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_string_equal(r.metric_name, "ops_per_s");
	assert_true(r.metric_higher);
	assert_int_equal(r.nw, d.nw);
	for (size_t i = 0; i < d.nw; i++) {
		assert_true(fabs(r.w[i].value - d.w[i].value) < 1e-9);
		assert_true(fabs(r.w[i].rss_kb - d.w[i].rss_kb) < 1e-9);
	}
	assert_int_equal(r.metric[AB_SCRIPT].verdict, PV_SLOWER);
	assert_true(fabs(r.metric[AB_SCRIPT].ratio - d.metric[AB_SCRIPT].ratio) < 1e-12);
	assert_int_equal(util_read_file(path, &text, NULL, &err), 0);
	assert_non_null(strstr(text, "\"higher_is_better\":\ttrue"));
	assert_non_null(strstr(text, "\"verdict\":\t\"larger\""));
	assert_null(strstr(text, "\"throughput\""));
	free(text);
	ab_free(&d);
	ab_free(&r);
	unlink(path);
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

/* The md format (the CI job summary's) shows the sides' text, a user's, as text: no HTML, link or table cell of its
 * own; the table format as it was given. */
static void test_md_escapes_the_sides(void **state)
{
	struct ab_doc d;
	char buf[8192] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	make_doc(&d, 30, 1 / 1.05, 0);
	snprintf(d.side[0].runtime, sizeof(d.side[0].runtime), "node");
	snprintf(d.side[1].runtime, sizeof(d.side[1].runtime), "node");
	snprintf(d.side[1].env, sizeof(d.side[1].env), "X=<b>|[y](z)");
	assert_int_equal(ab_analyze(&d), 0);
	ab_print(f, &d, RPT_MD);
	fclose(f);
	assert_true(strncmp(buf, "B ran 1.05", 10) == 0);
	assert_non_null(strstr(buf, "B: node X=&lt;b&gt;\\|\\[y\\](z)   http-hello,"));
	assert_null(strstr(buf, "<b>"));
	assert_non_null(strstr(buf, "\n| metric | A | B | B/A | 95% CI | p | verdict |\n"));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	ab_print(f, &d, RPT_TABLE);
	fclose(f);
	assert_non_null(strstr(buf, "B: node X=<b>|[y](z)   http-hello,"));
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
	snprintf(d.engine_setup.ring_flags, sizeof(d.engine_setup.ring_flags), "single_issuer,defer_taskrun");
	snprintf(d.engine_setup.fallback, sizeof(d.engine_setup.fallback), "none");
	d.engine_setup.buffer_ring = d.engine_setup.multishot_recv = true;
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_true(ab_is_file(path));
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_int_equal(r.nw, d.nw);
	assert_string_equal(r.engine_setup.ring_flags, "single_issuer,defer_taskrun");
	assert_string_equal(r.engine_setup.fallback, "none");
	assert_true(r.engine_setup.buffer_ring && r.engine_setup.multishot_recv);
	assert_int_equal(r.noisy_pairs, 1);
	assert_true(fabs(r.metric[AB_RPS].ratio - d.metric[AB_RPS].ratio) < 1e-12);
	assert_int_equal(r.metric[AB_RPS].verdict, d.metric[AB_RPS].verdict);
	for (size_t i = 0; i < d.nw; i++) {
		assert_int_equal(r.w[i].side, d.w[i].side);
		assert_int_equal(r.w[i].requests, d.w[i].requests);
		assert_int_equal(r.w[i].drained, d.w[i].drained);
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

/* A duet in rounds: 10 rounds of 12 pairs after each round's warm-up pair, each round's B process 1.5% faster or
 * slower than its A (alternately), little other noise. The verdict is the rounds': it holds their spread, which
 * the same pairs read as one round do not; the rounds go to the file and back; a file whose rounds go backwards
 * is refused. */
static void test_rounds(void **state)
{
	struct ab_doc d, r;
	struct hx_err err = {0};
	char path[] = "/tmp/test_ab-XXXXXX", *text = NULL;
	int fd = mkstemp(path);
	double rounds_hw;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_doc(&d, 10 * 13 - 1, 1.0, 0);
	d.round_s = 3;
	for (size_t i = 0; i < d.nw; i++) {
		struct ab_window *w = &d.w[i];

		w->round = w->pair / 13;
		w->warmup = w->pair % 13 == 0;
		if (w->side == 'B')
			w->requests = (uint64_t)((double)w->requests * (w->round % 2 ? 1.015 : 1 / 1.015));
	}
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_RPS].rounds, 10);
	assert_int_equal(d.pairs, 120);
	rounds_hw = d.metric[AB_RPS].half_width;
	assert_true(rounds_hw > 0.01); /* the rounds' spread, 1.5% either way, in the CI */
	text = head_of(&d);
	assert_non_null(strstr(text, "120 pairs of 0.50 s windows in 10 rounds of fresh servers"));
	assert_null(strstr(text, "change of round")); /* no time between the rounds' windows: nothing to say */
	free(text);
	/* rounds whose changes took 4 s of each 3 s; then rounds without a gap, the last with its warm-up pair only:
	 * each said, with the fix */
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < d.nw; i++) {
			d.w[i].start_s = 0.5 * (double)i + (k ? 0 : 4.0 * d.w[i].round);
			d.w[i].warmup = d.w[i].pair % 13 == 0 || (k && d.w[i].round == 9);
		}
		assert_int_equal(ab_analyze(&d), 0);
		text = head_of(&d);
		assert_non_null(
			strstr(text, k ? "took a median 0.0 s of each 3 s round; 1 of 10 rounds measured only "
					 "their warm-up pair: a longer --round measures more"
				       : "warning: the change of round (servers and clients stopped, started and "
					 "warmed) took a median 4.0 s of each 3 s round; 0 of 10 rounds"));
		free(text);
	}
	/* a gap of a third of a round, no bare round: nothing said */
	for (size_t i = 0; i < d.nw; i++) {
		d.w[i].start_s = 0.5 * (double)i + 1.0 * d.w[i].round;
		d.w[i].warmup = d.w[i].pair % 13 == 0;
	}
	assert_int_equal(ab_analyze(&d), 0);
	text = head_of(&d);
	assert_null(strstr(text, "change of round"));
	free(text);
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].start_s = 0;
	/* a simultaneous duet in rounds says both */
	snprintf(d.duet, sizeof(d.duet), "simultaneous");
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_RPS].rounds, 10);
	text = head_of(&d);
	assert_non_null(strstr(text, "120 pairs of 0.50 s blocks, both sides at once, in 10 rounds of fresh servers"));
	free(text);
	snprintf(d.duet, sizeof(d.duet), "interleaved");
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_true(r.round_s == 3);
	assert_int_equal(r.metric[AB_RPS].rounds, 10);
	assert_true(fabs(r.metric[AB_RPS].half_width - rounds_hw) < 1e-12);
	ab_free(&r);
	/* the same pairs as one pair of processes: a CI that does not hold the rounds' differences */
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].round = 0;
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(d.metric[AB_RPS].rounds, 1);
	assert_true(d.metric[AB_RPS].half_width < rounds_hw / 2);
	/* rounds out of order: refused, with the window named */
	d.w[20].round = 2;
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_true(ab_read(path, &r, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "window 21 is of round 0 after round 2"));
	ab_free(&d);
	unlink(path);
}

/* Servers still warming up in their rounds (bun's node:http here: 45-108% more throughput at the end of a 5 s
 * round than at its start): the measure is the last third of each round's counted pairs against its first third,
 * both sides together, so a climb is said with the fix, a flat round is not, and B alone faster at the end (a side
 * effect, not warming) moves it by half as much as the same climb on both. */
static void test_still_warming(void **state)
{
	struct ab_doc d;
	char *text;

	(void)state;
	make_doc(&d, 8 * 13 - 1, 1.0, 0);
	d.round_s = 3;
	for (size_t i = 0; i < d.nw; i++) {
		struct ab_window *w = &d.w[i];
		unsigned at = w->pair % 13; /* 0 the warm-up pair, then 12 counted: thirds of 4 pairs */

		w->round = w->pair / 13;
		w->warmup = at == 0;
		if (at >= 1 && at <= 4) /* the first third 25% slower than the rest */
			w->requests = (uint64_t)((double)w->requests * 0.8);
	}
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(fabs(d.warming - 0.25) < 0.01);
	assert_true(d.still_warming);
	text = head_of(&d);
	assert_non_null(strstr(text, "warning: the servers were still warming up: the last third of a round's pairs "
				     "measured throughput 25% better than its first third: a longer --round"));
	free(text);
	/* the same climb on B's windows only: half of it in the measure (11.8%) */
	for (size_t i = 0; i < d.nw; i++)
		if (d.w[i].side == 'A' && d.w[i].pair % 13 >= 1 && d.w[i].pair % 13 <= 4)
			d.w[i].requests = (uint64_t)((double)d.w[i].requests / 0.8 + 0.5);
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(d.warming > 0.10 && d.warming < 0.13);
	assert_true(d.still_warming);
	/* flat rounds: nothing said */
	for (size_t i = 0; i < d.nw; i++)
		if (d.w[i].side == 'B' && d.w[i].pair % 13 >= 1 && d.w[i].pair % 13 <= 4)
			d.w[i].requests = (uint64_t)((double)d.w[i].requests / 0.8 + 0.5);
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(fabs(d.warming) < 0.01);
	assert_false(d.still_warming);
	text = head_of(&d);
	assert_null(strstr(text, "warming up"));
	free(text);
	/* one round (no rounds): no measure */
	d.round_s = 0;
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].round = 0;
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(isnan(d.warming));
	assert_false(d.still_warming);
	ab_free(&d);
}

/* --max-time over --round, and one round when fewer than three fit (two rounds' t interval is no CI). */
static void test_round_count(void **state)
{
	(void)state;
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 120, .round_s = 5}), 24);
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 25, .round_s = 5}), 5);
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 15, .round_s = 5}), 3);
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 14.9, .round_s = 5}), 1);
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 10, .round_s = 5}), 1);
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 0.3, .round_s = 0.1}), 3);
	assert_int_equal(duet_round_count(&(struct duet_opts){.max_time_s = 120, .round_s = 0}), 1);
	assert_false(duet_rounds(&(struct duet_opts){.max_time_s = 120, .round_s = 120}));
	assert_true(duet_rounds(&(struct duet_opts){.max_time_s = 120, .round_s = 40}));
}

/* A simultaneous duet's document: its kind of duet, each window's CPU set and SMT sharing, read back as written; no
 * idle-side flag (both sides are loaded in every block, so each uses its CPU "during the other's window"); a file
 * from before the field reads as interleaved and keeps its idle-side evidence. */
static void test_simultaneous_round_trip(void **state)
{
	struct ab_doc d, r;
	struct hx_err err = {0};
	char path[] = "/tmp/test_ab-XXXXXX";
	int fd = mkstemp(path);
	char *text = NULL, *at;
	size_t len = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_doc(&d, 24, 1 / 1.03, 0);
	snprintf(d.duet, sizeof(d.duet), "simultaneous");
	for (size_t i = 0; i < d.nw; i++) {
		bool swapped = d.w[i].pair % 2, b = d.w[i].side == 'B';

		snprintf(d.w[i].cpus, sizeof(d.w[i].cpus), "%s", b != swapped ? "3" : "1");
		d.w[i].smt_shared = d.w[i].pair == 5;
		d.w[i].idle_cpu_ms = 490; /* the other side, loaded too */
	}
	assert_int_equal(ab_analyze(&d), 0);
	assert_false(d.idle_busy[0] || d.idle_busy[1]);
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_true(ab_simultaneous(&r));
	assert_false(r.idle_busy[0] || r.idle_busy[1]);
	assert_int_equal(r.metric[AB_RPS].verdict, d.metric[AB_RPS].verdict);
	for (size_t i = 0; i < d.nw; i++) {
		assert_string_equal(r.w[i].cpus, d.w[i].cpus);
		assert_int_equal(r.w[i].smt_shared, d.w[i].pair == 5);
	}
	text = head_of(&r);
	assert_non_null(strstr(text, "0.50 s blocks, both sides at once"));
	assert_non_null(strstr(text, "shared SMT siblings in 1 of 25 blocks"));
	assert_null(strstr(text, "during the other side's windows"));
	free(text);
	ab_free(&r);
	/* the same file without "duet" (as written before it): interleaved, the idle sides flagged again */
	assert_int_equal(util_read_file(path, &text, &len, &err), 0);
	at = strstr(text, "\"duet\"");
	assert_non_null(at);
	memcpy(at, "\"xxxx\"", 6);
	assert_int_equal(util_write_atomic(path, text, len, &err), 0);
	free(text);
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_false(ab_simultaneous(&r));
	assert_string_equal(r.duet, "interleaved");
	assert_true(r.idle_busy[0] && r.idle_busy[1]);
	ab_free(&r);
	ab_free(&d);
	unlink(path);
}

/* The page of d, in memory (malloc'd). */
static char *page_of(const struct ab_doc *d, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct hx_err err = {0};

	assert_non_null(f);
	assert_int_equal(html_ab(d, name, f, &err), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static size_t count_of(const char *s, const char *end, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)) && (!end || p < end); p += strlen(what))
		n++;
	return n;
}

/* The figure of kind and metric, up to its end: *ret_end. */
static const char *figure(const char *page, const char *kind, const char *metric, const char **ret_end)
{
	char open[128];
	const char *p;

	snprintf(open, sizeof(open), "<figure data-chart=\"%s\" data-metric=\"%s\">", kind, metric);
	p = strstr(page, open);
	*ret_end = p ? strstr(p, "</figure>") : NULL;
	return p;
}

/* An attribute's number in the first element of class cls after p. */
static double attr_after(const char *p, const char *cls, const char *attr)
{
	char key[64];
	const char *e = strstr(p, cls), *a;

	assert_non_null(e);
	snprintf(key, sizeof(key), " %s=\"", attr);
	a = strstr(e, key);
	assert_non_null(a);
	return strtod(a + strlen(key), NULL);
}

static void test_html_one_point_per_pair(void **state)
{
	struct ab_doc d;
	const char *end, *fig;
	char *page;

	(void)state;
	make_doc(&d, 30, 1.0, 7);
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "aa.json");
	for (int m = AB_RPS; m <= AB_P99; m++) {
		fig = figure(page, "ab-ratio", ab_metric_names[m], &end);
		assert_non_null(fig);
		assert_non_null(end);
		/* 31 pairs: 29 counted, the noisy one and the warm-up one drawn apart */
		assert_int_equal(count_of(fig, end, "class=\"pair\""), 29);
		assert_int_equal(count_of(fig, end, "class=\"pair-noisy\""), 1);
		assert_int_equal(count_of(fig, end, "class=\"pair-warmup\""), 1);
		assert_int_equal(count_of(fig, end, "class=\"ci-band\""), 1);
		assert_int_equal(count_of(fig, end, "class=\"threshold\""), 2);
	}
	assert_null(figure(page, "ab-ratio", "startup", &end)); /* an http duet has no startup */
	/* the sides' figures are on the run's clock (test_html_windows_over_time), not again per pair */
	assert_null(figure(page, "ab-sides", "throughput", &end));
	assert_non_null(figure(page, "ab-windows", "throughput", &end));
	assert_non_null(strstr(page, "<p class=\"headline\"><strong>B ran "));
	free(page);
	ab_free(&d);
}

/* A duet in rounds on the page: a dotted line where each round after the first starts, on the ratio chart and on
 * the windows' clock, and each round's mean ratio as a segment over its pairs, whose geometric mean is the line
 * across (the estimate is the rounds' mean); a duet of one round has none of them. */
static void test_html_rounds(void **state)
{
	struct ab_doc d;
	const char *end, *fig, *p;
	double sum = 0, gm;
	size_t k = 0;
	char *page;

	(void)state;
	make_doc(&d, 10 * 13 - 1, 1.0, 0);
	d.round_s = 3;
	for (size_t i = 0; i < d.nw; i++) {
		struct ab_window *w = &d.w[i];

		w->round = w->pair / 13;
		w->warmup = w->pair % 13 == 0;
		w->start_s = 0.5 * (double)i;
		if (w->side == 'B')
			w->requests = (uint64_t)((double)w->requests * (w->round % 2 ? 1.015 : 1 / 1.015));
	}
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "rounds.json");
	fig = figure(page, "ab-ratio", ab_metric_names[AB_RPS], &end);
	assert_non_null(fig);
	assert_int_equal(count_of(fig, end, "class=\"round\""), 9);
	assert_int_equal(count_of(fig, end, "class=\"round-gm\""), 10);
	assert_non_null(strstr(fig, "data-round=\"1\" data-x=\"12.5\"")); /* between pairs 12 and 13 */
	gm = attr_after(fig, "class=\"gm\"", "data-v");
	for (p = fig; (p = strstr(p, "class=\"round-gm\"")) && p < end; p++, k++) {
		double v = attr_after(p, "class=\"round-gm\"", "data-v");

		/* a throughput's cost: every other round's B 1.5% faster, the others 1.5% slower */
		assert_true(fabs(v - (k % 2 ? 1 / 1.015 : 1.015)) < 0.002);
		sum += log(v);
	}
	assert_true(fabs(exp(sum / 10) - gm) < 1e-4);
	fig = figure(page, "ab-windows", ab_metric_names[AB_RPS], &end);
	assert_non_null(fig);
	assert_int_equal(count_of(fig, end, "class=\"round\""), 9);
	assert_non_null(strstr(fig, "data-round=\"1\" data-x=\"13\"")); /* window 26 starts at 13 s */
	free(page);
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].round = 0;
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "one.json");
	assert_null(strstr(page, "class=\"round"));
	free(page);
	ab_free(&d);
}

/* A script duet's page names the script's metric on its axes, and says the ratio is inverted only for a rate
 * (primary_better "higher"): a time's B / A is drawn as it is. */
static void test_html_script_metric_axes(void **state)
{
	struct ab_doc d;
	const char *end, *fig;
	char *page;

	(void)state;
	make_script_doc(&d, 20, true, 1 / 1.1, 1.2);
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "s.json");
	fig = figure(page, "ab-ratio", ab_metric_names[AB_SCRIPT], &end);
	assert_non_null(fig);
	assert_true(count_of(fig, end, "B / A cost: 1 / ops_per_s (higher is better)") >= 1);
	assert_int_equal(count_of(fig, end, "lower is better"), 0);
	assert_int_equal(count_of(fig, end, "the script's metric"), 0);
	free(page);
	ab_free(&d);
	make_script_doc(&d, 20, false, 1.1, 1.2);
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "s.json");
	fig = figure(page, "ab-ratio", ab_metric_names[AB_SCRIPT], &end);
	assert_non_null(fig);
	assert_true(count_of(fig, end, "B / A p50_ms (lower is better)") >= 1);
	assert_int_equal(count_of(fig, end, "cost: 1 /"), 0);
	assert_true(count_of(fig, end, " p50_ms; foreign CPU") >= 1); /* each dot's tip: the values' unit */
	free(page);
	ab_free(&d);
}

/* The points of the first polyline after p: their count, and whether x grows from one to the next; the first
 * point's y in *ret_y0. */
static size_t polyline_points(const char *p, bool *ret_rising, double *ret_y0)
{
	const char *q = strstr(p, "<polyline"), *e;
	double last = -1;
	size_t n = 0;

	assert_non_null(q);
	q = strstr(q, "points=\"") + 8;
	e = strchr(q, '"');
	*ret_rising = true;
	while (q < e) {
		char *next;
		double x = strtod(q, &next), y;

		if (next == q)
			break;
		y = strtod(next + 1, &next);
		if (!n)
			*ret_y0 = y;
		*ret_rising &= x > last;
		last = x;
		n++;
		q = next;
	}
	return n;
}

/* Beside the ratio chart, each window's throughput on the run's clock: A and B two lines of a point per window,
 * the warm-up pair and the noisy pair shaded; B's line below A's where B is slower. */
static void test_html_windows_over_time(void **state)
{
	struct ab_doc d;
	const char *end, *fig, *ratio, *p50;
	double ya, yb;
	bool rising;
	char *page;

	(void)state;
	make_doc(&d, 30, 1 / 1.10, 7); /* B 10% slower, pair 7 noisy */
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].start_s = 0.52 * (double)i; /* a 20 ms drain between windows */
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "w.json");
	fig = figure(page, "ab-windows", "throughput", &end);
	ratio = strstr(page, "<figure data-chart=\"ab-ratio\" data-metric=\"throughput\">");
	p50 = strstr(page, "<figure data-chart=\"ab-ratio\" data-metric=\"p50\">");
	assert_true(fig && end && ratio && p50);
	assert_true(ratio < fig && fig < p50); /* right after the throughput ratios */
	assert_int_equal(count_of(fig, end, "<polyline"), 2);
	assert_int_equal(polyline_points(fig, &rising, &ya), 31); /* A: a point per window of its own */
	assert_true(rising);
	assert_int_equal(polyline_points(strstr(fig, "<polyline") + 1, &rising, &yb), 31);
	assert_true(rising);
	assert_true(yb > ya); /* B's first window is lower on the chart: fewer requests (y grows down the page) */
	assert_int_equal(count_of(fig, end, "class=\"span-warmup\""), 1);
	assert_int_equal(count_of(fig, end, "class=\"span-noisy\""), 1);
	assert_non_null(strstr(fig, "pair 0: warm-up"));
	free(page);
	ab_free(&d);
	/* a startup duet's windows are runs: no throughput to draw */
	make_doc(&d, 10, 1.0, 0);
	snprintf(d.workload, sizeof(d.workload), "startup");
	for (size_t i = 0; i < d.nw; i++) {
		d.w[i].requests = 0;
		d.w[i].duration_s = 0;
		d.w[i].startup_ms = 40;
	}
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "s.json");
	assert_null(figure(page, "ab-windows", "throughput", &end));
	fig = figure(page, "ab-sides", "startup", &end); /* its runs per pair instead */
	assert_non_null(fig);
	assert_int_equal(count_of(fig, end, "<polyline"), 2); /* A and B */
	free(page);
	ab_free(&d);
}

/* The band is the CI of the cost ratio (the first line's), the dashed lines 1 +- threshold, each dot its pair's
 * ratio: read back from the SVG's own coordinates. */
static void test_html_band_and_threshold(void **state)
{
	struct ab_doc d;
	const char *end, *fig, *th;
	double c, lo, hi, y1, yup, ydown, top, height, k, cy;
	char *page;

	(void)state;
	make_doc(&d, 30, 1 / 1.05, 0); /* B 5% slower: the band sits above the upper threshold */
	/* one wild pair, counted (its foreign time is its twin's): B's window a third of A's */
	d.w[2 * 9 + (d.w[2 * 9].side == 'B' ? 0 : 1)].requests /= 3;
	assert_int_equal(ab_analyze(&d), 0);
	ab_cost(&d, AB_RPS, &c, &lo, &hi);
	assert_true(lo > 1.02 && hi > lo);
	page = page_of(&d, "slow.json");
	fig = figure(page, "ab-ratio", "throughput", &end);
	assert_non_null(fig);
	y1 = attr_after(fig, "class=\"unity\"", "y1");
	th = strstr(fig, "class=\"threshold\" data-v=\"1.02\"");
	assert_non_null(th);
	yup = attr_after(th, "class=\"threshold\"", "y1");
	th = strstr(fig, "class=\"threshold\" data-v=\"0.98\"");
	assert_non_null(th);
	ydown = attr_after(th, "class=\"threshold\"", "y1");
	assert_true(yup < y1 && y1 < ydown); /* up the page is a larger ratio */
	/* the wild pair is drawn on the axis's edge, not stretching it: the threshold stays apart from 1 */
	assert_true(ydown - yup > 30);
	assert_non_null(strstr(fig, "off the scale"));
	assert_true(fabs((y1 - yup) - (ydown - y1)) < 0.05); /* a linear axis */
	k = (y1 - yup) / 0.02;				     /* px per unit of ratio */
	top = attr_after(fig, "class=\"ci-band\"", "y");
	height = attr_after(fig, "class=\"ci-band\"", "height");
	/* within the rounding of the page's figures (0.01 px each): k's own error grows with the distance from 1 */
	assert_true(fabs(top - (y1 - (hi - 1) * k)) < 0.05 + 0.01 * fabs(hi - 1) / 0.02);
	assert_true(fabs(top + height - (y1 - (lo - 1) * k)) < 0.05 + 0.01 * fabs(lo - 1) / 0.02);
	/* pair 1's dot: A's rps over B's */
	cy = attr_after(fig, "class=\"pair\"", "cy");
	{
		double ra = (double)d.w[2].requests, rb = (double)d.w[3].requests;
		double cost = d.w[2].side == 'A' ? ra / rb : rb / ra;

		assert_true(fabs(cy - (y1 - (cost - 1) * k)) < 0.06);
	}
	free(page);
	ab_free(&d);
}

/* A hostile file: every text of it lands escaped, in a terminal's table and in the page. */
static void test_html_escapes_the_file(void **state)
{
	static const char evil[] = "<script>alert(1)</script>\"'&";
	struct ab_doc d, r;
	struct hx_err err = {0};
	char path[] = "/tmp/test_ab-XXXXXX", *page;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	make_doc(&d, 24, 1.0, 0);
	snprintf(d.side[0].runtime, sizeof(d.side[0].runtime), "%s\033[2J", evil);
	snprintf(d.side[1].args, sizeof(d.side[1].args), "%s", evil);
	snprintf(d.side[1].env, sizeof(d.side[1].env), "%s", evil);
	snprintf(d.side[0].cpus, sizeof(d.side[0].cpus), "%s", evil);
	snprintf(d.scenario, sizeof(d.scenario), "</title>%s", evil);
	snprintf(d.stopped, sizeof(d.stopped), "<b>x</b>");
	snprintf(d.cpu_model, sizeof(d.cpu_model), "%s", evil);
	snprintf(d.version, sizeof(d.version), "<i>");
	snprintf(d.engine, sizeof(d.engine), "<i>");
	assert_int_equal(ab_analyze(&d), 0);
	assert_int_equal(ab_write(&d, path, &err), 0);
	assert_int_equal(ab_read(path, &r, &err), 0);
	page = page_of(&r, "<img src=x onerror=alert(1)>.json");
	assert_int_equal(count_of(page, NULL, "<script"), 1); /* the page's own sorting script only */
	assert_null(strstr(page, "alert(1)</script>"));
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<b>"));
	assert_null(strstr(page, "<i>"));
	assert_null(strstr(page, "</title></title>"));
	assert_true(count_of(page, NULL, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;") >= 5);
	free(page);
	for (int md = 0; md < 2; md++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		ab_print(f, &r, md ? RPT_MD : RPT_TABLE);
		fclose(f);
		if (md) /* Markdown passes HTML: none of the file's */
			assert_null(strstr(text, "<script>"));
		assert_null(strchr(text, '\033'));
		free(text);
	}
	ab_free(&d);
	ab_free(&r);
	unlink(path);
}

static size_t fields(const char *line)
{
	size_t n = 1;

	for (; *line && *line != '\n'; line++)
		n += *line == ',';
	return n;
}

static void test_csv_a_row_per_window(void **state)
{
	static const char head[] = "pair,side,use,start_s,duration_s,requests,errors,reconnects,rps,mean_us,p50_us,"
				   "p90_us,p99_us,max_us,drain_ms,side_cpu_ms,other_side_cpu_ms,foreign_cpu_ms,"
				   "startup_ms,value,rss_kb,memory_kb,round,drained\n";
	struct ab_doc d;
	char *text = NULL, *line;
	size_t len = 0, rows = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	make_doc(&d, 12, 1.0, 5);
	assert_int_equal(ab_analyze(&d), 0);
	ab_print(f, &d, RPT_CSV);
	fclose(f);
	assert_true(strncmp(text, head, strlen(head)) == 0);
	for (line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1, rows++) {
		const struct ab_window *w = &d.w[rows];
		char want[96];
		unsigned long long req;
		const char *last;

		assert_int_equal(fields(line), 24);
		snprintf(want, sizeof(want), "%u,%c,%s,", w->pair, w->side,
			 w->pair == 0	? "warmup"
			 : w->pair == 5 ? "noisy"
					: "counted");
		assert_true(strncmp(line, want, strlen(want)) == 0);
		assert_int_equal(sscanf(line, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%llu", &req), 1);
		assert_int_equal(req, w->requests);
		for (last = strchr(line, '\n'); last > line && last[-1] != ','; last--)
			;
		assert_int_equal(strtoull(last, NULL, 10), w->drained); /* the last column, after round */
	}
	assert_int_equal(rows, d.nw);
	free(text);
	ab_free(&d);
}

/* A document at its bound renders a page of bounded size; a window beyond the bound is refused when read. */
static void test_html_bounded(void **state)
{
	struct ab_doc d;
	char *page;

	(void)state;
	make_doc(&d, AB_MAX_WINDOWS / 2 - 1, 1.0, 0);
	assert_int_equal(d.nw, AB_MAX_WINDOWS);
	assert_null(ab_window_add(&d));
	assert_int_equal(ab_analyze(&d), 0);
	page = page_of(&d, "big.json");
	assert_true(strlen(page) < 4u << 20);
	free(page);
	/* in rounds of 16 pairs (an hour of 1 s rounds has 3,600): each round's warm-up pair, its line and its bar
	 * are bounded too, every k-th marked */
	for (size_t i = 0; i < d.nw; i++)
		d.w[i].round = d.w[i].pair / 16, d.w[i].warmup = d.w[i].pair % 16 == 0;
	assert_int_equal(ab_analyze(&d), 0);
	assert_true(d.metric[AB_RPS].rounds > 8000);
	page = page_of(&d, "rounds-big.json");
	assert_true(strlen(page) < 4u << 20);
	assert_non_null(strstr(page, "Of the 8192 rounds, those whose number is a multiple of 32 are marked."));
	free(page);
	ab_free(&d);
}

/* Numbers a hostile file may hold where counts belong: refused or read as 0, never cast undefined. */
static void test_read_hostile_numbers(void **state)
{
	static const char doc[] = "{\"kind\":\"harness-ab/1\",\"threshold\":0.02,\"seed\":-1,\"connections\":1e300,"
				  "\"windows\":[{\"pair\":0,\"side\":\"A\",\"duration_s\":0.5,\"requests\":-5},"
				  "{\"pair\":0,\"side\":\"B\",\"duration_s\":0.5,\"requests\":1e300}]}";
	static const char bad_pair[] = "{\"kind\":\"harness-ab/1\",\"threshold\":0.02,"
				       "\"windows\":[{\"pair\":1e300,\"side\":\"A\",\"duration_s\":0.5}]}";
	struct ab_doc r;
	struct hx_err err = {0};
	char path[] = "/tmp/test_ab-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(util_write_atomic(path, doc, strlen(doc), &err), 0);
	assert_int_equal(ab_read(path, &r, &err), 0);
	assert_int_equal(r.w[0].requests, 0);
	assert_int_equal(r.w[1].requests, 0);
	assert_int_equal(r.seed, 0);
	assert_int_equal(r.connections, 0);
	ab_free(&r);
	assert_int_equal(util_write_atomic(path, bad_pair, strlen(bad_pair), &err), 0);
	assert_true(ab_read(path, &r, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "no pair number"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_leave_out_warmup_and_noisy),
		cmocka_unit_test(test_carry_over),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_round_count),
		cmocka_unit_test(test_slower_is_a_regression),
		cmocka_unit_test(test_first_line),
		cmocka_unit_test(test_still_warming),
		cmocka_unit_test(test_script_direction),
		cmocka_unit_test(test_http_memory),
		cmocka_unit_test(test_script_round_trip),
		cmocka_unit_test(test_md_escapes_the_sides),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_simultaneous_round_trip),
		cmocka_unit_test(test_html_one_point_per_pair),
		cmocka_unit_test(test_html_rounds),
		cmocka_unit_test(test_html_script_metric_axes),
		cmocka_unit_test(test_html_band_and_threshold),
		cmocka_unit_test(test_html_windows_over_time),
		cmocka_unit_test(test_html_escapes_the_file),
		cmocka_unit_test(test_csv_a_row_per_window),
		cmocka_unit_test(test_html_bounded),
		cmocka_unit_test(test_read_hostile_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
