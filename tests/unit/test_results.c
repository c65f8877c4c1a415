/* The results document: the verdict, a trial's status, and typed trials written and read back unchanged,
 * including a file written by harness before the typed model. */
#include "testutil.h"

#include <math.h>
#include <unistd.h>

#include "base/util.h"
#include "results/results.h"

static void test_status(void **state)
{
	(void)state;
	assert_int_equal(res_trial_status(0, false, false), TRIAL_OK);
	assert_int_equal(res_trial_status(0, true, true), TRIAL_OK); /* it finished before the signal */
	assert_int_equal(res_trial_status(-EIO, false, false), TRIAL_FAILED);
	assert_int_equal(res_trial_status(-ETIMEDOUT, false, true), TRIAL_CUT);
	assert_int_equal(res_trial_status(-ETIMEDOUT, true, true), TRIAL_INTERRUPTED);
	assert_string_equal(res_status_names[TRIAL_CUT], "cut");
	assert_string_equal(res_status_names[TRIAL_SKIPPED], "skipped");
}

static void test_verdict(void **state)
{
	struct trial_result *t = calloc(1, sizeof(*t));

	(void)state;
	res_trial_init(t, "http-hello", "node22", "pinned", 1, 1);
	assert_true(res_trial_passed(t, 0)); /* nothing counted: nothing against it */
	t->have |= RES_HAVE_LOAD;
	t->load.errors_total = 3;
	assert_false(res_trial_passed(t, 2));
	assert_true(res_trial_passed(t, 3));
	t->status = TRIAL_FAILED;
	assert_false(res_trial_passed(t, 100));
	t->status = TRIAL_CUT;
	assert_false(res_trial_passed(t, 100));

	res_trial_init(t, "postgres", "bun", "pinned", 1, 2);
	t->have |= RES_HAVE_SCRIPT;
	assert_non_null(res_trial_script(t));
	t->script->n = 2;
	snprintf(t->script->name[0], sizeof(t->script->name[0]), "ops_per_s");
	t->script->value[0] = 100;
	snprintf(t->script->name[1], sizeof(t->script->name[1]), "errors");
	t->script->value[1] = 1;
	assert_false(res_trial_passed(t, 0)); /* a script counts its own errors */
	assert_true(res_trial_passed(t, 1));
	res_trial_free(t);
	free(t);
}

