/* Option tables, size/duration parsing, keyed files and the error model. */
#include "testutil.h"

#include "base/err.h"
#include "base/opt.h"
#include "base/util.h"

struct o {
	bool flag;
	const char *str;
	unsigned n;
	uint64_t size;
	double dur;
	double rate;
	struct opt_list hdr;
};

static const struct hx_opt tab[] = {
	{"flag", 'f', OPT_FLAG, offsetof(struct o, flag), NULL, .help = "a flag"},
	{"str", 's', OPT_STR, offsetof(struct o, str), "S", .help = "a string"},
	{"num", 'n', OPT_UINT, offsetof(struct o, n), "N", .help = "a number"},
	{"size", 0, OPT_SIZE, offsetof(struct o, size), "SIZE", .help = "a size"},
	{"dur", 'd', OPT_DURATION, offsetof(struct o, dur), "DURATION", .help = "a duration"},
	{"rate", 'R', OPT_NUMBER, offsetof(struct o, rate), "RATE", .help = "a plain number"},
	{"header", 'H', OPT_LIST, offsetof(struct o, hdr), "K: V", .help = "repeatable"},
	OPT_END,
};

/* argv as main gets it: writable strings. opt_parse reorders argv, so the strings are also kept
 * after its NULL, in their first order, for freevp to free once each. */
static char **dupv(const char *const *src, int n)
{
	char **v = calloc(2 * (size_t)n + 2, sizeof(*v));

	for (int i = 0; i < n; i++)
		v[i] = v[n + 1 + i] = strdup(src[i]);
	return v;
}

static void freevp(char ***v)
{
	char **p = *v;

	while (*p)
		p++;
	for (p++; *p; p++)
		free(*p);
	free(*v);
}

static int parse(struct o *o, int argc, char **argv, bool stop, int *npos, struct hx_err *err)
{
	memset(o, 0, sizeof(*o));
	return opt_parse("t", tab, o, argc, argv, stop, npos, err);
}

static void test_forms(void **state)
{
	const char *const argv_src[] = {"t",  "-f",    "--str=x", "pos1", "-n",	      "12",   "--size", "64M",
					"-d", "500ms", "-H",	  "a: 1", "--header", "b: 2", "pos2"};
	__attribute__((cleanup(freevp))) char **argv = dupv(argv_src, (int)(sizeof(argv_src) / sizeof(argv_src[0])));
	struct hx_err err = {0};
	struct o o;
	int npos;

	(void)state;
	assert_int_equal(parse(&o, 15, argv, false, &npos, &err), 0);
	assert_true(o.flag);
	assert_string_equal(o.str, "x");
	assert_int_equal(o.n, 12);
	assert_int_equal(o.size, 64u << 20);
	assert_true(o.dur > 0.4999 && o.dur < 0.5001);
	assert_int_equal(o.hdr.n, 2);
	assert_string_equal(o.hdr.items[1], "b: 2");
	assert_int_equal(npos, 2);
	assert_string_equal(argv[1], "pos1");
	assert_string_equal(argv[2], "pos2");
}

static void test_stop_at_positional(void **state)
{
	const char *const argv_src[] = {"t", "-f", "--", "cmd", "-n", "x"};
	__attribute__((cleanup(freevp))) char **argv = dupv(argv_src, (int)(sizeof(argv_src) / sizeof(argv_src[0])));
	const char *const argv2_src[] = {"t", "cmd", "--flag"};
	__attribute__((cleanup(freevp))) char **argv2 =
		dupv(argv2_src, (int)(sizeof(argv2_src) / sizeof(argv2_src[0])));
	struct hx_err err = {0};
	struct o o;
	int npos;

	(void)state;
	assert_int_equal(parse(&o, 6, argv, true, &npos, &err), 0);
	assert_int_equal(npos, 3);
	assert_string_equal(argv[1], "cmd");
	assert_string_equal(argv[2], "-n");
	assert_int_equal(parse(&o, 3, argv2, true, &npos, &err), 0);
	assert_false(o.flag); /* --flag belongs to the command */
	assert_int_equal(npos, 2);
}

