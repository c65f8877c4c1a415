/* The route matrix: its scenario keys parsed strictly, its cells through the results file and back, its
 * table, and the digest argument of a checked request. */
#include "testutil.h"

#include "load/check.h"
#include "report/matrix.h"
#include "results/results.h"
#include "run/scenario.h"

#define HEAD "{\"name\":\"m\",\"workload\":\"http\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
#define SHA  "5FCE37F3129150CE7EC3939B54016D9C1FD01364E27B0A788DC634064AEC76B1"

static const char matrix_ok[] =
	HEAD "\"skip\":{\"node20\":\"no node:sqlite\"},"
	     "\"load\":{\"sweep\":[1,10,50,200],\"duration_s\":4,\"warmup_s\":2},"
	     "\"routes\":[{\"name\":\"version\",\"path\":\"/api/version\",\"length\":40},"
	     "{\"name\":\"media\",\"path\":\"/m?x=1\",\"headers\":{\"Range\":\"bytes=0-9\",\"X-A\":\"b\"},"
	     "\"status\":206,\"length\":10,\"sha256\":\"" SHA "\",\"content_range\":\"bytes 0-9/100\"},"
	     "{\"name\":\"css-br\",\"path\":\"/a.css\",\"headers\":{\"Accept-Encoding\":\"br\"},\"encoding\":\"br\"}]}";

static void test_parse(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("m.json", matrix_ok, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.nroutes, 3);
	assert_int_equal(s.nsweep, 4);
	assert_int_equal(s.sweep[3], 200);
	assert_string_equal(s.routes[0].path, "/api/version");
	assert_int_equal(s.routes[0].status, 200); /* the default */
	assert_true(s.routes[0].has_length && s.routes[0].length == 40);
	assert_false(s.routes[2].has_length);
	assert_int_equal(s.routes[1].status, 206);
	assert_int_equal(s.routes[1].nheaders, 2);
	assert_string_equal(s.routes[1].headers[0], "Range: bytes=0-9");
	assert_string_equal(s.routes[1].sha256, "5fce37f3129150ce7ec3939b54016d9c1fd01364e27b0a788dc634064aec76b1");
	assert_string_equal(s.routes[1].range, "bytes 0-9/100");
	assert_string_equal(s.routes[2].encoding, "br");
	{
		char why[256];

		assert_string_equal(scn_why_not(&s, &(struct manifest){.name = "node20"}, why, sizeof(why)),
				    "no node:sqlite");
		assert_null(scn_why_not(&s, &(struct manifest){.name = "bun"}, why, sizeof(why)));
	}
	scn_scale(&s, SCN_QUICK);
	assert_true(s.duration_s == 1 && s.warmup_s == 0.5);
}

static void test_sweep_defaults_to_connections(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("m.json", HEAD "\"load\":{\"connections\":7},\"routes\":[{\"name\":\"a\",\"path\":\"/\"}]}", &s,
		      &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.nsweep, 1);
	assert_int_equal(s.sweep[0], 7);
	assert_true(s.duration_s == 10 && s.warmup_s == 1);
}

