/* From a CPU budget (--cpus, --client-cpus, --mode, --memory) to the limits of each slice. */
#include "cgroups/plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const cg_cpu_mode_names[3] = {"pinned", "quota", "none"};

#define CG_QUOTA_PERIOD_US 100000

int cg_cpu_mode_parse(const char *s, enum cg_cpu_mode *ret)
{
	for (int m = 0; m < 3; m++)
		if (strcmp(s, cg_cpu_mode_names[m]) == 0) {
			*ret = (enum cg_cpu_mode)m;
			return 0;
		}
	return -EINVAL;
}

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

static unsigned max_u(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* Defaults model a 4-vCPU CI runner, with as many CPUs again for the client where the host has them. */
static void plan_split(unsigned usable, const struct cg_budget *b, unsigned *sut, unsigned *client)
{
	unsigned s = b->cpus, c = b->client_cpus;

	if (!s)
		s = max_u(1, min_u(4, c ? (usable > c ? usable - c : 1) : usable / 2));
	if (!c)
		c = max_u(1, min_u(s, usable > s ? usable - s : 0));
	*sut = s;
	*client = c;
}

/* The noise slice, placed last so that quiet and noisy trials give the others the same CPUs: pinned, on
 * CPUs of its own when any are left (else the client's, recorded); quota and none, anywhere, as a
 * co-tenant would be, with a quota of its threads. */
static int plan_noise(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_budget *b,
		      struct cg_alloc *a, struct cg_slice_plan *p, struct hx_err *err)
{
	struct cg_limits *l = &p->limits[CG_SLICE_NOISE];

	p->slices |= 1u << CG_SLICE_NOISE;
	l->memory_max = b->noise_memory_max;
	l->pids_max = 64;
	if (b->mode == CG_CPU_PINNED)
		return cg_alloc_noise(t, usable, b->noise_cpus, b->noise_placement, a, &p->noise_shares, err);
	if (b->noise_placement == CG_NOISE_SIBLING)
		return hx_fail(
			err, HX_EXIT_USAGE, EINVAL,
			"--noise-placement sibling places noise in pinned mode only: in %s mode it runs anywhere",
			cg_cpu_mode_names[b->mode]);
	a->cpus[CG_SLICE_NOISE] = *usable;
	a->mems[CG_SLICE_NOISE] = (struct cg_cpus){0};
	l->cpu_quota_us = (uint64_t)b->noise_cpus * CG_QUOTA_PERIOD_US;
	l->cpu_period_us = CG_QUOTA_PERIOD_US;
	return 0;
}

/* quota: the runtime may run on every CPU of the harness but the client's and the fixture's own,
 * when that leaves it at least its budget (a client inside the runtime's set would load the very CPUs it
 * measures); else on every CPU, recorded as sharing the client's. */
static struct cg_cpus plan_quota_set(const struct cg_cpus *usable, const struct cg_alloc *a, unsigned budget,
				     bool *ret_shared)
{
	struct cg_cpus set = *usable, others = a->cpus[CG_SLICE_CLIENT];

	cg_cpus_or(&others, &a->cpus[CG_SLICE_FIXTURE]);
	cg_cpus_andnot(&set, &others);
	*ret_shared = cg_cpus_count(&set) < budget || cg_cpus_empty(&set);
	return *ret_shared ? *usable : set;
}

/* What each slice would get in pinned mode: the runtime's N CPUs, the client's, and the fixture's one when a CPU
 * is left over (else it shares the client's, which is idle in a script workload and recorded either way). */
static void plan_want_pinned(unsigned have, const struct cg_budget *b, struct cg_slice_plan *p,
			     unsigned want[CG_NR_SLICES])
{
	memset(want, 0, CG_NR_SLICES * sizeof(*want));
	want[CG_SLICE_SUT] = p->cpus;
	want[CG_SLICE_CLIENT] = p->client_cpus;
	if (b->fixture) {
		p->slices |= 1u << CG_SLICE_FIXTURE;
		want[CG_SLICE_FIXTURE] = have > p->cpus + p->client_cpus ? 1 : 0;
		p->fixture_shared = !want[CG_SLICE_FIXTURE];
	}
}

/* The client and the fixture keep pinned mode's CPUs in every mode at the same budget, so that quota and none
 * differ from pinned in the runtime's CPU limit alone (a client moved to the CPUs pinned mode gave the runtime
 * would measure placement too): the CPUs are allocated as for pinned mode and the runtime's set is let go.
 * Where pinned mode does not fit (a 2-CPU host, --cpus 2), the client gets what is left of one CPU for the
 * runtime at least, and client_as_pinned says it is elsewhere. */
static int plan_alloc(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_budget *b,
		      struct cg_slice_plan *p, struct cg_alloc *a, struct hx_err *err)
{
	unsigned want[CG_NR_SLICES], have = cg_cpus_count(usable);
	struct hx_err pinned_err = {0};

	plan_want_pinned(have, b, p, want);
	if (b->mode == CG_CPU_PINNED)
		return cg_alloc_cpus(t, usable, want, a, err);
	if (cg_alloc_cpus(t, usable, want, a, &pinned_err) == 0) {
		a->cpus[CG_SLICE_SUT] = a->mems[CG_SLICE_SUT] = (struct cg_cpus){0};
		p->client_as_pinned = true;
		return 0;
	}
	want[CG_SLICE_SUT] = 0;
	if (p->client_cpus >= have)
		want[CG_SLICE_CLIENT] = have > 1 ? have - 1 : 0;
	if (b->fixture) {
		want[CG_SLICE_FIXTURE] = have > want[CG_SLICE_CLIENT] + p->cpus ? 1 : 0;
		p->fixture_shared = !want[CG_SLICE_FIXTURE];
	}
	return cg_alloc_cpus(t, usable, want, a, err);
}

/* No slice runs without a memory and a pids limit: what a budget leaves at 0 gets these. The sut's memory is
 * --memory's default; the client (harness load: buffers per connection, a thread per -t) and the fixture (Postgres:
 * shared_buffers is a quarter of its limit) get what they need with room; noise generators size their buffers
 * from the budget. */
static const struct {
	uint64_t memory_max, pids_max;
} cg_slice_defaults[CG_NR_SLICES] = {
	[CG_SLICE_SUT] = {(uint64_t)2 << 30, 4096},
	[CG_SLICE_CLIENT] = {(uint64_t)1 << 30, 1024},
	[CG_SLICE_FIXTURE] = {(uint64_t)2 << 30, 1024},
	[CG_SLICE_NOISE] = {(uint64_t)512 << 20, 64},
	[CG_SLICE_PREPARE] = {CG_PREPARE_MEMORY, CG_PREPARE_PIDS},
	[CG_SLICE_SUT_B] = {(uint64_t)2 << 30, 4096},
	[CG_SLICE_CLIENT_B] = {(uint64_t)1 << 30, 1024},
};

static void plan_default_limits(struct cg_slice_plan *p)
{
	for (int s = 0; s < CG_NR_SLICES; s++) {
		if (!(p->slices & (1u << s)))
			continue;
		if (!p->limits[s].memory_max)
			p->limits[s].memory_max = cg_slice_defaults[s].memory_max;
		if (!p->limits[s].pids_max)
			p->limits[s].pids_max = cg_slice_defaults[s].pids_max;
	}
}

/* A simultaneous duet: both sides loaded at once, so each needs CPUs of its own, and so does each side's client:
 * four disjoint sets, the sides' of one size and the clients' of one size. By default a side gets a quarter of
 * the host (1 to 4 CPUs) and its client as many; with no_client (a startup duet: single runs, no load) two
 * sets, a half of the host each (1 to 4). Pinned mode only: a quota, or no CPU control, would let the
 * two sides run on the same CPUs, and what one got would be taken from the other. */
static int plan_simul(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_budget *b,
		      struct cg_slice_plan *ret, struct hx_err *err)
{
	static const enum cg_slice sides[] = {CG_SLICE_SUT, CG_SLICE_SUT_B},
				   clients[] = {CG_SLICE_CLIENT, CG_SLICE_CLIENT_B};
	struct cg_slice_plan p = {0};
	unsigned have = cg_cpus_count(usable), want[CG_NR_SLICES] = {0}, s, c;
	struct cg_alloc a;

	if (b->mode != CG_CPU_PINNED)
		return hx_fail(err, HX_EXIT_USAGE, EINVAL,
			       "ab: --duet simultaneous runs in pinned mode only (each side on CPUs of its own): drop "
			       "--mode %s, or use --duet interleaved",
			       cg_cpu_mode_names[b->mode]);
	/* a startup duet's sides have no clients: a half of the host each, then */
	s = b->cpus ? b->cpus : max_u(1, min_u(4, have / (b->no_client ? 2 : 4)));
	c = b->no_client ? 0 : b->client_cpus ? b->client_cpus : s;
	if (2 * (s + c) > have) {
		if (b->no_client)
			return hx_fail(err, HX_EXIT_HOST, ERANGE,
				       "ab: --duet simultaneous needs %u usable CPUs (%u for each side); this host has "
				       "%u: %s",
				       2 * s, s, have, have >= 2 ? "try a smaller --cpus" : "use --duet interleaved");
		if (have >= 4 && s > 1)
			return hx_fail(err, HX_EXIT_HOST, ERANGE,
				       "ab: --duet simultaneous needs %u usable CPUs (%u for each side and %u for each "
				       "side's client); this host has %u: try --cpus %u, or --duet interleaved",
				       2 * (s + c), s, c, have, have / 4);
		return hx_fail(err, HX_EXIT_HOST, ERANGE,
			       "ab: --duet simultaneous needs %u usable CPUs (%u for each side and %u for each side's "
			       "client); this host has %u: use --duet interleaved",
			       2 * (s + c), s, c, have);
	}
	for (int k = 0; k < 2; k++) {
		want[sides[k]] = s;
		want[clients[k]] = c;
	}
	if (cg_alloc_cpus(t, usable, want, &a, err) < 0)
		return -err->errnum;
	for (int k = 0; k < 2; k++) {
		p.slices |= 1u << sides[k];
		p.limits[sides[k]] = (struct cg_limits){.cpus = a.cpus[sides[k]],
							.mems = a.mems[sides[k]],
							.memory_max = b->memory_max,
							.pids_max = b->pids_max};
		if (!c)
			continue;
		p.slices |= 1u << clients[k];
		p.limits[clients[k]] = (struct cg_limits){
			.cpus = a.cpus[clients[k]], .mems = a.mems[clients[k]], .memory_max = b->client_memory_max};
	}
	p.cpus = s;
	p.client_cpus = c;
	plan_default_limits(&p);
	*ret = p;
	return 0;
}

void cg_plan_simul_swap(struct cg_slice_plan *p)
{
	static const enum cg_slice pairs[][2] = {{CG_SLICE_SUT, CG_SLICE_SUT_B}, {CG_SLICE_CLIENT, CG_SLICE_CLIENT_B}};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct cg_limits *x = &p->limits[pairs[i][0]], *y = &p->limits[pairs[i][1]];
		struct cg_cpus cpus = x->cpus, mems = x->mems;

		x->cpus = y->cpus;
		x->mems = y->mems;
		y->cpus = cpus;
		y->mems = mems;
	}
}

