/* --bind SRC:DST[:ro|rw] as harness exec and harness load --startup take it: parsed into a copy the config
 * owns until sbx_config_release (under make asan, LeakSanitizer fails this test when the copy leaks, as it
 * did from every `harness exec --bind`). */
#include "testutil.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_release),
		cmocka_unit_test(test_refused_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
