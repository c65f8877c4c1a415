/* The executor of an install plan (image/npmtree.h): the tarballs fetched by harness, checked against the lock's
 * integrity, unpacked as npm 11's pacote does (fetcher.js #tarxOptions: the first folder stripped, links and folder
 * entries left out, .gitignore as .npmignore, modes from fmode 0666, dmode 0777 and the process umask 022), then
 * the .bin links as bin-links makes them (link-gently.js, fix-bin.js). Every path is walked from the tree's root
 * with O_NOFOLLOW, and no link is made until every tarball is unpacked, so no entry can write outside the tree. */
#include "image/npmtree.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/dl_archive.h"
#include "base/util.h"
#include "image/fetch.h"
#include "image/unpack.h"

/* pacote's file and folder modes under npm's default umask, and bin-links' mode for a linked bin */
#define NPT_DIR_MODE 0755
#define NPT_BIN_MODE 0755
#define NPT_MAX_PATH 4096

struct tally {
	uint64_t bytes, max, entries;
};

/* ---- integrity ---- */

static int b64_value(char c)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *at = c ? strchr(set, c) : NULL;

	return at ? (int)(at - set) : -1;
}

/* The hex of a base64 text of len characters (padding allowed at the end). */
static void b64_hex(const char *s, size_t len, char *hex, size_t hex_len)
{
	unsigned acc = 0, bits = 0;
	size_t o = 0;

	hex[0] = '\0';
	for (size_t i = 0; i < len && s[i] != '='; i++) {
		int v = b64_value(s[i]);

		if (v < 0)
			return;
		acc = (acc << 6) | (unsigned)v;
		if ((bits += 6) >= 8 && o + 3 <= hex_len) {
			bits -= 8;
			o += (size_t)snprintf(hex + o, hex_len - o, "%02x", (acc >> bits) & 0xff);
		}
	}
}

/* The strongest algorithm of an SRI text, as ssri picks it. */
static const char *sri_pick(const char *sri)
{
	static const char *const order[] = {"sha512", "sha384", "sha256", "sha1"};

	for (size_t i = 0; i < HX_ARRAY_SIZE(order); i++) {
		size_t a = strlen(order[i]);

		for (const char *c = sri; (c = strstr(c, order[i])); c += a)
			if ((c == sri || c[-1] == ' ') && c[a] == '-')
				return order[i];
	}
	return NULL;
}

/* Does one of sri's digests of algo have this hex? */
static bool sri_has(const char *sri, const char *algo, const char *hex)
{
	size_t a = strlen(algo);

	for (const char *c = sri; (c = strstr(c, algo)); c += a) {
		char want[160];

		if ((c != sri && c[-1] != ' ') || c[a] != '-')
			continue;
		b64_hex(c + a + 1, strcspn(c + a + 1, "? \t\n"), want, sizeof(want));
		if (want[0] && strcmp(want, hex) == 0)
			return true;
	}
	return false;
}

/* ---- fetching ---- */

static void tarball_url(const struct npt_node *n, const char *registry, char *url, size_t len)
{
	const char *slash = strchr(n->name, '/');

	if (n->resolved) {
		snprintf(url, len, "%s", n->resolved);
		return;
	}
	snprintf(url, len, "%s%s%s/-/%s-%s.tgz", registry, registry[strlen(registry) - 1] == '/' ? "" : "/", n->name,
		 slash ? slash + 1 : n->name, n->version);
}

/* A registry that keeps its tarballs elsewhere says where in the package's document (dist.tarball). */
static int packument_url(const struct npt_node *n, const char *registry, char *url, size_t len, struct hx_err *err)
{
	_cleanup_free_ char *doc = NULL;
	const cJSON *tarball;
	cJSON *root;

	if (fetch_packument(registry, n->name, &doc, err) < 0)
		return -err->errnum;
	root = cJSON_Parse(doc);
	tarball = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "versions"),
							 n->version),
			"dist"),
		"tarball");
	if (cJSON_IsString(tarball))
		snprintf(url, len, "%s", tarball->valuestring);
	cJSON_Delete(root);
	if (!cJSON_IsString(tarball))
		return hx_fail(err, HX_EXIT_HOST, ENOENT, "the registry has no %s@%s", n->name, n->version);
	return 0;
}

