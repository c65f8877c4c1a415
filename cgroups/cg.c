/* The cgroup front API: run trees, slices, spawning into a slice, stats, teardown and gc. */
#include "cgroups/cg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/proc.h"
#include "base/util.h"
#include "cgroups/cg_internal.h"

const struct cg_file_def cg_files[CG_NR_FILES] = {
	[CG_F_CPUS] = {"CPU set", CG_CTRL_CPUSET, "cpuset.cpus", "cpuset.cpus"},
	[CG_F_MEMS] = {"memory node set", CG_CTRL_CPUSET, "cpuset.mems", "cpuset.mems"},
	[CG_F_CPU_QUOTA] = {"CPU quota", CG_CTRL_CPU, "cpu.max", "cpu.cfs_quota_us"},
	[CG_F_CPU_PERIOD] = {"CPU quota period", CG_CTRL_CPU, NULL, "cpu.cfs_period_us"},
	[CG_F_MEMORY_MAX] = {"memory limit", CG_CTRL_MEMORY, "memory.max", "memory.limit_in_bytes"},
	[CG_F_MEMORY_HIGH] = {"memory high mark", CG_CTRL_MEMORY, "memory.high", NULL},
	[CG_F_SWAP_MAX] = {"swap limit", CG_CTRL_MEMORY, "memory.swap.max", "memory.memsw.limit_in_bytes"},
	[CG_F_PIDS_MAX] = {"process limit", CG_CTRL_PIDS, "pids.max", "pids.max"},
	[CG_F_CPU_STAT] = {"CPU statistics", CG_CTRL_CPU, "cpu.stat", "cpu.stat"},
	[CG_F_CPU_USER] = {"user CPU time", CG_CTRL_CPUACCT, NULL, "cpuacct.usage_user"},
	[CG_F_CPU_SYSTEM] = {"system CPU time", CG_CTRL_CPUACCT, NULL, "cpuacct.usage_sys"},
	[CG_F_MEMORY_CURRENT] = {"memory usage", CG_CTRL_MEMORY, "memory.current", "memory.usage_in_bytes"},
	[CG_F_MEMORY_PEAK] = {"peak memory", CG_CTRL_MEMORY, "memory.peak", "memory.max_usage_in_bytes"},
	[CG_F_MEMORY_EVENTS] = {"OOM events", CG_CTRL_MEMORY, "memory.events", "memory.oom_control"},
	[CG_F_PIDS_CURRENT] = {"process count", CG_CTRL_PIDS, "pids.current", "pids.current"},
	[CG_F_PIDS_PEAK] = {"peak process count", CG_CTRL_PIDS, "pids.peak", "pids.peak"},
	[CG_F_PARTITION] = {"CPU partition", CG_CTRL_CPUSET, "cpuset.cpus.partition", NULL},
	[CG_F_CPU_EXCLUSIVE] = {"exclusive CPU set", CG_CTRL_CPUSET, NULL, "cpuset.cpu_exclusive"},
};

const char *const cg_stat_names[CG_NR_STATS] = {
	"cpu_user_usec",  "cpu_system_usec",	  "nr_periods",	       "nr_throttled",
	"throttled_usec", "memory_current_bytes", "memory_peak_bytes", "oom",
	"oom_kill",	  "pids_current",	  "pids_peak",
};
const char *const cg_psi_names[CG_NR_PSI] = {"cpu", "memory", "io"};

int cg_path(const struct cg_tree *t, const char *base, int slice, const char *file, char *buf, size_t len,
	    struct hx_err *err)
{
	int n = snprintf(buf, len, "%s/%s%s%s%s%s", base, t->run_id, slice >= 0 ? "/" : "",
			 slice >= 0 ? cg_slice_names[slice] : "", file ? "/" : "", file ? file : "");

	if (n < 0 || (size_t)n >= len)
		return hx_fail(err, HX_EXIT_INTERNAL, ENAMETOOLONG, "cgroup path too long under %s", base);
	return 0;
}

int cg_file_path(const struct cg_tree *t, int slice, enum cg_file f, char *buf, size_t len, struct hx_err *err)
{
	const struct cg_file_def *d = &cg_files[f];
	bool v2 = t->be == &cg_backend_v2;
	const char *name = v2 ? d->v2 : d->v1;
	const char *base = v2 ? t->ubase : t->base[d->ctrl];

	if (!name || !base[0])
		return hx_fail(err, HX_EXIT_HOST, ENOTSUP,
			       "this host's %s backend has no %s (the %s controller is not available to harness)",
			       t->be->name, d->what, cg_ctrl_names[d->ctrl]);
	if (cg_path(t, base, slice, name, buf, len, err) < 0)
		return -err->errnum;
	if (!util_exists(buf))
		return hx_fail(err, HX_EXIT_HOST, ENOTSUP, "this kernel has no %s (%s is missing)", d->what, buf);
	return 0;
}

