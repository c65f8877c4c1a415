/* A mode against pinned in the same run: the ratio of medians, its paired bootstrap CI and the signed-rank test
 * (part of the summaries; report.c shows it in the table's vs pinned column, results_json.c writes it). */
#include "results/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "stats/signif.h"
#include "stats/stats.h"

/* The workload's main metric, the first both groups have. */
static const enum res_metric twin_metrics[] = {RES_M_RPS, RES_M_DELIVERIES_PER_S, RES_M_OPS_PER_S,
					       RES_M_STARTUP_MEDIAN_MS};

static bool in_cell(const struct trial_result *t, const struct res_summary *g, const char *mode)
{
	return !strcmp(t->scenario, g->scenario) && !strcmp(t->runtime, g->runtime) && !strcmp(t->mode, mode) &&
	       !strcmp(t->noise, "none") && t->status == TRIAL_OK;
}

/* By trial index, then by place in the file (the first of equal indices first, as a scan would find it). */
static int cmp_trial_no(const void *a, const void *b)
{
	const struct trial_result *x = *(const struct trial_result *const *)a,
				  *y = *(const struct trial_result *const *)b;

	return x->trial != y->trial ? (x->trial > y->trial) - (x->trial < y->trial) : (x > y) - (x < y);
}

/* The pinned trial of the same index that passed, from the pinned trials sorted by index; NULL when none. */
static const struct trial_result *partner(const struct trial_result *const *pinned, size_t np, unsigned trial)
{
	size_t lo = 0, hi = np;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pinned[mid]->trial < trial)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < np && pinned[lo]->trial == trial ? pinned[lo] : NULL;
}

/* Pairs (pinned, this) by trial index where both passed, and every value of each side for the unpaired tests. */
static void collect(const struct trial_result *const *ts, size_t n, const struct trial_result *const *pinned,
		    size_t npinned, const struct res_summary *g, enum res_metric m, double *pa, double *pb, size_t *np,
		    double *a, size_t *na, double *b, size_t *nb)
{
	*np = *na = *nb = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trial_result *t = ts[i], *p;
		double v = res_metric(t, m);

		if (isnan(v))
			continue;
		if (in_cell(t, g, "pinned"))
			a[(*na)++] = v;
		if (!in_cell(t, g, g->mode))
			continue;
		b[(*nb)++] = v;
		p = partner(pinned, npinned, t->trial);
		if (p && !isnan(res_metric(p, m))) {
			pa[*np] = res_metric(p, m);
			pb[(*np)++] = v;
		}
	}
}

static void judge(const double *pa, const double *pb, size_t np, const double *a, size_t na, const double *b, size_t nb,
		  struct res_twin *r)
{
	struct sig_test t;
	struct sig_ci ci;

	r->ci95_low = r->ci95_high = r->p = NAN;
	r->pairs = (unsigned)np;
	r->paired = np >= 2 && sig_wilcoxon(pa, pb, np, &t) == 0;
	if (!r->paired && sig_mann_whitney(a, na, b, nb, &t) < 0)
		return;
	r->p = t.p;
	if (r->paired ? sig_ratio_ci(pa, np, pb, np, true, 1 - RES_TWIN_ALPHA, SIG_SEED, &ci)
		      : sig_ratio_ci(a, na, b, nb, false, 1 - RES_TWIN_ALPHA, SIG_SEED, &ci))
		return;
	if (r->paired) /* the estimate from the pairs the CI resampled, or it can fall outside its own CI */
		r->ratio = ci.estimate;
	r->ci95_low = ci.low;
	r->ci95_high = ci.high;
	r->significant = r->p < RES_TWIN_ALPHA && (ci.low > 1 || ci.high < 1);
}

int res_twin_of(const struct trial_result *const *ts, size_t n, const struct res_summary *g, struct res_twin *ret)
{
	_cleanup_free_ double *v = calloc(4 * n + 4, sizeof(*v));
	_cleanup_free_ const struct trial_result **pinned = calloc(n + 1, sizeof(*pinned));
	double *pa = v, *pb = v + n + 1, *a = v + 2 * n + 2, *b = v + 3 * n + 3;
	size_t np, na, nb, npinned = 0;

	memset(ret, 0, sizeof(*ret));
	if (!strcmp(g->mode, "pinned") || strcmp(g->noise, "none") != 0)
		return 0;
	if (!v || !pinned)
		return -ENOMEM;
	/* the partners sorted once: pairing is then a binary search, not a scan of every trial per trial */
	for (size_t i = 0; i < n; i++)
		if (in_cell(ts[i], g, "pinned"))
			pinned[npinned++] = ts[i];
	qsort(pinned, npinned, sizeof(*pinned), cmp_trial_no);
	for (size_t k = 0; k < sizeof(twin_metrics) / sizeof(twin_metrics[0]); k++) {
		collect(ts, n, pinned, npinned, g, twin_metrics[k], pa, pb, &np, a, &na, b, &nb);
		if (!na || !nb)
			continue;
		ret->have = true;
		ret->metric = twin_metrics[k];
		/* the ratio of the medians of all trials, as the table's other columns */
		ret->ratio = stats_median_of(b, nb) / stats_median_of(a, na);
		judge(pa, pb, np, a, na, b, nb, ret);
		return 0;
	}
	return 0;
}