static void expect_usage(int argc, char **argv, const char *needle)
{
	struct hx_err err = {0};
	struct o o;
	int npos;

	assert_true(parse(&o, argc, argv, false, &npos, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
	assert_null(strchr(err.msg, '\n'));
}

static void test_errors(void **state)
{
	const char *const a1_src[] = {"t", "--nope"};
	__attribute__((cleanup(freevp))) char **a1 = dupv(a1_src, (int)(sizeof(a1_src) / sizeof(a1_src[0])));
	const char *const a2_src[] = {"t", "-n", "12x"};
	__attribute__((cleanup(freevp))) char **a2 = dupv(a2_src, (int)(sizeof(a2_src) / sizeof(a2_src[0])));
	const char *const a3_src[] = {"t", "--num"};
	__attribute__((cleanup(freevp))) char **a3 = dupv(a3_src, (int)(sizeof(a3_src) / sizeof(a3_src[0])));
	const char *const a4_src[] = {"t", "--flag=1"};
	__attribute__((cleanup(freevp))) char **a4 = dupv(a4_src, (int)(sizeof(a4_src) / sizeof(a4_src[0])));
	const char *const a5_src[] = {"t", "--size", "lots"};
	__attribute__((cleanup(freevp))) char **a5 = dupv(a5_src, (int)(sizeof(a5_src) / sizeof(a5_src[0])));
	const char *const a6_src[] = {"t", "-z"};
	__attribute__((cleanup(freevp))) char **a6 = dupv(a6_src, (int)(sizeof(a6_src) / sizeof(a6_src[0])));

	(void)state;
	expect_usage(2, a1, "unknown option '--nope' (see 'harness t --help')");
	expect_usage(3, a2, "--num takes N, not '12x'");
	expect_usage(2, a3, "--num needs N");
	expect_usage(2, a4, "--flag takes no value");
	expect_usage(3, a5, "--size takes SIZE");
	expect_usage(2, a6, "unknown option '-z'");
}

static void test_number(void **state)
{
	const char *const ok_src[] = {"t", "-R", "2500.5"};
	const char *const bad_src[] = {"t", "-R", "2000s"};
	__attribute__((cleanup(freevp))) char **ok = dupv(ok_src, 3);
	__attribute__((cleanup(freevp))) char **bad = dupv(bad_src, 3);
	struct hx_err err = {0};
	struct o o;
	int npos;

	(void)state;
	assert_int_equal(parse(&o, 3, ok, false, &npos, &err), 0);
	assert_true(o.rate == 2500.5);
	assert_true(parse(&o, 3, bad, false, &npos, &err) < 0); /* a rate is not a duration */
	assert_non_null(strstr(err.msg, "--rate takes RATE, not '2000s'"));
}

static void test_sizes_durations(void **state)
{
	uint64_t v;
	double d;

	(void)state;
	assert_int_equal(util_parse_size("123", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(util_parse_size("1.5G", &v), 0);
	assert_int_equal(v, 3ull << 29);
	assert_int_equal(util_parse_size("512KiB", &v), 0);
	assert_int_equal(v, 512ull << 10);
	assert_int_equal(util_parse_size("2tb", &v), 0);
	assert_int_equal(v, 2ull << 40);
	assert_true(util_parse_size("", &v) < 0);
	assert_true(util_parse_size("-1", &v) < 0);
	assert_true(util_parse_size("10X", &v) < 0);
	assert_true(util_parse_size("99999999999T", &v) < 0);
	assert_int_equal(util_parse_duration("10s", &d), 0);
	assert_true(d == 10.0);
	assert_int_equal(util_parse_duration("2m", &d), 0);
	assert_true(d == 120.0);
	assert_int_equal(util_parse_duration("1.5", &d), 0);
	assert_true(d == 1.5);
	assert_true(util_parse_duration("10 s", &d) < 0);
	assert_true(util_parse_duration("fast", &d) < 0);
	assert_true(util_parse_u64("18446744073709551616", &v) < 0);
	assert_true(util_parse_u64("1 ", &v) < 0);
}

struct ranged {
	unsigned cpus, warm;
	uint64_t mem;
	double dur;
	const char *out, *in, *dir;
};

static const struct hx_opt ranged_tab[] = {
	{"cpus", 0, OPT_UINT, offsetof(struct ranged, cpus), "N", .help = "CPUs", .min = 1, .max = 64},
	{"warm", 0, OPT_UINT, offsetof(struct ranged, warm), "N", .help = "warm-up", .max = 10},
	{"mem", 0, OPT_SIZE, offsetof(struct ranged, mem), "SIZE", .help = "memory", .min = OPT_MEMORY_MIN},
	{"dur", 0, OPT_DURATION, offsetof(struct ranged, dur), "D", .help = "time", .min = 0.001},
	{"out", 0, OPT_STR, offsetof(struct ranged, out), "FILE", .help = "out", .check = OPT_CHECK_OUT_FILE},
	{"in", 0, OPT_STR, offsetof(struct ranged, in), "FILE", .help = "in", .check = OPT_CHECK_IN_FILE},
	{"dir", 0, OPT_STR, offsetof(struct ranged, dir), "DIR", .help = "dir", .check = OPT_CHECK_DIR},
	OPT_END,
};

/* One option and its value against ranged_tab: 0, or the error's message in msg. */
static int ranged(const char *opt, const char *val, struct ranged *r, struct hx_err *err)
{
	const char *const src[] = {"t", opt, val};
	int argc = val ? 3 : 2;
	char **argv = dupv(src, argc);
	int npos, rc;

	memset(r, 0, sizeof(*r));
	memset(err, 0, sizeof(*err));
	rc = opt_parse("t", ranged_tab, r, argc, argv, false, &npos, err);
	freevp(&argv);
	return rc;
}

static void test_ranges(void **state)
{
	struct ranged r;
	struct hx_err err;

	(void)state;
	assert_int_equal(ranged("--cpus", "1", &r, &err), 0);
	assert_int_equal(r.cpus, 1);
	assert_int_equal(ranged("--cpus", "64", &r, &err), 0);
	assert_true(ranged("--cpus", "0", &r, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_string_equal(err.msg, "t: --cpus takes a whole number from 1 to 64, not '0'");
	assert_int_equal(r.cpus, 0); /* nothing stored */
	assert_true(ranged("--cpus", "65", &r, &err) < 0);
	assert_true(ranged("--cpus", "x", &r, &err) < 0);
	assert_string_equal(err.msg, "t: --cpus takes a whole number from 1 to 64, not 'x'");
	assert_int_equal(ranged("--warm", "0", &r, &err), 0);
	assert_true(ranged("--warm", "11", &r, &err) < 0);
	assert_string_equal(err.msg, "t: --warm takes a whole number of at most 10, not '11'");

	assert_int_equal(ranged("--mem", "4M", &r, &err), 0);
	assert_true(r.mem == 4u << 20);
	assert_true(ranged("--mem", "1K", &r, &err) < 0);
	assert_string_equal(err.msg, "t: --mem takes a size of at least 4M (e.g. 512M, 2G), not '1K'");
	assert_true(ranged("--mem", "4194303", &r, &err) < 0);

	assert_int_equal(ranged("--dur", "1ms", &r, &err), 0);
	assert_true(ranged("--dur", "0", &r, &err) < 0);
	assert_non_null(strstr(err.msg, "--dur takes a duration of at least 0.001s"));

	/* the help shows each range */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		opt_print_help(f, "t", "about", ranged_tab);
		fclose(f);
		assert_non_null(strstr(text, "CPUs [1 to 64]"));
		assert_non_null(strstr(text, "memory [at least 4M]"));
		free(text);
	}
}

static void test_paths(void **state)
{
	struct ranged r;
	struct hx_err err;
	char dir[] = "/tmp/test_opt.XXXXXX", file[64], sub[80];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(sub, sizeof(sub), "%s/missing/r.json", dir);

	assert_int_equal(ranged("--out", file, &r, &err), 0);
	assert_int_equal(ranged("--out", "r.json", &r, &err), 0);
	assert_true(ranged("--out", sub, &r, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "the folder '"));
	assert_non_null(strstr(err.msg, "/missing' does not exist"));
	assert_true(ranged("--out", dir, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "is a folder; name a file"));
	assert_true(ranged("--out", "", &r, &err) < 0);
	/* the kernel's files, a device, a file as a folder: each its own line */
	assert_true(ranged("--out", "/proc/r.json", &r, &err) < 0);
	assert_string_equal(err.msg,
			    "t: --out: the folder '/proc' is on /proc (procfs), the kernel's files: write elsewhere");
	assert_true(ranged("--out", "/proc/self/status", &r, &err) < 0);
	assert_non_null(strstr(err.msg, "is on /proc (procfs)"));
	assert_true(ranged("--out", "/sys/kernel/r.json", &r, &err) < 0);
	assert_string_equal(err.msg,
			    "t: --out: the folder '/sys/kernel' is on sysfs, the kernel's files: write elsewhere");
	assert_true(ranged("--out", "/dev/null", &r, &err) < 0);
	assert_string_equal(err.msg,
			    "t: --out: '/dev/null' is not a regular file (a device, pipe or socket): name a file");
	assert_int_equal(err.exit, HX_EXIT_USAGE);

	assert_true(ranged("--in", file, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "cannot read"));
	fclose(fopen(file, "w"));
	assert_int_equal(ranged("--in", file, &r, &err), 0);

	assert_int_equal(ranged("--dir", dir, &r, &err), 0);
	assert_true(ranged("--dir", file, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "is not an existing folder"));
	snprintf(sub, sizeof(sub), "%s/r.json", file);
	assert_true(ranged("--out", sub, &r, &err) < 0);
	assert_non_null(strstr(err.msg, "/f' is not a folder"));

	unlink(file);
	rmdir(dir);
}

static void test_suggest(void **state)
{
	static const char *const verbs[] = {"run", "exec", "load", "report", "compare", "merge"};
	static const char *const rts[] = {"node20", "node22", "node24", "bun", "deno", "workerd"};
	static const char *const opts[] = {"profile", "precision", "repeat", "runtimes"};
	struct ranged r;
	struct hx_err err;

	(void)state;
	assert_string_equal(opt_suggest("bnu", rts, 6), "bun"); /* a swap is one edit */
	assert_string_equal(opt_suggest("nod22", rts, 6), "node22");
	assert_string_equal(opt_suggest("profle", opts, 4), "profile");
	assert_string_equal(opt_suggest("reprot", verbs, 6), "report");
	assert_string_equal(opt_suggest("rnu", verbs, 6), "run");
	assert_null(opt_suggest("x", verbs, 6));	  /* one letter is no word to correct */
	assert_null(opt_suggest("frobnicate", verbs, 6)); /* nothing near */
	assert_null(opt_suggest("bunx", rts, 0));
	/* an unknown option of a table says the one a typo away, with --name=value too */
	assert_true(ranged("--dru", "1s", &r, &err) < 0);
	assert_string_equal(err.msg, "t: unknown option '--dru'; did you mean '--dur'? (see 'harness t --help')");
	assert_true(ranged("--cpuss=1", NULL, &r, &err) < 0);
	assert_string_equal(err.msg, "t: unknown option '--cpuss'; did you mean '--cpus'? (see 'harness t --help')");
	assert_true(ranged("--zzzzzz", "1", &r, &err) < 0);
	assert_string_equal(err.msg, "t: unknown option '--zzzzzz' (see 'harness t --help')");
}

static void test_keyed(void **state)
{
	const char text[] = "usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_throttled 7\n";
	uint64_t v;

	(void)state;
	assert_int_equal(util_keyed_u64(text, "user_usec", &v), 0);
	assert_int_equal(v, 60);
	assert_int_equal(util_keyed_u64(text, "usec", &v), -ENOENT); /* whole keys only */
	assert_int_equal(util_keyed_u64(text, "nr_throttled", &v), 0);
	assert_int_equal(v, 7);
}

static void test_error_model(void **state)
{
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(hx_fail(&err, HX_EXIT_HOST, ENOENT, "no %s", "cpuset"), -ENOENT);
	hx_wrap(&err, "slice %s", "sut");
	hx_wrap(&err, "run");
	assert_string_equal(err.msg, "run: slice sut: no cpuset");
	assert_int_equal(err.exit, HX_EXIT_HOST);
	assert_int_equal(err.errnum, ENOENT);
	errno = EACCES;
	assert_int_equal(hx_syserr(&err, "open %s", "/x"), -EACCES);
	assert_string_equal(err.msg, "open /x: Permission denied");
	assert_int_equal(err.exit, HX_EXIT_INTERNAL);
	hx_clear(&err);
	assert_string_equal(err.msg, "");
	assert_int_equal(hx_fail(&err, HX_EXIT_USAGE, 0, "bad"), -EINVAL);
}

static void test_write_atomic(void **state)
{
	char dir[] = "/tmp/hx-test-XXXXXX", path[256];
	struct hx_err err = {0};
	char *back = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(util_write_atomic(path, "{}\n", 3, &err), 0);
	assert_int_equal(util_read_file(path, &back, NULL, &err), 0);
	assert_string_equal(back, "{}\n");
	free(back);
	snprintf(path, sizeof(path), "%s/missing/out.json", dir);
	assert_true(util_write_atomic(path, "x", 1, &err) < 0);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* no temp file left behind */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),	     cmocka_unit_test(test_stop_at_positional),
		cmocka_unit_test(test_errors),	     cmocka_unit_test(test_sizes_durations),
		cmocka_unit_test(test_keyed),	     cmocka_unit_test(test_error_model),
		cmocka_unit_test(test_write_atomic), cmocka_unit_test(test_number),
		cmocka_unit_test(test_ranges),	     cmocka_unit_test(test_paths),
		cmocka_unit_test(test_suggest),	     cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
