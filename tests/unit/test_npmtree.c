/* harness's own install of a lock file: the plan (what npm ci leaves out, what it refuses) from literal locks, and
 * installs of tarballs written here with libarchive, fetched through libcurl from a file:// registry: integrity,
 * unsafe entries, pacote's modes and renames, bin-links' links. */
#include "testutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/util.h"
#include "image/npmtree.h"
#include "image/unpack.h"

static const struct npt_platform linux_x64 = {"linux", "x64", "glibc"};

#define LOCK(packages) "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"a\":\"1\"}}," packages "}}"
#define SRI_X	       "sha512-pKvURIxJVi2CgRXROh/M6pJ/UrTVRZKX+LQ+QtqJI4vBNibkPcs43bCCSIkn7JBPtCBXRDmD6IWFF51QVRr+Yg=="

static int plan(const char *text, struct npt_plan *p, struct hx_err *err)
{
	return npt_plan_lock("x/package-lock.json", text, &linux_x64, p, err);
}

static bool inert(const struct npt_plan *p, const char *key)
{
	long i = npt_find(p, key);

	if (i < 0)
		fail_msg("no %s in the plan", key);
	return p->nodes[i].inert;
}

/* An optional package for another platform is left out with what only it needs; what the project also
 * needs, and optional packages for this platform, stay. */
static void test_optional_platform(void **state)
{
	struct npt_plan p;
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(
		plan("{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"tool\":\"1\",\"shared\":\"1\"}},"
		     "\"node_modules/tool\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\","
		     "\"optionalDependencies\":{\"tool-darwin\":\"1\",\"tool-linux-x64\":\"1\",\"tool-arm\":\"1\"}},"
		     "\"node_modules/tool-darwin\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\","
		     "\"optional\":true,\"os\":[\"darwin\"],\"dependencies\":{\"only-darwin\":\"1\",\"shared\":\"1\"}},"
		     "\"node_modules/only-darwin\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\","
		     "\"optional\":true},"
		     "\"node_modules/shared\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\"},"
		     "\"node_modules/tool-linux-x64\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\","
		     "\"optional\":true,\"os\":[\"linux\"],\"cpu\":[\"x64\"],\"libc\":[\"glibc\"]},"
		     "\"node_modules/tool-arm\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\","
		     "\"optional\":true,\"os\":[\"!win32\"],\"cpu\":[\"arm64\"]}}}",
		     &p, &err),
		0);
	assert_true(inert(&p, "node_modules/tool-darwin"));
	assert_true(inert(&p, "node_modules/only-darwin"));
	assert_true(inert(&p, "node_modules/tool-arm"));
	assert_false(inert(&p, "node_modules/shared"));
	assert_false(inert(&p, "node_modules/tool"));
	assert_false(inert(&p, "node_modules/tool-linux-x64"));
	npt_plan_free(&p);

	/* musl builds are not for glibc */
	assert_int_equal(plan(LOCK("\"node_modules/a\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\","
				   "\"optional\":true,\"os\":[\"linux\"],\"libc\":[\"musl\"]}"),
			      &p, &err),
			 0);
	assert_true(inert(&p, "node_modules/a"));
	npt_plan_free(&p);
}

static void refused(const char *text, enum hx_exit exit, const char *needle)
{
	struct npt_plan p;
	struct hx_err err = {0};

	assert_true(plan(text, &p, &err) < 0);
	assert_int_equal(err.exit, exit);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
}

static void test_refused_plans(void **state)
{
	(void)state;
	refused(LOCK("\"node_modules/a\":{\"resolved\":\"packages/a\",\"link\":true},"
		     "\"packages/a\":{\"version\":\"1.0.0\"}"),
		HX_EXIT_USAGE, "x/package-lock.json: packages.node_modules/a: a link to a folder (a workspace)");
	refused(LOCK("\"node_modules/a\":{\"version\":\"1.0.0\"}"), HX_EXIT_USAGE,
		"packages.node_modules/a: no integrity");
	refused(LOCK("\"node_modules/a\":{\"integrity\":\"" SRI_X "\"}"), HX_EXIT_USAGE,
		"packages.node_modules/a: no version and no resolved URL");
	refused(LOCK("\"node_modules/a\":{\"version\":\"1.0.0\",\"integrity\":\"sha512-abc\"}"), HX_EXIT_USAGE,
		"packages.node_modules/a: integrity: not sha512-");
	refused(LOCK("\"node_modules/a\":{\"version\":\"1.0.0\",\"integrity\":\"" SRI_X "\",\"os\":[\"darwin\"]}"),
		HX_EXIT_HOST, "a@1.0.0 is for another platform than this host's (linux x64 glibc)");
	refused("{\"lockfileVersion\":1,\"dependencies\":{}}", HX_EXIT_USAGE, "lockfileVersion: expected 2 or 3");
}

