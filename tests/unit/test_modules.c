/* The modules watch on a temporary tree: the files opened are listed, the files only stat'ed or never opened
 * are not, each once, in order, the digest over paths and contents, and the folder cap gives a reason. */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "base/util.h"
#include "report/report.h"
#include "run/modules.h"

struct tree {
	char app[256], deps[256];
};

static void put(const char *dir, const char *rel, const char *text)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void touch_open(const char *dir, const char *rel)
{
	char p[512], c;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(read(fd, &c, 1) >= 0);
	close(fd);
}

/* app/{server.js, unused.js, lib/a.js, node_modules/} and deps/pkg/{index.node.js, index.bun.js, package.json} */
static void make_tree(struct tree *t)
{
	char p[512];

	snprintf(t->app, sizeof(t->app), "%s/mods-app-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	snprintf(t->deps, sizeof(t->deps), "%s/mods-deps-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(t->app));
	assert_non_null(mkdtemp(t->deps));
	snprintf(p, sizeof(p), "%s/lib", t->app);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/node_modules", t->app); /* the mount point of deps in the sandbox */
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/pkg", t->deps);
	assert_int_equal(mkdir(p, 0755), 0);
	put(t->app, "server.js", "import 'pkg';\n");
	put(t->app, "unused.js", "unused\n");
	put(t->app, "lib/a.js", "a\n");
	put(t->app, "node_modules/shadowed.js", "under the mount\n");
	put(t->deps, "pkg/package.json", "{}\n");
	put(t->deps, "pkg/index.node.js", "node\n");
	put(t->deps, "pkg/index.bun.js", "bun\n");
}

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void arm(struct mods_watch *w, const struct tree *t, size_t cap)
{
	struct mods_root roots[2];

	memset(roots, 0, sizeof(roots));
	snprintf(roots[0].dir, sizeof(roots[0].dir), "%s", t->app);
	snprintf(roots[1].dir, sizeof(roots[1].dir), "%s", t->deps);
	snprintf(roots[1].as, sizeof(roots[1].as), "node_modules");
	mods_arm(w, roots, 2, cap);
}

/* The record's digest computed here: each path, NUL, its content's SHA-256 in hex, a line end. */
static void expected_digest(const char *const *rel, const char *const *dir, const char *const *file, size_t n,
			    char hex[65])
{
	char all[4096] = "", one[65], p[512], *text;
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		struct hx_err err = {0};
		size_t len;

		snprintf(p, sizeof(p), "%s/%s", dir[i], file[i]);
		assert_int_equal(util_read_file(p, &text, &len, &err), 0);
		util_sha256_hex(text, len, one, sizeof(one));
		free(text);
		memcpy(all + at, rel[i], strlen(rel[i]) + 1);
		at += strlen(rel[i]) + 1;
		at += (size_t)snprintf(all + at, sizeof(all) - at, "%s\n", one);
	}
	util_sha256_hex(all, at, hex, 65);
}

static void test_opened_listed(void **state)
{
	struct tree t;
	struct mods_watch w;
	struct res_modules m = {0};
	struct stat st;
	char p[512], hex[65];
	DIR *d;

	(void)state;
	make_tree(&t);
	arm(&w, &t, 0);
	assert_string_equal(w.why, "");
	assert_int_equal(w.ndirs, 4); /* app, app/lib, deps, deps/pkg: not app/node_modules, deps' mount point */
	touch_open(t.app, "server.js");
	touch_open(t.deps, "pkg/index.node.js");
	touch_open(t.deps, "pkg/package.json");
	touch_open(t.app, "lib/a.js");
	touch_open(t.app, "server.js");		       /* twice: listed once */
	snprintf(p, sizeof(p), "%s/unused.js", t.app); /* looked at, not opened */
	assert_int_equal(stat(p, &st), 0);
	snprintf(p, sizeof(p), "%s/lib", t.app); /* a folder read: not a module */
	assert_non_null(d = opendir(p));
	closedir(d);
	assert_int_equal(mods_finish(&w, &m), 0);
	assert_string_equal(m.not_recorded, "");
	assert_int_equal(m.files, 4);
	assert_int_equal(m.npaths, 4);
	assert_string_equal(m.paths[0], "lib/a.js");
	assert_string_equal(m.paths[1], "node_modules/pkg/index.node.js");
	assert_string_equal(m.paths[2], "node_modules/pkg/package.json");
	assert_string_equal(m.paths[3], "server.js");
	{
		const char *rel[] = {"lib/a.js", "node_modules/pkg/index.node.js", "node_modules/pkg/package.json",
				     "server.js"};
		const char *dir[] = {t.app, t.deps, t.deps, t.app};
		const char *file[] = {"lib/a.js", "pkg/index.node.js", "pkg/package.json", "server.js"};

		expected_digest(rel, dir, file, 4, hex);
		assert_string_equal(m.sha256, hex);
	}
	assert_int_equal(w.ndirs, 0); /* the watches are gone */
	touch_open(t.app, "unused.js");
	mods_drain(&w);
	assert_int_equal(w.nopened, 0);
	mods_release(&w);
	assert_int_equal(w.fd, -1);
	mods_release(&w); /* again: nothing */

	/* the other runtime's file: another list and digest */
	struct res_modules b = {0};

	arm(&w, &t, 0);
	touch_open(t.app, "server.js");
	touch_open(t.deps, "pkg/index.bun.js");
	touch_open(t.deps, "pkg/package.json");
	touch_open(t.app, "lib/a.js");
	assert_int_equal(mods_finish(&w, &b), 0);
	mods_release(&w);
	assert_int_equal(b.files, 4);
	assert_string_equal(b.paths[1], "node_modules/pkg/index.bun.js");
	assert_string_not_equal(b.sha256, m.sha256);
	for (unsigned i = 0; i < m.npaths; i++)
		free(m.paths[i]);
	free(m.paths);
	for (unsigned i = 0; i < b.npaths; i++)
		free(b.paths[i]);
	free(b.paths);

	/* the same paths with other contents: another digest */
	struct res_modules c = {0}, e = {0};

	arm(&w, &t, 0);
	touch_open(t.app, "server.js");
	assert_int_equal(mods_finish(&w, &c), 0);
	mods_release(&w);
	put(t.app, "server.js", "import 'pkg'; // changed\n");
	arm(&w, &t, 0);
	touch_open(t.app, "server.js");
	assert_int_equal(mods_finish(&w, &e), 0);
	mods_release(&w);
	assert_int_equal(c.files, 1);
	assert_int_equal(e.files, 1);
	assert_string_not_equal(c.sha256, e.sha256);
	free(c.paths[0]), free(c.paths), free(e.paths[0]), free(e.paths);
	rm_tree(t.app);
	rm_tree(t.deps);
}

