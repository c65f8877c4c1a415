/* Strict scenario parsing, profile scaling and script choice. */
#include "testutil.h"

#include <dirent.h>
#include <stdlib.h>

#include "run/run.h"
#include "run/scenario.h"

/* A runtime as a scenario is asked about it: an image's name, its family and version. */
static struct manifest rt(const char *name, const char *family, const char *version)
{
	struct manifest m;

	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	snprintf(m.family, sizeof(m.family), "%s", family);
	snprintf(m.version, sizeof(m.version), "%s", version);
	return m;
}

static const char http_ok[] =
	"{\"name\":\"h\",\"workload\":\"http\",\"runtimes\":[\"node20\",\"bun\"],\"script\":\"s.js\","
	"\"scripts\":{\"bun\":\"b.js\"},\"port\":8080,\"ready\":{\"path\":\"/up\",\"status\":204},"
	"\"load\":{\"connections\":1000,\"requests\":100000,\"warmup_requests\":4000},\"repeat\":2}";

static void test_http(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("h.json", http_ok, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.workload, SCN_HTTP);
	assert_int_equal(s.port, 8080);
	assert_string_equal(s.ready_path, "/up");
	assert_int_equal(s.ready_status, 204);
	assert_int_equal(s.connections, 1000);
	assert_int_equal(s.threads, 1);
	/* the older form: image names, read as before */
	assert_string_equal(scn_script_for(&s, &(struct manifest){.name = "bun"}), "b.js");
	assert_string_equal(scn_script_for(&s, &(struct manifest){.name = "node20"}), "s.js");
	assert_true(scn_supports(&s, &(struct manifest){.name = "bun"}));
	assert_false(scn_supports(&s, &(struct manifest){.name = "deno"}));
	scn_scale(&s, SCN_QUICK);
	assert_int_equal(s.requests, 25000);
	assert_int_equal(s.warmup_requests, 1000);
	assert_int_equal(s.repeat, 2);
	assert_false(s.check_length);
	assert_string_equal(s.body_sha256, "");
	assert_string_equal(s.bundle.for_runtime, "");
}

