/* harness compare's rows: verdicts by direction and threshold, the gate count, host differences, and the same
 * output byte for byte from the same input. */
#include "testutil.h"

#include <math.h>

#include "report/compare_report.h"

static const struct cmp_opts opts = {.threshold = 0.05, .alpha = 0.05, .fail_on = CMP_FAIL_REGRESSION};

/* A cell of n values around mid, spread by ±spread (relative), deterministic. */
static struct cmp_cell cell(const char *metric, double mid, double spread, size_t n)
{
	struct cmp_cell c = {.scenario = "http-hello", .runtime = "bun", .mode = "pinned", .metric = metric, .n = n};

	c.v = malloc(n * sizeof(double));
	c.trial = calloc(n, sizeof(unsigned));
	c.why = calloc(n, sizeof(unsigned));
	for (size_t i = 0; i < n; i++) {
		c.v[i] = n > 1 ? mid * (1 + spread * ((double)((i * 7) % n) / (double)(n - 1) - 0.5) * 2) : mid;
		c.trial[i] = (unsigned)i + 1;
	}
	return c;
}

/* A cell of the given values, in trial order. */
static struct cmp_cell cell_of_values(const char *metric, const double *v, size_t n)
{
	struct cmp_cell c = cell(metric, 1, 0, n);

	memcpy(c.v, v, n * sizeof(double));
	return c;
}

static void cell_free(struct cmp_cell *c)
{
	free(c->v);
	free(c->trial);
	free(c->why);
}

static struct cmp_row row(struct cmp_cell *a, struct cmp_cell *b, struct cmp_result *r)
{
	struct cmp_side sa = {.path = "a.json", .head = NULL, .cells = a, .ncells = 1};
	struct cmp_side sb = {.path = "b.json", .head = NULL, .cells = b, .ncells = 1};
	struct hx_err err = {0};

	assert_int_equal(cmp_run(&sa, &sb, &opts, r, &err), 0);
	assert_int_equal(r->nrows, 1);
	return r->rows[0];
}

static void test_directions(void **state)
{
	struct cmp_cell a = cell("rps", 50000, 0.02, 10), b = cell("rps", 40000, 0.02, 10);
	struct cmp_cell la = cell("p99_us", 3000, 0.02, 10), lb = cell("p99_us", 3600, 0.02, 10);
	struct cmp_result r;
	struct cmp_row x;

	(void)state;
	x = row(&a, &b, &r); /* throughput fell by a fifth: worse */
	assert_int_equal(x.verdict, CMP_WORSE);
	assert_string_equal(cmp_verdict_word(&x), "slower");
	assert_int_equal(r.regressions, 1);
	assert_true(x.regression);
	assert_true(x.ratio.high < 0.85 && x.mwu.p < 0.001 && x.mwu.exact);
	cmp_result_free(&r);
	x = row(&b, &a, &r); /* and back: better, no regression */
	assert_int_equal(x.verdict, CMP_BETTER);
	assert_string_equal(cmp_verdict_word(&x), "faster");
	assert_int_equal(r.regressions, 0);
	cmp_result_free(&r);
	x = row(&la, &lb, &r); /* latency rose: worse, though the ratio is above 1 */
	assert_int_equal(x.verdict, CMP_WORSE);
	assert_true(x.ratio.estimate > 1.1);
	cmp_result_free(&r);
	a.metric = b.metric = "client_cpu_us_per_request"; /* the instrument's cost rose: shown, not gated */
	x = row(&b, &a, &r);
	assert_int_equal(x.verdict, CMP_WORSE);
	assert_int_equal(r.regressions, 0);
	cmp_result_free(&r);
	assert_int_equal(cmp_metric_direction("rps"), 1);
	assert_int_equal(cmp_metric_direction("startup_median_ms"), 0);
	assert_int_equal(cmp_metric_direction("errors"), -1); /* judged by the run's verdict, not compared */
	cell_free(&a), cell_free(&b), cell_free(&la), cell_free(&lb);
}

