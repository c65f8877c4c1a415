/* Strict manifest parsing: the shipped shapes, and each kind of mistake named by file and field. */
#include "testutil.h"

#include <stdlib.h>

#include "base/util.h"
#include "image/manifest.h"

static const char npm_ok[] =
	"{\"name\": \"bun\", \"version\": \"1.4.5\", \"kind\": \"runtime\",\n"
	" \"source\": {\"type\": \"npm\", \"package\": \"@oven/bun-linux-x64\", \"version\": \"1.4.5\",\n"
	"  \"integrity\": "
	"\"sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==\"},\n"
	" \"entry\": \"bin/bun\", \"run\": [\"{entry}\", \"{script}\"],\n"
	" \"env\": {\"BUN_INSTALL_CACHE_DIR\": \"/tmp/c\"}, \"version_command\": [\"{entry}\", \"--version\"],\n"
	" \"version_expect\": \"1.4.5\"}";

static void test_npm(void **state)
{
	struct manifest m;
	struct hx_err err = {0};
	char id[160];

	(void)state;
	if (man_parse("images/bun.json", npm_ok, &m, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(m.name, "bun");
	assert_int_equal(m.source, MAN_SRC_NPM);
	assert_int_equal(m.kind, MAN_RUNTIME);
	assert_string_equal(m.package, "@oven/bun-linux-x64");
	assert_string_equal(m.run[1], "{script}");
	assert_null(m.run[2]);
	assert_string_equal(m.env[0], "BUN_INSTALL_CACHE_DIR=/tmp/c");
	man_digest_id(&m, id, sizeof(id));
	assert_int_equal(strlen(id), 7 + 128);
	assert_true(strncmp(id, "sha512-2165fd0442e8", 19) == 0); /* the base64 integrity as hex */
	man_free(&m);
}

static void test_url_and_host(void **state)
{
	struct manifest m;
	struct hx_err err = {0};
	char id[160];

	(void)state;
	assert_int_equal(man_parse("x.json",
				   "{\"name\":\"t\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"bin/"
				   "t\",\"source\":{\"type\":\"url\","
				   "\"url\":\"https://example.invalid/t.tgz\",\"sha256\":\""
				   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
				   "\",\"strip_components\":2}}",
				   &m, &err),
			 0);
	assert_int_equal(m.strip_components, 2);
	man_digest_id(&m, id, sizeof(id));
	assert_string_equal(id, "sha256-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	man_free(&m);
	assert_int_equal(man_parse("h.json",
				   "{\"name\":\"pg\",\"version\":\"15\",\"kind\":\"fixture\",\"entry\":\"/usr/bin/pg\","
				   "\"source\":{\"type\":\"host\",\"path\":\"/usr/bin/pg\"}}",
				   &m, &err),
			 0);
	man_digest_id(&m, id, sizeof(id));
	assert_string_equal(id, "");
	man_free(&m);
}

static void expect(const char *text, const char *needle)
{
	struct manifest m;
	struct hx_err err = {0};

	assert_true(man_parse("images/x.json", text, &m, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
	assert_true(strncmp(err.msg, "images/x.json: ", 15) == 0);
}

#define BASE "\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"bin/t\",\"run\":[\"{entry}\"]"
#define SRC  "\"source\":{\"type\":\"host\",\"path\":\"/x\"}"

/* A family is one of the four or none; every shipped runtime names its own. */
static void test_family(void **state)
{
	static const char *const shipped[][2] = {{"node20", "node"}, {"node24", "node"},     {"bun", "bun"},
						 {"deno", "deno"},   {"workerd", "workerd"}, {"postgres15", ""}};
	const char *top = getenv("HARNESS_TOP");
	char dir[4096];
	struct manifest m;
	struct hx_err err = {0};

	(void)state;
	expect("{" BASE ",\"family\":\"python\"," SRC "}",
	       "family: expected \"node\", \"bun\", \"deno\", \"workerd\" or \"none\", not \"python\"");
	if (man_parse("x.json",
		      "{\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\",\"run\":[\"{entry}\"],"
		      "\"family\":\"none\"," SRC "}",
		      &m, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(m.family, "");
	man_free(&m);
	snprintf(dir, sizeof(dir), "%s/images", top ? top : ".");
	for (size_t i = 0; i < HX_ARRAY_SIZE(shipped); i++) {
		if (man_load(dir, shipped[i][0], &m, &err) < 0)
			fail_msg("%s", err.msg);
		assert_string_equal(m.family, shipped[i][1]);
		man_free(&m);
	}
	assert_string_equal(man_family_of_file("/b/out/Release/node"), "node");
	assert_string_equal(man_family_of_file("./node-main"), "node");
	assert_string_equal(man_family_of_file("bun_pr"), "bun");
	assert_string_equal(man_family_of_file("nodejs"), "");
	assert_string_equal(man_family_of_file("d8"), "");
}

static void test_mistakes(void **state)
{
	(void)state;
	expect("{", "not valid JSON");
	expect("[]", "expected a JSON object");
	expect("{" BASE "," SRC ",\"extra\":1}", "extra: unknown key");
	expect("{\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\",\"run\":[\"x\"]," SRC "}", "name: missing");
	expect("{\"name\":7,\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\"," SRC "}",
	       "name: expected a string");
	expect("{\"name\":\"T!\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"/x\"," SRC "}",
	       "name: 'T!' is not a name");
	expect("{" BASE ",\"source\":{\"type\":\"ftp\"}}",
	       "source.type: expected \"npm\", \"url\" or \"host\", not \"ftp\"");
	expect("{" BASE ",\"source\":{\"type\":\"host\",\"path\":\"/x\",\"sha\":1}}", "source.sha: unknown key");
	expect("{" BASE
	       ",\"source\":{\"type\":\"npm\",\"package\":\"p\",\"version\":\"1.0.0\",\"integrity\":\"md5-x\"}}",
	       "source.integrity: expected sha512-");
	expect("{" BASE ",\"source\":{\"type\":\"url\",\"url\":\"ftp://x\",\"sha256\":\"00\"}}",
	       "source.url: 'ftp://x' is not an http or https URL");
	expect("{" BASE ",\"source\":{\"type\":\"url\",\"url\":\"http://x\",\"sha256\":\"00\"}}",
	       "source.sha256: expected 64");
	expect("{" BASE ",\"source\":{\"type\":\"url\",\"url\":\"http://x\",\"sha256\":\""
	       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\"strip_components\":1.5}}",
	       "strip_components: expected a whole number");
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\"," SRC "}",
	       "run: a runtime needs");
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"thing\",\"entry\":\"/x\"," SRC "}", "kind: expected");
	expect("{" BASE "," SRC "}", "entry: 'bin/t' is not an absolute path");
	expect("{" BASE ",\"env\":{\"A=B\":\"c\"}," SRC "}", "env: 'A=B' is not a variable name");
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\",\"run\":[1]," SRC "}",
	       "run: expected an array of strings");
	/* soname links are made in a downloaded tree only, never in the host's folders or outside the tree */
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"/x\",\"soname_links\":\"/usr/"
	       "lib\"," SRC "}",
	       "soname_links: expected a folder inside a downloaded image");
}

static void test_soname_links(void **state)
{
	static const char shipped[] =
		"{\"name\":\"postgres15\",\"version\":\"15.18\",\"kind\":\"fixture\",\"entry\":\"native/bin/postgres\","
		"\"soname_links\":\"native/lib\",\"source\":{\"type\":\"npm\",\"package\":\"@embedded-postgres/"
		"linux-x64\","
		"\"version\":\"15.18.0-beta.17\",\"integrity\":"
		"\"sha512-TC0kHcDMAusLbQXRc+9KMz1BLJY+ntfPNbwFP79f9IURSxPRgFLy0Ig8oF1J8Wy9Wnj0XdZkMItV3Nov/LwqhA==\"}}";
	struct manifest m;
	struct hx_err err = {0};

	(void)state;
	if (man_parse("images/postgres15.json", shipped, &m, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(m.soname_links, "native/lib");
	man_free(&m);
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"bin/t\",\"soname_links\":\"lib/../"
	       "..\","
	       "\"source\":{\"type\":\"url\",\"url\":\"http://x\",\"sha256\":\""
	       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}",
	       "soname_links: 'lib/../..' has a '..' component");
}

#define NPM(pkg, ver)                                                                       \
	"{" BASE ",\"source\":{\"type\":\"npm\",\"package\":\"" pkg "\",\"version\":\"" ver \
	"\",\"integrity\":\"sha512-"                                                        \
	"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\"}}"
#define URL(u)                                                                   \
	"{" BASE ",\"source\":{\"type\":\"url\",\"url\":\"" u "\",\"sha256\":\"" \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}"

/* What a hostile manifest tries: each is refused at parse time, naming the file and the field. */
static void test_hostile(void **state)
{
	(void)state;
	expect(NPM("@x;id>proof;#/y", "1.0.0"), "images/x.json: source.package: '@x;id>proof;#/y' is not an npm");
	expect(NPM("../../x", "1.0.0"), "source.package: '../../x' is not an npm package name");
	expect(NPM("Express", "1.0.0"), "source.package: 'Express' is not an npm package name");
	expect(NPM("p", "1.0.0/../../x"), "source.version: '1.0.0/../../x' is not a semantic version");
	expect(NPM("p", "latest"), "source.version: 'latest' is not a semantic version");
	expect(URL("file:///etc/shadow"), "source.url: 'file:///etc/shadow' is not an http or https URL");
	expect(URL("https://user:secret@h/x.tgz"), "source.url: 'https://user:secret@h/x.tgz' carries a user name");
	expect(URL("https://h/x y"), "source.url: 'https://h/x y' has white space");
	expect("{\"name\":\"a/../../x\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"/x\"," SRC "}",
	       "name: 'a/../../x' is not a name");
	expect("{\"name\":\"a\\u0000/../x\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"/x\"," SRC "}",
	       "images/x.json: has a \\u0000 escape");
	expect("{\"name\":\"t\",\"version\":\"1/../x\",\"kind\":\"fixture\",\"entry\":\"/x\"," SRC "}",
	       "version: '1/../x' is not a version label");
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"../../bin/sh\",\"run\":[\"x\"],"
	       "\"source\":{\"type\":\"url\",\"url\":\"http://h/x\",\"sha256\":\""
	       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}",
	       "entry: '../../bin/sh' has a '..' component");
	expect("{" BASE ",\"source\":{\"type\":\"host\",\"path\":\"/usr/../etc\"}}",
	       "source.path: '/usr/../etc' has a '..' component");
	expect("{" BASE ",\"env\":{\"A\":\"x\\ny\"}," SRC "}", "env: 'x\\x0ay' has a control character");
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\",\"run\":[\"a\\u001b]0;x\"]," SRC
	       "}",
	       "run: 'a\\x1b]0;x' has a control character");
}