int cg_write_file(const struct cg_tree *t, int slice, enum cg_file f, const char *value, struct hx_err *err)
{
	char path[PATH_MAX];

	if (cg_file_path(t, slice, f, path, sizeof(path), err) < 0)
		return -err->errnum;
	return util_write_file(path, value, err);
}

int cg_read_file(const struct cg_tree *t, int slice, enum cg_file f, char **ret)
{
	struct hx_err err = {0};
	char path[PATH_MAX];

	if (cg_file_path(t, slice, f, path, sizeof(path), &err) < 0)
		return -ENOENT;
	if (util_read_file(path, ret, NULL, &err) < 0)
		return -err.errnum;
	return 0;
}

int cg_move_pid(const char *dir, pid_t pid, struct hx_err *err)
{
	char path[PATH_MAX], val[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(val, sizeof(val), "%d", (int)pid);
	return util_write_file(path, val, err);
}

int cg_rmdir(const char *path)
{
	for (int i = 0; i < 2000; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(500);
	}
	return -EBUSY;
}

void cg_stat_set(struct cg_stats *st, enum cg_stat k, uint64_t v)
{
	st->v[k] = v;
	st->have[k] = true;
}

/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=123\nfull avg10=... total=..." */
void cg_read_psi(const char *dir, struct cg_stats *st)
{
	for (int r = 0; r < CG_NR_PSI; r++) {
		struct hx_err err = {0};
		char path[PATH_MAX];
		_cleanup_free_ char *text = NULL;
		struct cg_psi *p = &st->psi[r];
		const char *full;
		unsigned long long total;

		snprintf(path, sizeof(path), "%s/%s.pressure", dir, cg_psi_names[r]);
		if (util_read_file(path, &text, NULL, &err) < 0)
			continue;
		if (sscanf(text, "some avg10=%lf avg60=%*f avg300=%*f total=%llu", &p->some_avg10, &total) != 2)
			continue;
		p->some_total_usec = total;
		p->have = true;
		full = strstr(text, "full ");
		if (full &&
		    sscanf(full, "full avg10=%lf avg60=%*f avg300=%*f total=%llu", &p->full_avg10, &total) == 2) {
			p->full_total_usec = total;
			p->have_full = true;
		}
	}
}

/* Field 22 of /proc/PID/stat: start time in clock ticks since boot. */
static int proc_start_time(pid_t pid, unsigned long long *ret)
{
	struct hx_err err = {0};
	char path[64];
	_cleanup_free_ char *text = NULL;
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (util_read_file(path, &text, NULL, &err) < 0)
		return -err.errnum;
	p = strrchr(text, ')'); /* the command name may hold spaces and parentheses */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", ret) != 1)
		return -EINVAL;
	return 0;
}

/* A tag is short, starts with a letter and holds only [a-z0-9], so a run id stays a plain file name
 * and still ends in "-<pid>-<start>". */
static bool tag_ok(const char *tag)
{
	size_t n = strlen(tag);

	if (n == 0 || n > CG_TAG_MAX || tag[0] < 'a' || tag[0] > 'z')
		return false;
	return strspn(tag, "abcdefghijklmnopqrstuvwxyz0123456789") == n;
}

int cg_run_tag(const char **ret, struct hx_err *err)
{
	const char *tag = getenv("HARNESS_RUN_TAG");

	*ret = NULL;
	if (!tag || !*tag)
		return 0;
	if (!tag_ok(tag))
		return hx_fail(
			err, HX_EXIT_USAGE, EINVAL,
			"HARNESS_RUN_TAG must be 1-%d lowercase letters or digits starting with a letter, not '%s'",
			CG_TAG_MAX, tag);
	*ret = tag;
	return 0;
}

void cg_run_id_format(char *buf, size_t len, const char *tag, pid_t pid, unsigned long long start)
{
	if (tag)
		snprintf(buf, len, "harness-%s-%d-%llu", tag, (int)pid, start);
	else
		snprintf(buf, len, "harness-%d-%llu", (int)pid, start);
}

int cg_run_id_parse(const char *name, char *ret_tag, size_t tag_len, pid_t *ret_pid, unsigned long long *ret_start)
{
	const char *rest, *dash;
	char tag[CG_TAG_MAX + 1] = "";
	int pid, used = 0;
	unsigned long long start;

	if (strncmp(name, "harness-", 8) != 0)
		return -EINVAL;
	rest = name + 8;
	if (rest[0] >= 'a' && rest[0] <= 'z') {
		dash = strchr(rest, '-');
		if (!dash || (size_t)(dash - rest) > CG_TAG_MAX)
			return -EINVAL;
		memcpy(tag, rest, (size_t)(dash - rest));
		tag[dash - rest] = '\0';
		if (!tag_ok(tag))
			return -EINVAL;
		rest = dash + 1;
	}
	if (rest[0] < '1' || rest[0] > '9' || sscanf(rest, "%d-%llu%n", &pid, &start, &used) != 2 || pid <= 0 ||
	    rest[used] != '\0')
		return -EINVAL;
	if (ret_tag)
		snprintf(ret_tag, tag_len, "%s", tag);
	*ret_pid = pid;
	*ret_start = start;
	return 0;
}

int cg_run_id(char *buf, size_t len, struct hx_err *err)
{
	unsigned long long start;
	const char *tag;
	int r = proc_start_time(getpid(), &start);

	if (r < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, -r, "cannot read our own start time from /proc/self/stat");
	if (cg_run_tag(&tag, err) < 0)
		return -err->errnum;
	cg_run_id_format(buf, len, tag, getpid(), start);
	return 0;
}

static int tree_bases(struct cg_tree *t, const char *root_override, struct hx_err *err)
{
	const struct cg_host *h = t->host;

	for (int c = 0; c < CG_NR_CTRLS; c++) {
		struct cg_hier hi = h->v1[c];

		if (!hi.mounted)
			continue;
		if (root_override)
			snprintf(hi.self, sizeof(hi.self), "%s", root_override);
		if (cg_hier_dir(&hi, t->base[c], sizeof(t->base[c]), err) < 0)
			return hx_wrap(err, "%s hierarchy", cg_ctrl_names[c]);
	}
	if (h->unified.mounted) {
		struct cg_hier hi = h->unified;

		if (root_override)
			snprintf(hi.self, sizeof(hi.self), "%s", root_override);
		if (cg_hier_dir(&hi, t->ubase, sizeof(t->ubase), err) < 0) {
			if (h->mode == CG_MODE_UNIFIED)
				return hx_wrap(err, "unified hierarchy");
			t->ubase[0] = '\0'; /* a hybrid host without a usable mirror: no cgroup.kill, no PSI */
			hx_clear(err);
		}
	}
	return 0;
}

static int tree_new(const char *run_id, const char *root_override, unsigned slices, struct cg_tree **ret,
		    struct hx_err *err)
{
	const struct cg_host *h;
	_cleanup_free_ struct cg_tree *t = NULL;

	if (cg_host_get(&h, err) < 0)
		return -err->errnum;
	if (h->mode == CG_MODE_NONE)
		return hx_fail(err, HX_EXIT_HOST, ENOENT,
			       "no cgroup file system is mounted: mount cgroup2 on /sys/fs/cgroup");
	if (root_override && root_override[0] != '/')
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "--cgroup-root takes a cgroup path starting with '/', not '%s'", root_override);
	t = calloc(1, sizeof(*t));
	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	t->host = h;
	t->be = h->mode == CG_MODE_UNIFIED ? &cg_backend_v2 : &cg_backend_v1;
	t->slices = slices;
	snprintf(t->run_id, sizeof(t->run_id), "%s", run_id);
	if (tree_bases(t, root_override, err) < 0)
		return -err->errnum;
	*ret = steal_pointer(&t);
	return 0;
}