/* An http trial with every part an http trial has, and a failed script trial with a fixture. */
static void fill(struct res_doc *d)
{
	struct trial_result *t = res_doc_add(d);

	res_trial_init(t, "http-hello", "node22", "pinned", 1, 1);
	t->wall_s = 2.5;
	assert_int_equal(res_trial_set_cpus(t, CG_SLICE_SUT, "2-3"), 0);
	assert_int_equal(res_trial_set_cpus(t, CG_SLICE_CLIENT, "1"), 0);
	t->have = RES_HAVE_SERVER | RES_HAVE_LOAD | RES_HAVE_WIRE;
	snprintf(t->server.log, sizeof(t->server.log), "/tmp/x/server.log");
	assert_non_null(res_trial_wire(t));
	snprintf(t->wire->framing, sizeof(t->wire->framing), "chunked");
	snprintf(t->wire->headers, sizeof(t->wire->headers), "content-type,transfer-encoding");
	snprintf(t->wire->differs, sizeof(t->wire->differs), "keep-alive (node24 sends it, bun does not): node's");
	t->wire->status = 200;
	t->wire->header_bytes = 149;
	t->have |= RES_HAVE_MODULES;
	assert_non_null(res_trial_modules(t));
	t->modules->files = 2;
	snprintf(t->modules->sha256, sizeof(t->modules->sha256), "%064d", 7);
	assert_int_equal(res_modules_add(t->modules, "node_modules/react-dom/server.node.js"), 0);
	assert_int_equal(res_modules_add(t->modules, "serve-node.mjs"), 0);
	t->server.idle_rss_kb = 40000;
	t->server.peak_rss_kb = 80000;
	t->server.post_load_rss_kb = 70000;
	snprintf(t->server.cpus, sizeof(t->server.cpus), "2-3");
	t->load.requests = 1000;
	t->load.rps = 2000.5;
	t->load.duration_s = 0.5;
	t->load.errors_total = 2;
	t->load.errors[LE_TIMEOUT] = 2;
	t->load.latency_us.p99 = 1234;
	t->load.latency_us.p999 = 2000;
	t->load.client.saturated = true;
	t->load.client.cpu_us_per_request = 12.5;
	snprintf(t->load.client.cpus, sizeof(t->load.client.cpus), "1");
	snprintf(t->load.engine, sizeof(t->load.engine), "io_uring");
	snprintf(t->load.setup.ring_flags, sizeof(t->load.setup.ring_flags), "coop_taskrun");
	snprintf(t->load.setup.fallback, sizeof(t->load.setup.fallback), "coop_taskrun");
	snprintf(t->load.setup.why, sizeof(t->load.setup.why), "the kernel refused SINGLE_ISSUER|DEFER_TASKRUN");
	t->load.setup.buffer_ring = true;
	t->load.config.connections = 10;
	t->load.config.requests = 1000;
	t->load.config.tls = true;
	t->slices_have = 1u << CG_SLICE_SUT;
	t->slices[CG_SLICE_SUT].have[0] = true;
	t->slices[CG_SLICE_SUT].v[0] = 123456;
	t->slices[CG_SLICE_SUT].psi[0].have = true;
	t->slices[CG_SLICE_SUT].psi[0].some_avg10 = 1.5;
	t->measuring_s = 0.5;
	res_overhead_add(&t->overhead, RES_PH_SLICES, 1.25);
	res_overhead_add(&t->overhead, RES_PH_SANDBOXES, 3);
	res_overhead_add(&t->overhead, RES_PH_SANDBOXES, 4); /* phases add up: server, then client */
	res_overhead_add(&t->overhead, RES_PH_READY, 0.5);
	res_overhead_add(&t->overhead, RES_PH_TEARDOWN, 2);

	t = res_doc_add(d);
	res_trial_init(t, "postgres", "bun", "quota", 2, 2);
	t->status = TRIAL_FAILED;
	assert_int_equal(res_trial_set_error(t, "the script exited with %d; its last output: boom", 1), 0);
	t->have = RES_HAVE_PROCESS | RES_HAVE_FIXTURE | RES_HAVE_MODULES;
	assert_non_null(res_trial_modules(t));
	snprintf(t->modules->not_recorded, sizeof(t->modules->not_recorded),
		 "the scenario's tree has more than "
		 "20000 folders to watch");
	t->process.exit = 1;
	t->process.have_times = true;
	t->process.max_rss_kb = 9000;
	snprintf(t->fixture.name, sizeof(t->fixture.name), "postgres");
	t->fixture.started = t->fixture.stopped = true;
	t->fixture.ready_ms = 250;
	t->fixture.clean_shutdown = true;
	snprintf(t->fixture.slice, sizeof(t->fixture.slice), "fixture");
	res_overhead_add(&t->overhead, RES_PH_FIXTURE, 260);
	res_overhead_add(&t->overhead, RES_PH_SLICES, -0.001); /* rounding on a monotonic clock: 0, not less */

	/* a startup trial keeps every run for the report's strip and the hyperfine export */
	t = res_doc_add(d);
	res_trial_init(t, "startup", "deno", "pinned", 1, 3);
	t->have = RES_HAVE_STARTUP;
	{
		const double ms[] = {20.1234567, 19.5, 31.25};
		const int codes[] = {0, 0, 3};

		assert_int_equal(res_startup_runs(&t->startup, ms, codes, 3), 0);
		stats_summarize(ms, 3, &t->startup.wall_ms);
		t->startup.failed_runs = 1;
	}
}

