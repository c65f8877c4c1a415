/* Out of the sandbox: the sandbox's paths as host paths, and the scratch folder that stands for a fresh /tmp
 * and HOME (a shared /tmp would hand one start's caches, a runtime's DENO_DIR or transpiler cache, to the
 * next: another experiment). */
#include "sandbox/sandbox_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sbx_userns.h"

/* The first len bytes of path are dst or a path below it: the length of dst, else 0. */
static size_t below_n(const char *path, size_t len, const char *dst)
{
	size_t n = strlen(dst);

	return n <= len && strncmp(path, dst, n) == 0 && (n == len || path[n] == '/') ? n : 0;
}

static size_t below(const char *path, const char *dst)
{
	return below_n(path, strlen(path), dst);
}

int sbx_view_make(const struct sbx_rootfs *r, const char *tmp, const char *home, struct sbx_view *ret,
		  struct hx_err *err)
{
	if (r->data_dir)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "out of the sandbox: the data folder %s needs the sandbox",
			       r->data_dir);
	ret->n = 0;
	for (size_t i = 0; i < r->nbinds; i++) {
		const struct sbx_bind *b = &r->binds[i];

		for (size_t k = 0; k < r->nbinds; k++) {
			size_t n = k == i ? 0 : below(b->dst, r->binds[k].dst);
			const char *outer = r->binds[k].src;

			if (n && (below(b->src, outer) != strlen(outer) || strcmp(b->src + strlen(outer), b->dst + n)))
				return hx_fail(err, HX_EXIT_USAGE, EXDEV,
					       "out of the sandbox: %s shows %s, but %s on the host is %s%s: only a "
					       "sandbox shows it there",
					       b->dst, b->src, b->dst, outer, b->dst + n);
		}
		ret->e[ret->n].dst = b->dst;
		ret->e[ret->n++].src = b->src;
	}
	ret->e[ret->n].dst = "/tmp";
	ret->e[ret->n++].src = tmp;
	ret->e[ret->n].dst = SBX_HOME;
	ret->e[ret->n++].src = home;
	return 0;
}

int sbx_view_translate(const struct sbx_view *v, const char *value, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = value;; p++) {
		size_t part = strcspn(p, ":"), best = 0, n;
		const char *src = NULL;

		for (size_t i = 0; p[0] == '/' && i < v->n; i++)
			if ((n = below_n(p, part, v->e[i].dst)) > best) {
				best = n;
				src = v->e[i].src;
			}
		n = (size_t)snprintf(out + o, len - o, "%s%.*s%s", src ? src : "", (int)(part - best), p + best,
				     p[part] ? ":" : "");
		if (n >= len - o)
			return -E2BIG;
		o += n;
		p += part;
		if (!*p)
			return 0;
	}
}

int sbx_view_translate_arg(const struct sbx_view *v, const char *arg, char *out, size_t len)
{
	size_t name = arg[0] == '-' ? strcspn(arg, "=/") : 0;

	if (name <= strspn(arg, "-") || arg[name] != '=' || arg[name + 1] != '/')
		return sbx_view_translate(v, arg, out, len);
	if (name + 1 >= len)
		return -E2BIG;
	memcpy(out, arg, name + 1);
	return sbx_view_translate(v, arg + name + 1, out + name + 1, len - name - 1);
}

/* argv translated, in one allocation: the pointers, then the strings. */
static char **argv_translate(const struct sbx_view *v, char *const *argv)
{
	size_t n = 0, size;
	char **out, *s;

	while (argv[n])
		n++;
	size = (n + 1) * sizeof(char *) + n * PATH_MAX;
	out = calloc(1, size);
	if (!out)
		return NULL;
	s = (char *)(out + n + 1);
	for (size_t i = 0; i < n; i++, s += PATH_MAX) {
		if (sbx_view_translate_arg(v, argv[i], s, PATH_MAX) < 0) {
			free(out);
			errno = E2BIG;
			return NULL;
		}
		out[i] = s;
	}
	return out;
}

/* "/", each folder below it, then path itself (absolute): others may search each folder of them (a link is
 * passed over: where it leads is the caller's other walk). */
static bool searchable_down(char *path, char *blocker, size_t len)
{
	size_t n = strlen(path);

	for (size_t i = 0; i <= n; i++) {
		char c = path[i];
		const char *at = i ? path : "/";
		struct stat st;

		if (i < n && c != '/')
			continue;
		path[i] = '\0';
		if (lstat(at, &st) < 0 || (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))) {
			snprintf(blocker, len, "%s", at);
			return false;
		}
		path[i] = c;
	}
	return true;
}