static void test_same_small_and_inconclusive(void **state)
{
	struct cmp_cell a = cell("rps", 50000, 0.01, 10), b = cell("rps", 49500, 0.01, 10);
	struct cmp_cell ga = cell("rps", 50000, 0.04, 10), gb = cell("rps", 46500, 0.04, 10);
	struct cmp_cell na = cell("rps", 50000, 0.3, 5), nb = cell("rps", 45000, 0.3, 5);
	struct cmp_result r;
	struct cmp_row x;

	(void)state;
	x = row(&a, &b, &r); /* 1% lower, tight: real, but within the threshold */
	assert_int_equal(x.verdict, CMP_BELOW_THRESHOLD);
	assert_int_equal(r.regressions, 0);
	cmp_result_free(&r);
	x = row(&ga, &gb, &r); /* 7% slower for sure, but not surely more than 5%: said, not gated */
	assert_int_equal(x.verdict, CMP_WORSE);
	assert_true(x.ratio.high > 0.95 && x.ratio.low < 0.95);
	assert_false(x.regression);
	assert_int_equal(r.regressions, 0);
	cmp_result_free(&r);
	x = row(&na, &nb, &r); /* 10% lower but ±30% noise over 5 trials: cannot tell */
	assert_int_equal(x.verdict, CMP_INCONCLUSIVE);
	assert_true(x.trials_needed > 5 && x.trials_needed <= CMP_TRIALS_CAP);
	assert_int_equal(r.regressions, 0);
	cmp_result_free(&r);
	cell_free(&a), cell_free(&b), cell_free(&ga), cell_free(&gb), cell_free(&na), cell_free(&nb);
}

static cJSON *head(const char *model, const char *kernel, const char *digest)
{
	cJSON *h = cJSON_CreateObject(), *host = cJSON_AddObjectToObject(h, "host"), *img;

	cJSON_AddStringToObject(cJSON_AddObjectToObject(host, "cpus"), "model", model);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(host, "kernel"), "release", kernel);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(h, "config"), "cpus", 1);
	img = cJSON_CreateObject();
	cJSON_AddStringToObject(img, "name", "bun");
	cJSON_AddStringToObject(img, "digest", digest);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(h, "images"), img);
	return h;
}

static void test_host_diffs(void **state)
{
	cJSON *a = head("AMD EPYC", "6.1.0", "sha512-aa"), *b = head("AMD EPYC", "6.1.0", "sha512-aa");
	cJSON *k = head("AMD EPYC", "6.2.0", "sha512-aa"), *c = head("Intel Xeon", "6.1.0", "sha512-bb");
	cJSON *e = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	cmp_host_diffs(a, b, &r);
	assert_int_equal(r.ndiffs, 0);
	memset(&r, 0, sizeof(r));
	cmp_host_diffs(a, k, &r); /* another kernel is said, not refused */
	assert_int_equal(r.ndiffs, 1);
	assert_string_equal(r.diffs[0].field, "host.kernel.release");
	assert_false(r.diffs[0].refuse);
	memset(&r, 0, sizeof(r));
	/* the load client's engine is said, not refused: either engine must give the same figures */
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(e, "config"), "engine", "io_uring");
	cmp_host_diffs(a, e, &r);
	assert_int_equal(r.ndiffs, 1);
	assert_string_equal(r.diffs[0].field, "config.engine");
	assert_string_equal(r.diffs[0].a, "auto"); /* a file from before run --engine: auto chose */
	assert_string_equal(r.diffs[0].b, "io_uring");
	assert_false(r.diffs[0].refuse);
	memset(&r, 0, sizeof(r));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItemCaseSensitive(e, "config"), "engine", cJSON_CreateString("auto"));
	cmp_host_diffs(a, e, &r); /* and so is no difference from a new file's auto */
	assert_int_equal(r.ndiffs, 0);
	memset(&r, 0, sizeof(r));
	cmp_host_diffs(a, c, &r);
	assert_int_equal(r.ndiffs, 2);
	assert_string_equal(r.diffs[0].field, "host.cpus.model");
	assert_true(r.diffs[0].refuse);
	assert_false(r.diffs[0].image); /* a host's difference is not --allow-different-images' */
	assert_string_equal(r.diffs[1].field, "images.bun.digest");
	assert_true(r.diffs[1].refuse && r.diffs[1].image);
	assert_string_equal(r.diffs[1].b, "sha512-bb");
	cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(k), cJSON_Delete(c), cJSON_Delete(e);
}