static void test_round_trip(void **state)
{
	struct res_doc d, back;
	struct hx_err err = {0};
	char dir[] = "/tmp/test-results-XXXXXX", path[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	fill(&d);
	d.finished = true;
	d.interrupted = false;
	d.verdict_ok = false;
	d.wall_s = 4;
	assert_int_equal(res_write(&d, path, &err), 0);
	assert_int_equal(res_read(path, &back, &err), 0);
	assert_int_equal(back.ntrials, 3);
	assert_true(back.finished);
	assert_false(back.verdict_ok);
	for (size_t i = 0; i < 3; i++) {
		cJSON *a = res_trial_json(&d.trials[i]), *b = res_trial_json(&back.trials[i]);

		assert_true(cJSON_Compare(a, b, true));
		cJSON_Delete(a);
		cJSON_Delete(b);
		assert_int_equal(back.trials[i].have, d.trials[i].have);
		assert_int_equal(back.trials[i].status, d.trials[i].status);
	}
	assert_true(back.trials[0].load.client.saturated);
	assert_int_equal(back.trials[0].load.errors[LE_TIMEOUT], 2);
	assert_string_equal(back.trials[0].load.engine, "io_uring");
	assert_string_equal(back.trials[0].load.setup.ring_flags, "coop_taskrun");
	assert_string_equal(back.trials[0].load.setup.fallback, "coop_taskrun");
	assert_string_equal(back.trials[0].load.setup.why, d.trials[0].load.setup.why);
	assert_true(back.trials[0].load.setup.buffer_ring);
	assert_false(back.trials[0].load.setup.multishot_recv);
	assert_string_equal(back.trials[0].wire->framing, "chunked");
	assert_int_equal(back.trials[0].wire->header_bytes, 149);
	assert_string_equal(back.trials[0].wire->differs, d.trials[0].wire->differs);
	assert_int_equal(back.trials[0].modules->files, 2);
	assert_int_equal(back.trials[0].modules->npaths, 2);
	assert_string_equal(back.trials[0].modules->paths[0], "node_modules/react-dom/server.node.js");
	assert_string_equal(back.trials[0].modules->sha256, d.trials[0].modules->sha256);
	assert_string_equal(back.trials[1].modules->not_recorded, d.trials[1].modules->not_recorded);
	assert_int_equal(back.trials[1].modules->npaths, 0);
	assert_null(back.trials[2].modules);
	assert_true(back.trials[0].slices[CG_SLICE_SUT].psi[0].have);
	assert_false(back.trials[0].slices[CG_SLICE_SUT].psi[0].have_full);
	assert_false(back.trials[0].slices_have & (1u << CG_SLICE_CLIENT));
	assert_true(isnan(back.trials[1].server.idle_rss_kb)); /* never measured, never made up */
	assert_true(back.trials[1].fixture.clean_shutdown);
	assert_string_equal(back.trials[1].error, "the script exited with 1; its last output: boom");
	assert_null(back.trials[0].error); /* none: nothing held */
	assert_string_equal(res_trial_error(&back.trials[0]), "");
	assert_int_equal(back.trials[0].cpus_have, 1u << CG_SLICE_SUT | 1u << CG_SLICE_CLIENT);
	assert_string_equal(back.trials[0].cpus[CG_SLICE_SUT], "2-3");
	assert_string_equal(back.trials[0].cpus[CG_SLICE_CLIENT], "1");
	assert_null(back.trials[0].cpus[CG_SLICE_FIXTURE]);
	assert_int_equal(back.trials[2].startup.nruns, 3);
	assert_true(back.trials[2].startup.runs_ms[0] == 20.123); /* kept to the µs */
	assert_true(back.trials[2].startup.runs_ms[2] == 31.25);
	assert_int_equal(back.trials[2].startup.runs_exit[2], 3);
	assert_int_equal(back.trials[0].startup.nruns, 0); /* an http trial has none */
	assert_true(back.trials[0].overhead.ms[RES_PH_SANDBOXES] == 7);
	assert_true(res_overhead_total(&back.trials[0].overhead) == 10.75);
	assert_false(back.trials[0].overhead.have & (1u << RES_PH_STOP)); /* never measured: absent, not 0 */
	assert_true(back.trials[1].overhead.ms[RES_PH_SLICES] == 0);
	assert_true(res_overhead_total(&back.trials[1].overhead) == 0); /* the fixture is not the harness's cost */
	assert_true(back.trials[0].measuring_s == 0.5 && back.trials[2].measuring_s == 0);
	{
		double measuring_s, share = res_doc_measuring_share(&back, &measuring_s);

		assert_true(back.wall_s == 4 && measuring_s == 0.5 && share == 0.125);
		back.wall_s = 0; /* unknown: no share is made up */
		assert_true(isnan(res_doc_measuring_share(&back, &measuring_s)));
	}
	res_doc_free(&d);
	res_doc_free(&back);
	unlink(path);
	rmdir(dir);
}

/* A file from the harness that wrote JSON directly: read into typed trials, its summaries come out the
 * same when recomputed, and it writes back as the same document. */
static void test_reads_an_old_file(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	char *text = NULL;
	cJSON *orig, *again;

	(void)state;
	assert_int_equal(res_read(fixture("results/v1-four-workloads.json"), &d, &err), 0);
	assert_int_equal(d.ntrials, 4);
	assert_true(d.finished && d.verdict_ok);
	assert_true(d.trials[0].have & RES_HAVE_STARTUP);
	assert_true(d.trials[0].startup.wall_ms.median > 0);
	assert_true((d.trials[1].have & (RES_HAVE_LOAD | RES_HAVE_SERVER)) == (RES_HAVE_LOAD | RES_HAVE_SERVER));
	assert_true(d.trials[1].load.rps > 0);
	assert_true(d.trials[2].have & RES_HAVE_CHAT);
	assert_true(d.trials[2].chat.invariant_ok);
	assert_true(d.trials[3].fixture.started && d.trials[3].fixture.stopped);
	assert_true(res_script_value(d.trials[3].script, "ops_per_s") > 0);
	assert_int_equal(util_read_file(fixture("results/v1-four-workloads.json"), &text, NULL, &err), 0);
	orig = cJSON_Parse(text);
	again = res_doc_json(&d, &err);
	assert_non_null(orig);
	assert_non_null(again);
	/* a rule added since (contended) reads the file's own evidence: http-hello's runtime was held off its CPU
	 * 0.13 s of 1.36 s, the postgres script's 1.7 s of 9.1 s (evidence no rule read then); the rest
	 * writes back the same */
	for (int i = 0; i < 4; i++) {
		cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(again, "trials"), i);
		cJSON *why = cJSON_DetachItemFromObject(t, "noisy");

		cJSON_Delete(cJSON_DetachItemFromObject(t, "noisy_reasons"));
		if (i == 1 || i == 3)
			assert_string_equal(cJSON_GetArrayItem(why, 0)->valuestring, "contended");
		else
			assert_null(why);
		cJSON_Delete(why);
		/* and each of their cells counts one noisy trial */
		t = cJSON_GetArrayItem(cJSON_GetObjectItem(again, "summaries"), i);
		why = cJSON_DetachItemFromObject(t, "noisy_trials");
		if (i == 1 || i == 3)
			assert_int_equal(why->valueint, 1);
		else
			assert_null(why);
		cJSON_Delete(why);
		/* a metric added since: the http trial's sut slice had a memory peak then too */
		why = cJSON_DetachItemFromObject(cJSON_GetObjectItem(t, "metrics"), "sut_slice_peak_kb");
		if (i == 1)
			assert_non_null(why);
		cJSON_Delete(why);
	}
	assert_true(cJSON_Compare(orig, again, true));
	cJSON_Delete(orig);
	cJSON_Delete(again);
	free(text);
	res_doc_free(&d);
}