/* The package's tarball into path, refused unless it has the lock's integrity. */
static int fetch_checked(const struct npt_node *n, const char *registry, const char *path, uint64_t max,
			 struct hx_err *err)
{
	const char *algo = sri_pick(n->integrity);
	char url[2048], hex[160] = "";

	tarball_url(n, registry, url, sizeof(url));
	unlink(path);
	if (fetch_file(url, path, algo, max, hex, sizeof(hex), err) < 0) {
		if (err->errnum == EFBIG) {
			hx_clear(err);
			return hx_fail(err, HX_EXIT_USAGE, EFBIG, "%s: more than the %.1f MiB a tree may take", url,
				       (double)max / (1 << 20));
		}
		if (err->errnum != ENOENT || n->resolved || !n->version)
			return -err->errnum;
		hx_clear(err); /* not where the registry usually keeps it: ask it */
		unlink(path);
		if (packument_url(n, registry, url, sizeof(url), err) < 0 ||
		    fetch_file(url, path, algo, max, hex, sizeof(hex), err) < 0)
			return -err->errnum;
	}
	if (!sri_has(n->integrity, algo, hex)) {
		unlink(path); /* nothing unverified is unpacked */
		return hx_fail(err, HX_EXIT_USAGE, EBADMSG,
			       "%s: its %s is %s, not the lock's integrity (%s): refused (a changed tarball, or a "
			       "lock made against another registry)",
			       url, algo, hex, n->integrity);
	}
	return 0;
}

/* ---- the tree ---- */

/* The folder at rel below dfd (each component made 0755 when absent, none followed if it is a link);
 * a new descriptor, or -errno. */
static int walk_dirs(int dfd, const char *rel, bool make)
{
	char buf[NPT_MAX_PATH];
	int cur = fcntl(dfd, F_DUPFD_CLOEXEC, 0);

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *save = NULL, *part = strtok_r(buf, "/", &save); part && cur >= 0;
	     part = strtok_r(NULL, "/", &save)) {
		int next;

		if (strcmp(part, ".") == 0 || strcmp(part, "..") == 0) {
			close(cur);
			return -EPERM;
		}
		if (make && mkdirat(cur, part, NPT_DIR_MODE) == 0 && fchmodat(cur, part, NPT_DIR_MODE, 0) < 0) {
			close(cur);
			return -errno;
		}
		next = openat(cur, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next < 0 ? -errno : next;
	}
	return cur;
}

/* Split rel into its folder (in dir) and its last component (returned). */
static const char *split_last(const char *rel, char *dir, size_t len)
{
	const char *slash = strrchr(rel, '/');

	snprintf(dir, len, "%.*s", slash ? (int)(slash - rel) : 0, rel);
	return slash ? slash + 1 : rel;
}

/* An entry's path below the package's folder as node-tar's strip: 1 leaves it, with '.' and empty components
 * dropped; NULL when nothing is left. Absolute paths and '..' are refused by the caller first. */
static const char *strip_one(const char *raw, char *out, size_t len)
{
	const char *rest = strchr(raw, '/');
	char buf[NPT_MAX_PATH];
	size_t o = 0;

	if (!rest)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", rest + 1);
	out[0] = '\0';
	for (char *save = NULL, *part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save))
		if (strcmp(part, ".") != 0 && o < len)
			o += (size_t)snprintf(out + o, len - o, "%s%s", o ? "/" : "", part);
	return out[0] && o < len ? out : NULL;
}

static bool has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