/* In and out of the sandbox (run --no-sandbox; a file without the field was in): listed as another arm of the
 * experiment, which compare never refuses (and merge does); written down either way, it is no difference. */
static void test_sandbox_diff(void **state)
{
	cJSON *in = head("AMD EPYC", "6.1.0", "sha512-aa"), *out = head("AMD EPYC", "6.1.0", "sha512-aa");
	cJSON *said = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_result r;

	(void)state;
	cJSON_AddFalseToObject(cJSON_GetObjectItemCaseSensitive(out, "config"), "sandbox");
	cJSON_AddTrueToObject(cJSON_GetObjectItemCaseSensitive(said, "config"), "sandbox");
	memset(&r, 0, sizeof(r));
	cmp_host_diffs(in, out, &r);
	assert_int_equal(r.ndiffs, 1);
	assert_string_equal(r.diffs[0].field, "config.sandbox");
	assert_string_equal(r.diffs[0].a, "true");
	assert_string_equal(r.diffs[0].b, "false");
	assert_false(r.diffs[0].refuse);
	assert_true(r.diffs[0].arm);
	memset(&r, 0, sizeof(r));
	cmp_host_diffs(in, said, &r);
	assert_int_equal(r.ndiffs, 0);
	cJSON_Delete(in), cJSON_Delete(out), cJSON_Delete(said);
}

/* compare's output with options o; the count of rows that fail the gate in *failing. */
static char *render_with(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_opts *o,
			 enum cmp_format f, size_t *failing)
{
	struct cmp_result r;
	struct hx_err err = {0};
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(cmp_run(a, b, o, &r, &err), 0);
	cmp_render(a, b, o, &r, f, m);
	fclose(m);
	if (failing)
		*failing = r.failing;
	cmp_result_free(&r);
	return buf;
}

static char *render(const struct cmp_side *a, const struct cmp_side *b, enum cmp_format f, size_t *len)
{
	char *text = render_with(a, b, &opts, f, NULL);

	*len = strlen(text);
	return text;
}

static void test_reproducible(void **state)
{
	struct cmp_cell a = cell("startup_median_ms", 6.5, 0.1, 9), b = cell("startup_median_ms", 7.4, 0.1, 9);
	cJSON *h = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_side sa = {.path = "a.json", .head = h, .cells = &a, .ncells = 1};
	struct cmp_side sb = {.path = "b.json", .head = h, .cells = &b, .ncells = 1};

	(void)state;
	for (enum cmp_format f = CMP_TABLE; f <= CMP_JSON; f++) {
		size_t l1, l2;
		char *one = render(&sa, &sb, f, &l1), *two = render(&sa, &sb, f, &l2);

		assert_int_equal(l1, l2);
		assert_memory_equal(one, two, l1);
		assert_non_null(strstr(one, f == CMP_JSON ? "\"verdict\":\t\"slower\"" : "slower"));
		free(one);
		free(two);
	}
	cJSON_Delete(h);
	cell_free(&a), cell_free(&b);
}

/* Noisy trials are counted per side and shown in their column, and the gate's line says how many
 * regressions had them; the gate itself still fails: a flag is evidence for the reader, not a pass. */
