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
	CG_SLICE_SUT_B,	   /* a duet's second side (harness ab): the sut's CPU set and limits */
	CG_SLICE_PREPARE,  /* a tree of its own, outside trials: prepare steps, installs, bundling, probes, initdb */
	CG_SLICE_CLIENT_B, /* a simultaneous duet's second client (harness ab --duet simultaneous) */
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

/* Where a pinned run puts its noise: apart from the runtime (never on its cores), or on the free SMT
 * siblings of the runtime's CPUs, to measure exactly that. */
enum cg_noise_placement { CG_NOISE_APART, CG_NOISE_SIBLING };

extern const char *const cg_noise_placement_names[2];

/*
 * Place the noise slice (pinned mode) after the other slices of a: up to n CPUs of usable that no slice
 * holds. Apart: never a CPU of a core the runtime holds; when none is left, the client's set is shared
 * and *ret_shares gets the client's bit (a bit per enum cg_slice; 0 when it shares nothing). Sibling: the
 * free threads of the runtime's cores, exit 3 when there are none.
 */
int cg_alloc_noise(const struct cg_topo *t, const struct cg_cpus *usable, unsigned n, enum cg_noise_placement where,
		   struct cg_alloc *a, unsigned *ret_shares, struct hx_err *err);

#endif
