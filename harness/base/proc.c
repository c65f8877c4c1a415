/* Waiting for children: pidfds and poll, a WNOHANG loop as the fallback. */
#include "base/proc.h"

#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define PROC_MAX_WAIT 8

static int pidfd_open_once(pid_t pid)
{
	static int missing; /* ENOSYS once: the kernel is older than 5.3, do not ask again */
	int fd;

	if (missing)
		return -1;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 && errno == ENOSYS)
		missing = 1;
	return fd;
}

int proc_pidfd(pid_t pid)
{
	return pidfd_open_once(pid);
}

bool proc_wait_exits(int *fds, size_t n, int timeout_ms)
{
	unsigned long long end = util_now_ns() + (unsigned long long)timeout_ms * 1000000;
	bool all = true;

	for (size_t i = 0; i < n; i++) {
		struct pollfd p = {.fd = fds[i], .events = POLLIN};
		int r;

		if (fds[i] < 0) {
			all = false;
			continue;
		}
		/* a pidfd turns readable when its process exits; 0 means the deadline passed first */
		do {
			unsigned long long now = util_now_ns();

			r = poll(&p, 1, now < end ? (int)((end - now) / 1000000 + 1) : 0);
		} while (r < 0 && errno == EINTR);
		if (r <= 0)
			all = false;
		close(fds[i]);
		fds[i] = -1;
	}
	return all;
}

/* Reap whichever of pids has exited, without blocking: its index, or -1. */
static int reap_any(pid_t *pids, size_t n, int *ret_status)
{
	for (size_t i = 0; i < n; i++) {
		int status = 0;

		if (pids[i] > 0 && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
			pids[i] = -1;
			*ret_status = status;
			return (int)i;
		}
	}
	return -1;
}

/* How long to sleep in poll: until the deadline, at most 100 ms so that *stop is seen. */
static int poll_ms(unsigned long long deadline_ns, bool fallback)
{
	unsigned long long now = util_now_ns();
	unsigned long long cap = fallback ? 5 : 100;

	if (deadline_ns == 0)
		return (int)cap;
	if (now >= deadline_ns)
		return 0;
	return (int)((deadline_ns - now) / 1000000 + 1 < cap ? (deadline_ns - now) / 1000000 + 1 : cap);
}

int proc_wait_first(pid_t *pids, size_t n, unsigned long long deadline_ns, const volatile int *stop, int *ret_status)
{
	struct pollfd pfd[PROC_MAX_WAIT];
	size_t npfd = 0, live = 0;
	bool fallback = false;
	int rc;

	for (size_t i = 0; i < n && i < PROC_MAX_WAIT; i++) {
		pfd[i] = (struct pollfd){.fd = -1, .events = POLLIN};
		if (pids[i] <= 0)
			continue;
		live++;
		pfd[i].fd = pidfd_open_once(pids[i]);
		fallback |= pfd[i].fd < 0;
	}
	npfd = n < PROC_MAX_WAIT ? n : PROC_MAX_WAIT;
	if (!live)
		return -ECHILD;
	for (;;) {
		if ((rc = reap_any(pids, n, ret_status)) >= 0)
			break;
		if (stop && *stop) {
			rc = -EINTR;
			break;
		}
		if (deadline_ns && util_now_ns() >= deadline_ns) {
			rc = -ETIMEDOUT;
			break;
		}
		/* a readable pidfd: that child has exited; the reap above takes it on the next turn */
		if (poll(pfd, npfd, poll_ms(deadline_ns, fallback)) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
	}
	for (size_t i = 0; i < npfd; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return rc;
}

void proc_reap(pid_t *pid, int *ret_status)
{
	int status = 0;

	if (*pid > 0)
		while (waitpid(*pid, &status, 0) < 0 && errno == EINTR)
			;
	*pid = -1;
	if (ret_status)
		*ret_status = status;
}