/* npm ci's check that the lock is package.json's: a range changed, or a package added, without npm install */
static void test_project_sync(void **state)
{
	static const char lock[] = "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"a\":\"^1.0.0\"},"
				   "\"devDependencies\":{\"t\":\"2\"}}}}";
	struct hx_err err = {0};

	(void)state;
	assert_int_equal(npt_check_project("p.json",
					   "{\"dependencies\":{\"a\":\"^1.0.0\"},\"devDependencies\":{\"t\":\"2\"}}",
					   "l.json", lock, &err),
			 0);
	assert_int_equal(npt_check_project("p.json",
					   "{\"dependencies\":{\"a\":\"^2.0.0\"},\"devDependencies\":{\"t\":\"2\"}}",
					   "l.json", lock, &err),
			 -EINVAL);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	assert_string_equal(err.msg,
			    "p.json and l.json disagree: dependencies.a is '^2.0.0' in package.json, '^1.0.0' in "
			    "the lock (npm ci would refuse it too): run npm install to make the lock again");
	assert_int_equal(
		npt_check_project("p.json", "{\"dependencies\":{\"a\":\"^1.0.0\",\"b\":\"1\"}}", "l.json", lock, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "dependencies.b is '1' in package.json, absent in the lock"));
	assert_int_equal(npt_check_project("p.json", "{\"dependencies\":{\"a\":\"^1.0.0\"}}", "l.json", lock, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "devDependencies.t is absent in package.json, '2' in the lock"));
}

/* ---- installs from a file:// registry ---- */

static char work[64], reg[128], root[128];

static int setup(void **state)
{
	(void)state;
	snprintf(work, sizeof(work), "/tmp/harness-npmtree-XXXXXX");
	if (!mkdtemp(work))
		return -1;
	snprintf(reg, sizeof(reg), "file://%s/reg/", work);
	snprintf(root, sizeof(root), "%s/root", work);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unpack_remove_tree(work);
}

struct member {
	const char *name, *data; /* data NULL: a folder; "->x": a symlink to x */
	mode_t mode;		 /* 0: 0644 */
	mode_t type;		 /* 0: as data says; AE_IFCHR for a device */
};

/* <work>/reg/<name>/-/<name>-1.0.0.tgz of members; its sha512 SRI into sri. */
static void write_tgz(const char *name, const struct member *m, size_t n, char *sri, size_t sri_len)
{
	char dir[256], path[512];
	struct archive *a = archive_write_new();
	unsigned char md[64], b64[100];
	unsigned int mdlen = 0;
	char *data = NULL;
	size_t len = 0;
	struct hx_err err = {0};

	snprintf(dir, sizeof(dir), "%s/reg/%s/-", work, name);
	assert_int_equal(util_mkdir_p(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s-1.0.0.tgz", dir, name);
	archive_write_set_format_pax_restricted(a);
	archive_write_add_filter_gzip(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		const char *d = m[i].data;

		archive_entry_set_pathname(e, m[i].name);
		if (m[i].type) {
			archive_entry_set_filetype(e, m[i].type);
			archive_entry_set_perm(e, 0644);
		} else if (!d) {
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, 0755);
		} else if (strncmp(d, "->", 2) == 0) {
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, d + 2);
			archive_entry_set_perm(e, 0777);
		} else {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, m[i].mode ? m[i].mode : 0644);
			archive_entry_set_size(e, (la_int64_t)strlen(d));
		}
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (d && !m[i].type && strncmp(d, "->", 2) != 0)
			archive_write_data(a, d, strlen(d));
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	assert_int_equal(util_read_file(path, &data, &len, &err), 0);
	assert_int_equal(EVP_Digest(data, len, md, &mdlen, EVP_sha512(), NULL), 1);
	EVP_EncodeBlock(b64, md, (int)mdlen);
	snprintf(sri, sri_len, "sha512-%s", b64);
	free(data);
}

static int install(const char *lock, uint64_t max, struct hx_err *err)
{
	struct npt_plan p;
	int rc;

	unpack_remove_tree(root);
	assert_int_equal(mkdir(root, 0755), 0);
	if (npt_plan_lock("lock", lock, &linux_x64, &p, err) < 0)
		return -err->errnum;
	rc = npt_install(&p, reg, root, max, err);
	npt_plan_free(&p);
	return rc;
}

