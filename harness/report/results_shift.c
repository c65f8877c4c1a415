/* Quiet against noisy: the shift a neighbour caused, per scenario, runtime and mode (part of the
 * summaries; isolation.c renders it). */
#include "report/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "report/signif.h"
#include "report/stats.h"

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

/* The metric's values in the cell's trials that passed, in trial order. */
static size_t iso_values(const struct trial_result *const *ts, size_t n, const struct res_summary *g, const char *noise,
			 enum res_metric m, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (same_cell(ts[i], g, noise) && ts[i]->status == TRIAL_OK && !isnan(res_metric(ts[i], m)))
			v[k++] = res_metric(ts[i], m);
	return k;
}

static double iso_median(const double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(v, n, &s);
	return s.median;
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

static void iso_compare(const double *q, size_t nq, const double *v, size_t nv, struct res_shift *s)
{
	struct sig_ci ci;
	struct sig_test mw;

	s->quiet_trials = (unsigned)nq;
	s->noisy_trials = (unsigned)nv;
	s->quiet_median = iso_median(q, nq);
	s->noisy_median = iso_median(v, nv);
	s->ratio = s->noisy_median / s->quiet_median;
	s->ci95_low = s->ci95_high = s->p = NAN;
	/* quiet and noisy trials interleave: with as many of each, trial i of one pairs with trial i of the other */
	if (sig_ratio_ci(q, nq, v, nv, nq == nv, 0.95, SIG_SEED, &ci) == 0) {
		s->ci95_low = ci.low;
		s->ci95_high = ci.high;
	}
	if (sig_mann_whitney(q, nq, v, nv, &mw) == 0)
		s->p = mw.p;
}

int res_shift_of(const struct trial_result *const *ts, size_t n, const struct res_summary *g, struct res_shift *ret)
{
	_cleanup_free_ double *q = NULL, *v = NULL;

	memset(ret, 0, sizeof(*ret));
	if (!strcmp(g->noise, "none"))
		return 0;
	q = calloc(n ? n : 1, sizeof(*q));
	v = calloc(n ? n : 1, sizeof(*v));
	if (!q || !v)
		return -ENOMEM;
	for (size_t k = 0; k < sizeof(iso_metrics) / sizeof(iso_metrics[0]); k++) {
		size_t nq = iso_values(ts, n, g, "none", iso_metrics[k].m, q);
		size_t nv = iso_values(ts, n, g, g->noise, iso_metrics[k].m, v);

		if (!nq || !nv)
			continue;
		ret->have = true;
		ret->metric = iso_metrics[k].m;
		ret->lower_is_better = iso_metrics[k].lower_is_better;
		iso_compare(q, nq, v, nv, ret);
		iso_where(ts, n, g, ret);
		return 0;
	}
	return 0;
}