int cg_plan_slices(const struct cg_topo *t, const struct cg_cpus *usable, const struct cg_budget *b,
		   struct cg_slice_plan *ret, struct hx_err *err)
{
	struct cg_slice_plan p = {0};
	struct cg_alloc a;
	unsigned have = cg_cpus_count(usable);

	if (b->simultaneous)
		return plan_simul(t, usable, b, ret, err);

	plan_split(have, b, &p.cpus, &p.client_cpus);
	p.slices = (1u << CG_SLICE_SUT) | (1u << CG_SLICE_CLIENT);
	if (b->mode != CG_CPU_PINNED && p.cpus > have)
		return hx_fail(err, HX_EXIT_HOST, ERANGE,
			       "this host has %u usable CPUs: %s mode can give the runtime at most %u (try --cpus %u)",
			       have, cg_cpu_mode_names[b->mode], have, have);
	if (plan_alloc(t, usable, b, &p, &a, err) < 0)
		return -err->errnum;
	if (b->noise_cpus && plan_noise(t, usable, b, &a, &p, err) < 0)
		return -err->errnum;
	for (int s = 0; s < CG_NR_SLICES; s++) {
		p.limits[s].cpus = a.cpus[s];
		p.limits[s].mems = a.mems[s];
	}
	if (b->mode != CG_CPU_PINNED) {
		/* none: no CPU control at all, the runtime on every CPU as on an unmanaged host */
		p.limits[CG_SLICE_SUT].cpus = b->mode == CG_CPU_QUOTA && !b->no_client
						      ? plan_quota_set(usable, &a, p.cpus, &p.sut_shares_client)
						      : *usable;
		p.limits[CG_SLICE_SUT].mems = (struct cg_cpus){0};
		if (cg_cpus_empty(&p.limits[CG_SLICE_CLIENT].cpus))
			p.limits[CG_SLICE_CLIENT].cpus = *usable;
	}
	if (b->mode == CG_CPU_QUOTA) {
		p.limits[CG_SLICE_SUT].cpu_quota_us = (uint64_t)p.cpus * CG_QUOTA_PERIOD_US;
		p.limits[CG_SLICE_SUT].cpu_period_us = CG_QUOTA_PERIOD_US;
	}
	if (p.fixture_shared) {
		p.limits[CG_SLICE_FIXTURE].cpus = p.limits[CG_SLICE_CLIENT].cpus;
		p.limits[CG_SLICE_FIXTURE].mems = p.limits[CG_SLICE_CLIENT].mems;
	}
	p.limits[CG_SLICE_FIXTURE].memory_max = b->fixture_memory_max;
	p.limits[CG_SLICE_SUT].memory_max = b->memory_max;
	p.limits[CG_SLICE_CLIENT].memory_max = b->client_memory_max;
	p.limits[CG_SLICE_SUT].pids_max = b->pids_max;
	plan_default_limits(&p);
	*ret = p;
	return 0;
}

