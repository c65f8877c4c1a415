/* The cgroup v2 backend: one unified tree; controllers enabled through subtree_control, and the
 * no-internal-process rule respected by moving the harness into a leaf of its own when it must. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "cgroups/cg_internal.h"

/* The controllers a run's slices use, as cgroup.controllers names them. */
static const int v2_ctrls[] = {CG_CTRL_CPUSET, CG_CTRL_CPU, CG_CTRL_MEMORY, CG_CTRL_PIDS};

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

static int v2_read(const char *dir, const char *file, char **ret, struct hx_err *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return util_read_line(path, ret, err);
}

static int v2_write(const char *dir, const char *file, const char *val, struct hx_err *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return util_write_file(path, val, err);
}

/* Processes other than us in dir: they keep us from enabling controllers there. */
static int v2_other_procs(const char *dir, struct hx_err *err)
{
	_cleanup_free_ char *procs = NULL;
	int others = 0;

	if (v2_read(dir, "cgroup.procs", &procs, err) < 0)
		return -err->errnum;
	for (char *p = procs; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid != getpid())
			others++;
		p = end + (*end == '\n');
	}
	return others;
}

static bool v2_is_root(const struct cg_tree *t)
{
	return strcmp(t->ubase, t->host->unified.mount) == 0;
}

/* Enable in dir's subtree_control whichever of our controllers dir offers; *added gets those that
 * were not enabled before. */
static int v2_enable(const char *dir, unsigned *added, struct hx_err *err)
{
	_cleanup_free_ char *avail = NULL, *enabled = NULL;

	if (v2_read(dir, "cgroup.controllers", &avail, err) < 0 ||
	    v2_read(dir, "cgroup.subtree_control", &enabled, err) < 0)
		return -err->errnum;
	for (size_t i = 0; i < HX_ARRAY_SIZE(v2_ctrls); i++) {
		const char *name = cg_ctrl_names[v2_ctrls[i]];
		char cmd[32];

		if (!word_in(avail, name) || word_in(enabled, name))
			continue;
		snprintf(cmd, sizeof(cmd), "+%s", name);
		if (v2_write(dir, "cgroup.subtree_control", cmd, err) < 0) {
			if (err->errnum == EBUSY)
				return hx_fail(err, HX_EXIT_HOST, EBUSY,
					       "cannot enable the %s controller under %s: the cgroup holds other "
					       "processes (start harness in a delegated cgroup of its own: "
					       "systemd-run --scope -p Delegate=yes harness ...)",
					       name, dir);
			return -err->errnum;
		}
		if (added)
			*added |= 1u << v2_ctrls[i];
	}
	return 0;
}

/* The no-internal-process rule: a cgroup that enables controllers for its children may hold no
 * process (the root excepted). When we are alone in ours, we move into a leaf of our own tree. */
static int v2_make_room(struct cg_tree *t, struct hx_err *err)
{
	char leaf[PATH_MAX];
	int others;

	if (v2_is_root(t))
		return 0;
	others = v2_other_procs(t->ubase, err);
	if (others < 0)
		return -err->errnum;
	if (others > 0) {
		_cleanup_free_ char *enabled = NULL;

		/* Someone already enabled what we need below a populated cgroup? Then there is nothing to do. */
		if (v2_read(t->ubase, "cgroup.subtree_control", &enabled, err) < 0)
			return -err->errnum;
		if (word_in(enabled, "cpuset") && word_in(enabled, "memory"))
			return 0;
		return hx_fail(err, HX_EXIT_HOST, EBUSY,
			       "%s holds %d other process(es), so harness cannot enable controllers in it (start "
			       "harness in a delegated cgroup of its own: systemd-run --scope -p Delegate=yes "
			       "harness ..., or pass --cgroup-root)",
			       t->ubase, others);
	}
	if (cg_path(t, t->ubase, -1, "supervisor", leaf, sizeof(leaf), err) < 0)
		return -err->errnum;
	if (mkdir(leaf, 0755) < 0)
		return hx_syserr(err, "mkdir %s", leaf);
	if (cg_move_pid(leaf, getpid(), err) < 0)
		return -err->errnum;
	t->in_supervisor_leaf = true;
	return 0;
}