int cg_tree_create(const char *run_id, const char *root_override, unsigned slices, struct cg_tree **ret,
		   struct hx_err *err)
{
	struct cg_tree *t = NULL;

	if (tree_new(run_id, root_override, slices, &t, err) < 0)
		return -err->errnum;
	if (t->be->create(t, err) < 0) {
		cg_tree_destroy(t, &(struct hx_err){0}); /* the first failure is the one to tell */
		return hx_wrap(err, "cannot create the cgroup tree %s", run_id);
	}
	*ret = t;
	return 0;
}

/* The knobs both backends write the same way, through the knob table: CPU and memory-node sets, the
 * memory and pids limits. */
static int apply_common(struct cg_tree *t, enum cg_slice s, const struct cg_limits *l, struct hx_err *err)
{
	char buf[CG_MAX_CPUS * 5];

	if (!cg_cpus_empty(&l->mems)) { /* v1: a cpuset needs its mems before it takes a task */
		cg_cpus_format(&l->mems, buf, sizeof(buf));
		if (cg_write_file(t, (int)s, CG_F_MEMS, buf, err) < 0)
			return -err->errnum;
	}
	cg_cpus_format(&l->cpus, buf, sizeof(buf));
	if (cg_write_file(t, (int)s, CG_F_CPUS, buf, err) < 0)
		return -err->errnum;
	if (l->memory_max) {
		snprintf(buf, sizeof(buf), "%" PRIu64, l->memory_max);
		if (cg_write_file(t, (int)s, CG_F_MEMORY_MAX, buf, err) < 0)
			return -err->errnum;
	}
	if (l->pids_max) {
		snprintf(buf, sizeof(buf), "%" PRIu64, l->pids_max);
		if (cg_write_file(t, (int)s, CG_F_PIDS_MAX, buf, err) < 0)
			return -err->errnum;
	}
	return 0;
}

