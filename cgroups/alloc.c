/* Topology-aware CPU allocation: disjoint, whole-core-first CPU sets for sut, client, fixture, noise. */
#include "cgroups/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const cg_slice_names[CG_NR_SLICES] = {"sut", "client", "fixture", "noise", "sut-b", "prepare", "client-b"};
const char *const cg_noise_placement_names[2] = {"apart", "sibling"};

void cg_usable_cpus(const struct cg_topo *t, const struct cg_cpus *cpuset, const struct cg_cpus *affinity,
		    struct cg_cpus *ret)
{
	*ret = t->online;
	if (cpuset)
		cg_cpus_and(ret, cpuset);
	if (affinity)
		cg_cpus_and(ret, affinity);
}

/*
 * Lower is better: the order in which a slice takes free CPUs. The tiers, worst first: a core whose
 * other threads belong to another slice; another NUMA node than the one the slice fits in; a second
 * thread of a core nobody holds yet; a sibling on a core this slice already holds; CPU 0.
 */
static long alloc_rank(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_cpus *free_,
		       const struct cg_cpus *own_cores, enum cg_slice slice, int node, int cpu)
{
	const struct cg_cpu_info *c = &t->cpu[cpu];
	struct cg_cpus core, others, core_free;
	long rank = 0;

	cg_topo_core_cpus(t, cpu, &core);
	cg_cpus_and(&core, usable);
	others = core;
	cg_cpus_andnot(&others, free_);
	cg_cpus_andnot(&others, own_cores);
	core_free = core;
	cg_cpus_and(&core_free, free_);
	if (!cg_cpus_empty(&others))
		rank += 1L << 40;
	else if (cg_cpus_test(own_cores, (unsigned)cpu))
		rank += 1L << 34;
	else if (cg_cpus_next(&core_free, 0) != cpu)
		rank += 1L << 36;
	if (cpu == 0)
		rank += 1L << 32;
	if (node >= 0 && c->node != node)
		rank += 1L << 38;
	if (slice == CG_SLICE_SUT && cg_cpus_test(&t->isolated, (unsigned)cpu))
		rank -= 1L << 24;
	return rank + (long)c->core_idx * 64 + c->smt_rank;
}

/* The node with the most free CPUs, if it can hold n of them on its own; -1 when none can. */
static int alloc_pick_node(const struct cg_topo *t, const struct cg_cpus *free_, unsigned n)
{
	unsigned nfree[CG_MAX_CPUS] = {0};
	int best = -1;

	CG_CPUS_FOREACH (cpu, free_)
		nfree[t->cpu[cpu].node]++;
	for (int node = 0; node < CG_MAX_CPUS; node++)
		if (nfree[node] >= n && (best < 0 || nfree[node] > nfree[best]))
			best = node;
	return best;
}

static void alloc_one(const struct cg_topo *t, const struct cg_cpus *usable, struct cg_cpus *free_, enum cg_slice slice,
		      unsigned n, struct cg_alloc *a)
{
	struct cg_cpus own_cores = {0};
	int node = alloc_pick_node(t, free_, n);

	for (unsigned i = 0; i < n; i++) {
		long best_rank = 0;
		int best = -1;

		CG_CPUS_FOREACH (cpu, free_) {
			long r = alloc_rank(t, usable, free_, &own_cores, slice, node, cpu);

			if (best < 0 || r < best_rank) {
				best = cpu;
				best_rank = r;
			}
		}
		if (best < 0)
			return;
		cg_cpus_set(&a->cpus[slice], (unsigned)best);
		cg_cpus_set(&a->mems[slice], (unsigned)t->cpu[best].node);
		cg_cpus_clear(free_, (unsigned)best);
		{
			struct cg_cpus core;

			cg_topo_core_cpus(t, best, &core);
			cg_cpus_or(&own_cores, &core);
		}
	}
}

