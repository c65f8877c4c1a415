/* The run's network namespace: created by a short-lived child, kept alive by an fd, loopback only. */
#include "sandbox/sbx_net.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"

static int net_lo_up(void)
{
	_cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = {0};

	if (s < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	return 0;
}

int sbx_net_prepare(int *ret_fd, struct hx_err *err)
{
	int ready[2], hold[2];
	char path[64];
	pid_t pid;
	int fd = -1, e = 0;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return hx_syserr(err, "sandbox: network namespace: pipe");
	if (pipe2(hold, O_CLOEXEC) < 0) {
		close(ready[0]);
		close(ready[1]);
		return hx_syserr(err, "sandbox: network namespace: pipe");
	}
	pid = fork();
	if (pid == 0) {
		char c;

		close(ready[0]);
		close(hold[1]);
		e = unshare(CLONE_NEWNET) < 0 ? errno : -net_lo_up();
		if (write(ready[1], &e, sizeof(e)) != sizeof(e))
			_exit(1);
		/* stay until the parent has opened our namespace */
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (pid < 0) {
		close(ready[0]);
		close(hold[1]);
		return hx_syserr(err, "sandbox: network namespace: fork");
	}
	if (read(ready[0], &e, sizeof(e)) != sizeof(e))
		e = EIO;
	if (e == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			e = errno;
	}
	close(hold[1]);
	close(ready[0]);
	waitpid(pid, NULL, 0);
	if (e)
		return hx_fail(err, e == EPERM ? HX_EXIT_HOST : HX_EXIT_INTERNAL, e,
			       "sandbox: cannot create the run's network namespace: %s%s", strerror(e),
			       e == EPERM ? " (run as root)" : "");
	*ret_fd = fd;
	return 0;
}

static int net_write_reserved(int netns_fd, const char *list)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(list);

	/* /proc/sys/net answers for the namespace of whoever opens it */
	if (setns(netns_fd, CLONE_NEWNET) < 0)
		return errno;
	fd = open("/proc/sys/net/ipv4/ip_local_reserved_ports", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, list, len) != (ssize_t)len)
		return errno ? errno : EIO;
	return 0;
}

int sbx_net_reserve_ports(int netns_fd, const unsigned *ports, size_t n, struct hx_err *err)
{
	char list[1024] = "";
	size_t used = 0;
	int status = 0;
	pid_t pid;

	for (size_t i = 0; i < n && used < sizeof(list) - 8; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u", i ? "," : "", ports[i]);
	if (n == 0)
		return 0;
	pid = fork();
	if (pid < 0)
		return hx_syserr(err, "sandbox: network namespace: fork");
	if (pid == 0)
		_exit(net_write_reserved(netns_fd, list));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return hx_fail(err, HX_EXIT_HOST, WIFEXITED(status) ? WEXITSTATUS(status) : EIO,
			       "sandbox: cannot reserve the ports %s in the run's network namespace "
			       "(net.ipv4.ip_local_reserved_ports): %s",
			       list, WIFEXITED(status) ? strerror(WEXITSTATUS(status)) : "the child died");
	return 0;
}

int sbx_net_apply_in_child(int netns_fd)
{
	if (netns_fd == SBX_NET_OWN)
		return net_lo_up();
	return setns(netns_fd, CLONE_NEWNET) < 0 ? -errno : 0;
}

void sbx_net_cleanup(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
