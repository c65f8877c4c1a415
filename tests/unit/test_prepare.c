/* The key of a script scenario's prepared state: what changes it (a file, the image) and what does not. */
#include "testutil.h"

#include <sys/stat.h>

#include "image/unpack.h"
#include "run/prepare.h"

static char root[] = "/tmp/hx-test-prepare-XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/scn/%s", root, rel);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

static void key_of(const struct scenario *s, const struct manifest *m, const struct img_status *st, char key[65])
{
	char dir[4096], want[4200];
	struct hx_err err = {0};

	if (prep_path(s, m, st, dir, sizeof(dir), key, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(strlen(key), 64);
	snprintf(want, sizeof(want), "%s/cache/prepared/sha256-%s", root, key);
	assert_string_equal(dir, want);
}

static void test_key(void **state)
{
	struct scenario s = {0};
	struct manifest m = {0};
	struct img_status st = {0};
	char k0[65], k[65], p[512];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/cache", root);
	setenv("HARNESS_CACHE_DIR", p, 1);
	snprintf(s.dir, sizeof(s.dir), "%s/scn", root);
	assert_int_equal(mkdir(s.dir, 0755), 0);
	snprintf(p, sizeof(p), "%s/scn/project", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(s.name, sizeof(s.name), "warm");
	snprintf(m.name, sizeof(m.name), "bun");
	snprintf(st.tree, sizeof(st.tree), "/cache/trees/sha512-aa");
	put("bench.mjs", "x");
	put("project/bun.lock", "{}");
	key_of(&s, &m, &st, k0);
	key_of(&s, &m, &st, k);
	assert_string_equal(k, k0); /* the same files: the same entry */

	/* node_modules and links are not part of what the sandbox is given: the key ignores them */
	snprintf(p, sizeof(p), "%s/scn/node_modules", root);
	assert_int_equal(mkdir(p, 0755), 0);
	put("node_modules/x.js", "y");
	snprintf(p, sizeof(p), "%s/scn/link", root);
	assert_int_equal(symlink("/etc/hostname", p), 0);
	key_of(&s, &m, &st, k);
	assert_string_equal(k, k0);

	put("project/bun.lock", "{ }"); /* a lock that changed: prepared again */
	key_of(&s, &m, &st, k);
	assert_string_not_equal(k, k0);
	put("project/bun.lock", "{}");
	snprintf(st.tree, sizeof(st.tree), "/cache/trees/sha512-bb"); /* another build of the runtime */
	key_of(&s, &m, &st, k);
	assert_string_not_equal(k, k0);
	snprintf(st.tree, sizeof(st.tree), "/cache/trees/sha512-aa");
	snprintf(m.name, sizeof(m.name), "deno");
	key_of(&s, &m, &st, k);
	assert_string_not_equal(k, k0);
	snprintf(m.name, sizeof(m.name), "bun");
	put("bench.mjs", "xx");
	key_of(&s, &m, &st, k);
	assert_string_not_equal(k, k0);
	put("bench.mjs", "x");

	/* a tool the step runs from the scenario's own lock (warm-install's npm): another version of it is
	 * another entry, never a cache another npm made */
	put("package-lock.json", "{\"packages\":{\"node_modules/npm\":{\"version\":\"11.19.1\"}}}");
	key_of(&s, &m, &st, k0);
	put("package-lock.json", "{\"packages\":{\"node_modules/npm\":{\"version\":\"11.18.0\"}}}");
	key_of(&s, &m, &st, k);
	assert_string_not_equal(k, k0);
	unpack_remove_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
