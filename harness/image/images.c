/* Image cache operations: pull (npm through the machine's npm configuration, url, host), status,
 * verify, rm, gc. Downloads go to a partial file, are verified, then renamed; trees are unpacked into a
 * temporary folder, then renamed; an flock on the cache serialises writers. */
#include "image/images.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/dl_ossl.h"
#include "base/esc.h"
#include "image/fetch.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_net.h"
#include "sandbox/sbx_run.h"
#include "image/unpack.h"
#include "sandbox/sbx_userns.h"
#include "base/util.h"
#include "base/valid.h"

const char *img_manifest_dir(void)
{
	static char dir[PATH_MAX];

	return util_data_dir("HARNESS_IMAGES_DIR", "images", dir, sizeof(dir));
}

#define IMG_SYSTEM_CACHE "/var/cache/harness"

/* $HARNESS_CACHE_DIR, else $XDG_CACHE_HOME/harness, else root's cache (a user reads it when it is there), else
 * ~/.cache/harness. Root inside a rootless run's user namespace is still the user. */
static void cache_root(char *buf, size_t len)
{
	const char *env = getenv("HARNESS_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (env && env[0])
		snprintf(buf, len, "%s", env);
	else if (xdg && xdg[0])
		snprintf(buf, len, "%s/harness", xdg);
	else if ((geteuid() == 0 && !sbx_userns_active(NULL)) || util_exists(IMG_SYSTEM_CACHE "/trees"))
		snprintf(buf, len, IMG_SYSTEM_CACHE);
	else
		snprintf(buf, len, "%s/.cache/harness", home ? home : "/tmp");
}

void img_cache_path(char *buf, size_t len)
{
	cache_root(buf, len);
}

/* Root's cache is made by root on first use (0755 whatever the umask: users read it); to anyone else it is
 * read-only when it exists and they cannot write it. A missing one is not read-only: a fresh machine has none. */
static int system_cache_prepare(struct img_cache *c, struct hx_err *err)
{
	if (access(c->root, W_OK) == 0)
		return 0;
	c->ro_errno = errno;
	if (errno != ENOENT || geteuid() != 0 || sbx_userns_active(NULL)) {
		c->readonly = true;
		return 0;
	}
	if (mkdir(c->root, 0755) < 0 && errno != EEXIST)
		return hx_fail(err, HX_EXIT_HOST, errno,
			       "image cache: root cannot create %s: %s (set HARNESS_CACHE_DIR)", c->root,
			       strerror(errno));
	if (chmod(c->root, 0755) < 0)
		return hx_syserr(err, "image cache: chmod %s", c->root);
	c->ro_errno = 0;
	return 0;
}

int img_cache_open(struct img_cache *c, struct hx_err *err)
{
	char sub[PATH_MAX];
	int rc;

	cache_root(c->root, sizeof(c->root));
	c->readonly = false;
	c->ro_errno = 0;
	if (strcmp(c->root, IMG_SYSTEM_CACHE) == 0 && system_cache_prepare(c, err) < 0)
		return -err->errnum;
	for (int i = 0; i < 2 && !c->readonly; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", c->root, i ? "trees" : "blobs");
		if ((rc = util_mkdir_p(sub, 0755)) < 0)
			return hx_fail(err, HX_EXIT_HOST, -rc,
				       "image cache: uid %u cannot create %s: %s (set HARNESS_CACHE_DIR to a folder it "
				       "may write)",
				       (unsigned)sbx_caller_uid(), sub, strerror(-rc));
	}
	snprintf(sub, sizeof(sub), "%s/lock", c->root);
	c->lock_fd = c->readonly ? open(sub, O_RDONLY | O_CLOEXEC) /* flock needs no write access */
				 : open(sub, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (c->lock_fd < 0 && !(c->readonly && errno == ENOENT))
		return errno == EACCES || errno == EPERM || errno == EROFS
			       ? hx_fail(err, HX_EXIT_HOST, errno,
					 "image cache: uid %u cannot open %s %s: %s (set HARNESS_CACHE_DIR to a folder "
					 "it may write)",
					 (unsigned)sbx_caller_uid(), sub, c->readonly ? "for reading" : "for writing",
					 strerror(errno))
			       : hx_syserr(err, "image cache: %s", sub);
	return 0;
}

void img_cache_close(struct img_cache *c)
{
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	c->lock_fd = -1;
}

/* The cache's writer lock; another harness holding it (a pull under way) is waited for, and the user told,
 * so that a run that seems stuck says why. */
static int cache_lock(struct img_cache *c, struct hx_err *err)
{
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return hx_syserr(err, "image cache: lock");
	fprintf(stderr, "harness: images: waiting for another harness writing into %s\n", c->root);
	if (flock(c->lock_fd, LOCK_EX) < 0) /* EINTR: Ctrl-C while waiting ends the wait */
		return hx_syserr(err, "image cache: lock");
	return 0;
}

static uint64_t tree_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

/* The hex digest of a file with algo ("sha256", "sha512"). */
static int hash_file(const char *path, const char *algo, char *hex, size_t len)
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	_cleanup_fclose_ FILE *f = fopen(path, "rb");
	size_t n, off = 0;

	if (!f || !ctx) {
		EVP_MD_CTX_free(ctx);
		return -errno;
	}
	EVP_DigestInit_ex(ctx, EVP_get_digestbyname(algo), NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		EVP_DigestUpdate(ctx, buf, n);
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	for (unsigned i = 0; i < mdlen && off + 2 < len; i++)
		off += (size_t)snprintf(hex + off, len - off, "%02x", md[i]);
	return 0;
}

/* A local build's folder is bound when the sandbox user may search it and read and run the binary (out/Release
 * of a checkout: libraries beside the binary are then there, for a RUNPATH of $ORIGIN); a private folder (0700,
 * mktemp -d) is not the sandbox user's to enter, so the binary alone is bound. */
static void local_bind(const struct manifest *m, struct img_status *st)
{
	char dir[PATH_MAX];
	struct stat d, f;

	snprintf(dir, sizeof(dir), "%s", m->entry);
	*strrchr(dir, '/') = '\0';
	if (stat(dir, &d) == 0 && (d.st_mode & S_IXOTH) && stat(m->entry, &f) == 0 &&
	    (f.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH))
		snprintf(st->bind, sizeof(st->bind), "%s", dir[0] ? dir : "/");
	else
		snprintf(st->bind, sizeof(st->bind), "%s", m->entry);
	if (strcmp(st->bind, m->entry) == 0)
		img_entry_inside(m, st->bind_dst, sizeof(st->bind_dst));
	else
		snprintf(st->bind_dst, sizeof(st->bind_dst), IMG_MOUNT);
}

void img_entry_inside(const struct manifest *m, char *buf, size_t len)
{
	if (man_is_local(m))
		snprintf(buf, len, IMG_MOUNT "/%s", strrchr(m->entry, '/') + 1);
	else if (m->source == MAN_SRC_HOST)
		snprintf(buf, len, "%s", m->entry);
	else
		snprintf(buf, len, IMG_MOUNT "/%s", m->entry);
}

/* An image with packages is present when they are installed too (a tree shared with another image, as
 * wrangler's is node24's, is not enough). */
static int status_packages(struct img_cache *c, const struct manifest *m, struct img_status *st, struct hx_err *err)
{
	char dir[PATH_MAX], lock[PATH_MAX + 32], hex[65];
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (!m->packages[0])
		return 0;
	man_packages_dir(m, dir, sizeof(dir));
	snprintf(lock, sizeof(lock), "%s/package-lock.json", dir);
	/* a manifest copied without its folder is absent, and its pull says what is missing (dep_img_pull) */
	if (!util_exists(lock)) {
		st->present = false;
		return 0;
	}
	/* where deps.c installs a lock file: npm/sha256-<its digest>/node_modules */
	if (util_read_input(lock, UTIL_MAX_LOCK, &text, &len, err) < 0 ||
	    util_sha256_hex(text, len, hex, sizeof(hex)) < 0)
		return hx_wrap(err, "image %s: its packages", m->name);
	snprintf(st->packages, sizeof(st->packages), "%s/npm/sha256-%s/node_modules", c->root, hex);
	st->present = st->present && util_exists(st->packages);
	if (st->present) { /* its size is the tree's and theirs */
		tree_bytes = 0;
		nftw(st->packages, add_size, 16, FTW_PHYS);
		st->size += tree_bytes;
	}
	return 0;
}

int img_status(struct img_cache *c, const struct manifest *m, bool hash_host, struct img_status *st, struct hx_err *err)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (m->source == MAN_SRC_HOST) {
		snprintf(st->entry, sizeof(st->entry), "%s", m->entry);
		st->present = stat(m->entry, &sb) == 0 && (sb.st_mode & 0111);
		st->size = st->present ? (uint64_t)sb.st_size : 0;
		if (man_is_local(m))
			local_bind(m, st);
		if (st->present && hash_host) {
			strcpy(st->digest, "sha256-");
			if (hash_file(m->entry, "sha256", st->digest + 7, sizeof(st->digest) - 7) < 0)
				return hx_syserr(err, "image %s: read %s", m->name, m->entry);
		}
		return status_packages(c, m, st, err);
	}
	man_digest_id(m, st->digest, sizeof(st->digest));
	snprintf(st->tree, sizeof(st->tree), "%s/trees/%s", c->root, st->digest);
	snprintf(st->entry, sizeof(st->entry), "%s/%s", st->tree, m->entry);
	st->present = stat(st->entry, &sb) == 0;
	if (st->present) {
		tree_bytes = 0;
		nftw(st->tree, add_size, 16, FTW_PHYS);
		st->size = tree_bytes;
	}
	return status_packages(c, m, st, err);
}

/* The registry npm uses for a package, scoped ones included: asked of npm itself (argv, no shell). */
int img_npm_registry(const char *package, char *buf, size_t len, struct hx_err *err)
{
	char key[VALID_NPM_MAX + 16] = "", out[1024];
	const char *slash = strchr(package, '/');

	if (package[0] == '@' && slash)
		snprintf(key, sizeof(key), "%.*s:registry", (int)(slash - package), package);
	for (int pass = key[0] ? 0 : 1; pass < 2; pass++) {
		char *argv[] = {(char *)"npm", (char *)"config", (char *)"get", pass ? (char *)"registry" : key, NULL};

		if (util_capture(argv, out, sizeof(out)) != 0)
			continue;
		util_rstrip(out);
		if (!valid_url(out) && strlen(out) < len) {
			snprintf(buf, len, "%s", out);
			return 0;
		}
	}
	return hx_fail(
		err, HX_EXIT_HOST, ENOENT,
		"image: cannot learn the npm registry ('npm config get registry' gave nothing): install npm or set "
		"npm_config_registry");
}

int img_npm_document(const char *package, char **ret, struct hx_err *err)
{
	char reg[1024];

	if (img_npm_registry(package, reg, sizeof(reg), err) < 0)
		return -err->errnum;
	if (fetch_packument(reg, package, ret, err) < 0)
		return hx_wrap(err, "npm package %s", package);
	return 0;
}

/* Ask the registry where the tarball of package@version is, and check it names the same bytes. */
static int npm_tarball(const struct manifest *m, char *url, size_t len, struct hx_err *err)
{
	_cleanup_free_ char *doc = NULL;
	const cJSON *ver, *dist, *tarball, *integrity;
	cJSON *root;
	int rc = 0;

	if (img_npm_document(m->package, &doc, err) < 0)
		return hx_wrap(err, "image %s", m->name);
	root = cJSON_Parse(doc);
	ver = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "versions"), m->pkg_version);
	dist = cJSON_GetObjectItemCaseSensitive(ver, "dist");
	tarball = cJSON_GetObjectItemCaseSensitive(dist, "tarball");
	integrity = cJSON_GetObjectItemCaseSensitive(dist, "integrity");
	if (!cJSON_IsString(tarball))
		rc = hx_fail(err, HX_EXIT_HOST, ENOENT, "image %s: the registry has no %s@%s", m->name, m->package,
			     m->pkg_version);
	else if (cJSON_IsString(integrity) && strcmp(integrity->valuestring, m->integrity) != 0)
		rc = hx_fail(err, HX_EXIT_HOST, EBADMSG,
			     "image %s: the registry's integrity for %s@%s is %s, the manifest says %s", m->name,
			     m->package, m->pkg_version, integrity->valuestring, m->integrity);
	else
		snprintf(url, len, "%s", tarball->valuestring);
	cJSON_Delete(root);
	return rc;
}