static void test_noisy_shown(void **state)
{
	struct cmp_cell a = cell("rps", 50000, 0.02, 10), b = cell("rps", 40000, 0.02, 10);
	cJSON *h = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_side sa = {.path = "a.json", .head = h, .cells = &a, .ncells = 1};
	struct cmp_side sb = {.path = "b.json", .head = h, .cells = &b, .ncells = 1};
	struct cmp_result r;
	struct hx_err err = {0};
	size_t len;
	char *text;

	(void)state;
	b.noisy = 3;
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_int_equal(r.regressions, 1);
	cmp_result_free(&r);
	text = render(&sa, &sb, CMP_TABLE, &len);
	assert_non_null(strstr(text, "    0 / 3  slower\n"));
	assert_non_null(strstr(text, "Gate: FAILED: 1 significant regression(s) beyond 5% (Holm-adjusted over 1 row); "
				     "0 of 1 gated rows could not be judged (too few trials).\n1 of them with noisy "
				     "trials on a side"));
	free(text);
	text = render(&sa, &sb, CMP_JSON, &len);
	assert_non_null(strstr(text, "\"noisy\":\t3"));
	free(text);
	b.noisy = 0;
	text = render(&sa, &sb, CMP_TABLE, &len);
	assert_non_null(strstr(text, "    0 / 0  slower\n"));
	assert_null(strstr(text, "of them with noisy"));
	assert_null(strstr(text, "Gate: passed")); /* one gate line: failed, never both */
	free(text);
	cJSON_Delete(h);
	cell_free(&a), cell_free(&b);
}

/* --fail-on quiet-regression: a regression whose slower side had outside noise, and does not stand without those
 * trials, is shown, said and counted apart, and does not fail the gate; one with none still does; --fail-on none
 * fails on nothing. */
static void test_quiet_gate(void **state)
{
	struct cmp_cell a = cell("rps", 50000, 0.02, 10), b = cell("rps", 40000, 0.02, 10);
	cJSON *h = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_side sa = {.path = "a.json", .head = h, .cells = &a, .ncells = 1};
	struct cmp_side sb = {.path = "b.json", .head = h, .cells = &b, .ncells = 1};
	struct cmp_opts quiet = opts, none = opts;
	size_t failing;
	char *text;

	(void)state;
	quiet.fail_on = CMP_FAIL_QUIET_REGRESSION;
	none.fail_on = CMP_FAIL_NONE;
	b.noisy = 10;
	for (size_t i = 0; i < 10; i++)
		b.why[i] = 1u << RES_NOISY_STEAL;
	text = render_with(&sa, &sb, &quiet, CMP_TABLE, &failing);
	assert_int_equal(failing, 0);
	assert_non_null(strstr(text, "0 / 10  slower (excused, --fail-on quiet-regression: outside noise in B's "
				     "trials 1 (steal), 2 (steal)"));
	assert_non_null(strstr(text, "Gate: passed: no significant regression beyond 5% not excused by outside noise "
				     "(Holm-adjusted over 1 row)"));
	assert_non_null(strstr(text, "1 significant regression(s) excused"));
	assert_null(strstr(text, "of them with noisy"));
	free(text);
	text = render_with(&sa, &sb, &quiet, CMP_JSON, NULL);
	assert_non_null(strstr(text, "\"excused\":\ttrue"));
	assert_non_null(strstr(text, "\"excused_by\":\t\"1 (steal), 2 (steal)"));
	assert_non_null(strstr(text, "\"fail_on\":\t\"quiet-regression\""));
	assert_non_null(strstr(text, "\"gate\":\t\"passed\""));
	assert_non_null(strstr(text, "\"regressions\":\t1")); /* counted all the same */
	free(text);
	/* quiet on both sides: the gate fails as with --fail-on regression */
	b.noisy = 0;
	memset(b.why, 0, 10 * sizeof(unsigned));
	text = render_with(&sa, &sb, &quiet, CMP_TABLE, &failing);
	assert_int_equal(failing, 1);
	assert_non_null(strstr(text, "Gate: FAILED: 1 significant regression(s) beyond 5% not excused by outside "
				     "noise (Holm-adjusted over 1 row)"));
	free(text);
	text = render_with(&sa, &sb, &none, CMP_TABLE, &failing);
	assert_int_equal(failing, 0);
	assert_non_null(strstr(text, "    0 / 0  slower\n"));
	assert_non_null(strstr(text, "Gate: off (--fail-on none).\n"));
	free(text);
	cJSON_Delete(h);
	cell_free(&a), cell_free(&b);
}