/* The entry's data into a new file rel below pkg (one there before is replaced, as node-tar replaces it). */
static int write_entry(struct archive *in, struct archive_entry *e, int pkg, const char *rel, mode_t mode,
		       struct tally *t)
{
	char dir[NPT_MAX_PATH];
	const char *name = split_last(rel, dir, sizeof(dir));
	_cleanup_close_ int dfd = walk_dirs(pkg, dir, true), fd = -1;
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || fchmod(fd, mode) < 0)
		return -errno;
	/* the entry's declared size counts, not only the blocks written: a sparse entry's holes are the tree's too */
	if (archive_entry_size(e) < 0 || (t->bytes += (uint64_t)archive_entry_size(e)) > t->max)
		return -EFBIG;
	while ((r = archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK) {
		if (off < 0 || (uint64_t)off + size > (uint64_t)archive_entry_size(e))
			return -EFBIG; /* past what the header declared (and counted) */
		if (pwrite(fd, buf, size, off) != (ssize_t)size)
			return errno ? -errno : -EIO;
	}
	if (r != ARCHIVE_EOF)
		return -EIO;
	return ftruncate(fd, archive_entry_size(e)) < 0 ? -errno : 0;
}

/* Is rel one of the package's bins? pacote makes those executable as it unpacks them. */
static bool is_bin(const struct npt_node *n, const char *rel)
{
	for (size_t i = 0; i < n->nbins; i++)
		if (strcmp(n->bins[i].target, rel) == 0)
			return true;
	return false;
}

/* What an entry is, when harness refuses it; NULL for a file to write or an entry pacote leaves out. */
static const char *entry_problem(struct archive_entry *e, const char *raw, bool *skip)
{
	mode_t type = archive_entry_filetype(e);

	*skip = type == AE_IFDIR || type == AE_IFLNK || archive_entry_hardlink(e);
	if (raw[0] == '/')
		return "an absolute path";
	if (has_dotdot(raw))
		return "a path with '..'";
	if (*skip || type == AE_IFREG)
		return NULL;
	return type == AE_IFIFO ? "a FIFO" : type == AE_IFSOCK ? "a socket" : "a device node";
}

struct ignores {
	char **paths; /* the .npmignore files the tarball had so far */
	size_t n;
};

/* pacote renames a .gitignore to .npmignore unless the tarball had a .npmignore there before it. */
static bool gitignore_rename(struct ignores *ig, char *rel, size_t len)
{
	char dir[NPT_MAX_PATH], ni[NPT_MAX_PATH + 16];
	const char *base = split_last(rel, dir, sizeof(dir));
	char **np;

	if (strcmp(base, ".npmignore") == 0 && (np = realloc(ig->paths, (ig->n + 1) * sizeof(*np)))) {
		ig->paths = np;
		ig->paths[ig->n++] = strdup(rel);
		return true;
	}
	if (strcmp(base, ".gitignore") != 0)
		return true;
	snprintf(ni, sizeof(ni), "%s%s.npmignore", dir, dir[0] ? "/" : "");
	for (size_t i = 0; i < ig->n; i++)
		if (ig->paths[i] && strcmp(ig->paths[i], ni) == 0)
			return false;
	snprintf(rel, len, "%s", ni);
	return true;
}

/* A write that failed for what the tarball holds (a damaged stream, a file where a folder must be, a name too
 * long), not for the host's disk. */
static bool tarball_fault(int w)
{
	return w == -EIO || w == -ENOTDIR || w == -EISDIR || w == -EEXIST || w == -ELOOP || w == -EPERM ||
	       w == -ENAMETOOLONG;
}

static int extract_entries(struct archive *in, const struct npt_node *n, int pkg, struct tally *t, struct ignores *ig,
			   struct hx_err *err)
{
	struct archive_entry *e;
	int r;

	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *raw = archive_entry_pathname(e) ? archive_entry_pathname(e) : "", *problem;
		char rel[NPT_MAX_PATH];
		bool skip;
		mode_t mode;
		int w;