/* Download the image's bytes into blobs/<digest>, verified; returns its path. */
static int pull_blob(struct img_cache *c, const struct manifest *m, const char *digest, char *blob, size_t len,
		     struct hx_err *err)
{
	char url[2048], partial[PATH_MAX], got[160];
	const char *algo = m->source == MAN_SRC_NPM ? "sha512" : "sha256";
	size_t prefix = strlen(algo) + 1;

	snprintf(blob, len, "%s/blobs/%s", c->root, digest);
	if (util_exists(blob))
		return 0;
	if (m->source == MAN_SRC_NPM) {
		if (npm_tarball(m, url, sizeof(url), err) < 0)
			return -err->errnum;
	} else {
		snprintf(url, sizeof(url), "%s", m->url);
	}
	snprintf(partial, sizeof(partial), "%s/blobs/.partial-%s", c->root, digest);
	if (fetch_file(url, partial, algo, m->size ? m->size : IMG_MAX_DOWNLOAD, got, sizeof(got), err) < 0)
		return hx_wrap(err, "image %s", m->name);
	if (strcmp(got, digest + prefix) != 0) {
		unlink(partial); /* nothing unverified enters the cache */
		return hx_fail(err, HX_EXIT_HOST, EBADMSG, "image %s: %s has %s %s, the manifest says %s: refused",
			       m->name, url, algo, got, digest + prefix);
	}
	if (rename(partial, blob) < 0)
		return hx_syserr(err, "image %s: rename %s", m->name, partial);
	return 0;
}