/* Rows of several cells at once: a[i] against b[i]. */
static void run_rows(struct cmp_cell *a, struct cmp_cell *b, size_t n, const struct cmp_opts *o, struct cmp_result *r)
{
	struct cmp_side sa = {.path = "a.json", .head = NULL, .cells = a, .ncells = n};
	struct cmp_side sb = {.path = "b.json", .head = NULL, .cells = b, .ncells = n};
	struct hx_err err = {0};

	assert_int_equal(cmp_run(&sa, &sb, o, r, &err), 0);
	assert_int_equal(r->nrows, n);
}

/* One trial a side gives a CI of [r, r]: before, 10 against 10.4 was "no significant change". Three a side
 * cannot give p < 0.1: before, 3x slower was "inconclusive: ~3 trials per side would settle it" and the gate
 * passed. Now both are too few, with the count any verdict needs, and a gate of such rows is not a pass. */
static void test_too_few(void **state)
{
	double one_a[] = {10}, one_b[] = {10.4}, three_a[] = {10, 10.1, 10.2}, three_b[] = {13, 13.1, 13.2};
	struct cmp_cell a = cell_of_values("startup_median_ms", one_a, 1),
			b = cell_of_values("startup_median_ms", one_b, 1);
	struct cmp_cell ta = cell_of_values("startup_median_ms", three_a, 3),
			tb = cell_of_values("startup_median_ms", three_b, 3);
	struct cmp_result r;
	struct cmp_row x;

	(void)state;
	x = row(&a, &b, &r);
	assert_int_equal(x.verdict, CMP_TOO_FEW);
	assert_int_equal(x.trials_needed, 4); /* 2 / C(8, 4) = 0.029 < 0.05; 2 / C(6, 3) = 0.1 */
	assert_int_equal(r.gate, CMP_GATE_UNJUDGED);
	assert_int_equal(r.unjudged, 1);
	cmp_result_free(&r);
	x = row(&ta, &tb, &r);
	assert_int_equal(x.verdict, CMP_TOO_FEW);
	assert_int_equal(x.trials_needed, 4);
	assert_false(x.regression);
	assert_int_equal(r.gate, CMP_GATE_UNJUDGED);
	cmp_result_free(&r);
	cell_free(&a), cell_free(&b), cell_free(&ta), cell_free(&tb);
}

/* Rendered: the row says what it needs and prints no CI; the gate line says it judged nothing, in every format. */
static void test_too_few_rendered(void **state)
{
	double va[] = {10, 10.1, 10.2}, vb[] = {13, 13.1, 13.2};
	struct cmp_cell a = cell_of_values("startup_median_ms", va, 3), b = cell_of_values("startup_median_ms", vb, 3);
	cJSON *h = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_side sa = {.path = "a.json", .head = h, .cells = &a, .ncells = 1};
	struct cmp_side sb = {.path = "b.json", .head = h, .cells = &b, .ncells = 1};
	char *text;

	(void)state;
	text = render_with(&sa, &sb, &opts, CMP_TABLE, NULL);
	assert_non_null(strstr(text, "too few trials: 4 per side needed for any verdict\n"));
	assert_non_null(strstr(text, "Gate: NOT JUDGED: none of the 1 gated rows"));
	assert_null(strstr(text, "Gate: passed"));
	assert_null(strstr(text, "1.290–")); /* no CI for a row that cannot have one */
	free(text);
	text = render_with(&sa, &sb, &opts, CMP_JSON, NULL);
	assert_non_null(strstr(text, "\"verdict\":\t\"too_few_trials\""));
	assert_non_null(strstr(text, "\"gate\":\t\"unjudged\""));
	assert_null(strstr(text, "\"ci_low\""));
	free(text);
	cJSON_Delete(h);
	cell_free(&a), cell_free(&b);
}

