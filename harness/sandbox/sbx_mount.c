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

#include "base/util.h"

#define OLD "/.oldroot"

static const char *mnt_step;

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

/* Bind old-root path src at dst (creating a file or folder to mount on), then make it read-only
 * unless rw, keeping the source's nosuid/nodev/noexec. */
static int bind_at(const char *src, const char *dst, bool rw, bool optional)
{
	char from[PATH_MAX];
	struct stat st;
	struct statvfs sv;
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV;

	snprintf(from, sizeof(from), OLD "%s", src);
	if (stat(from, &st) < 0) {
		if (optional && errno == ENOENT)
			return 0;
		return mnt_fail("bind source");
	}
	if (S_ISDIR(st.st_mode)) {
		if (util_mkdir_p(dst, 0755) < 0)
			return mnt_fail("mkdir bind target");
	} else {
		char parent[PATH_MAX], *slash;

		snprintf(parent, sizeof(parent), "%s", dst);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			if (util_mkdir_p(parent, 0755) < 0)
				return mnt_fail("mkdir bind target");
		}
		if (write_text(dst, "") < 0 && errno != EEXIST)
			return mnt_fail("create bind target");
	}
	if (mount(from, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return mnt_fail("bind mount");
	if (statvfs(dst, &sv) == 0 && (sv.f_flag & ST_NOEXEC))
		flags |= MS_NOEXEC;
	if (!rw)
		flags |= MS_RDONLY;
	if (mount(NULL, dst, NULL, flags, NULL) < 0)
		return mnt_fail("remount bind read-only");
	return 0;
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
		 SBX_UID, SBX_GID);
	snprintf(group, sizeof(group), "root:x:0:\n" SBX_USER ":x:%d:\nnogroup:x:65534:\n", SBX_GID);
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
	char opts[128];
	int n;

	if (util_mkdir_p(dir, 0755) < 0)
		return mnt_fail("mkdir tmpfs");
	n = snprintf(opts, sizeof(opts), "mode=%o,size=%llu", (unsigned)mode, (unsigned long long)size);
	if (owned)
		snprintf(opts + n, sizeof(opts) - (size_t)n, ",uid=%d,gid=%d", SBX_UID, SBX_GID);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return mnt_fail("mount tmpfs");
	return 0;
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

static int proc_tree(void)
{
	if (mkdir("/proc", 0555) < 0 || mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return mnt_fail("mount /proc");
	return 0;
}

static int seal(void)
{
	if (umount2(OLD, MNT_DETACH) < 0 || rmdir(OLD) < 0)
		return mnt_fail("detach the old root");
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
		return mnt_fail("remount / read-only");
	return 0;
}

int sbx_mount_apply_in_child(const struct sbx_rootfs *r, const char **ret_step)
{
	int rc;

	mnt_step = "mount";
	if ((rc = pivot()) < 0 || (rc = bind_at("/usr", "/usr", false, false)) < 0 || (rc = usr_links()) < 0 ||
	    (rc = etc_files()) < 0)
		goto out;
	for (size_t i = 0; i < r->nbinds; i++)
		if ((rc = bind_at(r->binds[i].src, r->binds[i].dst, r->binds[i].rw, false)) < 0)
			goto out;
	if ((rc = proc_tree()) < 0 || (rc = dev_tree()) < 0 || (rc = tmpfs_at("/tmp", 01777, r->tmp_size, false)) < 0 ||
	    (rc = tmpfs_at(SBX_HOME, 0700, r->home_size, true)) < 0 ||
	    (rc = tmpfs_at("/run", 0755, 1 << 20, false)) < 0 ||
	    (r->data_dir && (rc = tmpfs_at(r->data_dir, 0700, r->data_size, true)) < 0))
		goto out;
	rc = seal();
out:
	*ret_step = mnt_step;
	return rc;
}