static char *lock_of(const char *name, const char *sri, const char *extra)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf),
		 "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"%s\":\"1\"}},"
		 "\"node_modules/%s\":{\"version\":\"1.0.0\",\"integrity\":\"%s\"%s}}}",
		 name, name, sri, extra);
	return buf;
}

static mode_t mode_of(const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (lstat(path, &st) < 0)
		return 0;
	return st.st_mode;
}

static char *read_at(const char *rel)
{
	char path[512], *text = NULL;
	struct hx_err err = {0};

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return util_read_file(path, &text, NULL, &err) < 0 ? NULL : text;
}

/* A package as pacote unpacks it, and its bin linked as bin-links links it. */
static void test_install(void **state)
{
	static const struct member m[] = {
		{"package/package.json", "{\"name\":\"tool\"}", 0, 0},
		{"package/lib", NULL, 0, 0},
		{"package/empty", NULL, 0, 0},
		{"package/lib/x.js", "x", 0600, 0},
		{"package/run.sh", "#!/bin/sh\n", 0744, 0},
		{"package/cli.js", "#!/usr/bin/env node\r\nrun()\r\n", 0644, 0},
		{"package/.gitignore", "a", 0, 0},
		{"package/lib/.npmignore", "n", 0, 0},
		{"package/lib/.gitignore", "g", 0, 0},
		{"package/link", "->lib/x.js", 0, 0},
	};
	char sri[128], link[256], path[512];
	struct hx_err err = {0};
	ssize_t n;
	char *text;

	(void)state;
	write_tgz("tool", m, HX_ARRAY_SIZE(m), sri, sizeof(sri));
	if (install(lock_of("tool", sri, ",\"bin\":{\"tool\":\"cli.js\",\"gone\":\"nope.js\"}"), 1 << 20, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(mode_of("node_modules/tool/lib/x.js"), S_IFREG | 0644);
	assert_int_equal(mode_of("node_modules/tool/run.sh"), S_IFREG | 0744);
	assert_int_equal(mode_of("node_modules/tool/lib"), S_IFDIR | 0755);
	assert_int_equal(mode_of("node_modules/tool/empty"), 0);      /* folders come only with files */
	assert_int_equal(mode_of("node_modules/tool/link"), 0);	      /* pacote leaves links out */
	assert_int_equal(mode_of("node_modules/tool/.gitignore"), 0); /* renamed */
	text = read_at("node_modules/tool/.npmignore");
	assert_non_null(text);
	assert_string_equal(text, "a");
	free(text);
	text = read_at("node_modules/tool/lib/.npmignore"); /* the .npmignore came first: it stays */
	assert_string_equal(text, "n");
	free(text);
	/* the bin: linked, 0755, its first line's \r gone (the rest as it was); a bin the package lacks is none */
	snprintf(path, sizeof(path), "%s/node_modules/.bin/tool", root);
	n = readlink(path, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "../tool/cli.js");
	assert_int_equal(mode_of("node_modules/tool/cli.js"), S_IFREG | 0755);
	text = read_at("node_modules/tool/cli.js");
	assert_string_equal(text, "#!/usr/bin/env node\nrun()\r\n");
	free(text);
	assert_int_equal(mode_of("node_modules/.bin/gone"), 0);
}

/* A tarball that is not the lock's is refused before a byte of it is unpacked. */
static void test_integrity_mismatch(void **state)
{
	static const struct member good[] = {{"package/index.js", "good", 0, 0}};
	static const struct member evil[] = {{"package/index.js", "evil", 0, 0}};
	char sri[128], other[128];
	struct hx_err err = {0};

	(void)state;
	write_tgz("a", good, 1, sri, sizeof(sri));
	write_tgz("a", evil, 1, other, sizeof(other)); /* the registry now serves other bytes */
	assert_string_not_equal(sri, other);
	assert_int_equal(install(lock_of("a", sri, ""), 1 << 20, &err), -EBADMSG);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, "not the lock's integrity") || !strstr(err.msg, "a@1.0.0 (node_modules/a)"))
		fail_msg("%s", err.msg);
	assert_int_equal(mode_of("node_modules/a"), 0);
	assert_int_equal(mode_of(".tarball.tgz"), 0);
	/* and with the lock's own bytes it installs */
	assert_int_equal(install(lock_of("a", other, ""), 1 << 20, &err), 0);
}

static void refused_tarball(const struct member *m, size_t n, const char *needle)
{
	char sri[128], path[512];
	struct hx_err err = {0};

	write_tgz("a", m, n, sri, sizeof(sri));
	assert_true(install(lock_of("a", sri, ""), 1 << 20, &err) < 0);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not say '%s'", err.msg, needle);
	snprintf(path, sizeof(path), "%s/evil", work);
	assert_false(util_exists(path));
}

