/* Building the sandbox root: tmpfs, pivot_root, read-only binds of /usr, a few /etc files, the
 * caller's binds, fresh /proc, a minimal /dev, size-limited /tmp and HOME, / read-only at the end. */
#include "sandbox/sbx_mount.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "base/util.h"
#include "sandbox/sbx_userns.h"

#define OLD SBX_OLD_ROOT

static const char *mnt_step;
/* the sandbox's user: /etc/passwd, HOME and the data folder are its (the child's own copy) */
static uid_t mnt_uid;
static gid_t mnt_gid;

static int mnt_fail(const char *step)
{
	mnt_step = step;
	return -errno;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* Mount flags of path as MS_* bits, to keep them across a remount. */
static unsigned long mnt_flags_of(const char *path)
{
	static const struct {
		unsigned long st, ms;
	} map[] = {{ST_RDONLY, MS_RDONLY},    {ST_NOSUID, MS_NOSUID},	{ST_NODEV, MS_NODEV},
		   {ST_NOEXEC, MS_NOEXEC},    {ST_NOATIME, MS_NOATIME}, {ST_NODIRATIME, MS_NODIRATIME},
		   {ST_RELATIME, MS_RELATIME}};
	struct statvfs sv;
	unsigned long ms = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sv.f_flag & map[i].st)
			ms |= map[i].ms;
	return ms;
}

/* Before Linux 5.12 (no mount_setattr): remount every mount at or below dst, found in mountinfo, with its own
 * flags plus set. Mount points in mountinfo escape space, tab, newline and backslash as octal. */
static int remount_walk(const char *dst, unsigned long set)
{
	FILE *f = fopen(OLD "/proc/self/mountinfo", "re");
	char line[4096];
	size_t n = strlen(dst);
	int rc = 0;

	if (!f)
		return mnt_fail("read mountinfo");
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char raw[PATH_MAX], mp[PATH_MAX], *o = mp;

		if (sscanf(line, "%*s %*s %*s %*s %4095s", raw) != 1)
			continue;
		for (const char *c = raw; *c && o < mp + sizeof(mp) - 1; c++)
			if (c[0] == '\\' && c[1] >= '0' && c[1] <= '3' && c[2] && c[3]) {
				*o++ = (char)((c[1] - '0') * 64 + (c[2] - '0') * 8 + (c[3] - '0'));
				c += 3;
			} else {
				*o++ = *c;
			}
		*o = '\0';
		if (strncmp(mp, dst, n) != 0 || (mp[n] != '\0' && mp[n] != '/'))
			continue;
		if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | mnt_flags_of(mp) | set, NULL) < 0)
			rc = mnt_fail("remount a submount");
	}
	fclose(f);
	return rc;
}

/* Read-only (unless rw), nosuid and nodev on dst and every mount below it; fd >= 0 is dst already opened (the
 * mount itself, not a path looked up again), else dst is resolved here. */
static int seal_subtree_at(int fd, const char *dst, bool rw)
{
	struct mount_attr a = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (rw ? 0 : MOUNT_ATTR_RDONLY)};
	int r = fd >= 0 ? mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a))
			: mount_setattr(AT_FDCWD, dst, AT_RECURSIVE | AT_SYMLINK_NOFOLLOW, &a, sizeof(a));

	if (r == 0)
		return 0;
	if (errno != ENOSYS)
		return mnt_fail("mount_setattr");
	return remount_walk(dst, MS_NOSUID | MS_NODEV | (rw ? 0 : MS_RDONLY));
}

static int seal_subtree(const char *dst, bool rw)
{
	return seal_subtree_at(-1, dst, rw);
}

/* Open (creating it, as a folder or an empty file) the bind target dst beneath the new root, one component at a
 * time and never through a symbolic link: a link in a tree bound earlier (a scenario's node_modules pointing at
 * /.oldroot/etc) must not turn the target into a host path. Returns an O_PATH descriptor or -errno. */
