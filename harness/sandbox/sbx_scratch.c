/* The scratch tmpfs of a prepare step or an install, and its copy into the cache (sbx_scratch.h). */
#include "sandbox/sbx_scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "base/cleanup.h"
#include "base/util.h"

/* Deeper than any node_modules tree; each level holds two descriptors. */
#define SCRATCH_MAX_DEPTH 128

static int fs_set(int fs, const char *key, const char *value)
{
	return (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, value, 0);
}

/* A tmpfs in no mount namespace (Linux >= 5.2): size bytes, SBX_SCRATCH_INODES inodes, its root uid:gid's. */
static int tmpfs_detached(uint64_t size, uid_t uid, gid_t gid)
{
	char num[32], u[16], g[16];
	_cleanup_close_ int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	int fd;

	if (fs < 0)
		return -errno;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)size);
	snprintf(u, sizeof(u), "%u", (unsigned)uid);
	snprintf(g, sizeof(g), "%u", (unsigned)gid);
	if (fs_set(fs, "size", num) < 0 || fs_set(fs, "mode", "0700") < 0 || fs_set(fs, "uid", u) < 0 ||
	    fs_set(fs, "gid", g) < 0 ||
	    (snprintf(num, sizeof(num), "%d", SBX_SCRATCH_INODES), fs_set(fs, "nr_inodes", num)) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	fd = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	return fd < 0 ? -errno : fd;
}

int sbx_scratch_open(struct sbx_scratch *s, const char *dir, uint64_t size, uid_t uid, gid_t gid, const char *what,
		     struct hx_err *err)
{
	/* rootless too: harness's mount namespace is its user namespace's own (sbx_userns_enter) */
	int fd = tmpfs_detached(size, uid, gid);

	*s = (struct sbx_scratch){.mnt_fd = -1, .size = size, .what = what};
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	if (fd >= 0) {
		s->mnt_fd = fd;
		snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", fd);
		return 0;
	}
	/* no new mount here (rootless: no CAP_SYS_ADMIN; before Linux 5.2: no fsopen): the folder itself */
	if (fd != -EPERM && fd != -ENOSYS)
		return errno = -fd, hx_syserr(err, "%s: a tmpfs of %llu bytes", what, (unsigned long long)size);
	if (chown(dir, uid, gid) < 0 || chmod(dir, 0700) < 0)
		return hx_syserr(err, "%s: %s", what, dir);
	return 0;
}

int sbx_scratch_lend(struct sbx_scratch *s, struct sbx_config *c, const char *dst, struct hx_err *err)
{
	if (s->mnt_fd >= 0) {
		c->rootfs.mount_fd = s->mnt_fd;
		c->rootfs.mount_dst = dst;
		return 0;
	}
	if (c->rootfs.nbinds >= SBX_MAX_BINDS)
		return hx_fail(err, HX_EXIT_INTERNAL, E2BIG, "%s: no bind left", s->what);
	c->rootfs.binds[c->rootfs.nbinds++] = (struct sbx_bind){.src = s->dir, .dst = dst, .rw = true};
	return 0;
}

const char *sbx_scratch_path(const struct sbx_scratch *s)
{
	return s->mnt_fd >= 0 ? s->path : s->dir;
}

bool sbx_scratch_full(const struct sbx_scratch *s)
{
	struct statfs f;

	/* a tmpfs's free blocks are exact: none left (or less than a page) is a write that ran out */
	return s->mnt_fd >= 0 && fstatfs(s->mnt_fd, &f) == 0 &&
	       ((uint64_t)f.f_bavail * (uint64_t)f.f_bsize < 4096 || (f.f_files && f.f_ffree == 0));
}

/* The bytes a name costs: its blocks, as tmpfs counts them (a sparse file's holes, an empty file, a folder and a
 * short link are free there): a copy charged more than that would refuse a step that kept within its size. */
static uint64_t cost(const struct stat *st)
{
	return (uint64_t)st->st_blocks * 512;
}

/* A file with more than one name, copied once: its other names become links to that copy (bun's installs link
 * node_modules to its cache), so the copy is no larger than the tmpfs was. */
struct seen {
	dev_t dev;
	ino_t ino;
	char *rel; /* the copy's path below the root */
};

struct copy {
	int root; /* the copy's root */
	uint64_t left;
	struct seen *seen;
	size_t nseen, cap;
	char rel[PATH_MAX]; /* the folder being copied, below the root ("" or "a/b/") */
};

static const struct seen *seen_find(const struct copy *k, const struct stat *st)
{
	for (size_t i = 0; i < k->nseen; i++)
		if (k->seen[i].ino == st->st_ino && k->seen[i].dev == st->st_dev)
			return &k->seen[i];
	return NULL;
}