int cg_slice_apply(struct cg_tree *t, enum cg_slice s, const struct cg_limits *l, struct hx_err *err)
{
	if (!(t->created & (1u << s)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOENT, "slice %s was not created", cg_slice_names[s]);
	if (apply_common(t, s, l, err) < 0 || t->be->apply(t, s, l, err) < 0)
		return hx_wrap(err, "slice %s", cg_slice_names[s]);
	return 0;
}

/* clone3(CLONE_INTO_CGROUP), Linux >= 5.7: the child starts inside the slice. 0 in the child. */
static pid_t spawn_clone3(int cgfd, unsigned long flags)
{
	struct clone_args args = {
		.flags = CLONE_INTO_CGROUP | flags,
		.exit_signal = SIGCHLD,
		.cgroup = (uint64_t)cgfd,
	};

	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

static int spawn_v2(struct cg_tree *t, enum cg_slice s, unsigned long flags, int (*fn)(void *), void *arg,
		    pid_t *ret_pid, struct hx_err *err)
{
	static bool clone3_broken;
	char dir[PATH_MAX];
	_cleanup_close_ int fd = -1;
	pid_t pid;

	if (clone3_broken || (t->unified_killed & (1u << s)))
		return 1;
	if (cg_path(t, t->ubase, s, NULL, dir, sizeof(dir), err) < 0)
		return -err->errnum;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hx_syserr(err, "open %s", dir);
	pid = spawn_clone3(fd, flags);
	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0) {
		/* ENOSYS before 5.3, E2BIG/EINVAL before CLONE_INTO_CGROUP (5.7), EPERM under some seccomp. */
		if (errno == ENOSYS || errno == E2BIG || errno == EINVAL || errno == EPERM) {
			clone3_broken = true;
			return 1;
		}
		return hx_syserr(err, "clone3 into %s", dir);
	}
	t->last_move_ns = 0;
	*ret_pid = pid;
	return 0;
}

/* clone like fork (no new stack), then place the child while it waits on a pipe; it runs fn only
 * once it is inside. */
static int spawn_fork(struct cg_tree *t, enum cg_slice s, unsigned long flags, int (*fn)(void *), void *arg,
		      pid_t *ret_pid, struct hx_err *err)
{
	int sync[2];
	pid_t pid;
	uint64_t t0;
	char go = 1;

	if (pipe2(sync, O_CLOEXEC) < 0)
		return hx_syserr(err, "pipe");
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		close(sync[0]);
		close(sync[1]);
		return hx_syserr(err, "clone");
	}
	if (pid == 0) {
		char c;

		close(sync[1]);
		if (read(sync[0], &c, 1) != 1)
			_exit(127); /* the parent could not place us: never run outside the slice */
		close(sync[0]);
		_exit(fn(arg));
	}
	close(sync[0]);
	t0 = util_now_ns();
	if (t->be->attach(t, s, pid, err) < 0) {
		close(sync[1]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return hx_wrap(err, "cannot place a process in slice %s", cg_slice_names[s]);
	}
	t->last_move_ns = util_now_ns() - t0;
	if (write(sync[1], &go, 1) != 1) {
		hx_syserr(err, "sync pipe");
		close(sync[1]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -err->errnum;
	}
	close(sync[1]);
	*ret_pid = pid;
	return 0;
}

/* What a child that placed itself tells its parent before it runs anything else. */
struct self_move {
	int errnum;  /* 0: inside every hierarchy */
	int where;   /* the hierarchy that refused */
	uint64_t ns; /* what the moves took */
};

/* The child's half of spawn_self: 0 written to each v1 hierarchy's tasks file moves the calling thread, the
 * child's only one. Plain system calls: nothing here may take a lock a parent's thread held at the clone. */
static int move_self(char tasks[][PATH_MAX], size_t n, int report_fd)
{
	struct self_move m = {0};
	uint64_t t0 = util_now_ns();

	for (size_t i = 0; i < n && !m.errnum; i++) {
		int fd = open(tasks[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "0", 1) != 1)
			m = (struct self_move){.errnum = errno, .where = (int)i};
		if (fd >= 0)
			close(fd);
	}
	m.ns = util_now_ns() - t0;
	if (write(report_fd, &m, sizeof(m)) != sizeof(m) || m.errnum)
		return -1;
	close(report_fd);
	return 0;
}

/* v1 and hybrid hosts: the child places itself. Moving the calling thread alone (0 written to a hierarchy's
 * tasks file) skips the global threadgroup lock, whose write side waits for an RCU grace period: 12-18 ms a move
 * when the parent writes the child's pid to cgroup.procs, ~0.1 ms this way (Linux 6.x; a kernel without that
 * shortcut just pays the wait). On a hybrid host the child is born in the unified mirror (clone3
 * CLONE_INTO_CGROUP). It runs fn only once inside every hierarchy: before, only these writes run outside the
 * slice (µs; the stack pages they touch stay charged to harness's memory cgroup). Returns 1 when the kernel
 * has no clone3 for the mirror: the parent places the child then (spawn_fork). */
static int spawn_self(struct cg_tree *t, enum cg_slice s, unsigned long flags, int (*fn)(void *), void *arg,
		      pid_t *ret_pid, struct hx_err *err)
{
	static bool clone3_broken;
	char tasks[CG_NR_CTRLS][PATH_MAX], dir[PATH_MAX];
	struct self_move m = {0};
	_cleanup_close_ int ufd = -1;
	size_t n = 0;
	int rep[2];
	pid_t pid;

	if (t->have_unified && (clone3_broken || (t->unified_killed & (1u << s))))
		return 1;
	for (int c = 0; c < CG_NR_CTRLS; c++) {
		bool dup = false;

		if (!t->base[c][0] || cg_path(t, t->base[c], (int)s, "tasks", tasks[n], PATH_MAX, err) < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= strcmp(tasks[i], tasks[n]) == 0; /* controllers sharing a hierarchy (cpu,cpuacct) */
		n += !dup;
	}
	if (t->have_unified) {
		if (cg_path(t, t->ubase, (int)s, NULL, dir, sizeof(dir), err) < 0)
			return -err->errnum;
		ufd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (ufd < 0)
			return hx_syserr(err, "open %s", dir);
	}
	if (pipe2(rep, O_CLOEXEC) < 0)
		return hx_syserr(err, "pipe");
	pid = ufd >= 0 ? spawn_clone3(ufd, flags) : (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		close(rep[0]);
		_exit(move_self(tasks, n, rep[1]) < 0 ? 127 : fn(arg));
	}
	close(rep[1]);
	if (pid < 0) {
		close(rep[0]);
		if (ufd >= 0 && (errno == ENOSYS || errno == E2BIG || errno == EINVAL || errno == EPERM)) {
			clone3_broken = true;
			return 1;
		}
		return hx_syserr(err, "clone");
	}
	if (read(rep[0], &m, sizeof(m)) != sizeof(m) && !m.errnum)
		m.errnum = EIO; /* it died before it could say */
	close(rep[0]);
	if (m.errnum) {
		waitpid(pid, NULL, 0);
		errno = m.errnum;
		return hx_syserr(err, "cannot place a process in slice %s: %s", cg_slice_names[s],
				 m.errnum == EIO ? "the child died" : tasks[m.where]);
	}
	t->last_move_ns = m.ns;
	*ret_pid = pid;
	return 0;
}

int cg_spawn(struct cg_tree *t, enum cg_slice s, unsigned long clone_flags, int (*fn)(void *), void *arg,
	     pid_t *ret_pid, struct hx_err *err)
{
	int r;

	if (!(t->created & (1u << s)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOENT, "slice %s was not created", cg_slice_names[s]);
	r = t->be == &cg_backend_v2 ? spawn_v2(t, s, clone_flags, fn, arg, ret_pid, err)
				    : spawn_self(t, s, clone_flags, fn, arg, ret_pid, err);
	return r <= 0 ? r : spawn_fork(t, s, clone_flags, fn, arg, ret_pid, err);
}

int cg_slice_stats(struct cg_tree *t, enum cg_slice s, struct cg_stats *ret, struct hx_err *err)
{
	char dir[PATH_MAX];

	if (!(t->created & (1u << s)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOENT, "slice %s was not created", cg_slice_names[s]);
	*ret = (struct cg_stats){0};
	t->be->stats(t, s, ret);
	if (ret->have[CG_STAT_MEMORY_PEAK])
		ret->peak_since = t->peak_reset & (1u << s) ? CG_PEAK_SINCE_RESET : CG_PEAK_SINCE_START;
	if (t->have_unified && cg_path(t, t->ubase, s, NULL, dir, sizeof(dir), err) == 0)
		cg_read_psi(dir, ret);
	return 0;
}

uint64_t cg_slice_memory_stall_usec(const struct cg_tree *t, enum cg_slice s)
{
	struct hx_err err = {0};
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	const char *full;
	unsigned long long v;

	if (!t->have_unified || !(t->created & (1u << s)) ||
	    cg_path(t, t->ubase, (int)s, "memory.pressure", path, sizeof(path), &err) < 0 ||
	    util_read_file(path, &text, NULL, &err) < 0)
		return UINT64_MAX;
	full = strstr(text, "full ");
	if (!full || sscanf(full, "full avg10=%*f avg60=%*f avg300=%*f total=%llu", &v) != 1)
		return UINT64_MAX;
	return v;
}

static uint64_t sample_u64(const struct cg_tree *t, enum cg_slice s, enum cg_file f, const char *key)
{
	_cleanup_free_ char *text = NULL;
	uint64_t v;

	if (cg_read_file(t, (int)s, f, &text) < 0)
		return UINT64_MAX;
	if (key ? util_keyed_u64(text, key, &v) : util_parse_u64(util_rstrip(text), &v))
		return UINT64_MAX;
	return v;
}

uint64_t cg_slice_memory_limit(const struct cg_tree *t, enum cg_slice s)
{
	uint64_t max = sample_u64(t, s, CG_F_MEMORY_MAX, NULL), high = sample_u64(t, s, CG_F_MEMORY_HIGH, NULL);

	return high < max ? high : max; /* "max" (none) does not parse: UINT64_MAX */
}

void cg_slice_sample(const struct cg_tree *t, enum cg_slice s, uint64_t *ret_cpu_usec, uint64_t *ret_memory)
{
	*ret_memory = sample_u64(t, s, CG_F_MEMORY_CURRENT, NULL);
	if (t->be == &cg_backend_v2) {
		*ret_cpu_usec = sample_u64(t, s, CG_F_CPU_STAT, "usage_usec");
	} else {
		uint64_t user = sample_u64(t, s, CG_F_CPU_USER, NULL), sys = sample_u64(t, s, CG_F_CPU_SYSTEM, NULL);

		*ret_cpu_usec = user == UINT64_MAX || sys == UINT64_MAX ? UINT64_MAX : (user + sys) / 1000; /* ns */
	}
}

int cg_slice_peak_reset(struct cg_tree *t, enum cg_slice s, struct hx_err *err)
{
	int r;

	if (!(t->created & (1u << s)))
		return hx_fail(err, HX_EXIT_INTERNAL, ENOENT, "slice %s was not created", cg_slice_names[s]);
	r = t->be->peak_reset(t, s);
	if (r < 0)
		return hx_fail(err, HX_EXIT_HOST, -r, "slice %s: the memory peak cannot be reset here (%s)",
			       cg_slice_names[s], strerror(-r));
	t->peak_reset |= 1u << s;
	return 0;
}

/* Every directory of a slice: the unified one and one per distinct v1 hierarchy. */
static size_t slice_dirs(const struct cg_tree *t, enum cg_slice s, char dirs[][PATH_MAX], size_t max)
{
	struct hx_err err = {0};
	size_t n = 0;

	if (t->have_unified && cg_path(t, t->ubase, (int)s, NULL, dirs[n], PATH_MAX, &err) == 0)
		n++;
	for (int c = 0; c < CG_NR_CTRLS && n < max; c++) {
		bool dup = false;

		if (!t->base[c][0] || cg_path(t, t->base[c], (int)s, NULL, dirs[n], PATH_MAX, &err) < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= strcmp(dirs[i], dirs[n]) == 0;
		if (!dup)
			n++;
	}
	return n;
}

/* Add the pids dir/cgroup.procs lists to ret (up to max), each once. */
static void pids_listed(const char *dir, pid_t *ret, size_t max, size_t *n)
{
	struct hx_err err = {0};
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (util_read_file(path, &text, NULL, &err) < 0)
		return;
	for (char *p = text, *end; *p && *n < max; p = end) {
		long pid = strtol(p, &end, 10);
		bool seen = false;

		if (end == p)
			break;
		for (size_t i = 0; i < *n && !seen; i++)
			seen = ret[i] == (pid_t)pid;
		if (pid > 0 && !seen)
			ret[(*n)++] = (pid_t)pid;
	}
}

size_t cg_slice_pids(const struct cg_tree *t, enum cg_slice s, pid_t *ret, size_t max)
{
	char dirs[CG_NR_CTRLS + 1][PATH_MAX];
	size_t n, got = 0;

	if (!(t->created & (1u << s)))
		return 0;
	n = slice_dirs(t, s, dirs, HX_ARRAY_SIZE(dirs));
	for (size_t d = 0; d < n; d++)
		pids_listed(dirs[d], ret, max, &got);
	return got;
}

/* SIGKILL every pid listed in dir/cgroup.procs, with a pidfd of each in fds (up to max) to wait on;
 * returns how many were listed. */
static int kill_listed(const char *dir, int *fds, size_t max, size_t *nfds)
{
	struct hx_err err = {0};
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	int n = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (util_read_file(path, &text, NULL, &err) < 0)
		return 0;
	for (char *p = text; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0) {
			if (*nfds < max)
				fds[(*nfds)++] = proc_pidfd((pid_t)pid);
			kill((pid_t)pid, SIGKILL);
			n++;
		}
		p = end;
		while (*p == '\n')
			p++;
	}
	return n;
}

int cg_slice_kill(struct cg_tree *t, enum cg_slice s, struct hx_err *err)
{
	char dirs[CG_NR_CTRLS + 1][PATH_MAX];
	char path[PATH_MAX];
	size_t n;

	if (!(t->created & (1u << s)))
		return 0;
	n = slice_dirs(t, s, dirs, HX_ARRAY_SIZE(dirs));
	/* cgroup.kill (Linux >= 5.14) kills atomically, forks included; else SIGKILL until empty. */
	snprintf(path, sizeof(path), "%s/cgroup.kill", dirs[0]);
	if (n && t->have_unified && util_exists(path)) {
		if (util_write_file(path, "1", err) < 0)
			return -err->errnum;
		/* Linux 6.18 here SIGKILLs every later child born into a killed cgroup by CLONE_INTO_CGROUP (its
		 * kill sequence is compared with the parent's cgroup's): the slice's next process (a server's
		 * restart) is placed by the parent instead (spawn_fork). */
		t->unified_killed |= 1u << s;
	}
	/* until nothing is listed: wait on the pidfds of what was killed, not on a clock */
	for (int i = 0; i < 5000; i++) {
		int fds[256], listed = 0;
		size_t nfds = 0;

		for (size_t d = 0; d < n; d++)
			listed += kill_listed(dirs[d], fds, HX_ARRAY_SIZE(fds), &nfds);
		if (listed == 0)
			return 0;
		if (!proc_wait_exits(fds, nfds, 1000) || (size_t)listed > nfds)
			usleep(1000); /* no pidfd for some (Linux < 5.3): look again shortly */
	}
	return hx_fail(err, HX_EXIT_INTERNAL, EBUSY, "slice %s: processes survive SIGKILL", cg_slice_names[s]);
}

int cg_tree_destroy(struct cg_tree *t, struct hx_err *err)
{
	struct hx_err first = {0};

	if (!t)
		return 0;
	for (int s = CG_NR_SLICES - 1; s >= 0; s--) {
		struct hx_err e = {0};

		if (cg_slice_kill(t, (enum cg_slice)s, &e) < 0 && !first.msg[0])
			first = e;
	}
	for (int s = 0; s < CG_NR_SLICES; s++)
		if (t->peak_fd[s] > 0)
			close(t->peak_fd[s]);
	t->be->destroy(t, first.msg[0] ? &(struct hx_err){0} : &first);
	free(t);
	if (!first.msg[0])
		return 0;
	*err = first;
	return -err->errnum;
}

uint64_t cg_last_move_ns(const struct cg_tree *t)
{
	return t->last_move_ns;
}

const char *cg_backend_name(const struct cg_tree *t)
{
	return t->be->name;
}

bool cg_slice_has(const struct cg_tree *t, enum cg_slice s, const char *file)
{
	struct hx_err err = {0};
	char path[PATH_MAX];

	return t->have_unified && (t->created & (1u << s)) &&
	       cg_path(t, t->ubase, (int)s, file, path, sizeof(path), &err) == 0 && util_exists(path);
}

bool cg_run_id_orphaned(const char *name, const char *only_tag)
{
	char tag[CG_TAG_MAX + 1];
	pid_t pid;
	unsigned long long start, now;

	if (cg_run_id_parse(name, tag, sizeof(tag), &pid, &start) < 0)
		return false;
	if (only_tag && strcmp(tag, only_tag) != 0)
		return false;
	if (proc_start_time(pid, &now) < 0)
		return true;
	return now != start;
}

static int gc_scan(const char *dir, const char *root_override, const char *only_tag, unsigned *removed,
		   struct hx_err *err)
{
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	struct hx_err first = {0}; /* the first tree that would not go; the others are still tried */

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct cg_tree *t = NULL;
		struct hx_err e = {0};

		if (de->d_type != DT_DIR || !cg_run_id_orphaned(de->d_name, only_tag))
			continue;
		if (tree_new(de->d_name, root_override, (1u << CG_NR_SLICES) - 1, &t, err) < 0)
			return -err->errnum;
		t->created = (1u << CG_NR_SLICES) - 1; /* missing ones are skipped as ENOENT */
		t->have_unified = t->ubase[0] != '\0';
		if (cg_tree_destroy(t, &e) < 0 && !first.msg[0])
			first = e;
		else
			(*removed)++;
	}
	if (!first.msg[0])
		return 0;
	*err = first;
	return -err->errnum;
}

int cg_gc(const char *root_override, unsigned *ret_removed, struct hx_err *err)
{
	struct cg_tree *probe = NULL;
	unsigned removed = 0;
	const char *tag;

	if (cg_run_tag(&tag, err) < 0 || tree_new("probe", root_override, 0, &probe, err) < 0)
		return -err->errnum;
	/* Every hierarchy is scanned: a crash may leave a tree in some and not others. */
	for (int c = 0; c < CG_NR_CTRLS; c++)
		if (probe->base[c][0] && gc_scan(probe->base[c], root_override, tag, &removed, err) < 0)
			goto out;
	if (probe->ubase[0])
		gc_scan(probe->ubase, root_override, tag, &removed, err);
	/* a tree that would not go is reported; the rest were still removed */
out:
	free(probe);
	*ret_removed = removed;
	return err->msg[0] ? -err->errnum : 0;
}

int cg_own_cpuset(struct cg_cpus *ret, struct hx_err *err)
{
	const struct cg_host *h;
	char dir[PATH_MAX], path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	const char *file;

	if (cg_host_get(&h, err) < 0)
		return -err->errnum;
	if (h->mode == CG_MODE_UNIFIED) {
		if (cg_hier_dir(&h->unified, dir, sizeof(dir), err) < 0)
			goto unknown;
		file = "cpuset.cpus.effective";
	} else {
		if (cg_hier_dir(&h->v1[CG_CTRL_CPUSET], dir, sizeof(dir), err) < 0)
			goto unknown;
		file = "cpuset.effective_cpus";
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (util_read_line(path, &text, err) < 0 || cg_cpus_parse(text, ret) < 0)
		goto unknown;
	return 0;
unknown:
	/* No cpuset controller here: it constrains nothing. */
	hx_clear(err);
	memset(ret->bits, 0xff, sizeof(ret->bits));
	return 0;
}

int cg_own_affinity(struct cg_cpus *ret, struct hx_err *err)
{
	cpu_set_t *set = CPU_ALLOC(CG_MAX_CPUS);
	size_t size = CPU_ALLOC_SIZE(CG_MAX_CPUS);

	if (!set)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	if (sched_getaffinity(0, size, set) < 0) {
		CPU_FREE(set);
		return hx_syserr(err, "sched_getaffinity");
	}
	*ret = (struct cg_cpus){0};
	for (unsigned c = 0; c < CG_MAX_CPUS; c++)
		if (CPU_ISSET_S(c, size, set))
			cg_cpus_set(ret, c);
	CPU_FREE(set);
	return 0;
}
