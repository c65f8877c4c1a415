/* --bind SRC:DST[:ro|rw] as harness exec and harness load --startup take it: parsed into a copy the config
 * owns until sbx_config_release (under make asan, LeakSanitizer fails this test when the copy leaks, as it
 * did from every `harness exec --bind`); an image's tree is borrowed, never copied (it was copied and leaked
 * once per trial of every run). */
#include "testutil.h"

#include "image/images.h"
#include "image/manifest.h"
#include "sandbox/sandbox.h"

static void test_parse_and_release(void **state)
{
	struct sbx_config *c = calloc(1, sizeof(*c));
	struct hx_err err = {0};

	(void)state;
	sbx_config_init(c);
	assert_int_equal(sbx_parse_bind("/tmp:/data:rw", &c->rootfs.binds[c->rootfs.nbinds++], &err), 0);
	assert_int_equal(sbx_parse_bind("/etc:/etc2", &c->rootfs.binds[c->rootfs.nbinds++], &err), 0);
	assert_string_equal(c->rootfs.binds[0].src, "/tmp");
	assert_string_equal(c->rootfs.binds[0].dst, "/data");
	assert_true(c->rootfs.binds[0].rw);
	assert_string_equal(c->rootfs.binds[1].dst, "/etc2");
	assert_false(c->rootfs.binds[1].rw);
	/* a borrowed bind beside them is left alone */
	c->rootfs.binds[c->rootfs.nbinds++] = (struct sbx_bind){.src = "/usr", .dst = "/usr"};
	sbx_config_release(c);
	assert_int_equal(c->rootfs.nbinds, 0);
	assert_null(c->rootfs.binds[0].owned);
	free(c);
}

static void test_refused_specs(void **state)
{
	static const char *const bad[] = {"/tmp",	  "tmp:/data",	   "/tmp:data",
					  "/tmp:/",	  "/tmp:/proc/x",  "/tmp:/dev",
					  "/tmp:/a/../b", "/tmp:/data:rx", "/no-such-folder-here:/data"};
	struct sbx_bind b = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hx_err err = {0};

		assert_true(sbx_parse_bind(bad[i], &b, &err) < 0);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		assert_null(b.owned); /* nothing to free on failure */
	}
}

static void test_image_bind_borrows_the_tree(void **state)
{
	struct sbx_config *c = calloc(1, sizeof(*c));
	struct manifest *m = calloc(1, sizeof(*m));
	struct img_status *st = calloc(1, sizeof(*st));
	struct hx_err err = {0};

	(void)state;
	sbx_config_init(c);
	snprintf(m->name, sizeof(m->name), "node20");
	snprintf(m->entry, sizeof(m->entry), "bin/node");
	m->source = MAN_SRC_NPM;
	st->present = true;
	snprintf(st->tree, sizeof(st->tree), "/var/cache/harness/trees/abc");
	assert_int_equal(img_apply_to_sandbox(m, st, c, &err), 0);
	assert_int_equal(c->rootfs.nbinds, 1);
	assert_ptr_equal(c->rootfs.binds[0].src, st->tree);
	assert_string_equal(c->rootfs.binds[0].dst, IMG_MOUNT);
	assert_null(c->rootfs.binds[0].owned);
	free(c);
	free(m);
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image_bind_borrows_the_tree),
		cmocka_unit_test(test_parse_and_release),
		cmocka_unit_test(test_refused_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