/* Noise: quiet and noisy trials of one cell interleaved; the noisy group's shift from its quiet twin, its
 * neighbour written and read back. */
static void test_noise_shift(void **state)
{
	struct res_doc d, back;
	struct hx_err err = {0};
	struct res_summary *g = NULL;
	size_t ng = 0;
	char dir[] = "/tmp/test-results-XXXXXX", path[64];
	cJSON *a, *b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/n.json", dir);
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	for (unsigned i = 0; i < 10; i++) {
		struct trial_result *t = res_doc_add(&d);
		bool noisy = i % 2;

		res_trial_init(t, "http-hello", "node24", "pinned", i / 2 + 1, i + 1);
		t->have |= RES_HAVE_LOAD;
		t->load.rps = noisy ? 80 + i / 2 : 100 + i / 2; /* every noisy trial slower than every quiet one */
		if (!noisy)
			continue;
		snprintf(t->noise, sizeof(t->noise), "cpu:1");
		t->have |= RES_HAVE_NEIGHBOUR;
		assert_non_null(res_trial_neighbour(t));
		snprintf(t->neighbour->placement, sizeof(t->neighbour->placement), "apart");
		snprintf(t->neighbour->cpus, sizeof(t->neighbour->cpus), "0");
		t->neighbour->shares = 1u << CG_SLICE_CLIENT;
		t->neighbour->have_generator = true;
		t->neighbour->generator =
			(struct noise_result){.spec = {NOISE_CPU, 1}, .threads = 1, .seconds = 2, .ops = 1000};
		snprintf(t->neighbour->generator.unit, sizeof(t->neighbour->generator.unit), "spins");
		cg_cpus_parse("0", &t->neighbour->generator.ran_on);
	}
	assert_int_equal(res_summarize(d.trials, d.ntrials, &g, &ng, &err), 0);
	assert_int_equal(ng, 2);
	assert_string_equal(g[0].noise, "none");
	assert_false(g[0].shift.have);
	assert_string_equal(g[1].noise, "cpu:1");
	assert_true(g[1].shift.have);
	assert_int_equal(g[1].shift.metric, RES_M_RPS);
	assert_int_equal(g[1].shift.quiet_trials, 5);
	assert_true(fabs(g[1].shift.ratio - 82.0 / 102.0) < 1e-12);
	/* trial i quiet beside trial i noisy: five pairs, too few for a CI, and the signed-rank p of the five
	 * differences of 20 (tied: the normal approximation, scipy's wilcoxon with method='approx'), not
	 * Mann-Whitney's of the unpaired values (2 / 252) */
	assert_true(g[1].shift.paired);
	assert_int_equal(g[1].shift.pairs, 5);
	assert_true(isnan(g[1].shift.ci95_low) && isnan(g[1].shift.ci95_high));
	assert_true(fabs(g[1].shift.p - 0.025347318677468325) < 1e-12);
	assert_int_equal(g[1].shift.shares, 1u << CG_SLICE_CLIENT);
	assert_true(fabs(res_median(&g[1], RES_M_NOISE_OPS_PER_S) - 500) < 1e-9);
	free(g);
	assert_int_equal(res_write(&d, path, &err), 0);
	assert_int_equal(res_read(path, &back, &err), 0);
	a = res_trial_json(&d.trials[1]);
	b = res_trial_json(&back.trials[1]);
	assert_true(cJSON_Compare(a, b, true));
	cJSON_Delete(a);
	cJSON_Delete(b);
	assert_string_equal(back.trials[0].noise, "none");
	assert_string_equal(back.trials[1].noise, "cpu:1");
	assert_true(back.trials[1].neighbour->have_generator);
	assert_int_equal(back.trials[1].neighbour->shares, 1u << CG_SLICE_CLIENT);
	res_doc_free(&d);
	res_doc_free(&back);
	unlink(path);
	rmdir(dir);
}

