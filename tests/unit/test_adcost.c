/* An adapter's cost per request on a null handler (results/adcost.c): its arithmetic against numpy/scipy, its
 * record read back, and its line beside the runtime's row in the table and Markdown reports. */
#include "testutil.h"

#include <math.h>

#include "report/html.h"
#include "report/report.h"
#include "results/adcost.h"
#include "results/results.h"

#define N(v)			   (sizeof(v) / sizeof((v)[0]))
#define assert_close(x, want, rel) assert_true(fabs((x) - (want)) <= (rel)*fmax(1e-300, fabs(want)))

/* A duet's pairs: plain node:http at ~47.5k req/s, the adapter at ~18.6k (docs/scenario.md's figures). */
static const double PLAIN[] = {47100, 47900, 46800, 48200, 47500, 46900, 47700};
static const double ADAPTER[] = {18600, 18900, 18300, 18700, 18500, 18200, 18800};
/* /usr/bin/python3: r = plain/adapter; gm = exp(mean(log r)); us = 1e6/median(plain) * (gm - 1); the t interval
 * of mean(log r) (scipy.stats.t.interval(0.95, n-1, loc, sem)) mapped the same way */
#define GM    2.5546885519721605
#define US    32.73028530467707
#define T_LOW 32.341516610012924
#define T_HI  33.12188466717799

static void test_arithmetic(void **state)
{
	struct adc_cost c = {0};

	(void)state;
	assert_int_equal(adc_compute(PLAIN, ADAPTER, N(PLAIN), &c), 0);
	assert_int_equal(c.pairs, 7);
	assert_close(c.ratio, GM, 1e-12);
	assert_close(c.us, US, 1e-12);
	assert_true(c.plain_rps == 47500 && c.adapter_rps == 18600);
	/* the expanded bootstrap's interval is the t interval's width, give or take its resampling */
	assert_true(c.us_low < c.us && c.us < c.us_high);
	assert_true(fabs(c.us_low - T_LOW) < 0.25 * (T_HI - T_LOW));
	assert_true(fabs(c.us_high - T_HI) < 0.25 * (T_HI - T_LOW));
	/* the same pairs give the same bits */
	{
		struct adc_cost again = {0};

		assert_int_equal(adc_compute(PLAIN, ADAPTER, N(PLAIN), &again), 0);
		assert_true(again.us_low == c.us_low && again.us_high == c.us_high);
	}
	/* an adapter that costs nothing reads 0, one faster than plain reads below 0 */
	assert_int_equal(adc_compute(PLAIN, PLAIN, N(PLAIN), &c), 0);
	assert_true(fabs(c.us) < 1e-9);
	assert_int_equal(adc_compute(ADAPTER, PLAIN, N(PLAIN), &c), 0);
	assert_true(c.us < 0);
	/* one pair: the figure, no CI */
	assert_int_equal(adc_compute(PLAIN, ADAPTER, 1, &c), 0);
	assert_close(c.us, 1e6 / 47100 * (47100.0 / 18600 - 1), 1e-12);
	assert_true(isnan(c.us_low) && isnan(c.us_high));
	/* nothing to measure, or a window that served nothing */
	assert_int_equal(adc_compute(PLAIN, ADAPTER, 0, &c), -1);
	assert_int_equal(adc_compute(PLAIN, (const double[]){18600, 0}, 2, &c), -1);
}

static void test_text(void **state)
{
	struct adc_cost c = {0};
	char buf[256];

	(void)state;
	assert_int_equal(adc_compute(PLAIN, ADAPTER, N(PLAIN), &c), 0);
	c.us_low = 32.04;
	c.us_high = 33.46;
	report_adcost_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "+32.7 µs/request on a null handler (95% CI 32.0–33.5, 7 pairs)");
	assert_int_equal(adc_compute(PLAIN, ADAPTER, 1, &c), 0);
	report_adcost_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "+32.5 µs/request on a null handler (1 pair, no CI)");
	c = (struct adc_cost){.error = "the adapter's server exited"};
	report_adcost_text(&c, buf, sizeof(buf));
	assert_string_equal(buf, "its cost not measured: the adapter's server exited");
}

static void add_trial(struct res_doc *d, const char *runtime, const char *adapter)
{
	struct trial_result *t = res_doc_add(d);

	res_trial_init(t, "http-wintercg", runtime, "pinned", 1, 1);
	snprintf(t->workload, sizeof(t->workload), "http");
	snprintf(t->adapter, sizeof(t->adapter), "%s", adapter);
	t->status = TRIAL_OK;
	t->have |= RES_HAVE_LOAD;
	t->load.requests = 50000;
	t->load.duration_s = 2.5;
	t->load.rps = 20000;
}

/* The report as text into *text (the caller frees it). */
static void render(const struct res_doc *d, enum report_format f, char **text, size_t *len)
{
	FILE *out = open_memstream(text, len);

	assert_int_equal(report_render(d, f, out, &(struct hx_err){0}), 0);
	fclose(out);
}

