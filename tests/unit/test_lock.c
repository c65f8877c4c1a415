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
	static const char *const names[] = {"express", "express-https", "postgres", "ws-chat"};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