/* harness's own open files and memory at a trial's end are written when measured, left out when not, and
 * read back (a soak compares them trial to trial). */
static void test_soak_evidence(void **state)
{
	struct trial_result *t = calloc(2, sizeof(*t));
	struct hx_err err = {0};
	cJSON *a, *b;

	(void)state;
	res_trial_init(&t[0], "startup", "node20", "pinned", 1, 1);
	a = res_trial_json(&t[0]);
	assert_null(cJSON_GetObjectItem(a, "harness_fds"));
	assert_null(cJSON_GetObjectItem(a, "harness_rss_kb"));
	cJSON_Delete(a);
	t[0].harness_fds = 7;
	t[0].harness_rss_kb = 5120;
	a = res_trial_json(&t[0]);
	assert_int_equal((int)cJSON_GetObjectItem(a, "harness_fds")->valuedouble, 7);
	assert_int_equal(res_trial_parse(a, &t[1], &err), 0);
	assert_true(t[1].harness_fds == 7 && t[1].harness_rss_kb == 5120);
	b = res_trial_json(&t[1]);
	assert_true(cJSON_Compare(a, b, true));
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(t);
}

static void test_refuses_other_files(void **state)
{
	struct res_doc d;
	struct hx_err err = {0};
	char dir[] = "/tmp/test-results-XXXXXX", path[64];
	const char *other = "{\"schema\":\"harness-results/2\",\"trials\":[]}";
	const char *bad = "{\"trials\":[{\"scenario\":\"x\",\"status\":\"great\"}]}";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(util_write_atomic(path, other, strlen(other), &err), 0);
	assert_true(res_read(path, &d, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "not a harness results file"));
	hx_clear(&err);
	assert_int_equal(util_write_atomic(path, bad, strlen(bad), &err), 0);
	assert_true(res_read(path, &d, &err) < 0);
	assert_non_null(strstr(err.msg, "status 'great'"));
	unlink(path);
	rmdir(dir);
}