/* A tiny change that is certain (p ~ 1e-11, +3%) was "no significant change"; it is below the threshold. */
static void test_below_threshold(void **state)
{
	struct cmp_cell a = cell("startup_median_ms", 10, 0.005, 30), b = cell("startup_median_ms", 10.3, 0.005, 30);
	struct cmp_result r;
	struct cmp_row x;

	(void)state;
	x = row(&a, &b, &r);
	assert_true(x.mwu.p < 1e-9);
	assert_int_equal(x.verdict, CMP_BELOW_THRESHOLD);
	assert_false(x.regression);
	assert_string_equal(cmp_verdict_names[x.verdict], "below_threshold");
	assert_string_equal(cmp_verdict_word(&x), "below threshold");
	cmp_result_free(&r);
	cell_free(&a), cell_free(&b);
}

/* Holm over the rows: one clear regression among rows that did not move is still called; twelve rows of five
 * trials cannot be (2 / C(10, 5) = 0.0079 is not below 0.05 / 12): too few, where a single row of five is judged. */
static void test_holm_family(void **state)
{
	struct cmp_cell a[12], b[12];
	struct cmp_result r;

	(void)state;
	for (size_t i = 0; i < 12; i++) {
		a[i] = cell("startup_median_ms", 10, 0.02, 5);
		b[i] = cell("startup_median_ms", i == 0 ? 13 : 10, 0.02, 5);
		snprintf(a[i].scenario, sizeof(a[i].scenario), "s%zu", i);
		snprintf(b[i].scenario, sizeof(b[i].scenario), "s%zu", i);
	}
	run_rows(a, b, 1, &opts, &r);
	assert_int_equal(r.rows[0].verdict, CMP_WORSE);
	assert_int_equal(r.gate, CMP_GATE_FAILED);
	cmp_result_free(&r);
	run_rows(a, b, 12, &opts, &r);
	assert_int_equal(r.family, 12);
	assert_int_equal(r.rows[0].verdict, CMP_TOO_FEW);
	assert_int_equal(r.rows[0].trials_needed, 6); /* 2 / C(12, 6) = 0.0022 < 0.0042 */
	assert_int_equal(r.gate, CMP_GATE_UNJUDGED);
	cmp_result_free(&r);
	for (size_t i = 0; i < 12; i++) { /* ten trials: judged, and the adjusted p is Holm's */
		cell_free(&a[i]), cell_free(&b[i]);
		a[i] = cell("startup_median_ms", 10, 0.02, 10);
		b[i] = cell("startup_median_ms", i == 0 ? 13 : 10.01, 0.02, 10);
		snprintf(a[i].scenario, sizeof(a[i].scenario), "s%zu", i);
		snprintf(b[i].scenario, sizeof(b[i].scenario), "s%zu", i);
	}
	run_rows(a, b, 12, &opts, &r);
	assert_int_equal(r.rows[0].verdict, CMP_WORSE);
	assert_true(fabs(r.rows[0].p_adj - 12 * r.rows[0].mwu.p) < 1e-12); /* the smallest p: times the family */
	assert_int_equal(r.gate, CMP_GATE_FAILED);
	for (size_t i = 1; i < 12; i++)
		assert_true(r.rows[i].verdict != CMP_WORSE && r.rows[i].p_adj >= r.rows[i].mwu.p);
	cmp_result_free(&r);
	for (size_t i = 0; i < 12; i++)
		cell_free(&a[i]), cell_free(&b[i]);
}