/* What every body must be, and the prepare-time bundle for a runtime that cannot resolve npm packages. */
static void test_body_and_bundle(void **state)
{
	static const char text[] =
		"{\"name\":\"r\",\"workload\":\"http\",\"runtimes\":[\"workerd\"],\"script\":\"w.capnp\","
		"\"bundle\":{\"for\":\"workerd\",\"with\":\"deno\",\"entry\":\"app.js\",\"out\":\"build/app.js\"},"
		"\"load\":{\"body_length\":0,\"body_sha256\":"
		"\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}}";
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("r.json", text, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.check_length); /* 0 is a length to check, not "none" */
	assert_int_equal(s.body_length, 0);
	assert_string_equal(s.body_sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_string_equal(s.bundle.for_runtime, "workerd");
	assert_string_equal(s.bundle.with, "deno");
	assert_string_equal(s.bundle.entry, "app.js");
	assert_string_equal(s.bundle.out, "build/app.js");
	assert_false(s.bundle.made);
}

static void test_chat(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("c.json",
		      "{\"name\":\"c\",\"workload\":\"ws-chat\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
		      "\"chat\":{\"clients\":16,\"messages\":80,\"path\":\"/room\"}}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.workload, SCN_WS_CHAT);
	assert_string_equal(s.ready_path, "/room");
	scn_scale(&s, SCN_QUICK);
	assert_int_equal(s.messages, 20);
	assert_int_equal(s.clients, 16);
	scn_scale(&s, SCN_FULL);
	assert_int_equal(s.clients, 32);
}

static void test_rpc(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("r.json",
		      "{\"name\":\"r\",\"workload\":\"ws-rpc\",\"runtimes\":[\"deno\"],\"script\":\"s.js\","
		      "\"fixtures\":[\"postgres\"],\"rpc\":{\"window\":8,\"requests\":4000,\"counter\":true}}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.workload, SCN_WS_RPC);
	assert_string_equal(scn_workload_names[s.workload], "ws-rpc");
	assert_int_equal(s.clients, 16); /* the published pool */
	assert_int_equal(s.window, 8);
	assert_true(s.counter);
	assert_int_equal(s.fixtures, SCN_FX_POSTGRES);
	/* the profiles scale the requests; the pool and the window stay as published */
	scn_scale(&s, SCN_FULL);
	assert_int_equal(s.requests, 12000);
	assert_int_equal(s.clients, 16);
	assert_int_equal(s.window, 8);
	assert_int_equal(
		scn_parse("r.json",
			  "{\"name\":\"r\",\"workload\":\"ws-rpc\",\"runtimes\":[\"deno\"],\"script\":\"s.js\"}", &s,
			  &err),
		0);
	assert_int_equal(s.window, 32);
	assert_int_equal(s.requests, 100000);
	assert_false(s.counter);
	assert_true(s.memory_idle_s == 0); /* no memory run unless asked */
	if (scn_parse("r.json",
		      "{\"name\":\"r\",\"workload\":\"ws-rpc\",\"runtimes\":[\"deno\",\"workerd\"],\"script\":\"s.js\","
		      "\"memory\":{\"hint\":\"SIGUSR2\",\"no_hint\":[\"workerd\"],\"restart\":true}}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.memory_idle_s == 2 && s.memory_restart);
	assert_true(scn_memory_hint_for(&s, &(struct manifest){.name = "deno"}));
	assert_false(scn_memory_hint_for(&s, &(struct manifest){.name = "workerd"}));
	assert_false(scn_memory_hint_for(&s, &(struct manifest){.name = "bun"})); /* not the scenario's */
	{
		struct manifest wd = rt("workerd-main", "workerd", "1.2"), dn = rt("deno-2.9.5", "deno", "2.9.5");

		assert_false(scn_memory_hint_for(&s, &wd)); /* no_hint names the family */
		assert_true(scn_memory_hint_for(&s, &dn));
	}
}

static void test_docstore(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("d.json",
		      "{\"name\":\"d\",\"workload\":\"ws-rpc\",\"runtimes\":[\"deno\"],\"script\":\"s.js\","
		      "\"rpc\":{\"requests\":4000,\"docstore\":true,\"budget_s\":4,\"memory_docs\":20000}}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.docstore, "all");
	/* quick: a quarter of each budget and 1 KiB documents; full: three budgets and 512 KiB */
	scn_scale(&s, SCN_QUICK);
	assert_true(s.budget_s == 1);
	assert_int_equal(s.payload_kib, 1);
	assert_int_equal(s.requests, 1000);
	assert_int_equal(s.memory_docs, 5000);
	if (scn_parse("d.json",
		      "{\"name\":\"d\",\"workload\":\"ws-rpc\",\"runtimes\":[\"deno\"],\"script\":\"s.js\","
		      "\"rpc\":{\"docstore\":[\"get-hot\",\"nested-merge/contended\"]}}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.docstore, "get-hot,nested-merge/contended");
	scn_scale(&s, SCN_FULL);
	assert_true(s.budget_s == 30); /* the default budget, 10 s, times three */
	assert_int_equal(s.payload_kib, 512);
	scn_scale(&s, SCN_STANDARD);
	assert_int_equal(s.payload_kib, 64);
	assert_int_equal(
		scn_parse("r.json",
			  "{\"name\":\"r\",\"workload\":\"ws-rpc\",\"runtimes\":[\"deno\"],\"script\":\"s.js\"}", &s,
			  &err),
		0);
	assert_string_equal(s.docstore, ""); /* a plain ws-rpc scenario runs no suite */
}

static void test_startup_defaults_and_full(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(
		scn_parse("s.json",
			  "{\"name\":\"s\",\"workload\":\"startup\",\"runtimes\":[\"deno\"],\"script\":\"h.js\"}", &s,
			  &err),
		0);
	assert_int_equal(s.runs, 30);
	assert_int_equal(s.warmup, 5);
	assert_int_equal(s.repeat, 3);
	assert_true(s.expected_cv == 0); /* the run applies the default */
	scn_scale(&s, SCN_FULL);
	assert_int_equal(s.runs, 90);
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

#define RT "\"runtimes\":[\"node20\"]"

static void test_mistakes(void **state)
{
	(void)state;
	expect("nope", "not valid JSON");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"a\",\"extra\":1}", "extra: unknown key");
	expect("{\"name\":\"x\",\"workload\":\"gpu\"," RT ",\"script\":\"a\"}",
	       "workload: expected \"startup\", \"http\", \"ws-chat\", \"ws-rpc\" or \"script\", not \"gpu\"");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"chat\":{}}", "takes an rpc object");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"counter\":1}}",
	       "rpc.counter: expected true or false");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"window\":0}}",
	       "window: expected a number from 1");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"requests\":3}}",
	       "rpc.requests: fewer requests than clients");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"memory\":{\"hint\":\"SIGKILL\"}}",
	       "memory.hint: the one hint is \"SIGUSR2\", not \"SIGKILL\"");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"memory\":{\"no_hint\":[\"bun\"]}}",
	       "memory.no_hint: expected runtimes of the scenario's");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"size\":3}}",
	       "size: unknown key");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"docstore\":[\"get-cold\"]}}",
	       "rpc.docstore: docstore: 'get-cold' is not a scenario of the suite");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"docstore\":false}}",
	       "rpc.docstore: expected true or an array");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"docstore\":true,"
	       "\"counter\":true}}",
	       "a docstore suite has its own counter");
	/* the memory run's documents with no memory run, and its second half named alone: refused at reading */
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"docstore\":[\"get-hot\"],"
	       "\"memory_docs\":100}}",
	       "rpc.memory_docs: the memory run's documents, but rpc.docstore leaves out 'memory/load+readback'");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"docstore\":"
	       "[\"memory/after-restart\"]}}",
	       "is the memory run's second half, which harness runs after its restart");
	expect("{\"name\":\"x\",\"workload\":\"ws-rpc\"," RT ",\"script\":\"a\",\"rpc\":{\"budget_s\":3}}",
	       "rpc: budget_s and memory_docs only with \"docstore\"");
	expect("{\"name\":\"x\",\"workload\":\"ws-chat\"," RT ",\"script\":\"a\",\"load\":{}}",
	       "takes a chat object, not load");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"tls\":1,\"load\":{}}",
	       "tls: expected true or false");
	expect("{\"name\":\"x\",\"workload\":\"startup\",\"runtimes\":[],\"script\":\"a\"}",
	       "runtimes: expected an array of 1");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT "}", "script: give");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"../etc/passwd\"}",
	       "script: '../etc/passwd' has a '..' component");
	expect("{\"name\":\"a/../../somewhere\",\"workload\":\"startup\"," RT ",\"script\":\"a\"}",
	       "name: 'a/../../somewhere' is not a name");
	expect("{\"name\":\"x\\u0000/..\",\"workload\":\"startup\"," RT ",\"script\":\"a\"}", "has a \\u0000 escape");
	expect("{\"name\":\"x\",\"workload\":\"startup\",\"runtimes\":[\"../node\"],\"script\":\"a\"}",
	       "runtimes: '../node' is not a name");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"scripts\":{\"../n\":\"a\"}}",
	       "scripts: '../n' is not a name");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"scripts\":{\"node22\":\"/etc/passwd\"}}",
	       "scripts: '/etc/passwd' is an absolute path");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"ready\":{\"path\":\"/\\r\\nX: y\"},"
	       "\"load\":{}}",
	       "ready.path: '/\\x0d\\x0aX: y' has white space");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"metrics\":[\"a/b\"]}",
	       "metrics: 'a/b' is not a metric name");
	expect("{\"name\":\"x\",\"description\":\"\\u001b]0;owned\\u0007\",\"workload\":\"startup\"," RT
	       ",\"script\":\"a\"}",
	       "description: '\\x1b]0;owned\\x07' has a control character");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\"}", "load: an http scenario needs");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"port\":80,\"load\":{}}",
	       "port: expected a number from 1024");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{\"connections\":1.5}}",
	       "expected a whole number");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT
	       ",\"script\":\"a\",\"load\":{\"connections\":2,\"threads\":4}}",
	       "more threads than connections");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"a\",\"load\":{}}", "no server to load");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"a\",\"fixtures\":[\"mysql\"]}",
	       "fixtures: the one fixture is \"postgres\", not mysql");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"a\",\"fixtures\":\"postgres\"}",
	       "fixtures: expected an array");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"load\":{}}", "runs its own workload");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},\"iterations\":5}",
	       "are for script workloads");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"metrics\":[1]}",
	       "metrics: expected metric names");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"iterations\":0}",
	       "iterations: expected a number from 1");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},\"expected_cv\":0.1}",
	       "expected_cv: the runs' expected CV is for startup workloads");
	expect("{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"a\",\"expected_cv\":0}",
	       "expected_cv: expected a number from 0.001");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{\"body_length\":1.5}}",
	       "load.body_length: expected a whole number");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{\"body_sha256\":\"AB\"}}",
	       "load.body_sha256: expected 64 lowercase hex digits");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},"
	       "\"bundle\":{\"for\":\"workerd\",\"with\":\"esbuild\",\"entry\":\"a.js\",\"out\":\"b/a.js\"}}",
	       "bundle.with: expected \"bun\" (bun build) or \"deno\" (deno bundle)");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},"
	       "\"bundle\":{\"for\":\"workerd\",\"with\":\"bun\",\"entry\":\"a.js\",\"out\":\"../a.js\"}}",
	       "bundle.out: '../a.js' has a '..' component");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},"
	       "\"bundle\":{\"for\":\"workerd\",\"with\":\"bun\",\"entry\":\"a.js\"}}",
	       "out: missing");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"primary_metric\":\"q_ms\"}",
	       "primary_metric: expected ops, seconds, ops_per_s or a name of \"metrics\", not \"q_ms\"");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT
	       ",\"script\":\"a\",\"metrics\":[\"hits\"],\"primary_metric\":\"hits\"}",
	       "primary_better: missing: say whether a higher or a lower hits is better");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"primary_better\":\"up\"}",
	       "primary_better: expected \"higher\" or \"lower\"");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},\"primary_metric\":\"ops\"}",
	       "are for script workloads");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"prepare\":1}",
	       "prepare: expected true, false or \"network\"");
	expect("{\"name\":\"x\",\"workload\":\"http\"," RT ",\"script\":\"a\",\"load\":{},\"prepare\":true}",
	       "are for script workloads");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT
	       ",\"script\":\"a\",\"prepare\":true,\"prepare_size\":\"2G\"}",
	       "prepare_size: expected a size from \"1M\" to \"1536M\"");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"prepare\":true,\"prepare_size\":64}",
	       "prepare_size: expected a size");
	expect("{\"name\":\"x\",\"workload\":\"script\"," RT ",\"script\":\"a\",\"prepare_size\":\"64M\"}",
	       "prepare_size: is for a scenario with a prepare step");
}

