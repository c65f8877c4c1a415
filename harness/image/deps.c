/* Scenario npm dependencies in the image cache: <cache>/npm/sha256-<lock digest>/node_modules. */
#include "image/deps.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/esc.h"
#include "image/images.h"
#include "image/npmtree.h"
#include "image/unpack.h"
#include "base/util.h"
#include "base/valid.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_userns.h"

static int copy_file(const char *from, const char *to)
{
	_cleanup_free_ char *data = NULL;
	struct hx_err err = {0};
	size_t len;

	if (util_read_input(from, UTIL_MAX_LOCK, &data, &len, &err) < 0)
		return -err.errnum;
	return util_write_atomic(to, data, len, &err) < 0 ? -err.errnum : 0;
}

/* The most an install may unpack (counted as it is written): the largest tree here is 228 MiB. */
#define DEP_MAX_TREE (1ull << 30)

/* The host's name resolution, read-only, over the sandbox's own files: npm must reach the registry. */
static void bind_resolver(struct sbx_config *c)
{
	static const char *const files[] = {"/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/hosts"};

	for (size_t i = 0; i < HX_ARRAY_SIZE(files) && c->rootfs.nbinds < SBX_MAX_BINDS; i++)
		if (util_exists(files[i]))
			c->rootfs.binds[c->rootfs.nbinds++] = (struct sbx_bind){.src = files[i], .dst = files[i]};
}

/* The caller's extra certificate authorities (a proxy's, say): the official node binaries, bun and deno
 * carry their own CA lists and, unlike a distribution's node, do not read the system's. The file must be
 * under a folder the sandbox sees (/etc/ssl is bound read-only). deno's name is DENO_CERT. */
static void ca_env(struct sbx_config *c)
{
	static const char *const names[] = {"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "DENO_CERT"};
	const char *extra = getenv("NODE_EXTRA_CA_CERTS");
	char kv[SBX_ENV_LEN];

	for (size_t i = 0; i < HX_ARRAY_SIZE(names); i++) {
		const char *v = getenv(names[i]);

		if (v && v[0] == '/' && strlen(v) + strlen(names[i]) + 2 <= sizeof(kv)) {
			snprintf(kv, sizeof(kv), "%s=%s", names[i], v);
			if (!valid_argument(kv))
				sbx_env_set(c, kv);
		}
	}
	if (!getenv("DENO_CERT") && extra && extra[0] == '/' && strlen(extra) + 11 <= sizeof(kv)) {
		snprintf(kv, sizeof(kv), "DENO_CERT=%s", extra);
		if (!valid_argument(kv))
			sbx_env_set(c, kv);
	}
}

void dep_registry_access(struct sbx_config *c, const char *registry)
{
	char reg[1100];

	bind_resolver(c);
	for (char **e = environ; *e; e++) /* the caller's own npm settings (timeouts, proxies), not a file's */
		if (strncmp(*e, "npm_config_", 11) == 0 && !valid_argument(*e))
			sbx_env_set(c, *e);
	snprintf(reg, sizeof(reg), "npm_config_registry=%s", registry);
	sbx_env_set(c, reg);
	/* bun and deno read the upper-case name */
	snprintf(reg, sizeof(reg), "NPM_CONFIG_REGISTRY=%s", registry);
	sbx_env_set(c, reg);
	sbx_env_set(c, "npm_config_update_notifier=false");
	ca_env(c);
}

/* The installed tree becomes root's, with no group or other write bit: a cache entry nobody else changes. */
static int own_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (lchown(path, 0, 0) < 0)
		return -1;
	if (flag == FTW_SL || S_ISLNK(st->st_mode))
		return 0;
	return chmod(path, st->st_mode & 0755) < 0 ? -1 : 0;
}

int dep_make_roots(const char *dir)
{
	return nftw(dir, own_one, 16, FTW_PHYS) != 0 ? -1 : 0;
}