/* Numbers from someone else's file: out of range is refused with the field named, never cast or cut. */
static void test_refuses_out_of_range(void **state)
{
	static const struct {
		const char *trial, *says;
	} cases[] = {
		{"\"trial\":4294967296", "trial is 4.29497e+09: expected a whole number from 0 to 4294967295"},
		{"\"order\":-1", "order is -1: expected a whole number"},
		{"\"trial\":1.5", "trial is 1.5: expected a whole number"},
		{"\"wall_s\":1e999", "wall_s is inf: expected a finite number below 2^64"},
		{"\"process\":{\"ctxt_voluntary\":1e300}", "ctxt_voluntary is 1e+300: expected a finite number"},
		{"\"process\":{\"migrations\":-1e999}", "migrations is -inf"},
	};
	char dir[] = "/tmp/test-results-XXXXXX", path[64], text[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct res_doc d;
		struct hx_err err = {0};

		snprintf(text, sizeof(text), "{\"trials\":[{\"scenario\":\"x\",\"status\":\"ok\",%s}]}",
			 cases[i].trial);
		assert_int_equal(util_write_atomic(path, text, strlen(text), &err), 0);
		assert_true(res_read(path, &d, &err) < 0);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		if (!strstr(err.msg, cases[i].says))
			fail_msg("'%s' does not say '%s'", err.msg, cases[i].says);
	}
	unlink(path);
	rmdir(dir);
}

/* The results file is read one value and one trial at a time: every malformed shape is refused as not a results
 * file, white space anywhere is fine, and what is read is what a whole-document parse would give. */
static void test_streamed_read(void **state)
{
	static const char *const refused[] = {
		"",
		"[]",
		"{",
		"{\"trials\":[",
		"{\"trials\":[{\"scenario\":\"x\",\"status\":\"ok\"}",
		"{\"trials\":[{\"scenario\":\"x\",\"status\":\"ok\"},]}",
		"{\"trials\":[] junk",
		"{\"trials\":[]} {}",
		"{\"trials\" []}",
		"{1:[]}",
		"{\"a\":1,}",
		"{\"a\":1 \"trials\":[]}",
		"{\"trials\":[{\"scenario\":\"x\",\"status\":\"ok\"} {\"scenario\":\"x\",\"status\":\"ok\"}]}",
	};
	const char *spaced =
		" \n{ \"schema\" : \"harness-results/1\" , \"trials\" : [ { \"scenario\" : \"a\" , "
		"\"status\" : \"ok\" } ,\n{\"scenario\":\"b\",\"status\":\"failed\"} ] , \"x\" : [1, {\"y\": []}] }\n";
	char dir[] = "/tmp/test-results-XXXXXX", path[64];
	struct res_doc d;
	struct hx_err err = {0};

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		hx_clear(&err);
		assert_int_equal(util_write_atomic(path, refused[i], strlen(refused[i]), &err), 0);
		if (res_read(path, &d, &err) == 0)
			fail_msg("'%s' was read", refused[i]);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		if (!strstr(err.msg, "not a harness results file"))
			fail_msg("'%s': %s", refused[i], err.msg);
	}
	hx_clear(&err);
	assert_int_equal(util_write_atomic(path, spaced, strlen(spaced), &err), 0);
	assert_int_equal(res_read(path, &d, &err), 0);
	assert_int_equal(d.ntrials, 2);
	assert_string_equal(d.trials[1].scenario, "b");
	assert_int_equal(d.trials[1].status, TRIAL_FAILED);
	assert_non_null(cJSON_GetObjectItemCaseSensitive(d.head, "x"));
	assert_null(cJSON_GetObjectItemCaseSensitive(d.head, "trials"));
	res_doc_free(&d);
	unlink(path);
	rmdir(dir);
}