/* The excuse of --fail-on quiet-regression: noise on A (which only flatters B) and flags a slower runtime
 * causes itself (stall, spread) excused a regression before; now only outside noise on B does, and only when
 * the regression does not stand without those trials; the row names them. */
static void test_excuse_rule(void **state)
{
	struct cmp_cell a = cell("rps", 50000, 0.02, 10), b = cell("rps", 40000, 0.02, 10);
	struct cmp_opts quiet = opts;
	struct cmp_result r;

	(void)state;
	quiet.fail_on = CMP_FAIL_QUIET_REGRESSION;
	a.why[2] = 1u << RES_NOISY_STEAL, a.noisy = 1;					  /* on A: never an excuse */
	b.why[1] = 1u << RES_NOISY_STALL, b.why[4] = 1u << RES_NOISY_SPREAD, b.noisy = 2; /* its own doing */
	run_rows(&a, &b, 1, &quiet, &r);
	assert_true(r.rows[0].regression);
	assert_false(r.rows[0].excused);
	assert_int_equal(r.failing, 1);
	cmp_result_free(&r);
	b.why[6] = 1u << RES_NOISY_FOREIGN; /* one trial of outside noise: the other nine still show it */
	run_rows(&a, &b, 1, &quiet, &r);
	assert_false(r.rows[0].excused);
	assert_int_equal(r.failing, 1);
	cmp_result_free(&r);
	for (size_t i = 0; i < 10; i++) /* outside noise on all of B but one: without it, too little to judge */
		if (i != 1)
			b.why[i] = (1u << RES_NOISY_CONTENDED) | (i == 3 ? 1u << RES_NOISY_STEAL : 0);
	run_rows(&a, &b, 1, &quiet, &r);
	assert_true(r.rows[0].excused);
	assert_int_equal(r.failing, 0);
	assert_int_equal(r.gate, CMP_GATE_PASSED);
	assert_non_null(strstr(r.rows[0].excused_by, "4 (steal, contended)"));
	assert_null(strstr(r.rows[0].excused_by, "stall"));
	cmp_result_free(&r);
	run_rows(&a, &b, 1, &opts, &r); /* --fail-on regression: no excuse at all */
	assert_int_equal(r.failing, 1);
	cmp_result_free(&r);
	cell_free(&a), cell_free(&b);
}

/* A zero median on a side: the ratio was NAN ("inconclusive: ~2 trials") or infinite (printed as null); now the
 * row is judged by the rank test and says which side is zero. */
static void test_zero_median(void **state)
{
	struct cmp_cell a = cell("p99_us", 0, 0, 10), b = cell("p99_us", 3000, 0.02, 10);
	cJSON *h = head("AMD EPYC", "6.1.0", "sha512-aa");
	struct cmp_side sa = {.path = "a.json", .head = h, .cells = &a, .ncells = 1};
	struct cmp_side sb = {.path = "b.json", .head = h, .cells = &b, .ncells = 1};
	struct cmp_result r;
	struct cmp_row x;
	char *text;

	(void)state;
	x = row(&a, &b, &r);
	assert_int_equal(x.verdict, CMP_WORSE);
	assert_true(x.regression);
	cmp_result_free(&r);
	text = render_with(&sa, &sb, &opts, CMP_TABLE, NULL);
	assert_non_null(strstr(text, "from 0"));
	free(text);
	text = render_with(&sa, &sb, &opts, CMP_JSON, NULL);
	assert_non_null(strstr(text, "\"ratio_note\":\t\"A's median is 0\""));
	free(text);
	x = row(&a, &a, &r); /* both zero: the same */
	assert_int_equal(x.verdict, CMP_INCONCLUSIVE);
	cmp_result_free(&r);
	cJSON_Delete(h);
	cell_free(&a), cell_free(&b);
}

