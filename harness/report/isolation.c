/* Quiet against noisy: the shift a neighbour caused, per scenario, runtime and mode. */
#include "report/isolation.h"

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
static size_t iso_values(const struct trial_result *trials, size_t n, const struct res_summary *g, const char *noise,
			 enum res_metric m, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (same_cell(&trials[i], g, noise) && trials[i].status == TRIAL_OK &&
		    !isnan(res_metric(&trials[i], m)))
			v[k++] = res_metric(&trials[i], m);
	return k;
}

static double iso_median(const double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(v, n, &s);
	return s.median;
}

/* Where the noise ran and with whom it shared a core, from the group's first noisy trial. */
static void iso_where(const struct trial_result *trials, size_t n, const struct res_summary *g, struct res_shift *s)
{
	for (size_t i = 0; i < n; i++)
		if (same_cell(&trials[i], g, g->noise) && (trials[i].have & RES_HAVE_NEIGHBOUR)) {
			snprintf(s->placement, sizeof(s->placement), "%s", trials[i].neighbour.placement);
			snprintf(s->noise_cpus, sizeof(s->noise_cpus), "%s", trials[i].neighbour.cpus);
			s->shares = trials[i].neighbour.shares;
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

int iso_shift(const struct trial_result *trials, size_t n, const struct res_summary *g, struct res_shift *ret)
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
		size_t nq = iso_values(trials, n, g, "none", iso_metrics[k].m, q);
		size_t nv = iso_values(trials, n, g, g->noise, iso_metrics[k].m, v);

		if (!nq || !nv)
			continue;
		ret->have = true;
		ret->metric = iso_metrics[k].m;
		ret->lower_is_better = iso_metrics[k].lower_is_better;
		iso_compare(q, nq, v, nv, ret);
		iso_where(trials, n, g, ret);
		return 0;
	}
	return 0;
}

int iso_shifts(const struct trial_result *trials, size_t n, struct res_summary *groups, size_t ngroups,
	       struct hx_err *err)
{
	for (size_t k = 0; k < ngroups; k++)
		if (iso_shift(trials, n, &groups[k], &groups[k].shift) < 0)
			return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	return 0;
}

static void add_num(cJSON *o, const char *k, double v)
{
	if (!isnan(v))
		cJSON_AddNumberToObject(o, k, v);
}

cJSON *iso_shift_json(const struct res_shift *s)
{
	cJSON *o = cJSON_CreateObject(), *with;

	cJSON_AddStringToObject(o, "metric", res_metric_names[s->metric]);
	cJSON_AddBoolToObject(o, "lower_is_better", s->lower_is_better);
	cJSON_AddNumberToObject(o, "quiet_trials", s->quiet_trials);
	cJSON_AddNumberToObject(o, "noisy_trials", s->noisy_trials);
	add_num(o, "quiet_median", s->quiet_median);
	add_num(o, "noisy_median", s->noisy_median);
	add_num(o, "ratio", s->ratio);
	add_num(o, "ratio_ci95_low", s->ci95_low);
	add_num(o, "ratio_ci95_high", s->ci95_high);
	add_num(o, "p", s->p);
	cJSON_AddStringToObject(o, "placement", s->placement);
	cJSON_AddStringToObject(o, "noise_cpus", s->noise_cpus);
	with = cJSON_AddArrayToObject(o, "shares_cpus_with");
	for (int sl = 0; sl < CG_NR_SLICES; sl++)
		if (s->shares & (1u << sl))
			cJSON_AddItemToArray(with, cJSON_CreateString(cg_slice_names[sl]));
	return o;
}

static void iso_pct(char *buf, size_t len, double ratio)
{
	if (isnan(ratio))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%+.1f%%", (ratio - 1) * 100);
}