static void test_json_at(void **state)
{
	cJSON *o = cJSON_Parse("{\"host\":{\"memory\":{\"total_bytes\":7}},\"a\":1}");

	(void)state;
	assert_non_null(o);
	assert_int_equal(res_json_at(o, "host.memory.total_bytes")->valueint, 7);
	assert_int_equal(res_json_at(o, "a")->valueint, 1);
	assert_ptr_equal(res_json_at(o, "host"), cJSON_GetObjectItem(o, "host"));
	assert_null(res_json_at(o, "host.memory.free"));
	assert_null(res_json_at(o, "a.b"));
	assert_null(res_json_at(NULL, "a"));
	cJSON_Delete(o);
}

/* The client is flagged from 0.8 of a thread busy (0.80-0.90 passed unflagged against bun and deno). */
static void test_saturated_rule(void **state)
{
	struct load_config c = {0};
	struct load_result r = {.requests = 100, .max_thread_busy = 0.82};
	struct res_load l;
	struct trial_result t;
	char why[256];

	(void)state;
	res_load_from(&c, &r, "", &l);
	assert_true(l.client.saturated);
	res_trial_init(&t, "s", "bun", "pinned", 1, 1);
	t.load = l;
	t.have |= RES_HAVE_LOAD;
	assert_true(res_trial_noisy(&t) & (1u << RES_NOISY_CLIENT_SATURATED));
	res_noisy_reason(&t, RES_NOISY_CLIENT_SATURATED, why, sizeof(why));
	assert_non_null(strstr(why, "82% busy (the rule: 80%)"));
	assert_non_null(strstr(why, "--client-cpus"));
	r.max_thread_busy = 0.79;
	res_load_from(&c, &r, "", &l);
	assert_false(l.client.saturated);
	res_trial_free(&t);
}

/* A measured phase under the scenario's minimum is flagged short, by the workload's own clock. */
static void test_short(void **state)
{
	struct trial_result t;
	char why[256];

	(void)state;
	res_trial_init(&t, "ws-chat", "node24", "pinned", 1, 1);
	t.have |= RES_HAVE_CHAT;
	t.chat.duration_s = 0.21;
	assert_false(res_trial_noisy(&t) & (1u << RES_NOISY_SHORT)); /* no minimum: a file from before it */
	t.min_duration_s = 1;
	assert_true(res_trial_noisy(&t) & (1u << RES_NOISY_SHORT));
	res_noisy_reason(&t, RES_NOISY_SHORT, why, sizeof(why));
	assert_string_equal(why,
			    "short: the measured phase lasted 0.21 s, under the scenario's min_duration_s of 1.0 s "
			    "(give it more requests or messages)");
	t.chat.duration_s = 2.5;
	assert_false(res_trial_noisy(&t) & (1u << RES_NOISY_SHORT));
	t.have = RES_HAVE_PROCESS; /* a failed trial measured nothing: nothing to call short */
	assert_false(res_trial_noisy(&t) & (1u << RES_NOISY_SHORT));
	res_trial_free(&t);
}