int sbx_bare_can_reach(const char *path, char *blocker, size_t len)
{
	char lexical[PATH_MAX], real[PATH_MAX];

	snprintf(blocker, len, "%s", path);
	if (path[0] != '/')
		return -EINVAL;
	if ((size_t)snprintf(lexical, sizeof(lexical), "%s", path) >= sizeof(lexical))
		return -ENAMETOOLONG;
	if (!realpath(path, real))
		return -errno;
	/* the way the path is written (a link is read from its own folder), then where its links lead */
	return searchable_down(lexical, blocker, len) && searchable_down(real, blocker, len) ? 0 : -EACCES;
}

/* The scratch folder: made by us (root), then handed to the bare start's user, who is the only one to get in. */
static int scratch_make(const char *parent, struct sbx_bare *b, struct hx_err *err)
{
	if ((size_t)snprintf(b->scratch, sizeof(b->scratch), "%s/bare-XXXXXX", parent) >= sizeof(b->scratch))
		return hx_fail(err, HX_EXIT_USAGE, ENAMETOOLONG, "out of the sandbox: %s is too long a path", parent);
	if (!mkdtemp(b->scratch)) {
		b->scratch[0] = '\0';
		return hx_syserr(err, "out of the sandbox: a scratch folder in %s", parent);
	}
	snprintf(b->tmp, sizeof(b->tmp), "%s/tmp", b->scratch);
	snprintf(b->home, sizeof(b->home), "%s/home", b->scratch);
	if (mkdir(b->tmp, 0700) < 0 || mkdir(b->home, 0700) < 0 || chown(b->tmp, SBX_BARE_UID, SBX_BARE_GID) < 0 ||
	    chown(b->home, SBX_BARE_UID, SBX_BARE_GID) < 0 || chmod(b->scratch, 0711) < 0)
		return hx_syserr(err, "out of the sandbox: %s", b->scratch);
	return 0;
}

int sbx_bare_prepare(const struct sbx_config *c, struct sbx_bare **ret, struct hx_err *err)
{
	struct sbx_bare *b = calloc(1, sizeof(*b));
	struct sbx_view v;

	if (!b)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (scratch_make(c->bare_dir ? c->bare_dir : "/tmp", b, err) < 0 ||
	    sbx_view_make(&c->rootfs, b->tmp, b->home, &v, err) < 0)
		goto fail;
	if (sbx_view_translate(&v, c->cwd, b->cwd, sizeof(b->cwd)) < 0) {
		hx_fail(err, HX_EXIT_USAGE, E2BIG, "out of the sandbox: the working folder's host path is too long");
		goto fail;
	}
	for (; b->nenv < c->nenv; b->nenv++) {
		const char *eq = strchr(c->env[b->nenv], '=');
		int k = (int)(eq - c->env[b->nenv]) + 1;

		snprintf(b->env[b->nenv], SBX_ENV_LEN, "%.*s", k, c->env[b->nenv]);
		if (sbx_view_translate(&v, eq + 1, b->env[b->nenv] + k, SBX_ENV_LEN - (size_t)k) < 0) {
			hx_fail(err, HX_EXIT_USAGE, E2BIG, "out of the sandbox: %.*s's host paths are too long", k - 1,
				c->env[b->nenv]);
			goto fail;
		}
	}
	if (!(b->argv = argv_translate(&v, c->argv))) {
		hx_fail(err, errno == ENOMEM ? HX_EXIT_INTERNAL : HX_EXIT_USAGE, errno,
			"out of the sandbox: the command's host paths: %s", strerror(errno));
		goto fail;
	}
	*ret = b;
	return 0;
fail:
	if (b->scratch[0])
		sbx_bare_remove(b->scratch);
	sbx_bare_free(b);
	return -err->errnum;
}

void sbx_bare_free(struct sbx_bare *b)
{
	if (!b)
		return;
	free(b->argv);
	free(b);
}

/* Everything in the folder dfd, through descriptors: a name swapped for a link is removed, never followed. */
static void remove_in(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || (errno != EISDIR && errno != EPERM))
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			remove_in(sub);
		unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void sbx_bare_remove(const char *scratch)
{
	int fd = open(scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	remove_in(fd);
	rmdir(scratch);
}