static void test_cap(void **state)
{
	struct tree t;
	struct mods_watch w;
	struct res_modules m = {0};

	(void)state;
	make_tree(&t);
	arm(&w, &t, 3); /* the tree has 4 folders to watch */
	assert_non_null(strstr(w.why, "more than 3 folders"));
	touch_open(t.app, "server.js");
	assert_int_equal(mods_finish(&w, &m), 0);
	mods_release(&w);
	assert_int_equal(m.files, 0);
	assert_int_equal(m.npaths, 0);
	assert_string_equal(m.sha256, "");
	assert_string_equal(m.not_recorded, "the scenario's tree has more than 3 folders to watch");
	/* at exactly the cap it records */
	arm(&w, &t, 4);
	touch_open(t.app, "server.js");
	assert_int_equal(mods_finish(&w, &m), 0);
	mods_release(&w);
	assert_string_equal(m.not_recorded, "");
	assert_int_equal(m.files, 1);
	free(m.paths[0]), free(m.paths);
	rm_tree(t.app);
	rm_tree(t.deps);
}

/* A trial of scenario s on runtime rt with a record of the given paths (digest: the paths joined). */
static void loaded(struct res_doc *d, const char *rt, unsigned order, const char *const *paths, size_t n)
{
	struct trial_result *t = res_doc_add(d);
	char all[1024] = "";

	res_trial_init(t, "react-ssr", rt, "pinned", 1, order);
	t->have |= RES_HAVE_MODULES;
	assert_non_null(res_trial_modules(t));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(res_modules_add(t->modules, paths[i]), 0);
		strcat(all, paths[i]);
	}
	t->modules->files = (unsigned)n;
	util_sha256_hex(all, strlen(all), t->modules->sha256, sizeof(t->modules->sha256));
}

static char *rendered(const struct res_doc *d, enum report_format f)
{
	struct hx_err err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(report_render(d, f, out, &err), 0);
	fclose(out);
	return text;
}

/* The report names the files that differ between the runtimes of a scenario, and is silent when they agree. */
static void test_report(void **state)
{
	static const char *const node[] = {"node_modules/react-dom/cjs/legacy.node.production.js",
					   "node_modules/react-dom/package.json",
					   "node_modules/react-dom/server.node.js", "serve-node.mjs"};
	static const char *const bun[] = {"node_modules/react-dom/cjs/legacy.browser.production.js",
					  "node_modules/react-dom/package.json", "node_modules/react-dom/server.bun.js",
					  "serve-bun.js"};
	struct res_doc d;
	struct hx_err err = {0};
	char *text;

	(void)state;
	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	loaded(&d, "node24", 1, node, 4);
	loaded(&d, "deno", 2, node, 4);
	text = rendered(&d, RPT_TABLE);
	assert_null(strstr(text, "modules loaded")); /* the same files: nothing to say */
	free(text);
	loaded(&d, "bun", 3, bun, 4);
	text = rendered(&d, RPT_TABLE);
	assert_non_null(strstr(text, "== modules loaded"));
	assert_non_null(strstr(text, "react-ssr: node24 and bun loaded different files (4 and 4): only node24 "
				     "node_modules/react-dom/cjs/legacy.node.production.js, "
				     "node_modules/react-dom/server.node.js, serve-node.mjs; only bun "
				     "node_modules/react-dom/cjs/legacy.browser.production.js, "
				     "node_modules/react-dom/server.bun.js, serve-bun.js\n"));
	assert_null(strstr(text, "node24 and deno")); /* deno loaded node24's */
	free(text);
	text = rendered(&d, RPT_MD);
	assert_non_null(strstr(text, "### Modules loaded\n\n- react-ssr: node24 and bun loaded different files"));
	free(text);
	res_doc_free(&d);

	/* a list cut at its cap says nothing of what sorts after its last path */
	static const char *const cut[] = {"a.js", "m.js"};
	static const char *const whole[] = {"a.js", "b.js", "z.js"};

	assert_int_equal(res_doc_init(&d, "9.9.9", "abc", &err), 0);
	loaded(&d, "node24", 1, cut, 2);
	d.trials[0].modules->files = 5;
	loaded(&d, "bun", 2, whole, 3);
	text = rendered(&d, RPT_TABLE);
	assert_non_null(
		strstr(text, "node24 and bun loaded different files (5 and 3): only node24 m.js; only bun b.js\n"));
	free(text);
	res_doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opened_listed),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