static int v2_create(struct cg_tree *t, struct hx_err *err)
{
	char tree[PATH_MAX], slice[PATH_MAX];

	if (cg_path(t, t->ubase, -1, NULL, tree, sizeof(tree), err) < 0)
		return -err->errnum;
	if (mkdir(tree, 0755) < 0) {
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			return hx_fail(err, HX_EXIT_HOST, errno,
				       "cannot create %s: %s (run as root, or in a delegated cgroup: systemd-run "
				       "--scope -p Delegate=yes harness ...)",
				       tree, strerror(errno));
		return hx_syserr(err, "mkdir %s", tree);
	}
	t->have_unified = true;
	t->created = t->slices;
	if (v2_make_room(t, err) < 0 || v2_enable(t->ubase, &t->added_ctrls, err) < 0 || v2_enable(tree, NULL, err) < 0)
		return -err->errnum;
	for (int s = 0; s < CG_NR_SLICES; s++) {
		if (!(t->slices & (1u << s)))
			continue;
		if (cg_path(t, t->ubase, s, NULL, slice, sizeof(slice), err) < 0)
			return -err->errnum;
		if (mkdir(slice, 0755) < 0)
			return hx_syserr(err, "mkdir %s", slice);
	}
	return 0;
}

static int v2_apply(struct cg_tree *t, enum cg_slice s, const struct cg_limits *l, struct hx_err *err)
{
	char buf[64];

	if (l->cpu_quota_us) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64, l->cpu_quota_us,
			 l->cpu_period_us ? l->cpu_period_us : 100000);
		if (cg_write_file(t, (int)s, CG_F_CPU_QUOTA, buf, err) < 0)
			return -err->errnum;
	}
	/* No swap behind the limit, as on v1 with memsw = limit; absent when swap accounting is off. */
	if (l->memory_max && cg_write_file(t, (int)s, CG_F_SWAP_MAX, "0", err) < 0)
		hx_clear(err);
	return 0;
}

static int v2_attach(struct cg_tree *t, enum cg_slice s, pid_t pid, struct hx_err *err)
{
	char dir[PATH_MAX];

	if (cg_path(t, t->ubase, (int)s, NULL, dir, sizeof(dir), err) < 0)
		return -err->errnum;
	return cg_move_pid(dir, pid, err);
}

static int v2_read_fd(int fd, char **ret)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

/* Linux 6.12 made memory.peak writable: a write resets the peak seen through that descriptor. Older
 * kernels have no write handler (EINVAL or EACCES). */
static int v2_peak_reset(struct cg_tree *t, enum cg_slice s)
{
	char path[PATH_MAX];
	struct hx_err err = {0};
	int fd;

	if (cg_file_path(t, (int)s, CG_F_MEMORY_PEAK, path, sizeof(path), &err) < 0)
		return -EOPNOTSUPP;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES || errno == EPERM ? -EOPNOTSUPP : -errno;
	if (write(fd, "reset\n", 6) != 6) {
		int e = errno;

		close(fd);
		return e == EINVAL || e == EACCES || e == EPERM ? -EOPNOTSUPP : -e;
	}
	if (t->peak_fd[s] > 0)
		close(t->peak_fd[s]);
	t->peak_fd[s] = fd;
	return 0;
}

static void v2_stats(struct cg_tree *t, enum cg_slice s, struct cg_stats *st)
{
	static const struct {
		enum cg_file f;
		const char *key; /* NULL: the file holds one number */
		enum cg_stat k;
	} map[] = {
		{CG_F_CPU_STAT, "user_usec", CG_STAT_CPU_USER_USEC},
		{CG_F_CPU_STAT, "system_usec", CG_STAT_CPU_SYSTEM_USEC},
		{CG_F_CPU_STAT, "nr_periods", CG_STAT_NR_PERIODS},
		{CG_F_CPU_STAT, "nr_throttled", CG_STAT_NR_THROTTLED},
		{CG_F_CPU_STAT, "throttled_usec", CG_STAT_THROTTLED_USEC},
		{CG_F_MEMORY_CURRENT, NULL, CG_STAT_MEMORY_CURRENT},
		{CG_F_MEMORY_PEAK, NULL, CG_STAT_MEMORY_PEAK},
		{CG_F_MEMORY_EVENTS, "oom", CG_STAT_OOM},
		{CG_F_MEMORY_EVENTS, "oom_kill", CG_STAT_OOM_KILL},
		{CG_F_PIDS_CURRENT, NULL, CG_STAT_PIDS_CURRENT},
		{CG_F_PIDS_PEAK, NULL, CG_STAT_PIDS_PEAK},
	};

	for (size_t i = 0; i < HX_ARRAY_SIZE(map); i++) {
		_cleanup_free_ char *text = NULL;
		uint64_t v;
		int r;

		if (map[i].f == CG_F_MEMORY_PEAK && t->peak_fd[s] > 0 ? v2_read_fd(t->peak_fd[s], &text) < 0
								      : cg_read_file(t, (int)s, map[i].f, &text) < 0)
			continue;
		r = map[i].key ? util_keyed_u64(text, map[i].key, &v) : util_parse_u64(util_rstrip(text), &v);
		if (r == 0)
			cg_stat_set(st, map[i].k, v);
	}
}