/* Libraries shipped only as lib*.so.X.Y load once their SONAME links exist (what the package's own
 * install script would make). */
static int prepare_soname_links(const struct manifest *m, const char *tmp, struct hx_err *err)
{
	char dir[PATH_MAX * 2];
	unsigned made = 0;

	snprintf(dir, sizeof(dir), "%s/%s", tmp, m->soname_links);
	if (unpack_soname_links(dir, &made, err) < 0) {
		unpack_remove_tree(tmp);
		return hx_wrap(err, "image %s: soname_links", m->name);
	}
	return 0;
}

int img_pull(struct img_cache *c, const struct manifest *m, struct hx_err *err)
{
	struct img_status st;
	char blob[PATH_MAX], tmp[PATH_MAX];
	int rc;

	if (m->source == MAN_SRC_HOST) {
		if (img_status(c, m, false, &st, err) < 0)
			return -err->errnum;
		if (access(st.entry, X_OK) < 0)
			return hx_fail(err, HX_EXIT_HOST, ENOENT, "image %s: %s is not installed on this host", m->name,
				       m->entry);
		return 0;
	}
	if (c->readonly)
		return hx_fail(
			err, HX_EXIT_HOST, EACCES,
			"image %s is not in %s, and uid %u may not write there (%s): pull it as root (sudo harness "
			"images pull %s), or set XDG_CACHE_HOME for a cache of your own",
			m->name, c->root, (unsigned)sbx_caller_uid(), strerror(c->ro_errno ? c->ro_errno : EACCES),
			m->name);
	if (cache_lock(c, err) < 0)
		return -err->errnum;
	rc = img_status(c, m, false, &st, err);
	if (rc == 0 && !util_exists(st.entry)) { /* the tree: its packages, if any, are dep_img_pull's */
		uint64_t t0 = util_now_ns();
		struct stat bst = {0};

		/* A line per image on stderr, TTY or not (a long pull in CI must not look hung); the progress
		 * bar (fetch.c) only on a TTY. */
		fprintf(stderr, "harness: images: pulling %s %s\n", m->name, m->version);
		rc = pull_blob(c, m, st.digest, blob, sizeof(blob), err);
		if (rc == 0 && stat(blob, &bst) == 0)
			fprintf(stderr, "harness: images: %s %s: %.1f MiB downloaded in %.1f s\n", m->name, m->version,
				(double)bst.st_size / (1 << 20), (double)(util_now_ns() - t0) / 1e9);
		snprintf(tmp, sizeof(tmp), "%s/trees/.tmp-%s-%d", c->root, st.digest, (int)getpid());
		unpack_remove_tree(st.tree); /* a tree without its entry is a leftover */
		if (rc == 0)
			rc = unpack_archive(
				blob, tmp, m->source == MAN_SRC_NPM ? 1 : m->strip_components,
				m->unpacked_size ? m->unpacked_size : unpack_default_cap((uint64_t)bst.st_size), err);
		if (rc == 0) {
			char entry[PATH_MAX];

			snprintf(entry, sizeof(entry), "%s/%s", tmp, m->entry);
			if (access(entry, X_OK) < 0) {
				rc = hx_fail(err, HX_EXIT_USAGE, ENOENT, "image %s: the archive has no executable %s",
					     m->name, m->entry);
				unpack_remove_tree(tmp);
			}
		}
		if (rc == 0 && m->soname_links[0])
			rc = prepare_soname_links(m, tmp, err);
		if (rc == 0 && rename(tmp, st.tree) < 0) {
			rc = hx_syserr(err, "image %s: rename %s", m->name, tmp);
			unpack_remove_tree(tmp);
		}
	}
	flock(c->lock_fd, LOCK_UN);
	return rc;
}

