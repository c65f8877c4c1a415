/* --isolate: the runtime's CPUs made its own. Under cgroup v2 with cpuset partitions (Linux >= 5.11 for
 * cpuset.cpus.partition): the run's tree becomes a partition root over the run's CPUs, which the kernel then
 * takes away from every cgroup outside it, and the sut slice a partition root inside it, which takes its CPUs
 * from the tree's other slices and harness's own supervisor leaf. v1 has no equivalent: cpuset.cpu_exclusive
 * only keeps sibling cpusets apart, and the tasks of the ancestors keep every CPU. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "cgroups/cg_internal.h"
#include "cgroups/mode.h"

/* v1: the first ancestor of our cpuset (ours included) that is not cpu_exclusive, into buf; "" when all are. */
static void v1_first_shared(const struct cg_host *h, char *buf, size_t len)
{
	char dir[PATH_MAX];
	struct hx_err err = {0};

	buf[0] = '\0';
	if (cg_hier_dir(&h->v1[CG_CTRL_CPUSET], dir, sizeof(dir), &err) < 0)
		return;
	for (;;) {
		char path[PATH_MAX + 32];
		_cleanup_free_ char *v = NULL;
		char *slash;

		snprintf(path, sizeof(path), "%s/cpuset.cpu_exclusive", dir);
		if (util_read_line(path, &v, &err) == 0 && strcmp(v, "1") != 0) {
			snprintf(buf, len, "%s", dir);
			return;
		}
		if (strcmp(dir, h->v1[CG_CTRL_CPUSET].mount) == 0 || !(slash = strrchr(dir, '/')) || slash == dir)
			return;
		*slash = '\0';
	}
}

static int v2_possible(const struct cg_host *h, char *why, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	_cleanup_free_ char *ctrls = NULL, *part = NULL;
	struct hx_err err = {0};

	if (cg_hier_dir(&h->unified, dir, sizeof(dir), &err) < 0) {
		snprintf(why, len, "%s", err.msg);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (util_read_line(path, &ctrls, &err) < 0 || !strstr(ctrls, "cpuset")) {
		snprintf(why, len,
			 "the cpuset controller is not available in %s (delegate it: systemd-run --scope -p "
			 "Delegate=yes harness ...)",
			 dir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/cpuset.cpus.partition", dir);
	if (strcmp(dir, h->unified.mount) != 0 &&
	    (util_read_line(path, &part, &err) < 0 || strcmp(part, "root") != 0)) {
		snprintf(why, len,
			 "harness's cgroup %s is not a CPU partition root (cpuset.cpus.partition: %s), and only a "
			 "partition root's children can take CPUs of their own: start harness in the root cgroup or in "
			 "a "
			 "partition root",
			 dir, part ? part : "absent: Linux < 5.11");
		return 0;
	}
	snprintf(why, len, "cgroup v2 CPU partitions (cpuset.cpus.partition) in %s", dir);
	return 1;
}

int cg_isolation_possible(char *why, size_t len)
{
	const struct cg_host *h;
	struct hx_err err = {0};
	char shared[PATH_MAX];

	if (cg_host_get(&h, &err) < 0) {
		snprintf(why, len, "%s", err.msg);
		return 0;
	}
	if (h->mode == CG_MODE_UNIFIED)
		return v2_possible(h, why, len);
	if (h->mode == CG_MODE_NONE || !h->v1[CG_CTRL_CPUSET].mounted) {
		snprintf(why, len, "no cpuset controller is mounted");
		return 0;
	}
	v1_first_shared(h, shared, sizeof(shared));
	if (shared[0])
		snprintf(why, len,
			 "cgroup v1 (%s): cpuset.cpu_exclusive needs every ancestor exclusive, and %s is not (harness "
			 "may "
			 "not write a cgroup it did not create); isolation needs cgroup v2 partitions, or isolcpus= on "
			 "the kernel command line",
			 cg_mode_names[h->mode], shared);
	else
		snprintf(
			why, len,
			"cgroup v1 (%s): cpuset.cpu_exclusive keeps only sibling cpusets apart, while the tasks of the "
			"ancestor cpusets (here every process of the host) keep every CPU; isolation needs cgroup v2 "
			"partitions, or isolcpus= on the kernel command line",
			cg_mode_names[h->mode]);
	return 0;
}

/* Write "root" to a partition file and read back what the kernel made of it. */
static int make_partition(struct cg_tree *t, int slice, const char *what, struct hx_err *err)
{
	_cleanup_free_ char *got = NULL;

	if (cg_write_file(t, slice, CG_F_PARTITION, "root", err) < 0)
		return hx_wrap(err, "--isolate: %s", what);
	if (cg_read_file(t, slice, CG_F_PARTITION, &got) < 0)
		return hx_fail(err, HX_EXIT_HOST, EIO, "--isolate: %s: cpuset.cpus.partition is unreadable", what);
	util_rstrip(got);
	if (strcmp(got, "root") != 0)
		return hx_fail(
			err, HX_EXIT_HOST, EINVAL,
			"--isolate: the kernel refused %s as a CPU partition: '%s' (one CPU must stay outside the "
			"run: fewer --cpus or --client-cpus)",
			what, got);
	return 0;
}

int cg_slice_isolate(struct cg_tree *t, enum cg_slice s, const struct cg_cpus *tree_cpus, struct hx_err *err)
{
	char why[1024], cpus[CG_MAX_CPUS * 5];

	if (t->be != &cg_backend_v2) {
		cg_isolation_possible(why, sizeof(why));
		return hx_fail(err, HX_EXIT_HOST, ENOTSUP, "--isolate is not possible here: %s", why);
	}
	cg_cpus_format(tree_cpus, cpus, sizeof(cpus));
	if (cg_write_file(t, -1, CG_F_CPUS, cpus, err) < 0)
		return hx_wrap(err, "--isolate: the run's CPUs %s", cpus);
	if (make_partition(t, -1, "the run's tree", err) < 0 || make_partition(t, (int)s, "the sut slice", err) < 0)
		return -err->errnum;
	return 0;
}
