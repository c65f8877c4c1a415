/* Lock files npm ci may follow: the shipped ones pass; links, paths and URLs outside the registry do not. */
#include "testutil.h"

#include "base/err.h"
#include "base/util.h"
#include "image/deps.h"

#define REG "https://registry.test/"

static void refused(const char *text, const char *needle)
{
	struct hx_err err = {0};

	assert_int_equal(dep_check_lock("x/package-lock.json", text, REG, &err), -EINVAL);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
}

static void test_shipped(void **state)
{
	static const char *const names[] = {"express", "express-https", "postgres", "ws-chat", "warm-install"};
	const char *top = getenv("HARNESS_TOP");

	(void)state;
	for (size_t i = 0; i < HX_ARRAY_SIZE(names); i++) {
		char path[4096];
		char *text = NULL;
		struct hx_err err = {0};

		snprintf(path, sizeof(path), "%s/scenarios/%s/package-lock.json", top ? top : ".", names[i]);
		assert_int_equal(util_read_file(path, &text, NULL, &err), 0);
		if (dep_check_lock(path, text, REG, &err) < 0)
			fail_msg("%s", err.msg);
		free(text);
	}
}

#define LOCK(packages) "{\"lockfileVersion\":3,\"packages\":{\"\":{}," packages "}}"

static void test_accepted(void **state)
{
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(dep_check_lock("f",
					LOCK("\"node_modules/@types/node\":{\"version\":\"1.2.3\"},"
					     "\"node_modules/a/node_modules/@s/b\":{\"version\":\"2.0.0-rc.1\","
					     "\"resolved\":\"" REG "b/-/b-2.0.0-rc.1.tgz\"}"),
					REG, &err),
			 0);
}

static void test_hostile(void **state)
{
	(void)state;
	refused(LOCK("\"node_modules/x\":{\"resolved\":\"../../../../etc\",\"link\":true}"),
		"packages.node_modules/x: a link to a folder");
	refused(LOCK("\"node_modules/x\":{\"version\":\"1.0.0\",\"resolved\":\"https://evil.test/x.tgz\"}"),
		"'https://evil.test/x.tgz' is not in the registry");
	refused(LOCK("\"node_modules/x\":{\"version\":\"1.0.0\",\"resolved\":\"file:../../x.tgz\"}"),
		"'file:../../x.tgz' is not an http or https URL");
	refused(LOCK("\"node_modules/x\":{\"version\":\"1.0.0\",\"resolved\":\"https://u:p@registry.test/x.tgz\"}"),
		"carries a user name or password");
	refused(LOCK("\"node_modules/x\":{\"version\":\"file:../../etc\"}"), "is not a semantic version");
	refused(LOCK("\"node_modules/../../etc\":{\"version\":\"1.0.0\"}"),
		"packages: 'node_modules/../../etc' is not");
	refused(LOCK("\"../x\":{\"version\":\"1.0.0\"}"), "packages: '../x' is not");
	refused(LOCK("\"node_modules/a/../../../x\":{\"version\":\"1.0.0\"}"), "is not node_modules/");
	refused(LOCK("\"node_modules/@s/../x\":{\"version\":\"1.0.0\"}"), "is not node_modules/");
	refused(LOCK("\"node_modules/x\":{\"version\":\"1.0.0\\u0000\"}"), "\\u0000");
	refused("{\"lockfileVersion\":1,\"dependencies\":{}}", "lockfileVersion: expected 2 or 3");
	refused("{\"lockfileVersion\":3}", "packages: expected an object");
	refused("[", "not valid JSON");
}

/* What a results file records of a scenario's dependencies: the packages its package.json names, at the
 * versions the lock installs (warm-install's npm: the package manager the node images time). */
static void test_direct(void **state)
{
	struct dep_direct d;
	struct hx_err err = {0};
	const char *top = getenv("HARNESS_TOP");
	char path[4096], hex[65], want[80];
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(dep_lock_direct("f",
					 "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"b\":\"^2\","
					 "\"@s/a\":\"1.0.0\",\"gone\":\"1\"},\"devDependencies\":{\"c\":\"3\"}},"
					 "\"node_modules/@s/a\":{\"version\":\"1.0.0\"},"
					 "\"node_modules/b\":{\"version\":\"2.4.1\"},"
					 "\"node_modules/x/node_modules/b\":{\"version\":\"1.0.0\"},"
					 "\"node_modules/c\":{\"version\":\"3.0.0\"}}}",
					 &d, &err),
			 0);
	/* as the lock installs them (b's range resolved), nested copies and what it lacks left out */
	assert_int_equal(d.n, 3);
	assert_string_equal(d.name[0], "b");
	assert_string_equal(d.version[0], "2.4.1");
	assert_string_equal(d.name[1], "@s/a");
	assert_string_equal(d.version[1], "1.0.0");
	assert_string_equal(d.name[2], "c");
	assert_string_equal(d.version[2], "3.0.0");
	assert_int_equal(dep_lock_direct("f", "{\"lockfileVersion\":3,\"packages\":{\"\":{}}}", &d, &err), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(dep_lock_direct("x/package-lock.json", "[", &d, &err), -EINVAL);
	assert_int_equal(err.exit, HX_EXIT_USAGE);

	/* the shipped warm-install pins the npm it runs, and the lock's digest names its cache entry */
	snprintf(path, sizeof(path), "%s/scenarios/warm-install", top ? top : ".");
	assert_int_equal(dep_lock_read(path, &d, &err), 0);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.name[0], "npm");
	assert_string_equal(d.version[0], "11.19.1");
	snprintf(path, sizeof(path), "%s/scenarios/warm-install/package-lock.json", top ? top : ".");
	assert_int_equal(util_read_file(path, &text, &len, &err), 0);
	assert_int_equal(util_sha256_hex(text, len, hex, sizeof(hex)), 0);
	snprintf(want, sizeof(want), "sha256-%s", hex);
	assert_string_equal(d.lock, want);
	free(text);
	/* a scenario with no lock: nothing to record */
	snprintf(path, sizeof(path), "%s/scenarios/http-hello", top ? top : ".");
	assert_int_equal(dep_lock_read(path, &d, &err), 0);
	assert_string_equal(d.lock, "");
	assert_int_equal(d.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_direct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
