/* CPU topology read from a sysfs root: packages, dies, cores, SMT siblings, NUMA nodes, isolation.
 * The root is a parameter so that tests can point it at fixture trees. */
#ifndef CG_TOPO_H
#define CG_TOPO_H

#include <stdbool.h>

#include "base/err.h"
#include "cgroups/cpus.h"

struct cg_cpu_info {
	int package;
	int die;
	int core;     /* core_id as sysfs gives it: unique only within a package (and die) */
	int core_idx; /* index of the physical core across the host, 0.. */
	int node;     /* NUMA node, 0 when the host shows none */
	int smt_rank; /* 0 for the first thread of its core, 1 for its sibling, ... */
};

struct cg_topo {
	struct cg_cpus online;
	struct cg_cpus isolated;
	struct cg_cpus present;
	struct cg_cpu_info cpu[CG_MAX_CPUS]; /* valid for online CPUs */
	int nr_packages;
	int nr_cores;
	int nr_nodes;
	int threads_per_core; /* the most threads any core has */
};

/* Read the topology under sysfs_root (normally "/sys"). */
int cg_topo_read(const char *sysfs_root, struct cg_topo *ret, struct hx_err *err);
/* The CPUs of one core: every online CPU with the same core_idx as cpu. */
void cg_topo_core_cpus(const struct cg_topo *t, int cpu, struct cg_cpus *ret);
/* Whether a CPU of a and a CPU of b are SMT siblings (threads of one core), by each CPU of a's
 * thread_siblings_list under sysfs_root: what two loads on a and b at once share besides caches. */
int cg_topo_siblings_shared(const char *sysfs_root, const struct cg_cpus *a, const struct cg_cpus *b, bool *ret,
			    struct hx_err *err);

#endif
