/* CPU topology from sysfs: which CPUs share a core, a package, a NUMA node. */
#include "cgroups/topo.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"

static int topo_read_cpus(const char *root, const char *rel, struct cg_cpus *ret, bool optional, struct hx_err *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (util_read_line(path, &text, err) < 0) {
		if (optional && err->errnum == ENOENT) {
			hx_clear(err);
			*ret = (struct cg_cpus){0};
			return 0;
		}
		return -err->errnum;
	}
	if (cg_cpus_parse(text, ret) < 0)
		return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "%s: not a CPU list: '%s'", path, text);
	return 0;
}

/* A topology id; a missing file (old kernels have no die_id) reads as 0. */
static int topo_read_id(const char *root, int cpu, const char *name, int *ret, struct hx_err *err)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	char *end;
	long v;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, name);
	if (util_read_line(path, &text, err) < 0) {
		if (err->errnum != ENOENT)
			return -err->errnum;
		hx_clear(err);
		*ret = 0;
		return 0;
	}
	v = strtol(text, &end, 10);
	if (*end || end == text)
		return hx_fail(err, HX_EXIT_INTERNAL, EINVAL, "%s: not a number: '%s'", path, text);
	*ret = v < 0 ? 0 : (int)v;
	return 0;
}

static int topo_read_nodes(const char *root, struct cg_topo *t, struct hx_err *err)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/devices/system/node", root);
	d = opendir(dir);
	t->nr_nodes = 1;
	if (!d)
		return 0; /* no NUMA information: one node */
	t->nr_nodes = 0;
	while ((de = readdir(d))) {
		char rel[PATH_MAX];
		struct cg_cpus cpus;
		int node;

		if (strncmp(de->d_name, "node", 4) != 0 || sscanf(de->d_name + 4, "%d", &node) != 1)
			continue;
		snprintf(rel, sizeof(rel), "devices/system/node/%s/cpulist", de->d_name);
		if (topo_read_cpus(root, rel, &cpus, false, err) < 0)
			return -err->errnum;
		CG_CPUS_FOREACH (cpu, &cpus)
			t->cpu[cpu].node = node;
		t->nr_nodes++;
	}
	if (t->nr_nodes == 0)
		t->nr_nodes = 1;
	return 0;
}

/* Number the physical cores and rank each CPU among its SMT siblings (lowest CPU number first). */
static void topo_rank_cores(struct cg_topo *t)
{
	int nr_cores = 0, max_threads = 0;
	int pkgs[CG_MAX_CPUS];
	int nr_pkgs = 0;

	CG_CPUS_FOREACH (cpu, &t->online) {
		struct cg_cpu_info *c = &t->cpu[cpu];
		int rank = 0;
		bool pkg_seen = false;

		c->core_idx = -1;
		for (int o = 0; o < cpu; o++) {
			const struct cg_cpu_info *p = &t->cpu[o];

			if (!cg_cpus_test(&t->online, (unsigned)o))
				continue;
			if (p->package == c->package && p->die == c->die && p->core == c->core) {
				if (c->core_idx < 0)
					c->core_idx = p->core_idx;
				rank++;
			}
		}
		if (c->core_idx < 0)
			c->core_idx = nr_cores++;
		c->smt_rank = rank;
		if (rank + 1 > max_threads)
			max_threads = rank + 1;
		for (int i = 0; i < nr_pkgs; i++)
			pkg_seen |= pkgs[i] == c->package;
		if (!pkg_seen)
			pkgs[nr_pkgs++] = c->package;
	}
	t->nr_cores = nr_cores;
	t->nr_packages = nr_pkgs;
	t->threads_per_core = max_threads;
}

int cg_topo_read(const char *root, struct cg_topo *ret, struct hx_err *err)
{
	struct cg_topo *t = calloc(1, sizeof(*t));
	int r = 0;

	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "topology: out of memory");
	if (topo_read_cpus(root, "devices/system/cpu/online", &t->online, false, err) < 0 ||
	    topo_read_cpus(root, "devices/system/cpu/present", &t->present, true, err) < 0 ||
	    topo_read_cpus(root, "devices/system/cpu/isolated", &t->isolated, true, err) < 0) {
		r = hx_wrap(err, "topology");
		goto out;
	}
	CG_CPUS_FOREACH (cpu, &t->online) {
		struct cg_cpu_info *c = &t->cpu[cpu];

		if (topo_read_id(root, cpu, "physical_package_id", &c->package, err) < 0 ||
		    topo_read_id(root, cpu, "die_id", &c->die, err) < 0 ||
		    topo_read_id(root, cpu, "core_id", &c->core, err) < 0) {
			r = hx_wrap(err, "topology");
			goto out;
		}
	}
	if (topo_read_nodes(root, t, err) < 0) {
		r = hx_wrap(err, "topology");
		goto out;
	}
	topo_rank_cores(t);
	*ret = *t;
out:
	free(t);
	return r;
}

void cg_topo_core_cpus(const struct cg_topo *t, int cpu, struct cg_cpus *ret)
{
	*ret = (struct cg_cpus){0};
	CG_CPUS_FOREACH (o, &t->online)
		if (t->cpu[o].core_idx == t->cpu[cpu].core_idx)
			cg_cpus_set(ret, (unsigned)o);
}

int cg_topo_siblings_shared(const char *root, const struct cg_cpus *a, const struct cg_cpus *b, bool *ret,
			    struct hx_err *err)
{
	*ret = false;
	CG_CPUS_FOREACH (cpu, a) {
		struct cg_cpus sib;
		char rel[96];

		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
		if (topo_read_cpus(root, rel, &sib, false, err) < 0)
			return hx_wrap(err, "topology");
		cg_cpus_and(&sib, b);
		if (!cg_cpus_empty(&sib))
			*ret = true;
	}
	return 0;
}