/* Written, read back, and printed beside the runtime's row (only its own: bun's row has no adapter). */
static void test_beside_the_row(void **state)
{
	struct res_doc d, back;
	struct hx_err err = {0};
	struct adc_cost c = {0}, got;
	char dir[] = "/tmp/test-adcost-XXXXXX", path[64];
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	add_trial(&d, "node24", "serve-node.mjs: userland code from node:http to the fetch handler");
	add_trial(&d, "bun", "");
	assert_int_equal(adc_compute(PLAIN, ADAPTER, N(PLAIN), &c), 0);
	snprintf(c.scenario, sizeof(c.scenario), "http-wintercg");
	snprintf(c.runtime, sizeof(c.runtime), "node24");
	snprintf(c.mode, sizeof(c.mode), "pinned");
	snprintf(c.adapter, sizeof(c.adapter), "null-adapter.mjs");
	snprintf(c.plain, sizeof(c.plain), "null-plain.mjs");
	assert_int_equal(adc_record(&d, &c), 0);
	assert_int_equal(res_write(&d, path, &err), 0);
	assert_int_equal(res_read(path, &back, &err), 0);
	assert_true(adc_find(&back, "http-wintercg", "node24", "pinned", &got));
	assert_close(got.us, c.us, 1e-12);
	assert_close(got.us_low, c.us_low, 1e-12);
	assert_int_equal(got.pairs, 7);
	assert_string_equal(got.plain, "null-plain.mjs");
	assert_false(adc_find(&back, "http-wintercg", "node24", "quota", &got));
	assert_false(adc_find(&back, "http-wintercg", "bun", "pinned", &got));
	for (int f = RPT_TABLE; f <= RPT_MD; f++) {
		render(&back, (enum report_format)f, &text, &len);
		assert_non_null(strstr(text, "node24"));
		assert_non_null(strstr(strstr(text, "node24"),
				       "through an adapter (serve-node.mjs): +32.7 µs/request on a null handler"));
		assert_null(strstr(strstr(text, "bun"), "µs/request"));
		free(text);
	}
	/* the HTML page: a table of the scenario's adapters */
	{
		FILE *out = open_memstream(&text, &len);

		assert_int_equal(html_render(&back, "r.json", out, &err), 0);
		fclose(out);
	}
	assert_non_null(strstr(text, "<caption>Adapters: the cost per request"));
	assert_non_null(strstr(text, "<td>node24</td><td>pinned</td><td>null-adapter.mjs</td><td>+32.7 µs/request on a "
				     "null handler"));
	free(text);
	res_doc_free(&d);
	res_doc_free(&back);
	unlink(path);
	rmdir(dir);
}

/* A record from a file is outside input: a wrong one is not a cost. */
static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"runtime\":\"node24\",\"mode\":\"pinned\",\"us_per_request\":3,\"pairs\":2}",
		"{\"scenario\":\"s\",\"runtime\":\"node24\",\"mode\":\"pinned\",\"pairs\":2}",
		"{\"scenario\":\"s\",\"runtime\":\"node24\",\"mode\":\"pinned\",\"us_per_request\":\"3\",\"pairs\":2}",
		"{\"scenario\":7,\"runtime\":\"node24\",\"mode\":\"pinned\",\"us_per_request\":3,\"pairs\":2}",
	};
	struct adc_cost c;

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		cJSON *o = cJSON_Parse(bad[i]);

		assert_int_equal(adc_parse(o, &c), -1);
		cJSON_Delete(o);
	}
}

/* harness merge: each shard's costs, once each. */
static void test_merge(void **state)
{
	struct res_doc a, b;
	struct hx_err err = {0};
	struct adc_cost c = {.pairs = 7, .us = 30, .us_low = NAN, .us_high = NAN}, got;

	(void)state;
	assert_int_equal(res_doc_init(&a, "9.9.9", "abc", &err), 0);
	assert_int_equal(res_doc_init(&b, "9.9.9", "abc", &err), 0);
	snprintf(c.scenario, sizeof(c.scenario), "http-wintercg");
	snprintf(c.runtime, sizeof(c.runtime), "node24");
	snprintf(c.mode, sizeof(c.mode), "pinned");
	assert_int_equal(adc_record(&a, &c), 0);
	c.us = 31;
	assert_int_equal(adc_record(&b, &c), 0); /* the same cell in two shards: the first kept */
	snprintf(c.runtime, sizeof(c.runtime), "node22");
	assert_int_equal(adc_record(&b, &c), 0);
	assert_int_equal(adc_merge(&a, &b), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(a.head, "adapter_costs")), 2);
	assert_true(adc_find(&a, "http-wintercg", "node24", "pinned", &got) && got.us == 30);
	assert_true(adc_find(&a, "http-wintercg", "node22", "pinned", &got) && got.us == 31);
	res_doc_free(&a);
	res_doc_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),     cmocka_unit_test(test_text),
		cmocka_unit_test(test_beside_the_row), cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
