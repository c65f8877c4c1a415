/* Unpacking crafted archives (written here with libarchive): links are judged against the tree on disk. */
#include "testutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/util.h"
#include "image/unpack.h"

struct member {
	const char *name;
	const char *link; /* a symlink to this, when set */
	mode_t mode;
};

static char work[64];

static int setup(void **state)
{
	(void)state;
	snprintf(work, sizeof(work), "/tmp/harness-unpack-XXXXXX");
	return mkdtemp(work) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/tree", work);
	unpack_remove_tree(path);
	snprintf(path, sizeof(path), "%s/a.tar", work);
	unlink(path);
	return rmdir(work);
}

/* Write a tar of members (files hold "x") and unpack it into <work>/tree; returns unpack's result. */
static int unpack_members(const struct member *m, size_t n, struct hx_err *err)
{
	struct archive *a = archive_write_new();
	char path[128], tree[128];

	snprintf(path, sizeof(path), "%s/a.tar", work);
	snprintf(tree, sizeof(tree), "%s/tree", work);
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, m[i].name);
		if (m[i].link) {
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, m[i].link);
			archive_entry_set_perm(e, 0777);
		} else {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, m[i].mode ? m[i].mode : 0644);
			archive_entry_set_size(e, 1);
		}
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (!m[i].link)
			archive_write_data(a, "x", 1);
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	return unpack_archive(path, tree, 0, UNPACK_FLOOR, err);
}

static void refused(const struct member *m, size_t n, const char *entry)
{
	struct hx_err err = {0};
	char want[128], tree[128];

	assert_int_equal(unpack_members(m, n, &err), -EPERM);
	snprintf(want, sizeof(want), "entry '%s' is a symlink that leaves the tree", entry);
	if (!strstr(err.msg, want))
		fail_msg("'%s' does not say '%s'", err.msg, want);
	snprintf(tree, sizeof(tree), "%s/tree", work);
	assert_int_equal(access(tree, F_OK), -1); /* nothing half-unpacked */
}

static void test_chain_through_a_dot_link(void **state)
{
	const struct member m[] = {{"a", ".", 0}, {"c", "a/a/a/..", 0}};

	(void)state;
	refused(m, 2, "c");
}

static void test_link_judged_before_its_path_existed(void **state)
{
	const struct member m[] = {{"l", "x/..", 0}, {"a", ".", 0}, {"x", "a", 0}};

	(void)state;
	refused(m, 3, "l");
}

static void test_up_through_a_link(void **state)
{
	const struct member m[] = {{"bin/tool", NULL, 0755}, {"bin/up", "..", 0}, {"bin/upup", "up/..", 0}};

	(void)state;
	refused(m, 3, "bin/upup");
}

static void test_absolute_and_plain_escapes(void **state)
{
	const struct member abs[] = {{"root", "/", 0}};
	const struct member up[] = {{"d/l", "../..", 0}};

	(void)state;
	refused(abs, 1, "root");
	refused(up, 1, "d/l");
}

static void test_links_inside_and_modes(void **state)
{
	const struct member m[] = {{"bin/tool", NULL, 0777},	     {"data", NULL, 0666}, {"ok", "bin/tool", 0},
				   {"bin/self", "../bin/./tool", 0}, {"dot", ".", 0},	   {"via", "dot/bin/tool", 0}};
	struct hx_err err = {0};
	struct stat st;
	char path[128];

	(void)state;
	assert_int_equal(unpack_members(m, HX_ARRAY_SIZE(m), &err), 0);
	snprintf(path, sizeof(path), "%s/tree/bin/tool", work);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	snprintf(path, sizeof(path), "%s/tree/data", work);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	snprintf(path, sizeof(path), "%s/tree/via", work);
	assert_int_equal(stat(path, &st), 0); /* resolves, to bin/tool */
	assert_true(S_ISREG(st.st_mode));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_chain_through_a_dot_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_judged_before_its_path_existed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_up_through_a_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absolute_and_plain_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_inside_and_modes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
