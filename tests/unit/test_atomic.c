/* The safe-create helpers: a file written in a folder others can write never follows what they planted. */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/util.h"

struct dir {
	char path[256];
};

static int setup(void **state)
{
	static struct dir d;

	snprintf(d.path, sizeof(d.path), "/tmp/harness-atomic-XXXXXX");
	if (!mkdtemp(d.path))
		return -1;
	*state = &d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[512];
	DIR *dd = opendir(d->path);
	struct dirent *de;

	while (dd && (de = readdir(dd))) {
		snprintf(cmd, sizeof(cmd), "%s/%s", d->path, de->d_name);
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			unlink(cmd);
	}
	if (dd)
		closedir(dd);
	return rmdir(d->path);
}

static char *at(const struct dir *d, const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", d->path, name);
	return buf[i];
}

/* The names in the folder besides . and .., sorted by readdir order, joined by ' '. */
static void names(const struct dir *d, char *out, size_t len)
{
	DIR *dd = opendir(d->path);
	struct dirent *de;
	size_t o = 0;

	out[0] = '\0';
	while ((de = readdir(dd)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			o += (size_t)snprintf(out + o, len - o, "%s%s", o ? " " : "", de->d_name);
	closedir(dd);
}

static void assert_content(const char *path, const char *want)
{
	char *text = NULL;
	struct hx_err err = {0};

	assert_int_equal(util_read_file(path, &text, NULL, &err), 0);
	assert_string_equal(text, want);
	free(text);
}

static void test_writes_and_leaves_nothing(void **state)
{
	struct dir *d = *state;
	struct hx_err err = {0};
	struct stat st;
	char list[1024];
	mode_t old = umask(077);

	assert_int_equal(util_write_atomic(at(d, "r.json"), "one", 3, &err), 0);
	assert_int_equal(util_write_atomic(at(d, "r.json"), "two", 3, &err), 0);
	umask(old);
	assert_content(at(d, "r.json"), "two");
	assert_int_equal(stat(at(d, "r.json"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	names(d, list, sizeof(list));
	assert_string_equal(list, "r.json");
}

static void test_symlink_at_final_name_is_replaced_not_followed(void **state)
{
	struct dir *d = *state;
	struct hx_err err = {0};
	struct stat st;

	assert_int_equal(util_write_atomic(at(d, "victim"), "precious", 8, &err), 0);
	assert_int_equal(symlink(at(d, "victim"), at(d, "r.json")), 0);
	assert_int_equal(symlink(at(d, "nowhere"), at(d, "dangling.json")), 0);
	assert_int_equal(util_write_atomic(at(d, "r.json"), "result", 6, &err), 0);
	assert_int_equal(util_write_atomic(at(d, "dangling.json"), "result", 6, &err), 0);
	assert_content(at(d, "victim"), "precious");
	assert_int_equal(lstat(at(d, "r.json"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_content(at(d, "r.json"), "result");
	assert_int_equal(lstat(at(d, "nowhere"), &st), -1);
}

static void test_symlink_at_old_temp_name_is_not_followed(void **state)
{
	struct dir *d = *state;
	struct hx_err err = {0};
	char planted[64];

	/* the name the helper used to write to: <path>.tmp.<pid> */
	snprintf(planted, sizeof(planted), "r.json.tmp.%ld", (long)getpid());
	assert_int_equal(util_write_atomic(at(d, "victim"), "precious", 8, &err), 0);
	assert_int_equal(symlink(at(d, "victim"), at(d, planted)), 0);
	assert_int_equal(util_write_atomic(at(d, "r.json"), "result", 6, &err), 0);
	assert_content(at(d, "victim"), "precious");
	assert_content(at(d, "r.json"), "result");
}

static void test_create_at_refuses_what_is_there(void **state)
{
	struct dir *d = *state;
	int dirfd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	struct hx_err err = {0};

	assert_true(dirfd >= 0);
	assert_int_equal(util_write_atomic(at(d, "victim"), "precious", 8, &err), 0);
	assert_int_equal(symlink(at(d, "victim"), at(d, "link")), 0);
	assert_int_equal(symlink(at(d, "nowhere"), at(d, "dangling")), 0);
	assert_int_equal(util_create_at(dirfd, "link", 0600), -EEXIST);
	assert_int_equal(util_create_at(dirfd, "dangling", 0600), -EEXIST);
	assert_int_equal(util_create_at(dirfd, "victim", 0600), -EEXIST);
	assert_content(at(d, "victim"), "precious");
	assert_int_equal(access(at(d, "nowhere"), F_OK), -1);
	fd = util_create_at(dirfd, "new", 0600);
	assert_true(fd >= 0);
	close(fd);
	close(dirfd);
}

static void test_bad_paths(void **state)
{
	struct hx_err err = {0};

	(void)state;
	assert_true(util_write_atomic("/nonexistent-dir-xyz/r.json", "x", 1, &err) < 0);
	assert_non_null(strstr(err.msg, "open its folder"));
	assert_true(util_write_atomic("/tmp/", "x", 1, &err) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_and_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_at_final_name_is_replaced_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_at_old_temp_name_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_at_refuses_what_is_there, setup, teardown),
		cmocka_unit_test(test_bad_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
