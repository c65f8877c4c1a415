/* Small file and text helpers shared by every module. */
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/dl_ossl.h"
#include "base/esc.h"

int util_read_file(const char *path, char **ret, size_t *ret_len, struct hx_err *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	if (fd < 0)
		return hx_syserr(err, "open %s", path);
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *nbuf = realloc(buf, cap + 16384);

			if (!nbuf)
				return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "read %s: out of memory", path);
			buf = nbuf;
			cap += 16384;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return hx_syserr(err, "read %s", path);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret = steal_pointer(&buf);
	return 0;
}

const char *util_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "not a file";
	}
}

static void size_words(uint64_t n, char *buf, size_t len)
{
	if (n >= 1 << 20)
		snprintf(buf, len, "%.1f MiB", (double)n / (1 << 20));
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
}

int util_reopen(int pfd, int flags)
{
	char self[64];
	struct stat a, b;
	int fd;

	if (fstat(pfd, &a) < 0)
		return -errno;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &b) < 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int util_copy_sparse(int in, int out, uint64_t size)
{
	char buf[65536];
	off_t pos = 0;

	while ((uint64_t)pos < size) {
		off_t data = lseek(in, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* a hole to the end */
		if (data < 0)
			return -errno;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		for (pos = data; pos < hole;) {
			ssize_t n = pread(in, buf,
					  (size_t)(hole - pos) < sizeof(buf) ? (size_t)(hole - pos) : sizeof(buf), pos);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : 0; /* it shrank: what there was is copied */
			for (ssize_t off = 0, w; off < n; off += w)
				if ((w = pwrite(out, buf + off, (size_t)(n - off), pos + off)) < 0)
					return -errno;
			pos += n;
		}
	}
	return ftruncate(out, (off_t)size) < 0 ? -errno : 0;
}

/* The regular file behind an O_PATH descriptor, opened for reading (the same inode). */
static int reopen_regular(const char *path, int pfd, struct stat *st, struct hx_err *err)
{
	int fd;

	if (fstat(pfd, st) < 0)
		return hx_syserr(err, "%s", path);
	if (!S_ISREG(st->st_mode))
		return hx_fail(err, HX_EXIT_USAGE, EINVAL, "%s is %s, not a regular file: name the file itself", path,
			       util_file_kind(st->st_mode));
	fd = util_reopen(pfd, O_RDONLY | O_NONBLOCK);
	if (fd == -ESTALE)
		return hx_fail(err, HX_EXIT_USAGE, ESTALE, "%s changed while it was opened", path);
	if (fd < 0) {
		errno = -fd;
		return hx_syserr(err, "open %s", path);
	}
	return fd;
}

int util_read_input(const char *path, size_t max, char **ret, size_t *ret_len, struct hx_err *err)
{
	_cleanup_close_ int pfd = open(path, O_PATH | O_CLOEXEC), fd = -1;
	_cleanup_free_ char *buf = NULL;
	char have[32], cap[32];
	struct stat st;
	size_t len = 0;

	if (pfd < 0) {
		hx_syserr(err, "open %s", path);
		err->exit = HX_EXIT_USAGE; /* a file the user named: missing or unreadable is bad input */
		return -err->errnum;
	}
	if ((fd = reopen_regular(path, pfd, &st, err)) < 0)
		return fd;
	size_words(max, cap, sizeof(cap));
	if ((uint64_t)st.st_size > max) {
		size_words((uint64_t)st.st_size, have, sizeof(have));
		return hx_fail(err, HX_EXIT_USAGE, EFBIG, "%s is %s, more than the %s such a file may be", path, have,
			       cap);
	}
	/* the size it has now, plus one byte: a file that grows past max is refused, not read on */
	buf = malloc((size_t)st.st_size + 2);
	if (!buf)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "read %s: out of memory", path);
	for (;;) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return hx_syserr(err, "read %s", path);
		len += (size_t)n;
		if (n == 0 || len > (size_t)st.st_size)
			break;
	}
	if (len > (size_t)st.st_size)
		return hx_fail(err, HX_EXIT_USAGE, EFBIG, "%s grew while it was read: give a file nothing writes to",
			       path);
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret = steal_pointer(&buf);
	return 0;
}