/* A "packages" key: "node_modules/<name>", nested as ".../node_modules/<name>" for each level. */
static const char *lock_key_rule(const char *key)
{
	static const char rule[] = "is not node_modules/<npm package name>[/node_modules/<name>...]";
	char part[VALID_NPM_MAX + 1];

	for (;;) {
		const char *name = key + 13, *end;
		size_t n;

		if (strncmp(key, "node_modules/", 13) != 0)
			return rule;
		end = strchr(name, '/');
		if (name[0] == '@' && end)
			end = strchr(end + 1, '/'); /* @scope/name */
		n = end ? (size_t)(end - name) : strlen(name);
		if (n > VALID_NPM_MAX)
			return rule;
		snprintf(part, sizeof(part), "%.*s", (int)n, name);
		if (valid_npm_package(part))
			return rule;
		if (!end)
			return NULL;
		key = end + 1;
	}
}

static int check_lock_entry(const char *file, const char *key, const cJSON *e, const char *registry, struct hx_err *err)
{
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(e, "version");
	const cJSON *resolved = cJSON_GetObjectItemCaseSensitive(e, "resolved");
	char field[300], q[300];

	snprintf(field, sizeof(field), "packages.%s", key);
	if (!cJSON_IsObject(e))
		return hx_fail_field(err, file, field, "expected an object");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "link")))
		return hx_fail_field(err, file, field,
				     "a link to a folder: only packages from the registry are installed");
	if (version &&
	    (!cJSON_IsString(version) || valid_check(valid_semver, version->valuestring, file, field, err) < 0))
		return cJSON_IsString(version) ? -err->errnum
					       : hx_fail_field(err, file, field, "version: expected a string");
	if (!resolved)
		return 0;
	if (!cJSON_IsString(resolved) || valid_check(valid_url, resolved->valuestring, file, field, err) < 0)
		return cJSON_IsString(resolved) ? -err->errnum
						: hx_fail_field(err, file, field, "resolved: expected a string");
	if (strncmp(resolved->valuestring, registry, strlen(registry)) != 0) {
		valid_quote(resolved->valuestring, q, sizeof(q));
		return hx_fail_field(err, file, field,
				     "resolved: '%s' is not in the registry npm is configured with (%s)", q, registry);
	}
	return 0;
}

int dep_check_lock(const char *file, const char *text, const char *registry, struct hx_err *err)
{
	const char *bad = valid_json_text(text, strlen(text));
	cJSON *root = bad ? NULL : cJSON_Parse(text);
	const cJSON *packages = cJSON_GetObjectItemCaseSensitive(root, "packages"), *it;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "lockfileVersion");
	int rc = 0;

	if (bad || !root)
		rc = hx_fail_field(err, file, NULL, "%s", bad ? bad : "not valid JSON");
	else if (!cJSON_IsNumber(v) || (v->valueint != 2 && v->valueint != 3))
		rc = hx_fail_field(err, file, "lockfileVersion", "expected 2 or 3 (made by npm 7 or later)");
	else if (!cJSON_IsObject(packages))
		rc = hx_fail_field(err, file, "packages", "expected an object");
	if (rc < 0)
		packages = NULL;
	cJSON_ArrayForEach (it, packages) {
		if (it->string[0] && valid_check(lock_key_rule, it->string, file, "packages", err) < 0) {
			rc = -err->errnum;
			break;
		}
		if ((it->string[0] || cJSON_GetObjectItemCaseSensitive(it, "resolved")) &&
		    (rc = check_lock_entry(file, it->string[0] ? it->string : "\"\"", it, registry, err)) < 0)
			break;
	}
	cJSON_Delete(root);
	return rc;
}

