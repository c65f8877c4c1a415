/* The cgroup v1 backend: one directory per controller hierarchy, plus on hybrid hosts a mirror in
 * the unified tree for cgroup.kill, cgroup.freeze and PSI. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "cgroups/cg_internal.h"

/* Controllers whose hierarchy repeats an earlier one (co-mounted, e.g. cpu,cpuacct) are skipped. */
static bool v1_dup(const struct cg_tree *t, int c)
{
	for (int o = 0; o < c; o++)
		if (t->base[o][0] && strcmp(t->base[o], t->base[c]) == 0)
			return true;
	return false;
}

static int v1_mkdir(const struct cg_tree *t, const char *base, int slice, struct hx_err *err)
{
	char path[PATH_MAX];

	if (cg_path(t, base, slice, NULL, path, sizeof(path), err) < 0)
		return -err->errnum;
	if (mkdir(path, 0755) < 0) {
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			return hx_fail(err, HX_EXIT_HOST, errno,
				       "cannot create %s: %s (run as root, or give harness a delegated cgroup: "
				       "systemd-run --scope -p Delegate=yes ...)",
				       path, strerror(errno));
		return hx_syserr(err, "mkdir %s", path);
	}
	return 0;
}

/* A new v1 cpuset starts empty: copy the parent's CPUs and nodes down so processes can join it. */
static int v1_cpuset_inherit(const struct cg_tree *t, int slice, struct hx_err *err)
{
	static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
	const char *base = t->base[CG_CTRL_CPUSET];

	for (size_t i = 0; i < HX_ARRAY_SIZE(files); i++) {
		char from[PATH_MAX], to[PATH_MAX];
		_cleanup_free_ char *val = NULL;

		if (slice < 0)
			snprintf(from, sizeof(from), "%s/%s", base, files[i]);
		else if (cg_path(t, base, -1, files[i], from, sizeof(from), err) < 0)
			return -err->errnum;
		if (cg_path(t, base, slice, files[i], to, sizeof(to), err) < 0 || util_read_line(from, &val, err) < 0 ||
		    util_write_file(to, val, err) < 0)
			return -err->errnum;
	}
	return 0;
}

static int v1_create_in(struct cg_tree *t, const char *base, int ctrl, struct hx_err *err)
{
	if (v1_mkdir(t, base, -1, err) < 0)
		return -err->errnum;
	if (ctrl == CG_CTRL_CPUSET && v1_cpuset_inherit(t, -1, err) < 0)
		return -err->errnum;
	for (int s = 0; s < CG_NR_SLICES; s++) {
		if (!(t->slices & (1u << s)))
			continue;
		if (v1_mkdir(t, base, s, err) < 0)
			return -err->errnum;
		if (ctrl == CG_CTRL_CPUSET && v1_cpuset_inherit(t, s, err) < 0)
			return -err->errnum;
	}
	return 0;
}

static int v1_create(struct cg_tree *t, struct hx_err *err)
{
	/* Mark the slices first so that a half-made tree is torn down completely. */
	t->created = t->slices;
	for (int c = 0; c < CG_NR_CTRLS; c++) {
		if (!t->base[c][0] || v1_dup(t, c))
			continue;
		if (v1_create_in(t, t->base[c], c, err) < 0)
			return hx_wrap(err, "%s hierarchy", cg_ctrl_names[c]);
	}
	if (t->ubase[0]) {
		struct hx_err uerr = {0};

		/* The mirror is a bonus (cgroup.kill, PSI): a host that refuses it still runs. */
		t->have_unified = v1_create_in(t, t->ubase, -1, &uerr) == 0;
	}
	return 0;
}

static int v1_apply(struct cg_tree *t, enum cg_slice s, const struct cg_limits *l, struct hx_err *err)
{
	char buf[64];

	if (l->cpu_quota_us) {
		snprintf(buf, sizeof(buf), "%" PRIu64, l->cpu_period_us ? l->cpu_period_us : 100000);
		if (cg_write_file(t, (int)s, CG_F_CPU_PERIOD, buf, err) < 0)
			return -err->errnum;
		snprintf(buf, sizeof(buf), "%" PRIu64, l->cpu_quota_us);
		if (cg_write_file(t, (int)s, CG_F_CPU_QUOTA, buf, err) < 0)
			return -err->errnum;
	}
	if (l->memory_max) {
		char path[PATH_MAX];

		snprintf(buf, sizeof(buf), "%" PRIu64, l->memory_max);
		/* memsw (memory + swap) exists only with swap accounting; without it there is no swap to limit. */
		if (cg_file_path(t, (int)s, CG_F_SWAP_MAX, path, sizeof(path), err) == 0) {
			if (util_write_file(path, buf, err) < 0)
				return -err->errnum;
		} else {
			hx_clear(err);
		}
	}
	return 0;
}