int cg_plan_prepare(struct cg_limits *ret, struct hx_err *err)
{
	struct cg_cpus cpuset, affinity;
	unsigned n;

	if (cg_own_cpuset(&cpuset, err) < 0 || cg_own_affinity(&affinity, err) < 0)
		return -err->errnum;
	cg_cpus_and(&cpuset, &affinity);
	n = cg_cpus_count(&cpuset);
	*ret = (struct cg_limits){.cpus = cpuset,
				  .cpu_quota_us = (uint64_t)(n > 1 ? (n + 1) / 2 : 1) * CG_QUOTA_PERIOD_US,
				  .cpu_period_us = CG_QUOTA_PERIOD_US,
				  .memory_max = CG_PREPARE_MEMORY,
				  .pids_max = CG_PREPARE_PIDS};
	return 0;
}

int cg_plan_host(const struct cg_budget *b, struct cg_slice_plan *ret, struct hx_err *err)
{
	struct cg_topo *t = calloc(1, sizeof(*t));
	struct cg_cpus cpuset, affinity, usable;
	int r;

	if (!t)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	r = cg_topo_read("/sys", t, err);
	if (r == 0)
		r = cg_own_cpuset(&cpuset, err);
	if (r == 0)
		r = cg_own_affinity(&affinity, err);
	if (r == 0) {
		cg_usable_cpus(t, &cpuset, &affinity, &usable);
		r = cg_plan_slices(t, &usable, b, ret, err);
	}
	free(t);
	return r;
}

int cg_tree_from_plan(const struct cg_slice_plan *p, unsigned mask, const char *root, struct cg_tree **ret,
		      struct hx_err *err)
{
	struct cg_tree *t = NULL;
	char id[64];

	mask &= p->slices;
	if (cg_run_id(id, sizeof(id), err) < 0 || cg_tree_create(id, root, mask, &t, err) < 0)
		return -err->errnum;
	for (int s = 0; s < CG_NR_SLICES; s++)
		if ((mask & (1u << s)) && cg_slice_apply(t, (enum cg_slice)s, &p->limits[s], err) < 0) {
			cg_tree_destroy(t, &(struct hx_err){0}); /* the apply error is the one to tell */
			return -err->errnum;
		}
	*ret = t;
	return 0;
}

void cg_plan_duet(struct cg_slice_plan *p)
{
	p->limits[CG_SLICE_SUT_B] = p->limits[CG_SLICE_SUT];
	p->slices |= 1u << CG_SLICE_SUT_B;
}