/* The root's names of one kind (dependencies, ...) that the lock installs at the top, into ret. */
static void direct_of(const cJSON *packages, const cJSON *names, struct dep_direct *ret)
{
	const cJSON *it;

	cJSON_ArrayForEach (it, names) {
		char key[232];
		const cJSON *v;

		snprintf(key, sizeof(key), "node_modules/%s", it->string);
		v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(packages, key), "version");
		if (ret->n == DEP_MAX_DIRECT || !cJSON_IsString(v) || strlen(it->string) >= sizeof(ret->name[0]) ||
		    strlen(v->valuestring) >= sizeof(ret->version[0]))
			continue;
		snprintf(ret->name[ret->n], sizeof(ret->name[0]), "%s", it->string);
		snprintf(ret->version[ret->n++], sizeof(ret->version[0]), "%s", v->valuestring);
	}
}

int dep_lock_direct(const char *file, const char *text, struct dep_direct *ret, struct hx_err *err)
{
	static const char *const kinds[] = {"dependencies", "devDependencies", "optionalDependencies"};
	const char *bad = valid_json_text(text, strlen(text));
	cJSON *root = bad ? NULL : cJSON_Parse(text);
	const cJSON *packages = cJSON_GetObjectItemCaseSensitive(root, "packages");
	const cJSON *top = cJSON_GetObjectItemCaseSensitive(packages, "");

	ret->n = 0;
	if (!cJSON_IsObject(packages)) {
		const char *why = bad ? bad : !root ? "not valid JSON" : "expected an object";
		const char *field = root ? "packages" : NULL;

		cJSON_Delete(root);
		return hx_fail_field(err, file, field, "%s", why);
	}
	for (size_t i = 0; i < HX_ARRAY_SIZE(kinds); i++)
		direct_of(packages, cJSON_GetObjectItemCaseSensitive(top, kinds[i]), ret);
	cJSON_Delete(root);
	return 0;
}

int dep_lock_read(const char *dir, struct dep_direct *ret, struct hx_err *err)
{
	_cleanup_free_ char *text = NULL;
	char lock[PATH_MAX], hex[65];
	size_t len;

	memset(ret, 0, sizeof(*ret));
	snprintf(lock, sizeof(lock), "%s/package-lock.json", dir);
	if (!util_exists(lock))
		return 0;
	if (util_read_input(lock, UTIL_MAX_LOCK, &text, &len, err) < 0 ||
	    util_sha256_hex(text, len, hex, sizeof(hex)) < 0 || dep_lock_direct(lock, text, ret, err) < 0)
		return -err->errnum;
	snprintf(ret->lock, sizeof(ret->lock), "sha256-%s", hex);
	return 0;
}

#define DEP_TREE_FIX "a scenario's node_modules may take 1024 MiB at most"

/* The lock installed by harness itself into tmp (image/npmtree.h): no npm and no process, so nothing a lock or
 * a tarball names runs with the host's network; the lock and package.json are kept beside node_modules. */
static int install_own(const char *kind, const struct dep_src *s, const char *lock, const char *text, const char *pkg,
		       const char *tmp, const char *registry, struct hx_err *err)
{
	struct npt_plan plan;
	char to[PATH_MAX + 32];
	int rc;

	if (npt_plan_lock(lock, text, npt_host(), &plan, err) < 0)
		return -err->errnum;
	rc = npt_install(&plan, registry, tmp, DEP_MAX_TREE, err);
	for (size_t i = 0; rc == 0 && i < plan.n; i++) {
		const struct npt_node *n = &plan.nodes[i];
		char why[ESC_LEN], at[512], shown[ESC_LEN];

		if (!n->missing)
			continue;
		snprintf(at, sizeof(at), "%s@%s", n->name, n->version ? n->version : "");
		fprintf(stderr,
			"harness: npm dependencies of %s %s: the optional %s is left out, as npm leaves it out: %s\n",
			kind, s->name, esc_term(at, shown, sizeof(shown)), esc_term(n->missing, why, sizeof(why)));
	}
	npt_plan_free(&plan);
	if (rc < 0 && err->errnum == EFBIG) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		return hx_fail(err, HX_EXIT_USAGE, EFBIG, "npm dependencies of %s %s: %s: %s", kind, s->name, why,
			       DEP_TREE_FIX);
	}
	if (rc < 0)
		return err->exit == HX_EXIT_HOST
			       ? hx_wrap(err, "cannot install the npm dependencies of %s %s (offline?)", kind, s->name)
			       : hx_wrap(err, "npm dependencies of %s %s", kind, s->name);
	if ((snprintf(to, sizeof(to), "%s/package-lock.json", tmp), copy_file(lock, to) < 0) ||
	    (snprintf(to, sizeof(to), "%s/package.json", tmp), copy_file(pkg, to) < 0))
		return hx_syserr(err, "npm dependencies of %s: %s", s->name, tmp);
	return 0;
}