		if (++t->entries > UNPACK_MAX_ENTRIES)
			return hx_fail(err, HX_EXIT_USAGE, EFBIG, "more than %d entries: refused", UNPACK_MAX_ENTRIES);
		if ((problem = entry_problem(e, raw, &skip)))
			return hx_fail(err, HX_EXIT_USAGE, EPERM, "entry '%s' is %s: refused", raw, problem);
		if (skip || !strip_one(raw, rel, sizeof(rel)) || !gitignore_rename(ig, rel, sizeof(rel)))
			continue;
		mode = (((archive_entry_perm(e) | 0666) | (is_bin(n, rel) ? 0111 : 0) | 0600) & ~(mode_t)022) & 0755;
		if ((w = write_entry(in, e, pkg, rel, mode, t)) == -EFBIG)
			return hx_fail(err, HX_EXIT_USAGE, EFBIG, "more than %.1f MiB unpacked in all (at entry '%s')",
				       (double)t->max / (1 << 20), raw);
		if (w < 0)
			return hx_fail(err, tarball_fault(w) ? HX_EXIT_USAGE : HX_EXIT_HOST, -w, "entry '%s': %s", raw,
				       w == -EIO && archive_error_string(in) ? archive_error_string(in) : strerror(-w));
	}
	if (r != ARCHIVE_EOF)
		return hx_fail(err, HX_EXIT_USAGE, EIO, "%s",
			       archive_error_string(in) ? archive_error_string(in) : "not a readable tarball");
	return 0;
}

/* Unpack the verified tarball into the package's folder (made, as pacote makes it, even when it is empty). */
static int unpack_package(const char *tgz, const struct npt_node *n, int root, struct tally *t, struct hx_err *err)
{
	_cleanup_close_ int pkg = walk_dirs(root, n->key, true);
	struct ignores ig = {0};
	struct archive *in;
	int rc;

	if (pkg < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, -pkg, "%s: %s", n->key, strerror(-pkg));
	if (dl_open(&dl_archive, err) < 0)
		return -err->errnum;
	in = archive_read_new();
	archive_read_support_filter_all(in);
	archive_read_support_format_tar(in);
	if (archive_read_open_filename(in, tgz, 65536) != ARCHIVE_OK)
		rc = hx_fail(err, HX_EXIT_USAGE, EIO, "%s", archive_error_string(in));
	else
		rc = extract_entries(in, n, pkg, t, &ig, err);
	archive_read_free(in);
	for (size_t i = 0; i < ig.n; i++)
		free(ig.paths[i]);
	free(ig.paths);
	return rc;
}

/* ---- .bin links ---- */

static int depth_of(const char *key)
{
	int d = 0;

	for (const char *c = key; (c = strstr(c, "node_modules/")); c += 13)
		if (c == key || c[-1] == '/')
			d++;
	return d;
}

/* The package at i is in the tree: not left out, and when it came in a bundle, its bundler is in the tree and
 * (rebuild.js #buildQueues) names bundleDependencies, so its bins are linked too. */
static bool linked_node(const struct npt_plan *p, size_t i)
{
	const struct npt_node *n = &p->nodes[i];
	char at[NPT_MAX_PATH];

	if (!n->key[0] || n->inert || !n->nbins)
		return false;
	snprintf(at, sizeof(at), "%s", n->key);
	while (n->in_bundle) {
		char *cut = at + strlen(at);
		long up;

		while (cut > at && strncmp(cut, "/node_modules/", 14) != 0)
			cut--;
		*cut = '\0';
		if (!at[0] || (up = npt_find(p, at)) < 0)
			return false;
		n = &p->nodes[up];
		if (!n->in_bundle)
			return !n->inert && n->has_bundle;
	}
	return true;
}

static int bin_order(const void *a, const void *b, void *plan)
{
	const struct npt_plan *p = plan;
	const struct npt_node *x = &p->nodes[*(const size_t *)a], *y = &p->nodes[*(const size_t *)b];
	int d = depth_of(x->key) - depth_of(y->key);

	return d ? d : strcmp(x->key, y->key);
}

