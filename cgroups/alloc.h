/* Disjoint CPU sets for the slices of a run, chosen from the host's topology. */
#ifndef CG_ALLOC_H
#define CG_ALLOC_H

#include "base/err.h"
#include "cgroups/cpus.h"
#include "cgroups/topo.h"

enum cg_slice {
	CG_SLICE_SUT,
	CG_SLICE_CLIENT,
	CG_SLICE_FIXTURE,
	CG_SLICE_NOISE,
	CG_NR_SLICES,
};

extern const char *const cg_slice_names[CG_NR_SLICES];

struct cg_alloc {
	struct cg_cpus cpus[CG_NR_SLICES];
	struct cg_cpus mems[CG_NR_SLICES]; /* NUMA nodes of the chosen CPUs, as a node set */
};

/* Usable CPUs: online, in our cpuset and in our affinity mask. */
void cg_usable_cpus(const struct cg_topo *t, const struct cg_cpus *cpuset, const struct cg_cpus *affinity,
		    struct cg_cpus *ret);

/*
 * Give each slice want[slice] CPUs of usable, disjoint: whole cores before SMT siblings (a slice's
 * extra threads come from its own cores first), CPU 0 avoided when the others suffice, isolated CPUs
 * first for the system under test, one NUMA node per slice where one can hold it.
 * Exit 3 with what would fit when the request does not.
 */
int cg_alloc_cpus(const struct cg_topo *t, const struct cg_cpus *usable, const unsigned want[CG_NR_SLICES],
		  struct cg_alloc *ret, struct hx_err *err);

#endif
