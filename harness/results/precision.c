/* Convergence of a scenario's cells for adaptive repeats, and the reasons a cell does not converge. */
#include "results/precision.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "stats/stats.h"

#define PREC_TREND_ALPHA 0.05

/* Few looks, spaced out: each costs the others confidence (Bonferroni's share of 5%), and the distribution-free CI
 * at 1 - 0.05 / 6 first exists at 8 trials (1 - 2 / 2^8); 10 gives it room to be narrower than the range. */
const size_t prec_looks[] = {10, 15, 20, 30, 50, 100};
const size_t prec_nlooks = sizeof(prec_looks) / sizeof(prec_looks[0]);

double prec_level(void)
{
	return 1 - PREC_ALPHA / (double)prec_nlooks;
}

/* P(X <= j) for X ~ Binomial(n, 1/2). */
static double binom_half_cdf(size_t j, size_t n)
{
	double c = exp(-(double)n * M_LN2), sum = 0; /* C(n, 0) / 2^n */

	for (size_t i = 0; i <= j && i <= n; i++) {
		sum += c;
		c *= (double)(n - i) / (double)(i + 1);
	}
	return sum;
}

size_t prec_judge(const double *v, size_t n, double *median, double *low, double *high, double *halfwidth)
{
	_cleanup_free_ double *s = NULL;
	double tail = (1 - prec_level()) / 2;
	size_t look = 0, k = 0;

	*median = *low = *high = NAN;
	*halfwidth = INFINITY;
	for (size_t i = 0; i < prec_nlooks && prec_looks[i] <= n; i++)
		look = prec_looks[i];
	if (!look || !(s = malloc(look * sizeof(double))))
		return look;
	memcpy(s, v, look * sizeof(double));
	qsort(s, look, sizeof(double), stats_cmp_double);
	*median = stats_median_sorted(s, look);
	/* [x(k), x(look + 1 - k)] covers the median with 1 - 2 P(X <= k - 1): the largest k within the level */
	while (k + 1 <= look / 2 && binom_half_cdf(k, look) <= tail)
		k++;
	if (!k || *median == 0)
		return look;
	*low = s[k - 1];
	*high = s[look - k];
	*halfwidth = fmax(*median - *low, *high - *median) / fabs(*median);
	return look;
}

static const enum res_metric prec_metrics[] = {RES_M_RPS, RES_M_DELIVERIES_PER_S, RES_M_OPS_PER_S,
					       RES_M_STARTUP_MEDIAN_MS};

/* The group's values of m in trial order, for the shape checks. */
static size_t values(const struct res_doc *d, const struct res_summary *g, enum res_metric m, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < d->ntrials; i++)
		if (res_in_group(&d->trials[i], g) && d->trials[i].status == TRIAL_OK &&
		    !isnan(res_metric(&d->trials[i], m)))
			v[k++] = res_metric(&d->trials[i], m);
	return k;
}

static void judge(const struct res_doc *d, const struct res_summary *g, double precision, double *v,
		  struct prec_cell *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->scenario, sizeof(c->scenario), "%s", g->scenario);
	snprintf(c->runtime, sizeof(c->runtime), "%s", g->runtime);
	snprintf(c->mode, sizeof(c->mode), "%s", g->mode);
	snprintf(c->noise, sizeof(c->noise), "%s", g->noise);
	c->noisy = g->noisy_trials;
	c->bimodality = NAN;
	c->halfwidth = INFINITY;
	for (size_t k = 0; k < sizeof(prec_metrics) / sizeof(prec_metrics[0]); k++)
		if (g->have & (1u << prec_metrics[k])) {
			c->metric = prec_metrics[k];
			break;
		}
	if (!(g->have & (1u << c->metric)))
		return; /* nothing passed yet: not converged */
	c->n = values(d, g, c->metric, v);
	c->look = prec_judge(v, c->n, &c->median, &c->low, &c->high, &c->halfwidth);
	c->converged = c->halfwidth <= precision;
	c->bimodality = c->n >= SIG_BIMODAL_MIN_N ? sig_bimodality(v, c->n) : NAN;
	c->have_trend = sig_trend(v, c->n, &c->trend) == 0;
}

int prec_check(const struct res_doc *d, const char *scenario, double precision, struct prec_cell **ret, size_t *ret_n,
	       struct hx_err *err)
{
	_cleanup_free_ struct res_summary *groups = NULL;
	_cleanup_free_ double *v = calloc(d->ntrials + 1, sizeof(*v));
	_cleanup_free_ struct prec_cell *cells = NULL;
	size_t ng = 0, n = 0;

	if (!v || res_summarize(d->trials, d->ntrials, &groups, &ng, err) < 0)
		return v ? -err->errnum : hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	cells = calloc(ng + 1, sizeof(*cells));
	if (!cells)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	for (size_t i = 0; i < ng; i++)
		if (!strcmp(groups[i].scenario, scenario))
			judge(d, &groups[i], precision, v, &cells[n++]);
	*ret = steal_pointer(&cells);
	*ret_n = n;
	return 0;
}

bool prec_converged(const struct prec_cell *cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!cells[i].converged)
			return false;
	return true;
}

void prec_why(const struct prec_cell *c, char *buf, size_t len)
{
	size_t at = 0;

	if (!c->look)
		at += (size_t)snprintf(buf, len, "%zu trial%s passed: judged from %zu", c->n, c->n == 1 ? "" : "s",
				       prec_looks[0]);
	else if (isinf(c->halfwidth))
		at += (size_t)snprintf(buf, len, "no CI after %zu trials", c->look);
	else
		at += (size_t)snprintf(buf, len,
				       "CI ±%.1f%% of the median after %zu trials (%.2f%% CI: %zu looks share "
				       "5%%)",
				       c->halfwidth * 100, c->look, prec_level() * 100, prec_nlooks);
	if (at < len && c->bimodality > SIG_BIMODAL)
		at += (size_t)snprintf(buf + at, len - at, "; bimodal (coefficient %.2f > 0.56)", c->bimodality);
	if (at < len && c->have_trend && c->trend.p < PREC_TREND_ALPHA)
		at += (size_t)snprintf(buf + at, len - at, "; a trend over trial order (Spearman rho %.2f, p %.3f)",
				       c->trend.stat, c->trend.p);
	if (at < len && c->noisy)
		snprintf(buf + at, len - at, "; %u noisy trial%s", c->noisy, c->noisy == 1 ? "" : "s");
}
