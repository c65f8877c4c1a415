/* The listener check: sockets listening on a port of the run's network namespace, matched by inode against
 * the "socket:[N]" descriptors of a slice's processes (/proc/<pid>/fd, read as root from the host). */
#include "run/owner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "sandbox/sbx_userns.h"

#define OWNER_MAX_PIDS 8192

void owner_parse_listeners(const char *text, unsigned port, struct owner_listener *ret, size_t *n)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char local[64], remote[64];
		unsigned st, lport, uid;
		unsigned long long inode;
		const char *colon;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %63s %63s %x %*s %*s %*s %u %*s %llu", local, remote, &st, &uid, &inode) != 5)
			continue; /* the header, or a line cut short */
		colon = strrchr(local, ':');
		if (!colon || sscanf(colon + 1, "%x", &lport) != 1 || st != 0x0A || lport != port || inode == 0)
			continue;
		if (*n < OWNER_MAX_LISTENERS)
			ret[(*n)++] = (struct owner_listener){.inode = inode, .uid = (uid_t)uid};
	}
}

/* In a child that joins netns: the listeners on port, written to fd as n then the array. */
static int listeners_in(int netns_fd, unsigned port, int fd)
{
	static const char *const files[] = {"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"};
	struct owner_listener l[OWNER_MAX_LISTENERS];
	size_t n = 0;

	if (setns(netns_fd, CLONE_NEWNET) < 0)
		return 1;
	for (size_t i = 0; i < HX_ARRAY_SIZE(files); i++) {
		FILE *f = fopen(files[i], "re");
		char line[512];

		if (!f)
			continue; /* no IPv6 in this kernel */
		while (fgets(line, sizeof(line), f))
			owner_parse_listeners(line, port, l, &n);
		fclose(f);
	}
	return write(fd, &n, sizeof(n)) == sizeof(n) && write(fd, l, n * sizeof(l[0])) == (ssize_t)(n * sizeof(l[0]))
		       ? 0
		       : 1;
}

static bool read_all(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t k = read(fd, (char *)buf + got, len - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

static int listeners(int netns_fd, unsigned port, struct owner_listener *l, size_t *n, struct hx_err *err)
{
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return hx_syserr(err, "listener check: pipe");
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(listeners_in(netns_fd, port, p[1]));
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return hx_syserr(err, "listener check: fork");
	}
	*n = 0;
	if (!read_all(p[0], n, sizeof(*n)) || *n > OWNER_MAX_LISTENERS || !read_all(p[0], l, *n * sizeof(l[0])))
		*n = SIZE_MAX;
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (*n == SIZE_MAX)
		return hx_fail(err, HX_EXIT_INTERNAL, EIO, "listener check: cannot read the run's sockets");
	return 0;
}

/* Whether process pid holds socket inode among its descriptors. */
static bool holds(pid_t pid, uint64_t inode)
{
	char path[64], want[48];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "socket:[%" PRIu64 "]", inode);
	if (!(d = opendir(path)))
		return false;
	while ((de = readdir(d))) {
		char link[64];
		ssize_t k;

		if (de->d_name[0] == '.')
			continue;
		k = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (k > 0 && (link[k] = '\0', strcmp(link, want) == 0))
			return true;
	}
	return false;
}

/* The process of slice s that holds inode, or -1. */
static pid_t holder_in(const struct cg_tree *t, enum cg_slice s, uint64_t inode, pid_t *pids)
{
	size_t n = cg_slice_pids(t, s, pids, OWNER_MAX_PIDS);

	for (size_t i = 0; i < n; i++)
		if (holds(pids[i], inode))
			return pids[i];
	return -1;
}

/* The verdict on a listener slice s does not hold, naming who does. */
static int not_served(const struct cg_tree *t, enum cg_slice s, const struct owner_listener *l, unsigned port,
		      const char *what, pid_t *pids, struct hx_err *err)
{
	const char *role = sbx_role_name_of_uid(l->uid);
	char comm[64] = "?", path[64];

	for (int o = 0; o < CG_NR_SLICES; o++) {
		pid_t pid = o == (int)s ? -1 : holder_in(t, (enum cg_slice)o, l->inode, pids);
		_cleanup_free_ char *text = NULL;

		if (pid < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (util_read_file(path, &text, NULL, &(struct hx_err){0}) == 0)
			snprintf(comm, sizeof(comm), "%s", util_rstrip(text));
		return hx_fail(err, HX_EXIT_VERDICT, EADDRINUSE,
			       "port %u is not only %s's: a listener there is held by pid %d (%s) in the %s slice, uid "
			       "%u%s%s%s",
			       port, what, (int)pid, comm, cg_slice_names[o], (unsigned)l->uid, role ? " (the " : "",
			       role ? role : "", role ? " role)" : "");
	}
	return hx_fail(err, HX_EXIT_VERDICT, EADDRINUSE,
		       "port %u is not only %s's: a listener there (socket %" PRIu64
		       ") is held by no process of the %s slice, uid %u%s%s%s",
		       port, what, l->inode, cg_slice_names[s], (unsigned)l->uid, role ? " (the " : "",
		       role ? role : "", role ? " role)" : "");
}

int owner_check(int netns_fd, unsigned port, const struct cg_tree *t, enum cg_slice s, const char *what,
		struct hx_err *err)
{
	struct owner_listener l[OWNER_MAX_LISTENERS];
	_cleanup_free_ pid_t *pids = calloc(OWNER_MAX_PIDS, sizeof(*pids));
	size_t n;

	if (!pids)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (listeners(netns_fd, port, l, &n, err) < 0)
		return -err->errnum;
	for (size_t i = 0; i < n; i++)
		if (holder_in(t, s, l[i].inode, pids) < 0)
			return not_served(t, s, &l[i], port, what, pids, err);
	return 0;
}
