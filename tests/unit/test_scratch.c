/* The scratch tmpfs of a prepare step: its size holds, what it holds is copied out (folders, files with their
 * holes, symbolic links as links, hard links as hard links), and a full tmpfs is refused. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "image/unpack.h"
#include "sandbox/sbx_scratch.h"

/* A fresh, empty folder of root's for the copy; skips where no tmpfs can be made (not root). */
static bool fresh(char *dir, size_t len, struct sbx_scratch *s, uint64_t size)
{
	struct hx_err err = {0};

	if (geteuid() != 0) /* a new tmpfs needs CAP_SYS_ADMIN */
		return false;
	snprintf(dir, len, "/tmp/harness-test-scratch-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sbx_scratch_open(s, dir, size, 0, 0, "the test's scratch", &err), 0);
	if (s->mnt_fd < 0) {
		rmdir(dir);
		return false;
	}
	return true;
}

static const char *path_in(const struct sbx_scratch *s, const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", sbx_scratch_path(s), name);
	return p;
}

static int put(int root, const char *name, size_t bytes)
{
	static char buf[1 << 16];
	int fd = openat(root, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	size_t done = 0;

	if (fd < 0)
		return -errno;
	memset(buf, 'x', sizeof(buf));
	while (done < bytes) {
		ssize_t n = write(fd, buf, bytes - done < sizeof(buf) ? bytes - done : sizeof(buf));

		if (n <= 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

static void test_copy_out(void **state)
{
	struct sbx_scratch s;
	struct hx_err err = {0};
	char dir[64], path[128], target[64];
	struct stat st;
	int root, fd;

	(void)state;
	if (!fresh(dir, sizeof(dir), &s, 4 << 20))
		skip();
	root = open(sbx_scratch_path(&s), O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(root >= 0);
	assert_int_equal(mkdirat(root, "sub", 0750), 0);
	assert_int_equal(put(root, "sub/data", 100000), 0);
	assert_int_equal(symlinkat("../../../etc/passwd", root, "sub/link"), 0);
	/* 1 GiB with no blocks: free in the tmpfs, and free in the copy */
	assert_true((fd = openat(root, "sparse", O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, 1 << 30), 0);
	close(fd);
	close(root);
	assert_false(sbx_scratch_full(&s));
	assert_int_equal(sbx_scratch_finish(&s, "the fix", &err), 0);
	sbx_scratch_close(&s);
	snprintf(path, sizeof(path), "%s/sub/data", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 100000);
	snprintf(path, sizeof(path), "%s/sub/link", dir);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(readlink(path, target, sizeof(target)), 19);
	snprintf(path, sizeof(path), "%s/sparse", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1 << 30);
	assert_true(st.st_blocks < 64);
	unpack_remove_tree(dir);
}

/* Writes past the size get ENOSPC, never the disk; then the step is refused naming the limit and the fix. */
static void test_full(void **state)
{
	struct sbx_scratch s;
	struct hx_err err = {0};
	char dir[64];

	(void)state;
	if (!fresh(dir, sizeof(dir), &s, 2 << 20))
		skip();
	assert_int_equal(put(AT_FDCWD, path_in(&s, "big"), 8 << 20), -ENOSPC);
	assert_true(sbx_scratch_full(&s));
	assert_true(sbx_scratch_finish(&s, "raise it", &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_string_equal(err.msg, "the test's scratch wrote past its limit of 2 MiB (raise it)");
	sbx_scratch_close(&s);
	assert_int_equal(rmdir(dir), 0); /* nothing was copied */
}

/* A step that removed what it wrote after ENOSPC (npm rolls node_modules back) leaves room in its tmpfs: its own
 * words say it ran out, and the step is refused for its limit rather than called an offline install. */
static void test_ran_out_and_removed(void **state)
{
	static const char *const said[] = {
		"npm error code ENOSPC\nnpm error nospc ENOSPC: no space left on device, write",
		"error: No space left on device (os error 28)",
		"OSError: [Errno 28] No Space Left On Device: '/prepared/x'",
	};
	struct sbx_scratch s;
	struct hx_err err = {0};
	char dir[64];

	(void)state;
	if (!fresh(dir, sizeof(dir), &s, 2 << 20))
		skip();
	assert_int_equal(put(AT_FDCWD, path_in(&s, "big"), 8 << 20), -ENOSPC);
	assert_int_equal(unlink(path_in(&s, "big")), 0);
	assert_false(sbx_scratch_full(&s)); /* the state is gone: only the step's words are left */
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		hx_clear(&err);
		hx_fail(&err, HX_EXIT_INTERNAL, EIO, "it exited with status 1");
		assert_true(sbx_scratch_ran_out(&s, said[i], "raise it", &err) < 0);
		assert_int_equal(err.exit, HX_EXIT_USAGE);
		assert_non_null(strstr(err.msg, "the test's scratch ran out of space and removed what it wrote"));
		assert_non_null(strstr(err.msg, "most likely its limit of 2 MiB: raise it): it exited with status 1"));
	}
	hx_clear(&err);
	hx_fail(&err, HX_EXIT_INTERNAL, EIO, "it exited with status 1");
	assert_int_equal(sbx_scratch_ran_out(&s, "npm error ENOTFOUND: getaddrinfo", "raise it", &err), 0);
	assert_int_equal(sbx_scratch_ran_out(&s, NULL, "raise it", &err), 0);
	assert_int_equal(err.exit, HX_EXIT_INTERNAL); /* another failure is left as it was */
	sbx_scratch_close(&s);
	assert_int_equal(rmdir(dir), 0);
}

/* One 1 MiB file under 17 names (bun links node_modules to its cache so) is 1 MiB in the tmpfs, and 1 MiB in the
 * copy: its names stay links of one file, rather than 17 MiB of copies past the limit. */
static void test_hard_links(void **state)
{
	struct sbx_scratch s;
	struct hx_err err = {0};
	char dir[64], name[16], path[128];
	struct stat st;
	int root;

	(void)state;
	if (!fresh(dir, sizeof(dir), &s, 4 << 20))
		skip();
	root = open(sbx_scratch_path(&s), O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(root >= 0);
	assert_int_equal(mkdirat(root, "cache", 0755), 0);
	assert_int_equal(put(root, "cache/one", 1 << 20), 0);
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "link-%d", i);
		assert_int_equal(linkat(root, "cache/one", root, name, 0), 0);
	}
	close(root);
	assert_false(sbx_scratch_full(&s));
	if (sbx_scratch_finish(&s, "raise it", &err) < 0)
		fail_msg("%s", err.msg);
	sbx_scratch_close(&s);
	snprintf(path, sizeof(path), "%s/link-7", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 17);
	assert_int_equal(st.st_size, 1 << 20);
	unpack_remove_tree(dir);
}

/* A step that kept within its size is never refused: 800 KiB and 600 empty files in 1 MiB (an empty file costs
 * tmpfs nothing; a copy that charged each 512 bytes ran past its budget and refused it). */
static void test_empty_files_fit(void **state)
{
	struct sbx_scratch s;
	struct hx_err err = {0};
	char dir[64], name[16];
	int root;

	(void)state;
	if (!fresh(dir, sizeof(dir), &s, 1 << 20))
		skip();
	root = open(sbx_scratch_path(&s), O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(root >= 0);
	assert_int_equal(put(root, "data", 800 << 10), 0);
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		assert_int_equal(put(root, name, 0), 0);
	}
	close(root);
	assert_false(sbx_scratch_full(&s));
	if (sbx_scratch_finish(&s, "raise it", &err) < 0)
		fail_msg("%s", err.msg);
	sbx_scratch_close(&s);
	unpack_remove_tree(dir);
}

/* A tree deeper than the copy goes is the step's doing: exit 2 naming it, not an internal error. */
static void test_deep_tree(void **state)
{
	struct sbx_scratch s;
	struct hx_err err = {0};
	char dir[64];
	int fd, next;

	(void)state;
	if (!fresh(dir, sizeof(dir), &s, 4 << 20))
		skip();
	fd = open(sbx_scratch_path(&s), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < 140; i++) {
		assert_true(fd >= 0);
		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	close(fd);
	assert_true(sbx_scratch_finish(&s, "raise it", &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "the test's scratch left a tree deeper than 128 folders"));
	sbx_scratch_close(&s);
	unpack_remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_out),   cmocka_unit_test(test_full),
		cmocka_unit_test(test_hard_links), cmocka_unit_test(test_empty_files_fit),
		cmocka_unit_test(test_deep_tree),  cmocka_unit_test(test_ran_out_and_removed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
