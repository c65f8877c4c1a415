/* Quiet against noisy: the shift a neighbour caused, per scenario, runtime and mode (part of the
 * summaries; isolation.c renders it). */
#include "results/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "stats/signif.h"
#include "stats/stats.h"

/* The metrics a workload is judged by, the first a group has, and which way is better. */
static const struct {
	enum res_metric m;
	bool lower_is_better;
} iso_metrics[] = {
	{RES_M_RPS, false},
	{RES_M_DELIVERIES_PER_S, false},
	{RES_M_OPS_PER_S, false},
	{RES_M_STARTUP_MEDIAN_MS, true},
};

static bool same_cell(const struct trial_result *t, const struct res_summary *g, const char *noise)
{
	return !strcmp(t->scenario, g->scenario) && !strcmp(t->runtime, g->runtime) && !strcmp(t->mode, g->mode) &&
	       !strcmp(t->noise, noise);
}

/* The metric's values in the cell's trials that passed, in trial order, with their trial indices. */
static size_t iso_values(const struct trial_result *const *ts, size_t n, const struct res_summary *g, const char *noise,
			 enum res_metric m, double *v, unsigned *idx)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (same_cell(ts[i], g, noise) && ts[i]->status == TRIAL_OK && !isnan(res_metric(ts[i], m))) {
			idx[k] = ts[i]->trial;
			v[k++] = res_metric(ts[i], m);
		}
	return k;
}

static double iso_median(const double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(v, n, &s);
	return s.median;
}

/* Quiet and noisy trials of the same index, both passed, into pq and pv: the pairs that saw the same moment. */
static size_t iso_pairs(const double *q, const unsigned *qi, size_t nq, const double *v, const unsigned *vi, size_t nv,
			double *pq, double *pv)
{
	size_t np = 0;

	for (size_t i = 0; i < nq; i++)
		for (size_t j = 0; j < nv; j++)
			if (qi[i] == vi[j]) {
				pq[np] = q[i];
				pv[np++] = v[j];
				break;
			}
	return np;
}

/* Where the noise ran and with whom it shared a core, from the group's first noisy trial. */
static void iso_where(const struct trial_result *const *ts, size_t n, const struct res_summary *g, struct res_shift *s)
{
	for (size_t i = 0; i < n; i++)
		if (same_cell(ts[i], g, g->noise) && (ts[i]->have & RES_HAVE_NEIGHBOUR) && ts[i]->neighbour) {
			snprintf(s->placement, sizeof(s->placement), "%s", ts[i]->neighbour->placement);
			snprintf(s->noise_cpus, sizeof(s->noise_cpus), "%s", ts[i]->neighbour->cpus);
			s->shares = ts[i]->neighbour->shares;
			return;
		}
}

/* With pairs (trial i quiet and trial i noisy), the ratio, the paired bootstrap CI and the signed-rank p all come
 * from them: an estimate from all trials beside a CI from the pairs can fall outside it. Without, the unpaired
 * ones. No CI from fewer than STATS_MIN_CI_N trials (pairs): it would only restate their extremes. */
static void iso_compare(const double *q, size_t nq, const double *v, size_t nv, const double *pq, const double *pv,
			size_t np, struct res_shift *s)
{
	struct sig_ci ci;
	struct sig_test t;

	s->quiet_trials = (unsigned)nq;
	s->noisy_trials = (unsigned)nv;
	s->quiet_median = iso_median(q, nq);
	s->noisy_median = iso_median(v, nv);
	s->ratio = s->noisy_median / s->quiet_median;
	s->ci95_low = s->ci95_high = s->p = NAN;
	s->pairs = (unsigned)np;
	s->paired = np >= 2;
	if (s->paired ? sig_ratio_ci(pq, np, pv, np, true, 0.95, SIG_SEED, &ci) == 0
		      : sig_ratio_ci(q, nq, v, nv, false, 0.95, SIG_SEED, &ci) == 0) {
		if (s->paired)
			s->ratio = ci.estimate;
		if ((s->paired ? np : (nq < nv ? nq : nv)) >= STATS_MIN_CI_N) {
			s->ci95_low = ci.low;
			s->ci95_high = ci.high;
		}
	}
	if (s->paired ? sig_wilcoxon(pq, pv, np, &t) == 0 : sig_mann_whitney(q, nq, v, nv, &t) == 0)
		s->p = t.p;
	else if (s->paired)
		s->p = 1; /* every pair equal: no difference at all */
}

int res_shift_of(const struct trial_result *const *ts, size_t n, const struct res_summary *g, struct res_shift *ret)
{
	_cleanup_free_ double *q = NULL, *v = NULL, *pq = NULL, *pv = NULL;
	_cleanup_free_ unsigned *qi = NULL, *vi = NULL;

	memset(ret, 0, sizeof(*ret));
	if (!strcmp(g->noise, "none"))
		return 0;
	q = calloc(n ? n : 1, sizeof(*q));
	v = calloc(n ? n : 1, sizeof(*v));
	pq = calloc(n ? n : 1, sizeof(*pq));
	pv = calloc(n ? n : 1, sizeof(*pv));
	qi = calloc(n ? n : 1, sizeof(*qi));
	vi = calloc(n ? n : 1, sizeof(*vi));
	if (!q || !v || !pq || !pv || !qi || !vi)
		return -ENOMEM;
	for (size_t k = 0; k < sizeof(iso_metrics) / sizeof(iso_metrics[0]); k++) {
		size_t nq = iso_values(ts, n, g, "none", iso_metrics[k].m, q, qi);
		size_t nv = iso_values(ts, n, g, g->noise, iso_metrics[k].m, v, vi);

		if (!nq || !nv)
			continue;
		ret->have = true;
		ret->metric = iso_metrics[k].m;
		ret->lower_is_better = iso_metrics[k].lower_is_better;
		iso_compare(q, nq, v, nv, pq, pv, iso_pairs(q, qi, nq, v, vi, nv, pq, pv), ret);
		iso_where(ts, n, g, ret);
		return 0;
	}
	return 0;
}