/* fix-bin.js: mode 0755, and a "#!...\r\n" first line (within 2048 bytes) loses its \r. */
static int fix_bin(int dfd, const char *name, struct tally *t)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	char head[2048];
	struct stat st;
	ssize_t got;
	const char *nl;
	_cleanup_free_ char *all = NULL;
	size_t at;

	if (fd < 0 && errno == EISDIR)
		return fchmodat(dfd, name, NPT_BIN_MODE, 0) < 0 ? -errno : 0;
	if (fd < 0 || fstat(fd, &st) < 0 || fchmod(fd, NPT_BIN_MODE) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (got = pread(fd, head, sizeof(head), 0)) < 4 || head[0] != '#' || head[1] != '!' ||
	    !(nl = memchr(head, '\n', (size_t)got)) || nl - head < 4 || nl[-1] != '\r')
		return 0;
	at = (size_t)(nl - head) - 1; /* the \r */
	if ((uint64_t)st.st_size > t->max || !(all = malloc((size_t)st.st_size)) ||
	    pread(fd, all, (size_t)st.st_size, 0) != st.st_size)
		return -EIO;
	memmove(all + at, all + at + 1, (size_t)st.st_size - at - 1);
	errno = EIO; /* a short write sets none */
	return pwrite(fd, all, (size_t)st.st_size - 1, 0) != st.st_size - 1 || ftruncate(fd, st.st_size - 1) < 0
		       ? -errno
		       : 0;
}

/* Does rel (below root) exist, its folders followed by no link? */
static bool exists_below(int root, const char *rel)
{
	char dir[NPT_MAX_PATH];
	const char *name = split_last(rel, dir, sizeof(dir));
	_cleanup_close_ int dfd = walk_dirs(root, dir, false);
	struct stat st;

	return dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* One bin of the package at key: <its node_modules>/.bin/<name> -> ../<key below it>/<target>. */
static int link_one(int root, const char *key, const struct npt_bin *b, struct tally *t, struct hx_err *err)
{
	char nm[NPT_MAX_PATH], scope[NPT_MAX_PATH], from[NPT_MAX_PATH * 2], target[NPT_MAX_PATH * 2], bin[NPT_MAX_PATH];
	char have[NPT_MAX_PATH * 2], tdir[NPT_MAX_PATH];
	const char *last = split_last(key, nm, sizeof(nm));
	_cleanup_close_ int bfd = -1, tfd = -1;
	ssize_t n;
	int r;

	(void)last;
	if (split_last(nm, scope, sizeof(scope))[0] == '@') /* node_modules/@s/a: the scope's parent */
		snprintf(nm, sizeof(nm), "%s", scope);
	snprintf(target, sizeof(target), "%s/%s", key, b->target);
	snprintf(from, sizeof(from), "../%s/%s", key + strlen(nm) + 1, b->target);
	snprintf(bin, sizeof(bin), "%s/.bin", nm);
	if (!exists_below(root, target))
		return 0; /* bin-links skips a bin its package does not have */
	if ((bfd = walk_dirs(root, bin, true)) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, -bfd, "%s: %s", bin, strerror(-bfd));
	if ((n = readlinkat(bfd, b->name, have, sizeof(have) - 1)) >= 0 && (have[n] = '\0', strcmp(have, from) == 0))
		return 0;
	if (symlinkat(from, bfd, b->name) < 0)
		return hx_fail(err, HX_EXIT_USAGE, errno,
			       "%s/%s: %s (npm ci would fail the same way: a package's tarball has it)", bin, b->name,
			       strerror(errno));
	if ((tfd = walk_dirs(root, (split_last(target, tdir, sizeof(tdir)), tdir), false)) < 0 ||
	    (r = fix_bin(tfd, split_last(target, tdir, sizeof(tdir)), t)) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, tfd < 0 ? -tfd : -r, "%s: make it executable", target);
	return 0;
}

static int link_bins(const struct npt_plan *p, int root, struct tally *t, struct hx_err *err)
{
	_cleanup_free_ size_t *order = calloc(p->n + 1, sizeof(*order));
	_cleanup_free_ char **seen = NULL;
	size_t n = 0, nseen = 0;
	int rc = 0;

	if (!order)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n; i++)
		if (linked_node(p, i))
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), bin_order, (void *)p);
	for (size_t k = 0; k < n && rc == 0; k++) {
		const struct npt_node *node = &p->nodes[order[k]];

		for (size_t b = 0; b < node->nbins && rc == 0; b++) {
			char to[NPT_MAX_PATH * 2], nm[NPT_MAX_PATH], scope[NPT_MAX_PATH];
			bool dup = false;
			char **ns;

			split_last(node->key, nm, sizeof(nm));
			if (split_last(nm, scope, sizeof(scope))[0] == '@')
				snprintf(nm, sizeof(nm), "%s", scope);
			snprintf(to, sizeof(to), "%s/.bin/%s", nm, node->bins[b].name);
			for (size_t s = 0; s < nseen && !dup; s++)
				dup = strcmp(seen[s], to) == 0;
			if (dup) /* link-gently: the first package (by depth, then path) keeps the name */
				continue;
			if (!(ns = realloc(seen, (nseen + 1) * sizeof(*ns))) || !(ns[nseen] = strdup(to))) {
				seen = ns ? ns : seen;
				rc = hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
				break;
			}
			seen = ns;
			nseen++;
			rc = link_one(root, node->key, &node->bins[b], t, err);
		}
	}
	for (size_t s = 0; s < nseen; s++)
		free(seen[s]);
	return rc;
}