static void expect(const char *text, const char *needle)
{
	struct scenario s;
	struct hx_err err = {0};

	assert_true(scn_parse("x/scenario.json", text, &s, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
}

#define R(x) HEAD "\"load\":{},\"routes\":[" x "]}"

static void test_mistakes(void **state)
{
	(void)state;
	expect(R("{\"name\":\"a\",\"path\":\"/\",\"stauts\":200}"), "stauts: unknown key in a route");
	expect(R("{\"path\":\"/\"}"), "every route needs a name and a path");
	expect(R("{\"name\":\"a\",\"path\":\"/\\r\\nX: y\"}"), "routes.path");
	expect(R("{\"name\":\"a\",\"path\":\"/\",\"headers\":{\"Bad Name\":\"v\"}}"), "routes.headers");
	expect(R("{\"name\":\"a\",\"path\":\"/\",\"headers\":{\"X\":\"v\\r\\nInjected: 1\"}}"),
	       "has a control character");
	expect(R("{\"name\":\"a\",\"path\":\"/\",\"sha256\":\"abc\"}"), "routes.sha256: expected 64 hex digits");
	expect(R("{\"name\":\"a\",\"path\":\"/\",\"status\":99}"), "routes.status");
	expect(R("{\"name\":\"a\",\"path\":\"/\",\"length\":1.5}"), "routes.length: expected a whole number");
	expect(R("{\"name\":\"a\",\"path\":\"/\"},{\"name\":\"a\",\"path\":\"/b\"}"), "'a' twice");
	expect(R(""), "routes: expected an array of 1 to 8 routes");
	expect(HEAD "\"load\":{\"sweep\":[]},\"routes\":[{\"name\":\"a\",\"path\":\"/\"}]}", "load.sweep");
	expect(HEAD "\"load\":{\"sweep\":[0]},\"routes\":[{\"name\":\"a\",\"path\":\"/\"}]}", "load.sweep");
	expect(HEAD "\"load\":{\"requests\":10},\"routes\":[{\"name\":\"a\",\"path\":\"/\"}]}",
	       "not a count of requests");
	expect(HEAD "\"load\":{\"sweep\":[1]}}", "are for a scenario with routes");
	expect(HEAD "\"load\":{\"duration_s\":0},\"routes\":[{\"name\":\"a\",\"path\":\"/\"}]}", "load.duration_s");
	expect("{\"name\":\"m\",\"workload\":\"startup\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
	       "\"routes\":[{\"name\":\"a\",\"path\":\"/\"}]}",
	       "routes are for an http workload");
	expect(HEAD "\"skip\":{\"bun\":\"why\"},\"load\":{}}", "bun is both in runtimes and skipped");
	expect(HEAD "\"skip\":{\"../x\":\"why\"},\"load\":{}}", "skip: '../x' is not a name");
	expect(HEAD "\"skip\":{\"node20\":1},\"load\":{}}", "skip: expected a non-empty string");
}

static void cell(struct trial_result *t, const char *route, unsigned conns, double rps, double p95_us)
{
	struct res_cell *c = res_cell_add(t);

	assert_non_null(c);
	snprintf(c->route, sizeof(c->route), "%s", route);
	c->connections = conns;
	c->load.requests = 100;
	c->load.rps = rps;
	c->load.latency_us.p95 = p95_us;
	c->load.config.connections = conns;
	c->load.config.duration_s = 1;
}

/* A trial's cells survive the results file, and count for its verdict. */
static void test_cells_json(void **state)
{
	struct trial_result t, back;
	struct hx_err err = {0};
	cJSON *j;

	(void)state;
	res_trial_init(&t, "m", "bun", "pinned", 1, 0);
	res_trial_init(&back, "", "", "", 0, 0);
	cell(&t, "version", 1, 1234, 1500);
	cell(&t, "media", 10, 99, 25000);
	t.cells[1].load.errors_total = 3;
	t.cells[1].load.errors[LE_BODY] = 3;
	assert_false(res_trial_passed(&t, 0));
	assert_true(res_trial_passed(&t, 3));
	j = res_trial_json(&t);
	if (res_trial_parse(j, &back, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(back.ncells, 2);
	assert_string_equal(back.cells[1].route, "media");
	assert_int_equal(back.cells[1].connections, 10);
	assert_int_equal(back.cells[1].load.errors[LE_BODY], 3);
	assert_true(back.cells[0].load.rps == 1234);
	cJSON_Delete(j);
	res_trial_free(&t);
	res_trial_free(&back);
}

/* One row per connections x runtime, one column per route, `req/s (p95 ms)` as medians over trials. */
static void test_table(void **state)
{
	struct res_doc d = {0};
	struct hx_err err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(res_doc_init(&d, "0", "0", &err), 0);
	for (unsigned k = 0; k < 3; k++) {
		struct trial_result *t = res_doc_add(&d);

		res_trial_init(t, "m", "bun", "pinned", k + 1, k);
		snprintf(t->noise, sizeof(t->noise), "none");
		cell(t, "version", 1, 1000 + 100 * k, 1000 + 1000 * k); /* medians 1100 and 2 ms */
		cell(t, "media", 1, 50, 9000);
		cell(t, "version", 10, 5000, 3000);
	}
	f = open_memstream(&buf, &len);
	matrix_render(&d, true, f);
	fclose(f);
	if (!strstr(buf, "| conns | runtime | mode | version | media |"))
		fail_msg("no header in:\n%s", buf);
	if (!strstr(buf, "| 1 | bun | pinned | 1100 (2.00) | 50 (9.00) |"))
		fail_msg("no first row in:\n%s", buf);
	if (!strstr(buf, "| 10 | bun | pinned | 5000 (3.00) | – |"))
		fail_msg("no second row in:\n%s", buf);
	free(buf);
	res_doc_free(&d);
}

static void test_sha256_hex(void **state)
{
	char out[65], bad[] = SHA;

	(void)state;
	bad[10] = 'g';
	assert_int_equal(check_sha256_hex(SHA, out), 0);
	assert_string_equal(out, "5fce37f3129150ce7ec3939b54016d9c1fd01364e27b0a788dc634064aec76b1");
	assert_int_equal(check_sha256_hex(SHA "0", out), -1);
	assert_int_equal(check_sha256_hex("5fce", out), -1);
	assert_int_equal(check_sha256_hex(bad, out), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),	 cmocka_unit_test(test_sweep_defaults_to_connections),
		cmocka_unit_test(test_mistakes), cmocka_unit_test(test_cells_json),
		cmocka_unit_test(test_table),	 cmocka_unit_test(test_sha256_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
