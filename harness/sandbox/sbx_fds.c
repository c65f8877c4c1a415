/* Descriptor hygiene for sandboxes. The /proc walks are the fallback for kernels before close_range; they run
 * after the sandbox's own /proc is mounted, where /proc/self is this process. */
#include "sandbox/sbx_fds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static int fds_close_range(unsigned lo, unsigned hi, unsigned flags)
{
#ifdef SYS_close_range
	return (int)syscall(SYS_close_range, lo, hi, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static bool fds_kept(int fd, const int *keep, size_t nkeep)
{
	for (size_t i = 0; i < nkeep; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/* Apply cloexec (or close) to every open descriptor from 3 up that keep does not list. */
static int fds_walk(bool cloexec, const int *keep, size_t nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self;

	if (!d)
		return -errno;
	self = dirfd(d);
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd < 3 || fd == self || fds_kept((int)fd, keep, nkeep))
			continue;
		if (cloexec)
			fcntl((int)fd, F_SETFD, fcntl((int)fd, F_GETFD) | FD_CLOEXEC);
		else
			close((int)fd); /* closing does not disturb the directory stream's position */
	}
	closedir(d);
	return 0;
}

int sbx_fds_cloexec_from_3(void)
{
	if (fds_close_range(3, UINT_MAX, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -errno;
	return fds_walk(true, NULL, 0);
}

static int fds_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int sbx_fds_close_except(const int *keep, size_t nkeep)
{
	int sorted[16];
	unsigned lo = 3;

	if (nkeep > sizeof(sorted) / sizeof(sorted[0]))
		return -E2BIG;
	for (size_t i = 0; i < nkeep; i++)
		sorted[i] = keep[i];
	qsort(sorted, nkeep, sizeof(sorted[0]), fds_cmp);
	for (size_t i = 0; i <= nkeep; i++) {
		unsigned hi = i < nkeep ? (unsigned)sorted[i] : UINT_MAX;

		if (i < nkeep && sorted[i] < 3)
			continue;
		if (hi > lo && fds_close_range(lo, i < nkeep ? hi - 1 : hi, 0) < 0) {
			if (errno != ENOSYS)
				return -errno;
			return fds_walk(false, keep, nkeep);
		}
		if (i < nkeep && hi + 1 > lo)
			lo = hi + 1;
	}
	return 0;
}