int cg_alloc_cpus(const struct cg_topo *t, const struct cg_cpus *usable, const unsigned want[CG_NR_SLICES],
		  struct cg_alloc *ret, struct hx_err *err)
{
	struct cg_alloc a = {0};
	struct cg_cpus free_ = *usable;
	unsigned total = 0, have = cg_cpus_count(usable);

	for (int s = 0; s < CG_NR_SLICES; s++)
		total += want[s];
	if (total > have) {
		unsigned others = total - want[CG_SLICE_SUT];

		if (have < 2)
			return hx_fail(err, HX_EXIT_HOST, ERANGE,
				       "this host has %u usable CPU: pinned mode needs one for the runtime and one for "
				       "the client (use --mode quota or --mode none)",
				       have);
		if (others < have)
			return hx_fail(err, HX_EXIT_HOST, ERANGE,
				       "this host has %u usable CPUs: pinned mode can give the runtime %u and the "
				       "others %u (try --cpus %u, or --mode quota)",
				       have, have - others, others, have - others);
		return hx_fail(err, HX_EXIT_HOST, ERANGE,
			       "this host has %u usable CPUs: pinned mode can give the runtime %u and the client %u "
			       "(try --cpus %u --client-cpus %u, or --mode quota)",
			       have, have - have / 2, have / 2, have - have / 2, have / 2);
	}
	for (int s = 0; s < CG_NR_SLICES; s++)
		alloc_one(t, usable, &free_, (enum cg_slice)s, want[s], &a);
	*ret = a;
	return 0;
}

/* Every usable CPU of the cores that the CPUs of s are on. */
static void alloc_cores_of(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_cpus *s,
			   struct cg_cpus *ret)
{
	*ret = (struct cg_cpus){0};
	CG_CPUS_FOREACH (cpu, s) {
		struct cg_cpus core;

		cg_topo_core_cpus(t, cpu, &core);
		cg_cpus_or(ret, &core);
	}
	cg_cpus_and(ret, usable);
}

int cg_alloc_noise(const struct cg_topo *t, const struct cg_cpus *usable, unsigned n, enum cg_noise_placement where,
		   struct cg_alloc *a, unsigned *ret_shares, struct hx_err *err)
{
	struct cg_cpus free_ = *usable, sut_cores;

	for (int s = 0; s < CG_NR_SLICES; s++)
		cg_cpus_andnot(&free_, &a->cpus[s]);
	alloc_cores_of(t, usable, &a->cpus[CG_SLICE_SUT], &sut_cores);
	a->cpus[CG_SLICE_NOISE] = a->mems[CG_SLICE_NOISE] = (struct cg_cpus){0};
	*ret_shares = 0;
	if (where == CG_NOISE_SIBLING) {
		cg_cpus_and(&free_, &sut_cores);
		if (cg_cpus_empty(&free_))
			return hx_fail(err, HX_EXIT_HOST, ERANGE,
				       "--noise-placement sibling needs a free SMT sibling of the runtime's CPUs; this "
				       "host has %d thread(s) per core%s (use --noise-placement apart)",
				       t->threads_per_core, t->threads_per_core > 1 ? ", all taken" : "");
	} else {
		cg_cpus_andnot(&free_, &sut_cores);
	}
	if (cg_cpus_empty(&free_)) {
		/* nothing left apart from the runtime: a co-tenant of the client, said so in the results */
		a->cpus[CG_SLICE_NOISE] = a->cpus[CG_SLICE_CLIENT];
		a->mems[CG_SLICE_NOISE] = a->mems[CG_SLICE_CLIENT];
	} else {
		alloc_one(t, usable, &free_, CG_SLICE_NOISE, n, a);
	}
	/* sharing is by physical core: an SMT sibling shares the core's caches and execution units */
	alloc_cores_of(t, usable, &a->cpus[CG_SLICE_NOISE], &free_);
	for (int s = 0; s < CG_NR_SLICES; s++) {
		struct cg_cpus both = free_;

		cg_cpus_and(&both, &a->cpus[s]);
		if (s != CG_SLICE_NOISE && !cg_cpus_empty(&both))
			*ret_shares |= 1u << s;
	}
	return 0;
}