/* engine_setup: the ring's flags as an array of names, and the whole object absent where the client did not
 * record it (a file from before it did), never made up on the way back. */
static void test_load_engine_setup(void **state)
{
	struct res_load l = {0}, back;
	cJSON *j, *o, *flags;

	(void)state;
	snprintf(l.engine, sizeof(l.engine), "io_uring");
	snprintf(l.setup.ring_flags, sizeof(l.setup.ring_flags), "single_issuer,defer_taskrun");
	snprintf(l.setup.fallback, sizeof(l.setup.fallback), "none");
	l.setup.buffer_ring = l.setup.multishot_recv = true;
	j = res_load_json(&l);
	o = cJSON_GetObjectItemCaseSensitive(j, "engine_setup");
	assert_true(cJSON_IsObject(o));
	flags = cJSON_GetObjectItemCaseSensitive(o, "ring_flags");
	assert_int_equal(cJSON_GetArraySize(flags), 2);
	assert_string_equal(cJSON_GetArrayItem(flags, 0)->valuestring, "single_issuer");
	assert_string_equal(cJSON_GetArrayItem(flags, 1)->valuestring, "defer_taskrun");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "multishot_recv")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "fallback")->valuestring, "none");
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "why"));
	assert_int_equal(res_load_parse(j, &back), 0);
	assert_string_equal(back.setup.ring_flags, "single_issuer,defer_taskrun");
	assert_true(back.setup.buffer_ring && back.setup.multishot_recv);
	cJSON_DeleteItemFromObject(j, "engine_setup");
	assert_int_equal(res_load_parse(j, &back), 0);
	assert_string_equal(back.setup.fallback, "");
	cJSON_Delete(j);
	j = res_load_json(&back);
	assert_null(cJSON_GetObjectItemCaseSensitive(j, "engine_setup"));
	cJSON_Delete(j);
}

/* The error and the slices' CPU sets live on the heap, sized to their text: replaced without a leak (the
 * sanitizer build), kept to their caps, gone after res_trial_free. */
static void test_heap_fields(void **state)
{
	struct trial_result t;
	char long_error[3 * RES_ERROR_LEN], long_cpus[2 * RES_CPUS_LEN];

	(void)state;
	res_trial_init(&t, "http-hello", "bun", "pinned", 1, 1);
	assert_string_equal(res_trial_error(&t), "");
	assert_int_equal(res_trial_set_error(&t, "first"), 0);
	assert_int_equal(res_trial_set_error(&t, "second: %d", 2), 0);
	assert_string_equal(res_trial_error(&t), "second: 2");
	memset(long_error, 'e', sizeof(long_error) - 1);
	long_error[sizeof(long_error) - 1] = '\0';
	assert_int_equal(res_trial_set_error(&t, "%s", long_error), 0);
	assert_int_equal(strlen(t.error), RES_ERROR_LEN - 1);
	memset(long_cpus, '1', sizeof(long_cpus) - 1);
	long_cpus[sizeof(long_cpus) - 1] = '\0';
	assert_int_equal(res_trial_set_cpus(&t, CG_SLICE_SUT, "0-1"), 0);
	assert_int_equal(res_trial_set_cpus(&t, CG_SLICE_SUT, long_cpus), 0);
	assert_int_equal(strlen(t.cpus[CG_SLICE_SUT]), RES_CPUS_LEN - 1);
	assert_int_equal(t.cpus_have, 1u << CG_SLICE_SUT);
	res_trial_free(&t);
	assert_null(t.error);
	assert_null(t.cpus[CG_SLICE_SUT]);
	assert_int_equal(t.cpus_have, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_heap_fields),
		cmocka_unit_test(test_load_engine_setup),
		cmocka_unit_test(test_saturated_rule),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_reads_an_old_file),
		cmocka_unit_test(test_noise_shift),
		cmocka_unit_test(test_soak_evidence),
		cmocka_unit_test(test_refuses_other_files),
		cmocka_unit_test(test_refuses_out_of_range),
		cmocka_unit_test(test_streamed_read),
		cmocka_unit_test(test_json_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