static int seen_add(struct copy *k, const struct stat *st, const char *name)
{
	char rel[PATH_MAX];

	if (k->nseen == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 256;
		struct seen *n = realloc(k->seen, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		k->seen = n;
		k->cap = cap;
	}
	if ((size_t)snprintf(rel, sizeof(rel), "%s%s", k->rel, name) >= sizeof(rel))
		return -ENAMETOOLONG; /* a cut path would link another file */
	if (!(k->seen[k->nseen].rel = strdup(rel)))
		return -ENOMEM;
	k->seen[k->nseen].dev = st->st_dev;
	k->seen[k->nseen++].ino = st->st_ino;
	return 0;
}

static int copy_tree(int from, int to, unsigned depth, struct copy *k);

static int copy_dir(int from, int to, const char *name, const struct stat *st, unsigned depth, struct copy *k)
{
	_cleanup_close_ int in = -1, out = -1;
	size_t used = strlen(k->rel);
	int rc;

	if (depth >= SCRATCH_MAX_DEPTH || used + strlen(name) + 2 >= sizeof(k->rel))
		return -ELOOP;
	if (mkdirat(to, name, 0700) < 0 ||
	    (in = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (out = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	snprintf(k->rel + used, sizeof(k->rel) - used, "%s/", name);
	rc = copy_tree(in, out, depth + 1, k);
	k->rel[used] = '\0';
	return rc < 0 ? rc : fchmod(out, st->st_mode & 0777) < 0 ? -errno : 0;
}

static int copy_file(int from, int to, const char *name, const struct stat *st, struct copy *k)
{
	_cleanup_close_ int in = -1, out = -1;
	const struct seen *first = st->st_nlink > 1 ? seen_find(k, st) : NULL;
	int rc;

	if (first)
		return linkat(k->root, first->rel, to, name, 0) < 0 ? -errno : 0;
	if (cost(st) > k->left)
		return -EFBIG;
	k->left -= cost(st);
	if ((in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	    (out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st->st_mode & 0777)) < 0)
		return -errno;
	if (st->st_nlink > 1 && (rc = seen_add(k, st, name)) < 0)
		return rc;
	return util_copy_sparse(in, out, (uint64_t)st->st_size);
}

/* One entry of from into to (its name kept); a folder's contents too. */
static int copy_entry(int from, int to, const char *name, unsigned depth, struct copy *k)
{
	struct stat st;
	char target[PATH_MAX];
	ssize_t n;

	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		return copy_file(from, to, name, &st, k);
	if (cost(&st) > k->left)
		return -EFBIG;
	k->left -= cost(&st);
	if (S_ISDIR(st.st_mode))
		return copy_dir(from, to, name, &st, depth, k);
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(from, name, target, sizeof(target) - 1)) < 0)
			return -errno;
		target[n] = '\0';
		return symlinkat(target, to, name) < 0 ? -errno : 0;
	}
	return 0; /* a FIFO or a socket: nothing a later trial could read as state */
}

static int copy_tree(int from, int to, unsigned depth, struct copy *k)
{
	int dup_fd = fcntl(from, F_DUPFD_CLOEXEC, 3);
	_cleanup_closedir_ DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -errno;
	}
	while ((errno = 0, de = readdir(d))) {
		int rc;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((rc = copy_entry(from, to, de->d_name, depth, k)) < 0)
			return rc;
	}
	return errno ? -errno : 0;
}

static uint64_t fallback_used;

/* nftw visits every name: a file's blocks shared among its names (bun links its cache into node_modules) */
static int add_cost(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path, (void)flag, (void)ftw;
	fallback_used += cost(st) / (S_ISREG(st->st_mode) && st->st_nlink > 1 ? st->st_nlink : 1);
	return 0;
}

static int too_big(const struct sbx_scratch *s, const char *fix, struct hx_err *err)
{
	return hx_fail(err, HX_EXIT_USAGE, EFBIG, "%s wrote past its limit of %llu MiB (%s)", s->what,
		       (unsigned long long)(s->size >> 20), fix);
}

int sbx_scratch_ran_out(const struct sbx_scratch *s, const char *log, const char *fix, struct hx_err *err)
{
	static const char *const said[] = {"ENOSPC", "no space left on device", "os error 28"};
	bool ran_out = false;

	for (size_t i = 0; log && i < sizeof(said) / sizeof(said[0]); i++)
		ran_out = ran_out || strcasestr(log, said[i]);
	if (!ran_out)
		return 0;
	err->exit = HX_EXIT_USAGE;
	err->errnum = ENOSPC;
	return hx_wrap(
		err,
		"%s ran out of space and removed what it wrote (its output says no space was left on a device, most "
		"likely its limit of %llu MiB: %s)",
		s->what, (unsigned long long)(s->size >> 20), fix);
}

int sbx_scratch_finish(struct sbx_scratch *s, const char *fix, struct hx_err *err)
{
	_cleanup_close_ int from = -1, to = -1;
	struct copy k = {.left = s->size};
	int rc;

	if (s->mnt_fd < 0) { /* the fallback: the folder is the entry; only its size is checked */
		fallback_used = 0;
		if (nftw(s->dir, add_cost, 16, FTW_PHYS) != 0)
			return hx_syserr(err, "%s: %s", s->what, s->dir);
		return fallback_used > s->size ? too_big(s, fix, err) : 0;
	}
	if (sbx_scratch_full(s))
		return too_big(s, fix, err);
	/* fsmount's descriptor is an O_PATH one: the root opened through it can be read */
	if ((from = openat(s->mnt_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (to = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return hx_syserr(err, "%s: %s", s->what, s->dir);
	k.root = to;
	rc = copy_tree(from, to, 0, &k);
	for (size_t i = 0; i < k.nseen; i++)
		free(k.seen[i].rel);
	free(k.seen);
	if (rc == -EFBIG)
		return too_big(s, fix, err);
	if (rc == -ELOOP || rc == -ENAMETOOLONG) /* the step's tree, not harness */
		return hx_fail(err, HX_EXIT_USAGE, -rc,
			       "%s left a tree deeper than %d folders or a path longer than %d bytes: keep what it "
			       "writes shallower",
			       s->what, SCRATCH_MAX_DEPTH, PATH_MAX - 1);
	if (rc < 0)
		return errno = -rc, hx_syserr(err, "%s: copying it to %s", s->what, s->dir);
	return 0;
}

void sbx_scratch_close(struct sbx_scratch *s)
{
	if (s->mnt_fd >= 0)
		close(s->mnt_fd); /* the tmpfs and its pages go with the last reference */
	s->mnt_fd = -1;
}