/* Disable our controllers in dir's subtree_control (those in mask; all of ours when mask is ~0). */
static void v2_disable(const char *dir, unsigned mask)
{
	struct hx_err err = {0};

	for (size_t i = HX_ARRAY_SIZE(v2_ctrls); i-- > 0;) {
		char cmd[32];

		if (!(mask & (1u << v2_ctrls[i])))
			continue;
		snprintf(cmd, sizeof(cmd), "-%s", cg_ctrl_names[v2_ctrls[i]]);
		v2_write(dir, "cgroup.subtree_control", cmd, &err);
	}
}

/* Out of our supervisor leaf, back into the cgroup harness started in: no process may live in a cgroup that
 * enables controllers for its children, so what we enabled is given back first, bottom-up (a parent cannot drop
 * a controller a child still enables). */
static void v2_leave_leaf(struct cg_tree *t, const char *tree, struct hx_err *ret_err)
{
	struct hx_err err = {0};
	char path[PATH_MAX];

	v2_disable(tree, ~0u);
	v2_disable(t->ubase, t->added_ctrls);
	if (cg_move_pid(t->ubase, getpid(), &err) == 0 &&
	    cg_path(t, t->ubase, -1, "supervisor", path, sizeof(path), &err) == 0)
		cg_rmdir(path);
	else
		hx_fail(ret_err, HX_EXIT_INTERNAL, err.errnum, "cannot leave our supervisor cgroup: %s", err.msg);
}

/* The slices and the tree removed; the controllers we enabled in the cgroup we started in given back once the
 * tree is gone (so not written in the tree first), except at the root cgroup and after a prepare tree. A write
 * to a subtree_control first waits for the cgroups just removed below it to be released
 * (cgroup_lock_and_drain_offline): the 8 writes of an exec at the root took its teardown to 87 ms in the TCG
 * guest, 4-5 ms without. At the root they are left on, as systemd keeps them on every v2 host: the root may hold
 * processes whatever it enables. A prepare tree leaves
 * them too: the run's trees follow it at once, and taking cpuset away from the cgroup harness started in and
 * giving it back before a CPU partition is made left the partition unable to keep the other tasks there off
 * its CPUs (cgroup v2, Linux 6.1). */
static int v2_destroy(struct cg_tree *t, struct hx_err *ret_err)
{
	struct hx_err err = {0};
	char path[PATH_MAX], tree[PATH_MAX];
	int r;

	if (cg_path(t, t->ubase, -1, NULL, tree, sizeof(tree), &err) < 0)
		return 0;
	for (int s = CG_NR_SLICES - 1; s >= 0; s--)
		if ((t->created & (1u << s)) && cg_path(t, t->ubase, s, NULL, path, sizeof(path), &err) == 0)
			cg_rmdir(path);
	if (t->in_supervisor_leaf)
		v2_leave_leaf(t, tree, ret_err);
	else if (cg_path(t, t->ubase, -1, "supervisor", path, sizeof(path), &err) == 0)
		cg_rmdir(path); /* gc of a dead harness's tree: its leaf is empty now */
	r = cg_rmdir(tree);
	if (r < 0 && !ret_err->msg[0])
		hx_fail(ret_err, HX_EXIT_INTERNAL, -r, "cannot remove %s: %s", tree, strerror(-r));
	/* another run still using one keeps it enabled (EBUSY) */
	if (t->added_ctrls && !t->in_supervisor_leaf && !v2_is_root(t) && t->slices != 1u << CG_SLICE_PREPARE)
		v2_disable(t->ubase, t->added_ctrls);
	return ret_err->msg[0] ? -ret_err->errnum : 0;
}

const struct cg_backend cg_backend_v2 = {
	.name = "v2",
	.create = v2_create,
	.apply = v2_apply,
	.attach = v2_attach,
	.stats = v2_stats,
	.peak_reset = v2_peak_reset,
	.destroy = v2_destroy,
};