/* A script path longer than the field is refused, never cut: the cut value would pass the '..' check. */
static void test_long_script_path(void **state)
{
	char text[1024], path[300];

	(void)state;
	memset(path, 'a', 254);
	snprintf(path + 254, sizeof(path) - 254, "/../../../etc/shadow");
	snprintf(text, sizeof(text), "{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"scripts\":{\"node20\":\"%s\"}}",
		 path);
	expect(text, "scripts: the script of node20: expected a non-empty path of at most 255 characters");
	snprintf(text, sizeof(text), "{\"name\":\"x\",\"workload\":\"startup\"," RT ",\"script\":\"%s\"}", path);
	expect(text, "script: expected a non-empty string of at most 255 characters");
}

/* harness ab's metric of a script: from its name (a time lower, a rate higher) unless the scenario says. */
static void test_primary_metric(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(scn_metric_direction("ops_per_s"), 1);
	assert_int_equal(scn_metric_direction("queries_per_s"), 1);
	assert_int_equal(scn_metric_direction("p99_ms"), 0);
	assert_int_equal(scn_metric_direction("seconds"), 0);
	assert_int_equal(scn_metric_direction("heap_kb"), 0);
	assert_int_equal(scn_metric_direction("hits"), -1);
	assert_int_equal(scn_metric_direction("_s"), -1);
	if (scn_parse("p.json",
		      "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"b.mjs\","
		      "\"metrics\":[\"p50_ms\"],\"primary_metric\":\"p50_ms\"}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.primary_metric, "p50_ms");
	assert_false(s.primary_higher);
	if (scn_parse("p.json",
		      "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"b.mjs\","
		      "\"metrics\":[\"hits\"],\"primary_metric\":\"hits\",\"primary_better\":\"higher\"}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.primary_higher);
	if (scn_parse("p.json",
		      "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"b.mjs\","
		      "\"primary_better\":\"lower\"}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_false(s.primary_higher); /* what the scenario says wins over the name */
}

static void test_script_with_fixture(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("p.json",
		      "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"b.mjs\","
		      "\"fixtures\":[\"postgres\"],\"iterations\":100000,\"metrics\":[\"p50_ms\",\"p99_ms\"]}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.workload, SCN_SCRIPT);
	assert_int_equal(s.fixtures, SCN_FX_POSTGRES);
	assert_int_equal(s.nmetrics, 2);
	assert_string_equal(s.metrics[1], "p99_ms");
	assert_true(s.timeout_s == 600);
	assert_false(s.prepare);
	assert_string_equal(s.primary_metric, "ops_per_s"); /* harness ab's default: a rate, higher is better */
	assert_true(s.primary_higher);
	scn_scale(&s, SCN_QUICK);
	assert_int_equal(s.iterations, 25000);
	if (scn_parse("w.json",
		      "{\"name\":\"w\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"b.mjs\","
		      "\"prepare\":true}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.prepare);
	assert_true(s.prepare_size == SCN_PREPARE_SIZE);
	if (scn_parse("w.json",
		      "{\"name\":\"w\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"b.mjs\","
		      "\"prepare\":true,\"prepare_size\":\"256M\"}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.prepare_size == 256ull << 20);
	/* no fixture unless asked */
	assert_int_equal(scn_parse("h.json", http_ok, &s, &err), 0);
	assert_int_equal(s.fixtures, 0);
}

/* Scripts by family: any runtime of a family the scenario names runs it, a name of its own wins, a version
 * older than min_version is skipped with the scenario's reason, and a runtime of no family is told why. */
static void test_families(void **state)
{
	static const char text[] =
		"{\"name\":\"f\",\"workload\":\"http\",\"runtimes\":[\"node\",\"bun\",\"deno\"],"
		"\"min_version\":{\"node\":{\"version\":\"22.5\",\"why\":\"no node:sqlite\"}},"
		"\"skip\":{\"workerd\":\"no SQLite module\"},"
		"\"scripts\":{\"node\":\"n.mjs\",\"bun\":\"b.js\",\"deno\":\"d.js\",\"node26\":\"n26.mjs\"},"
		"\"load\":{}}";
	struct scenario s;
	struct hx_err err = {0};
	struct manifest mine = rt("mynode", "node", "26.0.0-pre"), n20 = rt("node20", "node", "20.20.2"),
			n22 = rt("node22", "node", "22.23.5"), n26 = rt("node26", "node", "26.10.0"),
			local = rt("node", "node", ""), wd = rt("workerd", "workerd", "1.20261117.1"),
			none = rt("mynode", "", "26.0.0");
	char why[512];

	(void)state;
	if (scn_parse("f.json", text, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(scn_script_for(&s, &mine), "n.mjs");
	assert_string_equal(scn_script_for(&s, &n26), "n26.mjs");
	assert_null(scn_why_not(&s, &mine, why, sizeof(why)));
	assert_null(scn_why_not(&s, &n22, why, sizeof(why)));
	assert_null(scn_why_not(&s, &local, why, sizeof(why))); /* its version is not known yet */
	assert_string_equal(scn_why_not(&s, &n20, why, sizeof(why)),
			    "no node:sqlite (it needs node 22.5 or later; node20 is 20.20.2)");
	assert_string_equal(scn_why_not(&s, &wd, why, sizeof(why)), "no SQLite module");
	assert_true(scn_names(&s, &wd) && scn_names(&s, &n20));
	assert_non_null(scn_why_not(&s, &none, why, sizeof(why)));
	assert_non_null(strstr(why, "mynode's manifest names no family"));
	assert_false(scn_names(&s, &none));
	s.nskips = 0;
	assert_string_equal(scn_why_not(&s, &wd, why, sizeof(why)),
			    "it has no script for workerd (it runs on node, bun, deno)");
	assert_false(scn_names(&s, &wd));
	/* a min_version for a family the scenario does not run on is a mistake in the file */
	assert_true(scn_parse("f.json",
			      "{\"name\":\"f\",\"workload\":\"startup\",\"runtimes\":[\"bun\"],\"script\":\"a.js\","
			      "\"min_version\":{\"node\":{\"version\":\"22\",\"why\":\"x\"}}}",
			      &s, &err) < 0);
	assert_non_null(strstr(err.msg, "min_version: node: expected a family of the scenario's runtimes"));
}

static void test_version_order(void **state)
{
	(void)state;
	assert_true(man_version_cmp("22.5", "22.23.5") < 0);
	assert_true(man_version_cmp("v26.0.0-pre", "26") == 0);
	assert_true(man_version_cmp("20.20.2", "22.5") < 0);
	assert_true(man_version_cmp("1.20261117.1", "1.20261104.1") > 0);
	assert_true(man_version_cmp("24", "24.0.0") == 0);
}

/* A user's runtime of family node, named nowhere in the repository, runs every shipped scenario the shipped
 * node24 image runs, with the same script, unedited; and every shipped scenario runs on node. */
static void test_shipped_on_a_user_node(void **state)
{
	static const char user[] =
		"{\"name\":\"mynode\",\"version\":\"26.0.0\",\"kind\":\"runtime\",\"family\":\"node\","
		"\"source\":{\"type\":\"host\",\"path\":\"/opt/build/out/Release/node\"},"
		"\"entry\":\"/opt/build/out/Release/node\",\"run\":[\"{entry}\",\"{script}\"]}";
	const char *top = getenv("HARNESS_TOP");
	char dir[4096];
	struct manifest mine, n24;
	struct hx_err err = {0};
	struct dirent **names = NULL;
	int n, ran = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/scenarios", top ? top : ".");
	if (man_parse("mynode.json", user, &mine, &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(dir + strlen(dir) - 9, sizeof(dir) - strlen(dir) + 9, "images");
	if (man_load(dir, "node24", &n24, &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(dir + strlen(dir) - 6, sizeof(dir) - strlen(dir) + 6, "scenarios");
	n = scandir(dir, &names, NULL, alphasort);
	assert_true(n > 2);
	for (int i = 0; i < n; i++) {
		struct scenario s;

		if (names[i]->d_name[0] != '.') {
			if (scn_load(dir, names[i]->d_name, &s, &err) < 0)
				fail_msg("%s", err.msg);
			if (!scn_supports(&s, &mine))
				fail_msg("scenario %s does not run on a user's node 26", s.name);
			assert_int_equal(scn_supports(&s, &n24), scn_supports(&s, &mine));
			assert_string_equal(scn_script_for(&s, &mine), scn_script_for(&s, &n24));
			assert_true(scn_script_for(&s, &mine)[0] != '\0');
			ran++;
		}
		free(names[i]);
	}
	free(names);
	assert_true(ran >= 13);
	man_free(&mine);
	man_free(&n24);
}

/* Every workload gets a warm-up with one count for every runtime, and a minimum measured duration. */
static void test_warmups(void **state)
{
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(
		scn_parse("r.json",
			  "{\"name\":\"r\",\"workload\":\"ws-rpc\",\"runtimes\":[\"bun\"],\"script\":\"s.js\"}", &s,
			  &err),
		0);
	assert_int_equal(s.warmup_requests, 10000); /* a tenth of the 100,000 */
	assert_true(s.min_duration_s == SCN_MIN_DURATION_S);
	if (scn_parse("c.json",
		      "{\"name\":\"c\",\"workload\":\"ws-chat\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
		      "\"chat\":{\"messages\":1000,\"warmup_messages\":50},\"min_duration_s\":2}",
		      &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(
		scn_parse("c.json",
			  "{\"name\":\"c\",\"workload\":\"ws-chat\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
			  "\"chat\":{\"messages\":1000,\"warmup_messages\":50},\"min_duration_s\":2}",
			  &s, &err),
		0);
	assert_int_equal(s.warmup_requests, 50);
	assert_true(s.min_duration_s == 2);
	scn_scale(&s, SCN_FULL); /* full doubles the room, not the messages */
	assert_int_equal(s.warmup_requests, 50);
	assert_int_equal(scn_parse("p.json",
				   "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
				   "\"iterations\":1000}",
				   &s, &err),
			 0);
	assert_int_equal(s.warmup_requests, 100);
	assert_int_equal(
		scn_parse("t.json",
			  "{\"name\":\"t\",\"workload\":\"startup\",\"runtimes\":[\"bun\"],\"script\":\"s.js\","
			  "\"min_duration_s\":1}",
			  &s, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "t.json: min_duration_s"));
}

/* load.timeout_ms, as documented; the trial's default deadline from the load; "prepare": "network". */
static void test_timeout_deadline_and_prepare_network(void **state)
{
	static const char timed[] =
		"{\"name\":\"h\",\"workload\":\"http\",\"runtimes\":[\"node20\"],\"script\":\"s.js\","
		"\"ready\":{\"timeout_s\":5},\"load\":{\"connections\":2,\"requests\":20,"
		"\"warmup_requests\":0,\"timeout_ms\":20000}}";
	static const char net[] = "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"node20\"],"
				  "\"script\":\"p.mjs\",\"prepare\":\"network\"}";
	struct scenario s;
	struct hx_err err = {0};

	(void)state;
	if (scn_parse("h.json", timed, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.timeout_ms, 20000);
	assert_true(run_trial_budget_s(&s) > 35.1 && run_trial_budget_s(&s) < 35.3); /* 10 + 5 + 20 + 20/100 */
	assert_int_equal(scn_parse("h.json", http_ok, &s, &err), 0);
	/* 10 + 15 + 30 + (100,000 + 4,000) / 100 */
	assert_true(run_trial_budget_s(&s) > 1094.9 && run_trial_budget_s(&s) < 1095.1);
	if (scn_parse("p.json", net, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.prepare && s.prepare_network);
	assert_true(run_trial_budget_s(&s) == 0); /* a script has its timeout_s */
	assert_true(scn_parse("p.json",
			      "{\"name\":\"p\",\"workload\":\"script\",\"runtimes\":[\"node20\"],\"script\":\"p.mjs\","
			      "\"prepare\":\"yes\"}",
			      &s, &err) < 0);
	assert_non_null(strstr(err.msg, "expected true, false or \"network\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warmups),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_body_and_bundle),
		cmocka_unit_test(test_chat),
		cmocka_unit_test(test_rpc),
		cmocka_unit_test(test_docstore),
		cmocka_unit_test(test_startup_defaults_and_full),
		cmocka_unit_test(test_mistakes),
		cmocka_unit_test(test_long_script_path),
		cmocka_unit_test(test_script_with_fixture),
		cmocka_unit_test(test_primary_metric),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_version_order),
		cmocka_unit_test(test_shipped_on_a_user_node),
		cmocka_unit_test(test_timeout_deadline_and_prepare_network),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