#define VERIFY_TIMEOUT_MS 30000

/* The version command ({entry} expanded) runs in the image's own sandbox, as the sandbox user, with no
 * network, exactly as a trial would run the image: a manifest's command never runs on the host. */
static int run_version_command(const struct manifest *m, const struct img_status *st, char *out, size_t len,
			       struct hx_err *err)
{
	char *argv[MAN_MAX_ARGV + 1], entry[PATH_MAX];
	struct sbx_config c;
	struct sbx x = {.pid = -1, .report_fd = -1};
	struct cg_tree *t = NULL;
	int netns = -1, p[2] = {-1, -1}, rc, status = 0;

	out[0] = '\0';
	img_entry_inside(m, entry, sizeof(entry));
	for (size_t i = 0; i <= MAN_MAX_ARGV; i++)
		argv[i] = m->version_command[i] && strcmp(m->version_command[i], "{entry}") == 0
				  ? entry
				  : m->version_command[i];
	sbx_config_init(&c);
	c.argv = argv;
	if (img_apply_to_sandbox(m, st, &c, err) < 0 || sbx_net_prepare(&netns, err) < 0)
		return -err->errnum;
	c.netns_fd = netns;
	if (pipe2(p, O_CLOEXEC) < 0) {
		sbx_net_cleanup(&netns);
		return hx_syserr(err, "image %s: pipe", m->name);
	}
	c.out_fd = p[1];
	rc = sbx_prepare_begin(&t, err);
	if (rc == 0)
		rc = sbx_start(t, CG_SLICE_PREPARE, &c, &x, err);
	close(p[1]);
	if (rc == 0 && (rc = sbx_wait_exec(&x, entry, err)) == 0 &&
	    (rc = util_read_until(p[0], util_now_ns() + VERIFY_TIMEOUT_MS * 1000000ull, out, len)) < 0)
		rc = hx_fail(err, HX_EXIT_VERDICT, -rc, "its version command did not finish in %d s",
			     VERIFY_TIMEOUT_MS / 1000);
	if (x.pid > 0) {
		if (rc < 0)
			kill(x.pid, SIGKILL); /* the sandbox's init: everything in its PID namespace goes with it */
		while (waitpid(x.pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	sbx_release(&x);
	if (t)
		sbx_prepare_end(t);
	close(p[0]);
	sbx_net_cleanup(&netns);
	return rc;
}

int img_binary_version_strict(const struct manifest *m, struct img_status *st, struct hx_err *err)
{
	char out[512] = "";

	st->binary_version[0] = '\0';
	if (!st->present || !m->version_command[0])
		return 0;
	if (run_version_command(m, st, out, sizeof(out), err) < 0)
		return hx_wrap(err, "image %s: its version command", m->name);
	out[strcspn(out, "\r\n")] = '\0';
	/* the binary's own words: kept escaped, for the results and every message that shows them */
	esc_term(out, st->binary_version, sizeof(st->binary_version));
	return 0;
}

void img_binary_version(const struct manifest *m, struct img_status *st)
{
	struct hx_err ignored = {0};

	img_binary_version_strict(m, st, &ignored);
}

int img_verify(struct img_cache *c, const struct manifest *m, char *why, size_t why_len, struct hx_err *err)
{
	struct img_status st;
	char out[512] = "", blob[PATH_MAX], got[160], shown[sizeof(out) * 4];
	struct hx_err verr = {0};

	why[0] = '\0';
	if (img_status(c, m, true, &st, err) < 0)
		return -err->errnum;
	if (!st.present) {
		snprintf(why, why_len, "not present (harness images pull %s)", m->name);
		return 0;
	}
	snprintf(blob, sizeof(blob), "%s/blobs/%s", c->root, st.digest);
	if (m->source != MAN_SRC_HOST && util_exists(blob)) {
		const char *algo = m->source == MAN_SRC_NPM ? "sha512" : "sha256";

		if (hash_file(blob, algo, got, sizeof(got)) < 0 || strcmp(got, strchr(st.digest, '-') + 1) != 0) {
			snprintf(why, why_len, "the cached download's %s is not the manifest's (harness images rm %s)",
				 algo, m->name);
			return 0;
		}
	}
	if (!m->version_command[0] || !m->version_expect[0])
		return 0;
	if (run_version_command(m, &st, out, sizeof(out), &verr) < 0)
		snprintf(why, why_len, "cannot run its version command in the sandbox: %s", verr.msg);
	else if (!strstr(out, m->version_expect))
		snprintf(why, why_len, "its version command printed '%.60s', not %s",
			 esc_term(util_rstrip(out), shown, sizeof(shown)), m->version_expect);
	return 0;
}

int img_rm(struct img_cache *c, const struct manifest *m, struct hx_err *err)
{
	struct img_status st;
	char blob[PATH_MAX];

	if (m->source == MAN_SRC_HOST)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "image %s comes from the host (%s): nothing to remove",
			       m->name, m->entry);
	if (cache_lock(c, err) < 0)
		return -err->errnum;
	img_status(c, m, false, &st, err);
	if (m->packages[0]) {
		/* its packages only: its tree may be another image's (wrangler's is node24's); gc removes it when
		 * no shipped manifest names it */
		char *slash = strrchr(st.packages, '/');

		if (slash)
			*slash = '\0'; /* npm/sha256-<hex>, the entry dep_ensure renamed into place */
		if (st.packages[0])
			unpack_remove_tree(st.packages);
	} else {
		snprintf(blob, sizeof(blob), "%s/blobs/%s", c->root, st.digest);
		unpack_remove_tree(st.tree);
		unlink(blob);
	}
	flock(c->lock_fd, LOCK_UN);
	return 0;
}

/* One entry of <cache>/<sub>, unless a running harness holds it: renamed first, so that a gc killed halfway
 * leaves a leftover the next gc removes, never a half entry that looks whole to a run. */
static void prune_one(const char *dir, const char *sub, const char *name, struct img_gc_tally *t)
{
	char path[PATH_MAX * 2], gone[PATH_MAX * 2];
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* a link (the guest's cache links the host's entries) is removed as a link: O_NOFOLLOW fails on it */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
		fprintf(stderr, "harness: images gc: %s/%s is in use by a running harness: kept\n", sub, name);
		t->in_use++;
		return;
	}
	tree_bytes = 0;
	nftw(path, add_size, 16, FTW_PHYS);
	snprintf(gone, sizeof(gone), "%s/.tmp-gc-%s", dir, name);
	if (strncmp(name, ".tmp-", 5) == 0 || strlen(name) > NAME_MAX - 8 || rename(path, gone) < 0)
		snprintf(gone, sizeof(gone), "%s", path);
	if (unpack_remove_tree(gone) < 0)
		return;
	printf("removed %s/%s (%.1f MB)\n", sub, name, (double)tree_bytes / 1e6);
	t->removed++;
	t->bytes += tree_bytes;
}

int img_cache_prune(struct img_cache *c, const char *sub, char keep[][160], size_t nkeep, struct img_gc_tally *t,
		    struct hx_err *err)
{
	char dir[PATH_MAX];
	struct dirent **names = NULL;
	int n;