/* Two files as a duet's two sides run apart (one runtime each, one host and plan, the same scenarios, the runtimes
 * differing by name or by image): the command of the duet to prefer, with what --runtimes named; and nothing for
 * run to run of one runtime, two runtimes in a file, other scenarios or another host. */
static void test_duet_sides(void **state)
{
	cJSON *h = head("AMD EPYC", "6.1.0", "sha512-aa"), *same = head("AMD EPYC", "6.1.0", "sha512-aa");
	cJSON *build = head("AMD EPYC", "6.1.0", "sha512-bb"), *other = head("Intel Xeon", "6.1.0", "sha512-aa");
	struct cmp_cell a[2] = {cell("rps", 1000, 0.02, 5), cell("p99_us", 900, 0.02, 5)};
	struct cmp_cell b[2] = {cell("rps", 1000, 0.02, 5), cell("p99_us", 900, 0.02, 5)};
	struct cmp_side sa = {.path = "a.json", .head = h, .cells = a, .ncells = 2};
	struct cmp_side sb = {.path = "b.json", .head = same, .cells = b, .ncells = 2};
	struct cmp_result r;
	struct hx_err err = {0};
	char cmd[256] = "";

	(void)state;
	cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(build, "images"), 0), "spec",
				"./pr/bun");
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_false(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd))); /* bun and bun, one image: run to run */
	cmp_result_free(&r);
	sb.head = build; /* another build under the name */
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_true(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd)));
	assert_string_equal(cmd, "harness ab bun ./pr/bun http-hello");
	cmp_result_free(&r);
	/* a spec a shell would take apart ("x;curl ...|sh" from a file anyone wrote): no command to paste */
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(build, "images"), 0), "spec",
				  cJSON_CreateString("./pr/bun;curl x|sh"));
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_false(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd)));
	cmp_result_free(&r);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(build, "images"), 0), "spec",
				  cJSON_CreateString("./pr/bun"));
	sb.head = same; /* two runtimes by name: no row in common, and still a duet's sides */
	snprintf(b[0].runtime, sizeof(b[0].runtime), "node24");
	snprintf(b[1].runtime, sizeof(b[1].runtime), "node24");
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_int_equal(r.nrows, 0);
	assert_true(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd)));
	assert_string_equal(cmd, "harness ab bun node24 http-hello");
	cmp_result_free(&r);
	sb.head = other; /* another host */
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_false(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd)));
	cmp_result_free(&r);
	sb.head = same; /* two runtimes in one file */
	snprintf(b[1].runtime, sizeof(b[1].runtime), "bun");
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_false(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd)));
	cmp_result_free(&r);
	snprintf(b[1].runtime, sizeof(b[1].runtime), "node24"); /* other scenarios */
	snprintf(b[1].scenario, sizeof(b[1].scenario), "startup");
	assert_int_equal(cmp_run(&sa, &sb, &opts, &r, &err), 0);
	assert_false(cmp_duet_sides(&sa, &sb, &r, cmd, sizeof(cmd)));
	cmp_result_free(&r);
	cJSON_Delete(h), cJSON_Delete(same), cJSON_Delete(build), cJSON_Delete(other);
	for (int i = 0; i < 2; i++)
		cell_free(&a[i]), cell_free(&b[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_directions),	 cmocka_unit_test(test_same_small_and_inconclusive),
		cmocka_unit_test(test_host_diffs),	 cmocka_unit_test(test_sandbox_diff),
		cmocka_unit_test(test_reproducible),	 cmocka_unit_test(test_noisy_shown),
		cmocka_unit_test(test_quiet_gate),	 cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_too_few_rendered), cmocka_unit_test(test_below_threshold),
		cmocka_unit_test(test_holm_family),	 cmocka_unit_test(test_excuse_rule),
		cmocka_unit_test(test_zero_median),	 cmocka_unit_test(test_duet_sides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
