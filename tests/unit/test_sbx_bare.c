/* Out of the sandbox (run --no-sandbox): the sandbox's paths in argv, environment values and the working folder
 * become the host paths they stand for, part by part of a PATH-like value, the longest bind first, never a
 * mere prefix of a name; a bind that no host path shows is refused; a scratch folder goes whole, its links
 * removed and never followed. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "base/util.h"
#include "sandbox/sandbox_internal.h"

static struct sbx_rootfs *rootfs(void)
{
	static struct sbx_rootfs r;

	memset(&r, 0, sizeof(r));
	r.binds[r.nbinds++] = (struct sbx_bind){.src = "/cache/trees/node", .dst = "/opt/runtime"};
	r.binds[r.nbinds++] = (struct sbx_bind){.src = "/srv/scn", .dst = "/scenario"};
	r.binds[r.nbinds++] = (struct sbx_bind){.src = "/srv/scn/node_modules", .dst = "/scenario/node_modules"};
	return &r;
}

/* in, translated by f (a value, or one argument of a command), is want. */
static void expect_by(int (*f)(const struct sbx_view *, const char *, char *, size_t), const struct sbx_view *v,
		      const char *in, const char *want)
{
	char out[256];

	assert_int_equal(f(v, in, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void expect(const struct sbx_view *v, const char *in, const char *want)
{
	expect_by(sbx_view_translate, v, in, want);
}

static void test_translate(void **state)
{
	struct sbx_view v;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(sbx_view_make(rootfs(), "/run/s/tmp", "/run/s/home", &v, &err), 0);
	expect(&v, "/opt/runtime/bin/node", "/cache/trees/node/bin/node");
	expect(&v, "/scenario", "/srv/scn");
	expect(&v, "/scenario/server.js", "/srv/scn/server.js");
	expect(&v, "/opt/runtime/bin:/usr/local/bin:/usr/bin:/bin",
	       "/cache/trees/node/bin:/usr/local/bin:/usr/bin:/bin");
	expect(&v, "/tmp/deno-dir", "/run/s/tmp/deno-dir");
	expect(&v, SBX_HOME, "/run/s/home");
	expect(&v, "/usr/bin:/tmp", "/usr/bin:/run/s/tmp");
	/* a name that only starts like a bind is not in it; text that is no path is left alone */
	expect(&v, "/tmpfoo:/scenario2/x:/opt/runtimes", "/tmpfoo:/scenario2/x:/opt/runtimes");
	expect(&v, "127.0.0.1", "127.0.0.1");
	expect(&v, "", "");
	expect(&v, "run", "run");
	expect(&v, "a::/tmp:", "a::/run/s/tmp:");
	expect(&v, "--allow-all", "--allow-all");
}

static void expect_arg(const struct sbx_view *v, const char *in, const char *want)
{
	expect_by(sbx_view_translate_arg, v, in, want);
}

/* An argument may be an option whose value is a path: only the value is translated. */
static void test_translate_arg(void **state)
{
	struct sbx_view v;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(sbx_view_make(rootfs(), "/run/s/tmp", "/run/s/home", &v, &err), 0);
	expect_arg(&v, "/scenario/server.js", "/srv/scn/server.js");
	expect_arg(&v, "--config=/scenario/deno.json", "--config=/srv/scn/deno.json");
	expect_arg(&v, "--allow-read=/tmp:/scenario", "--allow-read=/run/s/tmp:/srv/scn");
	expect_arg(&v, "-c=/opt/runtime/x", "-c=/cache/trees/node/x");
	/* no option, no path value, or a '=' past a '/': left as it is */
	expect_arg(&v, "--port=8080", "--port=8080");
	expect_arg(&v, "--allow-all", "--allow-all");
	expect_arg(&v, "a=/scenario", "a=/scenario");
	expect_arg(&v, "--dir/x=/scenario", "--dir/x=/scenario");
	expect_arg(&v, "-=/tmp", "-=/tmp");
}

/* What the start's own user reaches: through folders others may search, as written and where links lead. */
static void test_can_reach(void **state)
{
	char top[] = "/tmp/test-sbx-reach-XXXXXX", path[PATH_MAX], link[PATH_MAX], blocker[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/a/b", top);
	assert_int_equal(util_mkdir_p(path, 0755), 0);
	assert_int_equal(chmod(top, 0711), 0);
	assert_int_equal(0, sbx_bare_can_reach(path, blocker, sizeof(blocker)));
	/* a private folder above, as a home folder is: named */
	snprintf(link, sizeof(link), "%s/a", top);
	assert_int_equal(chmod(link, 0700), 0);
	assert_int_equal(-EACCES, sbx_bare_can_reach(path, blocker, sizeof(blocker)));
	assert_string_equal(blocker, link);
	/* the folder itself, private */
	assert_int_equal(chmod(link, 0755), 0);
	assert_int_equal(chmod(path, 0700), 0);
	assert_int_equal(-EACCES, sbx_bare_can_reach(path, blocker, sizeof(blocker)));
	assert_string_equal(blocker, path);
	/* a link into the private folder is judged where it leads */
	snprintf(link, sizeof(link), "%s/to-b", top);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(-EACCES, sbx_bare_can_reach(link, blocker, sizeof(blocker)));
	assert_string_equal(blocker, path);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(0, sbx_bare_can_reach(link, blocker, sizeof(blocker)));
	/* a link read from a private folder, however open the place it leads to */
	assert_int_equal(chmod(top, 0700), 0);
	assert_int_equal(-EACCES, sbx_bare_can_reach(link, blocker, sizeof(blocker)));
	assert_string_equal(blocker, top);
	assert_int_equal(sbx_bare_can_reach("tmp", blocker, sizeof(blocker)), -EINVAL); /* relative: refused */
	/* what is not there cannot be reached, and says so */
	assert_int_equal(chmod(top, 0711), 0);
	snprintf(link, sizeof(link), "%s/none", top);
	assert_int_equal(sbx_bare_can_reach(link, blocker, sizeof(blocker)), -ENOENT);
	assert_string_equal(blocker, link);
	sbx_bare_remove(top);
	assert_false(util_exists(top));
}

static void test_too_long(void **state)
{
	struct sbx_view v;
	struct hx_err err = {0};
	char out[12];

	(void)state;
	assert_int_equal(sbx_view_make(rootfs(), "/run/s/tmp", "/run/s/home", &v, &err), 0);
	assert_int_equal(sbx_view_translate(&v, "/scenario/a.js", out, sizeof(out)), -E2BIG);
	assert_int_equal(sbx_view_translate(&v, "/usr/bin", out, sizeof(out)), 0);
	/* an option's name counts too */
	assert_int_equal(sbx_view_translate_arg(&v, "--c=/scenario/x", out, sizeof(out)), -E2BIG);
	assert_int_equal(sbx_view_translate_arg(&v, "--c=/usr/x", out, sizeof(out)), 0);
}

/* The installed dependencies bound over a staged scenario's empty node_modules: no host path shows them there. */
static void test_refused_views(void **state)
{
	struct sbx_rootfs *r = rootfs();
	struct sbx_view v;
	struct hx_err err = {0};

	(void)state;
	r->binds[2].src = "/cache/npm/sha256-ab/node_modules";
	assert_int_equal(sbx_view_make(r, "/t", "/h", &v, &err), -EXDEV);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "/scenario/node_modules shows /cache/npm/sha256-ab/node_modules"));
	hx_clear(&err);
	r = rootfs();
	r->data_dir = "/var/lib/postgresql/data";
	assert_int_equal(sbx_view_make(r, "/t", "/h", &v, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "needs the sandbox"));
}

static void test_remove_never_follows(void **state)
{
	char top[] = "/tmp/test-sbx-bare-XXXXXX", scratch[PATH_MAX], keep[PATH_MAX], path[PATH_MAX + 32];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(keep, sizeof(keep), "%s/keep", top);
	snprintf(scratch, sizeof(scratch), "%s/bare", top);
	assert_int_equal(mkdir(keep, 0700), 0);
	snprintf(path, sizeof(path), "%s/precious", keep);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	assert_int_equal(mkdir(scratch, 0700), 0);
	snprintf(path, sizeof(path), "%s/tmp", scratch);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/tmp/deep", scratch);
	assert_int_equal(mkdir(path, 0500), 0); /* one the payload closed */
	snprintf(path, sizeof(path), "%s/tmp/link", scratch);
	assert_int_equal(symlink(keep, path), 0);
	snprintf(path, sizeof(path), "%s/file", scratch);
	close(open(path, O_WRONLY | O_CREAT, 0));
	sbx_bare_remove(scratch);
	assert_int_equal(lstat(scratch, &st), -1);
	snprintf(path, sizeof(path), "%s/precious", keep);
	assert_int_equal(lstat(path, &st), 0);
	unlink(path);
	rmdir(keep);
	rmdir(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_translate),     cmocka_unit_test(test_translate_arg),
		cmocka_unit_test(test_too_long),      cmocka_unit_test(test_can_reach),
		cmocka_unit_test(test_refused_views), cmocka_unit_test(test_remove_never_follows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
