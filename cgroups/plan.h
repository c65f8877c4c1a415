/* The CPU budget of a run: how many CPUs the system under test and the client get in each mode,
 * and the limits each slice gets. Pure computation: no side effects, testable on fixture trees. */
#ifndef CG_PLAN_H
#define CG_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "cgroups/alloc.h"
#include "cgroups/cg.h"
#include "cgroups/topo.h"

enum cg_cpu_mode { CG_CPU_PINNED, CG_CPU_QUOTA, CG_CPU_NONE };

extern const char *const cg_cpu_mode_names[3];

int cg_cpu_mode_parse(const char *s, enum cg_cpu_mode *ret);

struct cg_budget {
	enum cg_cpu_mode mode;
	unsigned cpus;	      /* 0: choose from the host */
	unsigned client_cpus; /* 0: choose from the host */
	uint64_t memory_max;  /* bytes for the sut slice; 0: the default (plan.c) */
	uint64_t pids_max;    /* for the sut slice; 0: the default (plan.c) */
	bool fixture;	      /* the run starts a database fixture: plan its slice */
	bool no_client;	      /* nothing runs in the client slice (exec without --client) */
	uint64_t fixture_memory_max;
	uint64_t client_memory_max; /* bytes for the client slice; 0: the default (plan.c) */
	unsigned noise_cpus;	    /* threads of the busiest noise generator of the run; 0: no noise slice */
	enum cg_noise_placement noise_placement;
	uint64_t noise_memory_max;
	/* a simultaneous duet (harness ab --duet simultaneous): cg_plan_slices plans sut and sut-b on two disjoint
	 * sets of cpus CPUs each, and client and client-b on two of client_cpus each; pinned mode only */
	bool simultaneous;
};

struct cg_slice_plan {
	struct cg_limits limits[CG_NR_SLICES];
	unsigned slices; /* bit per slice that the run creates */
	unsigned cpus;	 /* the budget actually given to the sut */
	unsigned client_cpus;
	bool fixture_shared;	/* no CPU to spare: the fixture shares the client's set */
	bool sut_shares_client; /* quota: too few CPUs beside the client's, the runtime may run on them */
	/* quota, none: the client (and fixture) have the CPUs pinned mode gives them at this budget; false where
	 * pinned mode does not fit the host, and the modes then differ in placement too */
	bool client_as_pinned;
	unsigned noise_shares; /* pinned: a bit per slice whose CPUs the noise had to share; 0: none */
};

/* A fresh tree named by cg_run_id under root (NULL: below the cgroup harness started in), with the slices
 * of mask (within p->slices) created and each given its planned limits; nothing is left on failure. */
int cg_tree_from_plan(const struct cg_slice_plan *p, unsigned mask, const char *root, struct cg_tree **ret,
		      struct hx_err *err);
/* Turn a budget into per-slice limits on this topology and usable set; exit 3 when it does not fit. */
int cg_plan_slices(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_budget *b,
		   struct cg_slice_plan *ret, struct hx_err *err);

/* A duet (harness ab): the sut-b slice gets exactly the sut's limits (CPU set, quota, memory, pids), so that
 * the two sides differ by nothing the kernel enforces. */
void cg_plan_duet(struct cg_slice_plan *p);

/* A simultaneous duet's swap between blocks: sut and sut-b exchange their CPU sets (and NUMA nodes), and so do
 * client and client-b, so that each side runs as often on each set with its client on the matching one. */
void cg_plan_simul_swap(struct cg_slice_plan *p);

/* The same on this host: its topology under /sys, our cpuset and affinity. */
int cg_plan_host(const struct cg_budget *b, struct cg_slice_plan *ret, struct hx_err *err);
/* The prepare slice's limits: every CPU harness may use but a CPU time of half of them (rounded up), 2 GiB and
 * 1024 processes (docs/sandbox.md, Limits). */
#define CG_PREPARE_MEMORY ((uint64_t)2 << 30)
#define CG_PREPARE_PIDS	  1024
int cg_plan_prepare(struct cg_limits *ret, struct hx_err *err);

#endif
