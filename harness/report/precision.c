/* Convergence of a scenario's cells for adaptive repeats, and the reasons a cell does not converge. */
#include "report/precision.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"

#define PREC_TREND_ALPHA 0.05

static const enum res_metric prec_metrics[] = {RES_M_RPS, RES_M_DELIVERIES_PER_S, RES_M_OPS_PER_S,
					       RES_M_STARTUP_MEDIAN_MS};

static bool in_group(const struct trial_result *t, const struct res_summary *g)
{
	return !strcmp(t->scenario, g->scenario) && !strcmp(t->runtime, g->runtime) && !strcmp(t->mode, g->mode) &&
	       !strcmp(t->noise, g->noise);
}

/* The group's values of m in trial order, for the shape checks. */
static size_t values(const struct res_doc *d, const struct res_summary *g, enum res_metric m, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < d->ntrials; i++)
		if (in_group(&d->trials[i], g) && d->trials[i].status == TRIAL_OK &&
		    !isnan(res_metric(&d->trials[i], m)))
			v[k++] = res_metric(&d->trials[i], m);
	return k;
}

static void judge(const struct res_doc *d, const struct res_summary *g, double precision, double *v,
		  struct prec_cell *c)
{
	const struct stats_summary *s;

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
	s = &g->metric[c->metric];
	c->n = s->n;
	c->median = s->median;
	if (s->n > 1 && s->median != 0)
		c->halfwidth = (s->ci95_high - s->ci95_low) / 2 / fabs(s->median);
	c->converged = c->halfwidth <= precision;
	c->n = values(d, g, c->metric, v);
	c->bimodality = sig_bimodality(v, c->n);
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

	if (isinf(c->halfwidth))
		at += (size_t)snprintf(buf, len, "%zu trial%s passed: no CI", c->n, c->n == 1 ? "" : "s");
	else
		at += (size_t)snprintf(buf, len, "CI ±%.1f%% of the median after %zu trials", c->halfwidth * 100, c->n);
	if (at < len && c->bimodality > SIG_BIMODAL)
		at += (size_t)snprintf(buf + at, len - at, "; bimodal (coefficient %.2f > 0.56)", c->bimodality);
	if (at < len && c->have_trend && c->trend.p < PREC_TREND_ALPHA)
		at += (size_t)snprintf(buf + at, len - at, "; a trend over trial order (Spearman rho %.2f, p %.3f)",
				       c->trend.stat, c->trend.p);
	if (at < len && c->noisy)
		snprintf(buf + at, len - at, "; %u noisy trial%s", c->noisy, c->noisy == 1 ? "" : "s");
}