char *util_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int util_read_line(const char *path, char **ret, struct hx_err *err)
{
	char *s;
	int r = util_read_file(path, &s, NULL, err);

	if (r < 0)
		return r;
	*ret = util_rstrip(s);
	return 0;
}

/* A path root owns and nobody else may write (st from lstat or fstat). */
static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int util_read_secret(const char *path, char **ret, struct hx_err *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	_cleanup_close_ int dfd = -1, fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	dfd = open(slash == path ? "/" : dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0)
		return hx_syserr(err, "%s", dir);
	if (!root_only(&st))
		return hx_fail(err, HX_EXIT_HOST, EPERM, "%s is not a folder only root can write", dir);
	fd = openat(dfd, slash ? slash + 1 : path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return hx_syserr(err, "%s", path);
	if (fstat(fd, &st) < 0)
		return hx_syserr(err, "%s", path);
	if (!S_ISREG(st.st_mode) || !root_only(&st) || st.st_size > 4096)
		return hx_fail(err, HX_EXIT_HOST, EPERM, "%s is not a small regular file only root can write", path);
	buf = calloc(1, (size_t)st.st_size + 1);
	if (!buf)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	do
		n = read(fd, buf, (size_t)st.st_size);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return hx_syserr(err, "read %s", path);
	buf[n] = '\0';
	*ret = util_rstrip(steal_pointer(&buf));
	return 0;
}

int util_read_u64(const char *path, uint64_t *ret, struct hx_err *err)
{
	_cleanup_free_ char *s = NULL;
	int r = util_read_line(path, &s, err);

	if (r < 0)
		return r;
	if (util_parse_u64(s, ret) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "%s: expected a number, read '%s'", path, s);
	return 0;
}

int util_write_file(const char *path, const char *value, struct hx_err *err)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return hx_syserr(err, "open %s", path);
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return hx_syserr(err, "write '%s' to %s", value, path);
	if ((size_t)n != len)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "write '%s' to %s: short write", value, path);
	return 0;
}

int util_create_at(int dirfd, const char *name, unsigned mode)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);

	if (fd < 0)
		return -errno;
	if (fchmod(fd, (mode_t)mode) < 0) { /* whatever the umask */
		int e = errno;

		close(fd);
		unlinkat(dirfd, name, 0);
		return -e;
	}
	return fd;
}

/* mkostemp(3)'s scheme relative to a directory fd: ".<base>.XXXXXX" with random letters, O_EXCL, so
 * nothing planted at a guessed name (a symlink, a file of another user) is ever opened. */
static int create_temp_at(int dirfd, const char *base, unsigned mode, char *name, size_t len)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[12];
		char suffix[13];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		for (size_t i = 0; i < sizeof(rnd); i++)
			suffix[i] = letters[rnd[i] % (sizeof(letters) - 1)];
		suffix[sizeof(rnd)] = '\0';
		if ((size_t)snprintf(name, len, ".%.200s.%s", base, suffix) >= len)
			return -ENAMETOOLONG;
		fd = util_create_at(dirfd, name, mode);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int util_write_atomic(const char *path, const void *data, size_t len, struct hx_err *err)
{
	char dir[PATH_MAX], tmp[256];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	_cleanup_close_ int dirfd = -1, fd = -1;
	int r;

	if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return hx_fail(err, HX_EXIT_USAGE, EISDIR, "%s: not a file name", path);
	if ((size_t)snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".") >=
	    sizeof(dir))
		return hx_fail(err, HX_EXIT_USAGE, ENAMETOOLONG, "%s: path too long", path);
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return hx_syserr(err, "save %s: open its folder", path);
	fd = create_temp_at(dirfd, base, 0644, tmp, sizeof(tmp));
	if (fd < 0) {
		errno = -fd;
		return hx_syserr(err, "save %s: create a temporary file", path);
	}
	r = write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	/* rename replaces whatever sits at the name (a symlink included) and follows nothing */
	if (r == 0 && renameat(dirfd, tmp, dirfd, base) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(dirfd, tmp, 0);
		errno = -r;
		return hx_syserr(err, "save %s", path);
	}
	fsync(dirfd); /* the rename itself survives a crash */
	return 0;
}