/* ---- the install ---- */

/* The optional package at i failed with ENOENT (the registry has no such version): left out with its set, and
 * whatever of the set is on disk already removed. */
static int leave_missing(struct npt_plan *plan, size_t i, const char *root, struct hx_err *err)
{
	char path[PATH_MAX];

	if (!(plan->nodes[i].missing = strdup(err->msg)) || npt_leave_out(plan, i) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	hx_clear(err);
	for (size_t k = 0; k < i; k++) {
		const struct npt_node *n = &plan->nodes[k];

		if (n->inert && n->key[0] && !n->in_bundle && snprintf(path, sizeof(path), "%s/%s", root, n->key) > 0 &&
		    unpack_remove_tree(path) < 0)
			return hx_syserr(err, "npm install: %s", path);
	}
	return 0;
}

int npt_install(struct npt_plan *plan, const char *registry, const char *root, uint64_t max_bytes, struct hx_err *err)
{
	_cleanup_close_ int rfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct tally t = {.max = max_bytes};
	char tgz[PATH_MAX];

	if (rfd < 0)
		return hx_syserr(err, "npm install: %s", root);
	snprintf(tgz, sizeof(tgz), "%s/.tarball.tgz", root);
	for (size_t i = 0; i < plan->n; i++) {
		const struct npt_node *n = &plan->nodes[i];

		if (!n->key[0] || n->in_bundle || n->inert)
			continue;
		if (fetch_checked(n, registry, tgz, t.max, err) < 0) {
			unlink(tgz);
			if (n->optional && err->exit == HX_EXIT_HOST && err->errnum == ENOENT) {
				if (leave_missing(plan, i, root, err) < 0)
					return -err->errnum;
				continue;
			}
			return hx_wrap(err, "%s@%s (%s)", n->name, n->version ? n->version : "", n->key);
		}
		if (unpack_package(tgz, n, rfd, &t, err) < 0) {
			unlink(tgz);
			return hx_wrap(err, "%s@%s (%s)", n->name, n->version ? n->version : "", n->key);
		}
	}
	unlink(tgz);
	return link_bins(plan, rfd, &t, err);
}