int dep_ensure(const struct dep_src *s, char *ret, size_t len, struct hx_err *err)
{
	return dep_ensure_as("scenario", s, ret, len, err);
}

int dep_ensure_as(const char *what, const struct dep_src *s, char *ret, size_t len, struct hx_err *err)
{
	struct img_cache c = {.lock_fd = -1};
	char lock[PATH_MAX], pkg[PATH_MAX], hex[65], base[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
	char registry[1024];
	_cleanup_free_ char *text = NULL, *pkg_text = NULL;
	size_t tlen, plen;
	int rc = 0;

	ret[0] = '\0';
	snprintf(lock, sizeof(lock), "%s/package-lock.json", s->dir);
	snprintf(pkg, sizeof(pkg), "%s/package.json", s->dir);
	if (!util_exists(lock))
		return 0;
	if (util_read_input(lock, UTIL_MAX_LOCK, &text, &tlen, err) < 0 ||
	    util_sha256_hex(text, tlen, hex, sizeof(hex)) < 0 ||
	    img_npm_registry("", registry, sizeof(registry), err) < 0 ||
	    dep_check_lock(lock, text, registry, err) < 0 ||
	    util_read_input(pkg, UTIL_MAX_JSON, &pkg_text, &plen, err) < 0 ||
	    npt_check_project(pkg, pkg_text, lock, text, err) < 0 || img_cache_open(&c, err) < 0)
		return -err->errnum;
	snprintf(base, sizeof(base), "%s/npm/sha256-%s", c.root, hex);
	snprintf(ret, len, "%s/node_modules", base);
	if (util_exists(ret))
		goto out;
	/* root's cache, which a rootless run only reads: what is not installed there cannot be */
	if (c.readonly) {
		rc = hx_fail(err, HX_EXIT_HOST, c.ro_errno ? c.ro_errno : EROFS,
			     "the npm dependencies of %s %s are not in the image cache %s, which uid %u may only read "
			     "(install them by a run as root, or set HARNESS_CACHE_DIR to a folder it may write)",
			     what, s->name, c.root, (unsigned)sbx_caller_uid());
		goto out;
	}
	snprintf(path, sizeof(path), "%s/npm", c.root);
	mkdir(path, 0755);
	if (flock(c.lock_fd, LOCK_EX) < 0) {
		rc = hx_syserr(err, "npm dependencies: lock");
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s/npm/.tmp-%s-%d", c.root, hex, (int)getpid());
	unpack_remove_tree(tmp);
	if (!util_exists(ret)) {
		fprintf(stderr, "harness: installing the npm dependencies of %s %s\n", what, s->name);
		if (mkdir(tmp, 0755) < 0)
			rc = hx_syserr(err, "npm dependencies of %s: %s", s->name, tmp);
		else if (install_own(what, s, lock, text, pkg, tmp, registry, err) < 0)
			rc = -err->errnum;
		else if (dep_make_roots(tmp) < 0)
			rc = hx_syserr(err, "npm dependencies of %s: make them root's", s->name);
		else if (rename(tmp, base) < 0)
			rc = hx_syserr(err, "npm dependencies of %s: rename", s->name);
		if (rc < 0)
			unpack_remove_tree(tmp);
	}
	flock(c.lock_fd, LOCK_UN);
out:
	img_cache_close(&c);
	if (rc < 0)
		ret[0] = '\0';
	return rc;
}

/* Copy the open regular file in to a new name of to_dfd, 0755 when it was executable, else 0644: the copy is
 * for the sandbox user to read, whatever the user's own modes (a mktemp folder is 0700). */
static int stage_file(int in, const struct stat *st, int to_dfd, const char *name)
{
	_cleanup_close_ int out = util_create_at(to_dfd, name, st->st_mode & 0111 ? 0755 : 0644);

	if (out < 0)
		return out;
	return util_copy_sparse(in, out, (uint64_t)st->st_size); /* a 1 GiB hole stays a hole */
}

/* Stage the folder from_dfd into to_dfd. Every entry is looked at first through an O_PATH descriptor taken
 * relative to its parent's with O_NOFOLLOW (fstat of that: nothing is opened for reading yet, so a FIFO
 * sees no reader and a device is never opened), then opened through that descriptor, never by a name looked
 * up again: root makes this copy, and an entry swapped for a symbolic link (to /etc/shadow, say) must not be
 * read through. Symbolic links and special files are left out, each named on stderr. */
static int stage_dir(const struct dep_src *s, int from_dfd, int to_dfd, const char *rel, unsigned depth,
		     struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int dup_fd;

	if (depth > 64)
		return hx_fail(err, HX_EXIT_USAGE, ELOOP, "scenario %s: %s is nested more than 64 folders deep",
			       s->name, rel);
	if ((dup_fd = fcntl(from_dfd, F_DUPFD_CLOEXEC, 0)) < 0 || !(d = fdopendir(dup_fd))) {
		if (dup_fd >= 0)
			close(dup_fd);
		return hx_syserr(err, "scenario %s: reading %s", s->name, rel[0] ? rel : "its folder");
	}
	while ((errno = 0, de = readdir(d))) {
		char sub[PATH_MAX];
		_cleanup_close_ int pin = -1, in = -1;
		struct stat st;
		int r;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (depth == 0 && strcmp(de->d_name, "node_modules") == 0)) /* the cache's is mounted instead */
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		pin = openat(from_dfd, de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pin < 0 || fstat(pin, &st) < 0)
			return hx_syserr(err, "scenario %s: %s", s->name, sub);
		if (S_ISLNK(st.st_mode)) {
			fprintf(stderr, "harness: scenario %s: %s is a symbolic link: not copied into the sandbox\n",
				s->name, sub);
			continue;
		}
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			fprintf(stderr,
				"harness: scenario %s: %s is %s, not a file or a folder: not copied into the sandbox\n",
				s->name, sub, util_file_kind(st.st_mode));
			continue;
		}
		in = util_reopen(pin, S_ISDIR(st.st_mode) ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK);
		if (in < 0) {
			errno = -in;
			return hx_syserr(err, "scenario %s: %s", s->name, sub);
		}
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int to = -1;

			if (mkdirat(to_dfd, de->d_name, 0755) < 0 ||
			    (to = openat(to_dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				return hx_syserr(err, "scenario %s: staging %s", s->name, sub);
			if (stage_dir(s, in, to, sub, depth + 1, err) < 0)
				return -err->errnum;
		} else if ((r = stage_file(in, &st, to_dfd, de->d_name)) < 0) {
			return hx_fail(err, HX_EXIT_HOST, -r, "scenario %s: staging %s: %s", s->name, sub,
				       strerror(-r));
		}
	}
	return errno ? hx_syserr(err, "scenario %s: reading %s", s->name, rel[0] ? rel : "its folder") : 0;
}

static bool all_readable;

static int check_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if ((flag == FTW_D && (st->st_mode & 05) != 05) || (flag == FTW_F && !(st->st_mode & 04)) || flag == FTW_DNR) {
		all_readable = false;
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

bool dep_readable_by_all(const char *dir)
{
	all_readable = true;
	return nftw(dir, check_one, 16, FTW_PHYS | FTW_ACTIONRETVAL) == 0 && all_readable;
}

int dep_stage(const struct dep_src *s, const char *dir, char *ret, size_t len, struct hx_err *err)
{
	char nm[PATH_MAX + 16];

	_cleanup_close_ int from = -1, to = -1;

	snprintf(ret, len, "%s/scenario-%s", dir, s->name);
	unpack_remove_tree(ret);
	if ((from = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return hx_syserr(err, "scenario %s: %s", s->name, s->dir);
	if (mkdir(ret, 0755) < 0 || (to = open(ret, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return hx_syserr(err, "scenario %s: copying it to %s", s->name, ret);
	if (stage_dir(s, from, to, "", 0, err) < 0)
		return hx_wrap(err, "copying it to %s", ret);
	snprintf(nm, sizeof(nm), "%s/node_modules", ret);
	if (mkdir(nm, 0755) < 0 && errno != EEXIST)
		return hx_syserr(err, "scenario %s: %s", s->name, nm);
	return 0;
}

int dep_img_pull(struct img_cache *c, const struct manifest *m, struct hx_err *err)
{
	char dir[PATH_MAX], lock[PATH_MAX + 32], installed[PATH_MAX];

	man_packages_dir(m, dir, sizeof(dir));
	snprintf(lock, sizeof(lock), "%s/package-lock.json", dir);
	if (m->packages[0] && !util_exists(lock)) /* before any download */
		return hx_fail(err, HX_EXIT_USAGE, ENOENT, "image %s: packages: %s has no package-lock.json", m->name,
			       dir);
	if (img_pull(c, m, err) < 0)
		return -err->errnum;
	if (m->packages[0] &&
	    dep_ensure_as("image", &(struct dep_src){m->name, dir}, installed, sizeof(installed), err) < 0)
		return hx_wrap(err, "image %s: its packages", m->name);
	return 0;
}

/* The digest of every dir/<entry>/package-lock.json into keep (after *n of them). */
static int gc_locks(const char *dir, char keep[][160], size_t max, size_t *n, struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return hx_fail(err, HX_EXIT_HOST, errno, "images gc: cannot read %s (%s): nothing removed", dir,
			       strerror(errno));
	while ((de = readdir(d))) {
		_cleanup_free_ char *text = NULL;
		char path[PATH_MAX * 2], hex[65];
		size_t len;

		snprintf(path, sizeof(path), "%s/%s/package-lock.json", dir, de->d_name);
		if (de->d_name[0] == '.' || (!util_exists(path) && (errno == ENOENT || errno == ENOTDIR)))
			continue;
		if (*n == max || util_read_input(path, UTIL_MAX_LOCK, &text, &len, err) < 0 ||
		    util_sha256_hex(text, len, hex, sizeof(hex)) < 0) {
			if (*n == max)
				hx_fail(err, HX_EXIT_HOST, E2BIG, "more than %zu lock files", max);
			err->exit = HX_EXIT_HOST;
			return hx_wrap(err, "images gc: nothing removed");
		}
		snprintf(keep[(*n)++], sizeof(keep[0]), "sha256-%s", hex);
	}
	return 0;
}

int dep_gc(struct img_cache *c, const char *scenarios, const char *images, bool prune, struct img_gc_tally *t,
	   struct hx_err *err)
{
	static char keep[64][160];
	size_t n = 0;

	if (gc_locks(scenarios, keep, HX_ARRAY_SIZE(keep), &n, err) < 0 ||
	    gc_locks(images, keep, HX_ARRAY_SIZE(keep), &n, err) < 0)
		return -err->errnum;
	return prune ? img_cache_prune(c, "npm", keep, n, t, err) : 0;
}