/* A runtime's packages: a folder beside its manifest, by name only, for runtimes only; wrangler's shipped. */
static void test_packages(void **state)
{
	const char *top = getenv("HARNESS_TOP");
	char dir[4096], pk[4096], want[4200];
	struct manifest m;
	struct hx_err err = {0};

	(void)state;
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"runtime\",\"entry\":\"/x\",\"run\":[\"{entry}\"],"
	       "\"packages\":\"../../etc\"," SRC "}",
	       "packages: '../../etc' is not a name");
	expect("{\"name\":\"t\",\"version\":\"1\",\"kind\":\"fixture\",\"entry\":\"/x\",\"packages\":\"p\"," SRC "}",
	       "packages: expected only in a runtime's manifest");
	snprintf(dir, sizeof(dir), "%s/images", top ? top : ".");
	if (man_load(dir, "wrangler", &m, &err) < 0)
		fail_msg("%s", err.msg);
	man_packages_dir(&m, pk, sizeof(pk));
	snprintf(want, sizeof(want), "%s/wrangler", dir);
	assert_string_equal(pk, want);
	assert_string_equal(m.family, ""); /* named by its name: no node scenario runs on it by its family */
	man_free(&m);
	if (man_load(dir, "node24", &m, &err) < 0)
		fail_msg("%s", err.msg);
	man_packages_dir(&m, pk, sizeof(pk));
	assert_string_equal(pk, "");
	man_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_npm),	 cmocka_unit_test(test_url_and_host), cmocka_unit_test(test_mistakes),
		cmocka_unit_test(test_hostile),	 cmocka_unit_test(test_soname_links), cmocka_unit_test(test_family),
		cmocka_unit_test(test_packages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