/* Entries that would write outside the package's folder, or make a device, are refused, naming them. */
static void test_unsafe_entries(void **state)
{
	static const struct member up[] = {{"package/ok.js", "x", 0, 0}, {"package/../../../evil", "x", 0, 0}};
	static const struct member abs[] = {{"/tmp/evil", "x", 0, 0}};
	static const struct member dev[] = {{"package/null", "", 0, AE_IFCHR}};
	static const struct member fifo[] = {{"package/pipe", "", 0, AE_IFIFO}};

	(void)state;
	refused_tarball(up, HX_ARRAY_SIZE(up), "entry 'package/../../../evil' is a path with '..': refused");
	refused_tarball(abs, HX_ARRAY_SIZE(abs), "entry '/tmp/evil' is an absolute path: refused");
	refused_tarball(dev, HX_ARRAY_SIZE(dev), "entry 'package/null' is a device node: refused");
	refused_tarball(fifo, HX_ARRAY_SIZE(fifo), "entry 'package/pipe' is a FIFO: refused");
}

/* A tree past its cap stops at the cap, exit 2: 200 KiB of zeros from a tarball of a few hundred bytes. */
static void test_cap(void **state)
{
	static char zeros[100 << 10];
	struct member big[] = {{"package/a", zeros, 0, 0}, {"package/b", zeros, 0, 0}};
	char sri[128];
	struct hx_err err = {0};

	(void)state;
	memset(zeros, '0', sizeof(zeros) - 1);
	write_tgz("a", big, HX_ARRAY_SIZE(big), sri, sizeof(sri));
	assert_int_equal(install(lock_of("a", sri, ""), 150 << 10, &err), -EFBIG);
	assert_int_equal(err.exit, HX_EXIT_USAGE);
	if (!strstr(err.msg, "more than 0.1 MiB unpacked in all (at entry 'package/b')"))
		fail_msg("%s", err.msg);
	assert_int_equal(install(lock_of("a", sri, ""), 250 << 10, &err), 0);
}

/* Nested packages and bundles: a nested package's bin goes to its own node_modules/.bin, a bundled one's too,
 * and a bundled package is not fetched (it comes in its bundler's tarball). */
static void test_nested_and_bundled(void **state)
{
	static const struct member outer[] = {
		{"package/package.json", "{}", 0, 0},
		{"package/node_modules/inner/package.json", "{}", 0, 0},
		{"package/node_modules/inner/bin.js", "#!x\n", 0, 0},
	};
	static const struct member leaf[] = {{"package/cli.js", "#!x\n", 0, 0}};
	char sri_o[128], sri_l[128], lock[4096], link[256], path[512];
	struct hx_err err = {0};
	ssize_t n;

	(void)state;
	write_tgz("outer", outer, HX_ARRAY_SIZE(outer), sri_o, sizeof(sri_o));
	write_tgz("leaf", leaf, HX_ARRAY_SIZE(leaf), sri_l, sizeof(sri_l));
	snprintf(
		lock, sizeof(lock),
		"{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"outer\":\"1\"}},"
		"\"node_modules/outer\":{\"version\":\"1.0.0\",\"integrity\":\"%s\",\"bundleDependencies\":[\"inner\"],"
		"\"dependencies\":{\"inner\":\"1\",\"leaf\":\"1\"}},"
		"\"node_modules/outer/node_modules/inner\":{\"version\":\"1.0.0\",\"inBundle\":true,"
		"\"bin\":{\"inner\":\"bin.js\"}},"
		"\"node_modules/outer/node_modules/leaf\":{\"version\":\"1.0.0\",\"integrity\":\"%s\","
		"\"bin\":{\"leaf\":\"cli.js\"}}}}",
		sri_o, sri_l);
	if (install(lock, 1 << 20, &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(path, sizeof(path), "%s/node_modules/outer/node_modules/.bin/leaf", root);
	n = readlink(path, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "../leaf/cli.js");
	snprintf(path, sizeof(path), "%s/node_modules/outer/node_modules/.bin/inner", root);
	n = readlink(path, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "../inner/bin.js");
	assert_int_equal(mode_of("node_modules/.bin"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optional_platform),
		cmocka_unit_test(test_refused_plans),
		cmocka_unit_test(test_project_sync),
		cmocka_unit_test(test_install),
		cmocka_unit_test(test_integrity_mismatch),
		cmocka_unit_test(test_unsafe_entries),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_nested_and_bundled),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