static int target_open(const char *dst, bool dir)
{
	char copy[PATH_MAX], *save = NULL, *name, *next;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	snprintf(copy, sizeof(copy), "%s", dst);
	if (strncmp(copy, OLD, strlen(OLD)) == 0 && (copy[strlen(OLD)] == '/' || copy[strlen(OLD)] == '\0'))
		return -EPERM; /* the old root is no place to mount on */
	name = strtok_r(copy, "/", &save);
	while (fd >= 0 && name) {
		int nfd;

		next = strtok_r(NULL, "/", &save);
		if (strcmp(name, "..") == 0 || strcmp(name, ".") == 0) {
			close(fd);
			return -EINVAL;
		}
		if (next || dir) {
			if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST)
				nfd = -1;
			else
				nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		} else {
			nfd = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (nfd < 0 && errno == EEXIST)
				nfd = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0) {
			int e = errno == ENOTDIR ? ELOOP : errno; /* O_DIRECTORY|O_NOFOLLOW on a link: ENOTDIR */

			close(fd);
			return -e;
		}
		close(fd);
		fd = nfd;
		name = next;
	}
	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
			close(fd);
			return -ELOOP;
		}
	}
	return fd < 0 ? -errno : fd;
}

/* Bind old-root path src at dst, the whole subtree (MS_REC), sealed (seal_subtree). */
static int bind_at(const char *src, const char *dst, bool rw, bool optional)
{
	char from[PATH_MAX], via[64];
	struct stat st;
	int tfd, rc;

	snprintf(from, sizeof(from), OLD "%s", src);
	if (stat(from, &st) < 0) {
		if (optional && errno == ENOENT)
			return 0;
		return mnt_fail("bind source");
	}
	tfd = target_open(dst, S_ISDIR(st.st_mode));
	if (tfd < 0) {
		errno = -tfd;
		return mnt_fail(tfd == -EPERM || tfd == -ELOOP || tfd == -EINVAL ? "bind target outside the new root"
										 : "create bind target");
	}
	/* mount on the very inode just checked, through its descriptor, not on a path that could change */
	snprintf(via, sizeof(via), OLD "/proc/self/fd/%d", tfd);
	rc = mount(from, via, NULL, MS_BIND | MS_REC, NULL);
	close(tfd);
	if (rc < 0)
		return mnt_fail("bind mount");
	/* seal the new mount through the same link-free walk, not a second lookup of dst by path */
	tfd = target_open(dst, S_ISDIR(st.st_mode));
	if (tfd < 0) {
		errno = -tfd;
		return mnt_fail("reopen bind target");
	}
	rc = seal_subtree_at(tfd, dst, rw);
	close(tfd);
	return rc;
}