bool util_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int util_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int util_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "kmgt";
	char *end;
	double v;
	const char *u;
	double mult = 1;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v))
		return -EINVAL;
	if (*end && (u = strchr(units, tolower((unsigned char)*end)))) {
		mult = pow(1024.0, (double)(u - units + 1));
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v * mult >= 18446744073709551615.0)
		return -EINVAL;
	*ret = (uint64_t)(v * mult);
	return 0;
}

int util_parse_duration(const char *s, double *ret)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (strcmp(end, "ms") == 0)
		v /= 1000.0;
	else if (strcmp(end, "us") == 0)
		v /= 1e6;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		v *= 60.0;
	else if (strcmp(end, "h") == 0)
		v *= 3600.0;
	else if (*end && strcmp(end, "s") != 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int util_keyed_u64(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(p + klen + 1, &end, 10);
			if (errno || (*end && *end != '\n'))
				return -EINVAL;
			*ret = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

const char *util_self_exe(void)
{
	static char exe[4096];
	ssize_t n;

	if (!exe[0]) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
	}
	return exe[0] ? exe : NULL;
}

const char *util_data_dir(const char *env, const char *name, char *buf, size_t len)
{
	char exe[4096], *slash;

	if (getenv(env) && getenv(env)[0])
		return getenv(env);
	if (!util_self_exe())
		return name;
	snprintf(exe, sizeof(exe), "%s", util_self_exe());
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/../%s", exe, name);
	if (!util_exists(buf))
		snprintf(buf, len, "%s/../share/harness/%s", exe, name);
	return buf;
}

uint64_t util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int util_exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int util_capture(char *const argv[], char *out, size_t len)
{
	posix_spawn_file_actions_t fa;
	_cleanup_close_ int rd = -1;
	int p[2], rc, status;
	size_t got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	rd = p[0];
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0)
		return -rc;
	for (;;) {
		char sink[4096];
		ssize_t n = got + 1 < len ? read(rd, out + got, len - got - 1) : read(rd, sink, sizeof(sink));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (got + 1 < len)
			got += (size_t)n;
	}
	out[got] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return util_exit_code(status);
}

int util_read_until(int fd, uint64_t deadline_ns, char *out, size_t len)
{
	size_t got = 0;

	out[0] = '\0';
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t now = util_now_ns();
		char sink[4096];
		ssize_t n;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)((deadline_ns - now) / 1000000) + 1) < 0 && errno != EINTR)
			return -errno;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = got + 1 < len ? read(fd, out + got, len - got - 1) : read(fd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (got + 1 < len)
			got += (size_t)n;
		out[got] = '\0';
	}
}

int util_mkdir_p(const char *path, unsigned mode)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST ? -errno : 0;
}

int util_sha256_hex(const void *data, size_t len, char *hex, size_t hexlen)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (hexlen < 65 || EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1)
		return -EIO;
	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* The last lines of a log, for a trial that failed. The log is the payload's: only its end is read (a
 * flooded log costs no more than a quiet one), its control characters are shown escaped, and every line
 * after the first is indented, so nothing in it can pass for a line of harness's own. */
void util_log_tail(const char *path, char *buf, size_t len)
{
	char text[16384];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	_cleanup_free_ char *out = NULL;
	struct stat st;
	ssize_t n = 0;
	size_t o = 0, elen;
	const char *p;
	int lines = 0;

	buf[0] = '\0';
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	do
		n = pread(fd, text, sizeof(text) - 1,
			  st.st_size > (off_t)sizeof(text) - 1 ? st.st_size - (off_t)sizeof(text) + 1 : 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return;
	text[n] = '\0';
	util_rstrip(text);
	/* the last 8 lines of the raw text, then escaped: up to 4 bytes a byte, 5 a line feed (indented) */
	for (p = text + strlen(text); p > text && lines < 8; p--)
		if (p[-1] == '\n')
			lines++;
	if (*p == '\n')
		p++;
	elen = 5 * strlen(p) + 1;
	if (!(out = malloc(elen)))
		return;
	esc_term_lines(p, out, elen);
	o = strlen(out);
	/* the end is what explains a failure: keep it when the lines are longer than buf */
	snprintf(buf, len, "%s", o >= len ? out + o - (len - 1) : out);
}