static int v1_attach(struct cg_tree *t, enum cg_slice s, pid_t pid, struct hx_err *err)
{
	char dir[PATH_MAX];

	for (int c = 0; c < CG_NR_CTRLS; c++) {
		if (!t->base[c][0] || v1_dup(t, c))
			continue;
		if (cg_path(t, t->base[c], (int)s, NULL, dir, sizeof(dir), err) < 0 || cg_move_pid(dir, pid, err) < 0)
			return -err->errnum;
	}
	if (t->have_unified &&
	    (cg_path(t, t->ubase, (int)s, NULL, dir, sizeof(dir), err) < 0 || cg_move_pid(dir, pid, err) < 0))
		return -err->errnum;
	return 0;
}

static void v1_stat_file(struct cg_tree *t, enum cg_slice s, enum cg_file f, enum cg_stat k, uint64_t div,
			 struct cg_stats *st)
{
	_cleanup_free_ char *text = NULL;
	uint64_t v;

	if (cg_read_file(t, (int)s, f, &text) == 0 && util_parse_u64(util_rstrip(text), &v) == 0)
		cg_stat_set(st, k, v / div);
}

static void v1_stats(struct cg_tree *t, enum cg_slice s, struct cg_stats *st)
{
	_cleanup_free_ char *cpu = NULL, *oom = NULL;
	uint64_t v;

	v1_stat_file(t, s, CG_F_CPU_USER, CG_STAT_CPU_USER_USEC, 1000, st);
	v1_stat_file(t, s, CG_F_CPU_SYSTEM, CG_STAT_CPU_SYSTEM_USEC, 1000, st);
	v1_stat_file(t, s, CG_F_MEMORY_CURRENT, CG_STAT_MEMORY_CURRENT, 1, st);
	v1_stat_file(t, s, CG_F_MEMORY_PEAK, CG_STAT_MEMORY_PEAK, 1, st);
	v1_stat_file(t, s, CG_F_PIDS_CURRENT, CG_STAT_PIDS_CURRENT, 1, st);
	v1_stat_file(t, s, CG_F_PIDS_PEAK, CG_STAT_PIDS_PEAK, 1, st);
	if (cg_read_file(t, (int)s, CG_F_CPU_STAT, &cpu) == 0) {
		if (util_keyed_u64(cpu, "nr_periods", &v) == 0)
			cg_stat_set(st, CG_STAT_NR_PERIODS, v);
		if (util_keyed_u64(cpu, "nr_throttled", &v) == 0)
			cg_stat_set(st, CG_STAT_NR_THROTTLED, v);
		if (util_keyed_u64(cpu, "throttled_time", &v) == 0)
			cg_stat_set(st, CG_STAT_THROTTLED_USEC, v / 1000);
	}
	/* v1 counts OOM kills (Linux >= 4.13) but not OOM events: "oom" stays absent. */
	if (cg_read_file(t, (int)s, CG_F_MEMORY_EVENTS, &oom) == 0 && util_keyed_u64(oom, "oom_kill", &v) == 0)
		cg_stat_set(st, CG_STAT_OOM_KILL, v);
}

static void v1_rmdir_in(const struct cg_tree *t, const char *base, struct hx_err *err)
{
	struct hx_err ignored = {0};
	char path[PATH_MAX];

	for (int s = CG_NR_SLICES - 1; s >= 0; s--)
		if ((t->created & (1u << s)) && cg_path(t, base, s, NULL, path, sizeof(path), &ignored) == 0)
			cg_rmdir(path);
	if (cg_path(t, base, -1, NULL, path, sizeof(path), &ignored) == 0) {
		int r = cg_rmdir(path);

		if (r < 0 && !err->msg[0])
			hx_fail(err, HX_EXIT_INTERNAL, -r, "cannot remove %s: %s", path, strerror(-r));
	}
}

/* v1's max_usage_in_bytes has always been resettable by writing 0. */
static int v1_peak_reset(struct cg_tree *t, enum cg_slice s)
{
	struct hx_err err = {0};

	return cg_write_file(t, (int)s, CG_F_MEMORY_PEAK, "0", &err) < 0 ? -(err.errnum ? err.errnum : EIO) : 0;
}

static int v1_destroy(struct cg_tree *t, struct hx_err *err)
{
	for (int c = 0; c < CG_NR_CTRLS; c++)
		if (t->base[c][0] && !v1_dup(t, c))
			v1_rmdir_in(t, t->base[c], err);
	if (t->ubase[0])
		v1_rmdir_in(t, t->ubase, err);
	return err->msg[0] ? -err->errnum : 0;
}

const struct cg_backend cg_backend_v1 = {
	.name = "v1",
	.create = v1_create,
	.apply = v1_apply,
	.attach = v1_attach,
	.stats = v1_stats,
	.peak_reset = v1_peak_reset,
	.destroy = v1_destroy,
};