	snprintf(dir, sizeof(dir), "%s/%s", c->root, sub);
	if (!util_exists(dir))
		return 0;
	/* every writer holds the lock while its .tmp- or .partial- entry exists: under it they are leftovers */
	if (cache_lock(c, err) < 0)
		return -err->errnum;
	/* the names first: an entry renamed while the folder is read could be read again under its new name */
	if ((n = scandir(dir, &names, NULL, alphasort)) < 0) {
		flock(c->lock_fd, LOCK_UN);
		return hx_syserr(err, "images gc: %s", dir);
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		bool kept = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;

		for (size_t k = 0; k < nkeep && !kept; k++)
			kept = strcmp(name, keep[k]) == 0;
		if (!kept)
			prune_one(dir, sub, name, t);
		free(names[i]);
	}
	free(names);
	flock(c->lock_fd, LOCK_UN);
	return 0;
}

/* gc keeps what it cannot rule out: an unreadable folder or manifest stops it before it removes anything. */
int img_gc(struct img_cache *c, bool prune, struct img_gc_tally *t, struct hx_err *err)
{
	static char digests[256][160];
	size_t n = 0;
	_cleanup_closedir_ DIR *d = opendir(img_manifest_dir());
	struct dirent *de;

	if (!d)
		return hx_fail(err, HX_EXIT_HOST, errno, "images gc: cannot read %s (%s): nothing removed",
			       img_manifest_dir(), strerror(errno));
	while ((de = readdir(d))) {
		struct manifest m;
		char path[PATH_MAX];

		if (!strstr(de->d_name, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", img_manifest_dir(), de->d_name);
		if (n == 256 || man_load(img_manifest_dir(), path, &m, err) < 0) {
			if (n == 256)
				hx_fail(err, HX_EXIT_HOST, E2BIG, "more than 256 manifests");
			err->exit = HX_EXIT_HOST;
			return hx_wrap(err, "images gc: nothing removed");
		}
		man_digest_id(&m, digests[n++], 160);
		man_free(&m);
	}
	if (!prune)
		return 0;
	if (img_cache_prune(c, "blobs", digests, n, t, err) < 0 || img_cache_prune(c, "trees", digests, n, t, err) < 0)
		return -err->errnum;
	return 0;
}

/* A "K=V" string that lives as long as the process (sandbox configs point at their strings). */
int img_apply_to_sandbox(const struct manifest *m, const struct img_status *st, struct sbx_config *c,
			 struct hx_err *err)
{
	char inside[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 64], *slash;
	char kv[PATH_MAX + 80];

	if (!st->present)
		return hx_fail(err, HX_EXIT_HOST, ENOENT, "image %s is not present (harness images pull %s)", m->name,
			       m->name);
	img_entry_inside(m, inside, sizeof(inside));
	if (m->source != MAN_SRC_HOST || man_is_local(m)) {
		if (c->rootfs.nbinds == SBX_MAX_BINDS)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "too many binds for the image");
		c->rootfs.binds[c->rootfs.nbinds++] =
			man_is_local(m) ? (struct sbx_bind){.src = st->bind, .dst = st->bind_dst, .rw = false}
					: (struct sbx_bind){.src = st->tree, .dst = IMG_MOUNT, .rw = false};
	}
	if (st->packages[0]) {
		if (c->rootfs.nbinds == SBX_MAX_BINDS)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "too many binds for the image's packages");
		c->rootfs.binds[c->rootfs.nbinds++] = (struct sbx_bind){.src = st->packages, .dst = IMG_PACKAGES};
	}
	snprintf(dir, sizeof(dir), "%s", inside);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s:/usr/local/bin:/usr/bin:/bin", dir);
	for (size_t i = 0; i < MAN_MAX_ENV && m->env[i]; i++)
		if (sbx_env_set(c, m->env[i]) < 0)
			return hx_fail(err, HX_EXIT_USAGE, E2BIG, "image %s: too many environment variables", m->name);
	snprintf(kv, sizeof(kv), "PATH=%s", path);
	if (sbx_env_set(c, kv) < 0)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG, "image %s: its PATH is too long", m->name);
	snprintf(kv, sizeof(kv), "RUNTIME=%s", inside); /* last: run reads the entry from it */
	if (sbx_env_set(c, kv) < 0)
		return hx_fail(err, HX_EXIT_USAGE, E2BIG, "image %s: its entry's path is too long", m->name);
	return 0;
}
