/* Noise kinds and levels: parsing, formatting, defaults, what a generator needs; the generators' counts. */
#include "testutil.h"

#include <sched.h>
#include <sys/stat.h>

#include "base/util.h"
#include "noise/noise.h"
#include "results/results.h"

static void parse_ok(const char *s, enum noise_kind kind, uint64_t level)
{
	struct noise_spec n;
	struct hx_err err = {0};

	if (noise_spec_parse(s, &n, &err) < 0)
		fail_msg("%s: %s", s, err.msg);
	assert_int_equal(n.kind, kind);
	assert_int_equal(n.level, level);
}

static void parse_bad(const char *s, const char *says)
{
	struct noise_spec n = {.kind = NOISE_CPU, .level = 7};
	struct hx_err err = {0};

	assert_int_equal(noise_spec_parse(s, &n, &err), -EINVAL);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, says));
	assert_int_equal(n.kind, NOISE_CPU); /* untouched on failure */
	assert_int_equal(n.level, 7);
}

static void test_parse(void **state)
{
	(void)state;
	parse_ok("none", NOISE_NONE, 0);
	parse_ok("cpu", NOISE_CPU, 0);
	parse_ok("cpu:4", NOISE_CPU, 4);
	parse_ok("cache:64M", NOISE_CACHE, 64u << 20);
	parse_ok("membw:1G", NOISE_MEMBW, 1ull << 30);
	parse_ok("io:4k", NOISE_IO, 4096);
	parse_ok("alloc:128M", NOISE_ALLOC, 128u << 20);
	parse_bad("disk", "not a kind");
	parse_bad("cpux", "not a kind");
	parse_bad("", "not a kind");
	parse_bad("cpu:0", "at least 1 thread");
	parse_bad("cpu:2k", "thread count");
	parse_bad("cpu:", "thread count");
	parse_bad("cache:12", "at least 4k");
	parse_bad("cache:lots", "at least 4k");
	parse_bad("none:3", "no level");
}

static void format_is(enum noise_kind kind, uint64_t level, const char *want)
{
	char buf[64];
	struct noise_spec n = {kind, level}, back;
	struct hx_err err = {0};

	noise_spec_format(&n, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(noise_spec_parse(buf, &back, &err), 0); /* what is printed reads back the same */
	assert_int_equal(back.kind, kind);
	assert_int_equal(back.level, kind == NOISE_NONE ? 0 : level);
}

static void test_format(void **state)
{
	(void)state;
	format_is(NOISE_NONE, 0, "none");
	format_is(NOISE_CPU, 0, "cpu");
	format_is(NOISE_CPU, 1024, "cpu:1024");
	format_is(NOISE_CACHE, 64u << 20, "cache:64M");
	format_is(NOISE_MEMBW, 3ull << 30, "membw:3G");
	format_is(NOISE_IO, 6144, "io:6k");
	format_is(NOISE_ALLOC, 5000, "alloc:5000");
}

static void test_resolve(void **state)
{
	struct noise_spec cpu = {NOISE_CPU, 0}, cpu3 = {NOISE_CPU, 3}, cache = {NOISE_CACHE, 0},
			  cache_unknown = {NOISE_CACHE, 0}, io = {NOISE_IO, 0}, none = {NOISE_NONE, 0};

	(void)state;
	noise_spec_resolve(&cpu, 2, 0);
	noise_spec_resolve(&cpu3, 2, 0);
	noise_spec_resolve(&cache, 4, 32u << 20);
	noise_spec_resolve(&cache_unknown, 4, 0);
	noise_spec_resolve(&io, 4, 0);
	noise_spec_resolve(&none, 4, 0);
	assert_int_equal(cpu.level, 2);
	assert_int_equal(cpu3.level, 3); /* a level given stays */
	assert_int_equal(cache.level, 64u << 20);
	assert_int_equal(cache_unknown.level, 64u << 20);
	assert_int_equal(io.level, 1u << 20);
	assert_int_equal(none.level, 0);
	assert_int_equal(noise_threads(&cpu3), 3);
	assert_int_equal(noise_threads(&cache), 1);
	assert_int_equal(noise_threads(&none), 0);
	assert_true(noise_memory_need(&cache) > cache.level);
	assert_int_equal(noise_memory_need(&cpu), 0);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	*strrchr(path, '/') = '\0';
	assert_int_equal(util_mkdir_p(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_llc(void **state)
{
	char root[] = "/tmp/test-noise-XXXXXX";
	char cmd[64];

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(noise_llc_bytes(root), 0); /* no cache folders: unknown */
	put(root, "devices/system/cpu/cpu0/cache/index0/size", "48K\n");
	put(root, "devices/system/cpu/cpu0/cache/index2/size", "2048K\n");
	put(root, "devices/system/cpu/cpu0/cache/index3/size", "32768K\n");
	assert_int_equal(noise_llc_bytes(root), 32u << 20);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* A short real run per kind: it counts work, in its unit, on a CPU we may use. */
static void run_kind(enum noise_kind kind, uint64_t level, const char *unit)
{
	struct noise_spec n = {kind, level};
	struct noise_result r;
	struct hx_err err = {0};
	cpu_set_t aff;

	if (noise_run(&n, &(struct noise_opts){.duration_s = 0.2}, &r, &err) < 0)
		fail_msg("%s: %s", noise_kind_names[kind], err.msg);
	assert_string_equal(r.unit, unit);
	assert_true(r.ops > 0);
	assert_true(r.seconds >= 0.2 && r.seconds < 5);
	assert_false(cg_cpus_empty(&r.ran_on));
	assert_int_equal(sched_getaffinity(0, sizeof(aff), &aff), 0);
	CG_CPUS_FOREACH (cpu, &r.ran_on)
		assert_true(CPU_ISSET(cpu, &aff));
}

static void test_run(void **state)
{
	(void)state;
	run_kind(NOISE_CPU, 2, "spins");
	run_kind(NOISE_CACHE, 1u << 20, "loads");
	run_kind(NOISE_MEMBW, 4u << 20, "bytes");
	run_kind(NOISE_IO, 64u << 10, "fsyncs");
	run_kind(NOISE_ALLOC, 1u << 20, "pages");
}

/* What a generator prints reads back as what it did: the run stores the parsed result. */
static void test_result_round_trip(void **state)
{
	struct noise_result r = {.spec = {NOISE_IO, 1u << 20},
				 .threads = 1,
				 .seconds = 2,
				 .ops = 40,
				 .bytes = 40u << 20},
			    back;
	struct hx_err err = {0};
	cJSON *o;

	(void)state;
	snprintf(r.unit, sizeof(r.unit), "fsyncs");
	snprintf(r.target, sizeof(r.target), "/data/.harness-noise-2");
	snprintf(r.fs, sizeof(r.fs), "ext4");
	cg_cpus_parse("1,3-4", &r.ran_on);
	o = res_noise_json(&r);
	assert_int_equal(res_noise_parse(o, &back, &err), 0);
	cJSON_Delete(o);
	assert_int_equal(back.spec.kind, NOISE_IO);
	assert_int_equal(back.spec.level, 1u << 20);
	assert_int_equal(back.ops, 40);
	assert_int_equal(back.bytes, 40u << 20);
	assert_string_equal(back.unit, "fsyncs");
	assert_string_equal(back.fs, "ext4");
	assert_cpus(&back.ran_on, "1,3-4");
	o = cJSON_Parse("{\"noise\":\"disk\"}");
	assert_true(res_noise_parse(o, &back, &err) < 0);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse), cmocka_unit_test(test_format), cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_llc),   cmocka_unit_test(test_run),    cmocka_unit_test(test_result_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
