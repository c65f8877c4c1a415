/* Small file and text helpers shared by every module. */
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"

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

int util_write_atomic(const char *path, const void *data, size_t len, struct hx_err *err)
{
	char tmp[4096];
	const char *p = data;
	_cleanup_close_ int fd = -1;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp))
		return hx_fail(err, HX_EXIT_USAGE, ENAMETOOLONG, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return hx_syserr(err, "create %s", tmp);
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			hx_syserr(err, "write %s", tmp);
			unlink(tmp);
			return -err->errnum;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0 || rename(tmp, path) < 0) {
		hx_syserr(err, "save %s", path);
		unlink(tmp);
		return -err->errnum;
	}
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

const char *util_data_dir(const char *env, const char *name, char *buf, size_t len)
{
	char exe[4096], *slash;
	ssize_t n;

	if (getenv(env) && getenv(env)[0])
		return getenv(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return name;
	exe[n] = '\0';
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

/* The last lines of a log, for a trial that failed. */
void util_log_tail(const char *path, char *buf, size_t len)
{
	_cleanup_free_ char *text = NULL;
	struct hx_err err = {0};
	size_t n;
	const char *p;
	int lines = 0;

	buf[0] = '\0';
	if (util_read_file(path, &text, &n, &err) < 0 || n == 0)
		return;
	util_rstrip(text);
	n = strlen(text);
	for (p = text + n; p > text && lines < 8; p--)
		if (p[-1] == '\n')
			lines++;
	snprintf(buf, len, "%s", p);
}
