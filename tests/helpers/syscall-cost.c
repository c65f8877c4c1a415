/* syscall-cost [N]: nanoseconds per call of getppid, which the sandbox's seccomp filter lets the kernel answer from
 * its per-syscall cache, and of ioctl(FIONREAD) on a pipe, whose arguments the filter checks (the whole filter runs
 * for it); the median of 9 batches of N calls each (default 200000). In and out of the sandbox, the difference is
 * what the filter costs per call (make bench-sandbox-effect). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 9

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double per_call(long n, int which, int fd)
{
	double v[BATCHES];

	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();
		int avail;

		for (long i = 0; i < n; i++)
			if (which == 0)
				syscall(SYS_getppid);
			else
				ioctl(fd, FIONREAD, &avail);
		v[b] = (now_ns() - t0) / (double)n;
	}
	qsort(v, BATCHES, sizeof(v[0]), cmp);
	return v[BATCHES / 2];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	int p[2];

	if (n <= 0 || pipe(p) < 0) {
		fprintf(stderr, "usage: syscall-cost [N]\n");
		return 2;
	}
	printf("getppid %.1f\n", per_call(n, 0, p[0]));
	printf("ioctl %.1f\n", per_call(n, 1, p[0]));
	return 0;
}