/* Merged-usr hosts have /bin -> usr/bin symlinks: copy them; a real folder is bound read-only. */
static int usr_links(void)
{
	static const char *const tops[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		char from[PATH_MAX], target[PATH_MAX];
		struct stat st;
		ssize_t n;

		snprintf(from, sizeof(from), OLD "%s", tops[i]);
		if (lstat(from, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(from, target, sizeof(target) - 1);
			if (n < 0)
				return mnt_fail("readlink");
			target[n] = '\0';
			if (symlink(target, tops[i]) < 0)
				return mnt_fail("symlink");
		} else if (S_ISDIR(st.st_mode) && bind_at(tops[i], tops[i], false, false) < 0) {
			return -errno;
		}
	}
	return 0;
}

static int etc_files(void)
{
	char passwd[256], group[256];

	if (mkdir("/etc", 0755) < 0)
		return mnt_fail("mkdir /etc");
	snprintf(passwd, sizeof(passwd),
		 "root:x:0:0:root:/root:/bin/sh\n" SBX_USER ":x:%d:%d:" SBX_USER ":" SBX_HOME ":/bin/sh\n"
		 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		 (int)mnt_uid, (int)mnt_gid);
	snprintf(group, sizeof(group), "root:x:0:\n" SBX_USER ":x:%d:\nnogroup:x:65534:\n", (int)mnt_gid);
	if (write_text("/etc/passwd", passwd) < 0 || write_text("/etc/group", group) < 0 ||
	    write_text("/etc/hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n") < 0 ||
	    write_text("/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files\n") < 0 ||
	    write_text("/etc/resolv.conf", "") < 0 || write_text("/etc/hostname", "harness\n") < 0)
		return mnt_fail("write /etc");
	/* what programs and TLS need from the host's /etc, read-only */
	if (bind_at("/etc/ssl", "/etc/ssl", false, true) < 0 ||
	    bind_at("/etc/ca-certificates", "/etc/ca-certificates", false, true) < 0 ||
	    bind_at("/etc/alternatives", "/etc/alternatives", false, true) < 0 ||
	    bind_at("/etc/ld.so.cache", "/etc/ld.so.cache", false, true) < 0)
		return -errno;
	return 0;
}

static int dev_tree(void)
{
	static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
	static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
					       {"/proc/self/fd/0", "/dev/stdin"},
					       {"/proc/self/fd/1", "/dev/stdout"},
					       {"/proc/self/fd/2", "/dev/stderr"}};

	if (mkdir("/dev", 0755) < 0 || mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") < 0)
		return mnt_fail("mount /dev");
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		char from[64], to[64];

		snprintf(from, sizeof(from), OLD "/dev/%s", nodes[i]);
		snprintf(to, sizeof(to), "/dev/%s", nodes[i]);
		if (access(from, F_OK) < 0)
			continue;
		if (write_text(to, "") < 0 || mount(from, to, NULL, MS_BIND, NULL) < 0)
			return mnt_fail("bind /dev node");
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			return mnt_fail("symlink in /dev");
	if (mkdir("/dev/shm", 01777) < 0 ||
	    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=64m") < 0)
		return mnt_fail("mount /dev/shm");
	return 0;
}

static int tmpfs_at(const char *dir, mode_t mode, uint64_t size, bool owned)
{
	char opts[128], via[64];
	int n, fd, rc;

	/* beneath the new root like a bind target: a caller's bind at /home may hold links */
	fd = target_open(dir, true);
	if (fd < 0) {
		errno = -fd;
		return mnt_fail(fd == -EPERM || fd == -ELOOP || fd == -EINVAL ? "tmpfs target outside the new root"
									      : "mkdir tmpfs");
	}
	n = snprintf(opts, sizeof(opts), "mode=%o,size=%llu", (unsigned)mode, (unsigned long long)size);
	if (owned)
		snprintf(opts + n, sizeof(opts) - (size_t)n, ",uid=%d,gid=%d", (int)mnt_uid, (int)mnt_gid);
	snprintf(via, sizeof(via), OLD "/proc/self/fd/%d", fd);
	rc = mount("tmpfs", via, "tmpfs", MS_NOSUID | MS_NODEV, opts);
	close(fd);
	if (rc < 0)
		return mnt_fail("mount tmpfs");
	return 0;
}

/* dir as an overlay of lower (inside the new root) under a tmpfs of size bytes that takes the writes: a copy of
 * lower for the payload at the cost of what it changes, not of the whole of it, and those pages charged to the
 * writer's slice like any tmpfs page. The tmpfs goes on dir first and holds upper (the sandbox user's, 0700:
 * the overlay's root has its owner and mode) and work; the overlay then covers it. Copied-up files keep their
 * owner in lower. */
static int overlay_at(const char *dir, const char *lower, uint64_t size)
{
	char opts[3 * PATH_MAX + 64], upper[PATH_MAX], work[PATH_MAX];
	int rc;

	mnt_step = "mount the data overlay";
	if (strpbrk(lower, ",:\\") || strpbrk(dir, ",:\\")) /* the option string's separators */
		return errno = EINVAL, mnt_fail(mnt_step);
	if ((rc = tmpfs_at(dir, 0700, size, false)) < 0)
		return rc;
	snprintf(upper, sizeof(upper), "%s/upper", dir);
	snprintf(work, sizeof(work), "%s/work", dir);
	if (mkdir(upper, 0700) < 0 || chown(upper, mnt_uid, mnt_gid) < 0 || mkdir(work, 0700) < 0)
		return mnt_fail("the data overlay's folders");
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	if (mount("overlay", dir, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
		return mnt_fail("mount the data overlay");
	return 0;
}

/* The detached mount fd (made by harness, in no namespace) onto dir: a move, so no mount of the host's is
 * involved, and the caller's descriptor still reaches it after this namespace is gone. */
static int move_at(int fd, const char *dir)
{
	int tfd = target_open(dir, true), rc;

	if (tfd < 0) {
		errno = -tfd;
		return mnt_fail(tfd == -EPERM || tfd == -ELOOP || tfd == -EINVAL ? "scratch target outside the new root"
										 : "mkdir scratch");
	}
	rc = (int)syscall(SYS_move_mount, fd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	close(tfd);
	return rc < 0 ? mnt_fail("move the scratch tmpfs") : 0;
}

/* The new root is a tmpfs on /tmp of this (private) namespace; after pivot_root the host tree is at OLD. */
static int pivot(void)
{
	/* nothing we mount may propagate back to the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return mnt_fail("make mounts private");
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") < 0)
		return mnt_fail("mount the root tmpfs");
	if (mkdir("/tmp" OLD, 0700) < 0 || syscall(SYS_pivot_root, "/tmp", "/tmp" OLD) < 0 || chdir("/") < 0)
		return mnt_fail("pivot_root");
	return 0;
}

/* Docker's masked paths (moby's oci defaults), then ours: kernel addresses, other users' keys, the boot command
 * line, physical memory maps. Each is covered by an object of mode 0000 owned by root: EACCES for the payload.
 * Docker masks them from a container's root; here they are masked from a user who is never root. */
static const char *const sbx_proc_masked[] = {
	"/proc/asound",	    "/proc/acpi",	 "/proc/kcore",	      "/proc/keys",	   "/proc/latency_stats",
	"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",	   "/proc/kallsyms",
	"/proc/key-users",  "/proc/modules",	 "/proc/cmdline",     "/proc/iomem",	   "/proc/vmallocinfo",
	"/proc/slabinfo",   "/proc/kpagecount",	 "/proc/kpageflags",  "/proc/kpagecgroup", "/proc/config.gz",
};

/* Docker's read-only paths: the kernel's knobs, for a payload that somehow became root. */
static const char *const sbx_proc_readonly[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
						"/proc/sysrq-trigger"};

#define MASK_FILE "/.mask-file"
#define MASK_DIR  "/.mask-dir"

static int proc_mask(void)
{
	int fd = open(MASK_FILE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);

	if (fd < 0 || close(fd) < 0 || mkdir(MASK_DIR, 0) < 0 || chmod(MASK_DIR, 0) < 0)
		return mnt_fail("create /proc masks");
	for (size_t i = 0; i < sizeof(sbx_proc_masked) / sizeof(sbx_proc_masked[0]); i++) {
		struct stat st;

		/* not in this kernel, or already closed to all but root, which the payload never is (mounts cost
		 * ~15 us each on the sandbox's start) */
		if (lstat(sbx_proc_masked[i], &st) < 0 || !(st.st_mode & S_IRWXO))
			continue;
		if (mount(S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE, sbx_proc_masked[i], NULL, MS_BIND, NULL) < 0)
			return mnt_fail("mask /proc");
	}
	/* the masks stay mounted; their names leave the root */
	if (unlink(MASK_FILE) < 0 || rmdir(MASK_DIR) < 0)
		return mnt_fail("remove /proc masks");
	for (size_t i = 0; i < sizeof(sbx_proc_readonly) / sizeof(sbx_proc_readonly[0]); i++) {
		if (access(sbx_proc_readonly[i], F_OK) < 0)
			continue;
		if (mount(sbx_proc_readonly[i], sbx_proc_readonly[i], NULL, MS_BIND | MS_REC, NULL) < 0 ||
		    seal_subtree(sbx_proc_readonly[i], false) < 0)
			return mnt_fail("read-only /proc path");
	}
	return 0;
}

static int proc_tree(void)
{
	if (mkdir("/proc", 0555) < 0 || mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return mnt_fail("mount /proc");
	return proc_mask();
}

static int seal(void)
{
	if (umount2(OLD, MNT_DETACH) < 0 || rmdir(OLD) < 0)
		return mnt_fail("detach the old root");
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
		return mnt_fail("remount / read-only");
	return 0;
}

int sbx_mount_apply_in_child(const struct sbx_rootfs *r, uid_t uid, gid_t gid, const char **ret_step)
{
	int rc;

	mnt_step = "mount";
	mnt_uid = uid;
	mnt_gid = gid;
	if ((rc = pivot()) < 0 || (rc = bind_at("/usr", "/usr", false, false)) < 0 || (rc = usr_links()) < 0 ||
	    (rc = etc_files()) < 0)
		goto out;
	for (size_t i = 0; i < r->nbinds; i++)
		if ((rc = bind_at(r->binds[i].src, r->binds[i].dst, r->binds[i].rw, false)) < 0)
			goto out;
	if ((rc = proc_tree()) < 0 || (rc = dev_tree()) < 0 || (rc = tmpfs_at("/tmp", 01777, r->tmp_size, false)) < 0 ||
	    (rc = tmpfs_at(SBX_HOME, 0700, r->home_size, true)) < 0 ||
	    (rc = tmpfs_at("/run", 0755, 1 << 20, false)) < 0 ||
	    (r->data_dir && !r->data_lower && (rc = tmpfs_at(r->data_dir, 0700, r->data_size, true)) < 0) ||
	    (r->data_dir && r->data_lower && (rc = overlay_at(r->data_dir, r->data_lower, r->data_size)) < 0) ||
	    (r->mount_dst && (rc = move_at(r->mount_fd, r->mount_dst)) < 0))
		goto out;
	rc = seal();
out:
	*ret_step = mnt_step;
	return rc;
}