/* "0, shares client", "0-1 anywhere". */
static void iso_on(const struct res_shift *s, char *buf, size_t len)
{
	size_t at =
		(size_t)snprintf(buf, len, "%s%s", s->noise_cpus, !strcmp(s->placement, "anywhere") ? " anywhere" : "");
	bool first = true;

	for (int sl = 0; sl < CG_NR_SLICES && at < len; sl++)
		if (s->shares & (1u << sl)) {
			at += (size_t)snprintf(buf + at, len - at, "%s%s", first ? ", shares " : "+",
					       cg_slice_names[sl]);
			first = false;
		}
	if (!strcmp(s->placement, "sibling") && at < len)
		snprintf(buf + at, len - at, " (SMT sibling, as asked)");
}

static void iso_row(const struct res_summary *g, bool md, FILE *out)
{
	const struct res_shift *s = &g->shift;
	const char *sep = md ? " | " : "  ";
	char quiet[32], noisy[32], shift[32], ci[48], p[16], ops[32], on[RES_CPUS_LEN + 64];
	double gen = res_median(g, RES_M_NOISE_OPS_PER_S);
	int dec = s->lower_is_better ? 2 : 0;

	snprintf(quiet, sizeof(quiet), "%.*f", dec, s->quiet_median);
	snprintf(noisy, sizeof(noisy), "%.*f", dec, s->noisy_median);
	iso_pct(shift, sizeof(shift), s->ratio);
	if (isnan(s->ci95_low)) {
		snprintf(ci, sizeof(ci), "–");
	} else {
		char lo[16], hi[16];

		iso_pct(lo, sizeof(lo), s->ci95_low);
		iso_pct(hi, sizeof(hi), s->ci95_high);
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
	}
	if (isnan(s->p))
		snprintf(p, sizeof(p), "–");
	else
		snprintf(p, sizeof(p), "%.3f%s", s->p, s->p < 0.05 ? "*" : "");
	if (isnan(gen))
		snprintf(ops, sizeof(ops), "–");
	else
		snprintf(ops, sizeof(ops), "%.3g", gen);
	iso_on(s, on, sizeof(on));
	fprintf(out, "%s%-8s%s%-7s%s%-10s%s%10s%s%10s%s%8s%s%-18s%s%7s%s%10s%s%s%s\n", md ? "| " : "", g->runtime, sep,
		g->mode, sep, g->noise, sep, quiet, sep, noisy, sep, shift, sep, ci, sep, p, sep, ops, sep, on,
		md ? " |" : "");
}

void iso_render(const struct res_summary *groups, size_t n, bool md, FILE *out)
{
	const char *sep = md ? " | " : "  ";
	const char *last = "";
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct res_summary *g = &groups[i];

		if (!g->shift.have)
			continue;
		any = true;
		if (strcmp(last, g->scenario) != 0) {
			last = g->scenario;
			fprintf(out, "\n%sisolation: %s (%s; shift = noisy / quiet - 1)\n\n", md ? "### " : "== ", last,
				res_metric_names[g->shift.metric]);
			fprintf(out, "%s%-8s%s%-7s%s%-10s%s%10s%s%10s%s%8s%s%-18s%s%7s%s%10s%s%s%s\n", md ? "| " : "",
				"runtime", sep, "mode", sep, "noise", sep, "quiet", sep, "noisy", sep, "shift", sep,
				"95% CI", sep, "p", sep, "noise op/s", sep, "noise on", md ? " |" : "");
			if (md)
				fprintf(out, "|---|---|---|---:|---:|---:|---|---:|---:|---|\n");
		}
		iso_row(g, md, out);
	}
	if (any)
		fprintf(out,
			"\nIsolation: medians of quiet and noisy trials of the same runtime and mode, interleaved; "
			"95%% CI: paired bootstrap of the ratio; p: Mann-Whitney (* below 0.05); noise op/s: what "
			"the neighbour did (docs/noise.md); noise on: the noise slice's CPUs and the slices it "
			"shared a physical core with.\n");
}
