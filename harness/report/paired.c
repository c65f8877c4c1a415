/* The paired statistics of a duet: everything is computed on the log ratios log(b[i]/a[i]), whose mean is
 * the log of the geometric mean ratio (a ratio and its inverse are treated alike: 1.02 and 1/1.02 are as far
 * from 1). The geometric mean rather than the median: a duet's pairs are many and their noise is close to
 * normal on the log scale, where the mean is the efficient estimator and its CI shrinks as 1/sqrt(pairs);
 * the Wilcoxon p on the same log ratios guards against a few wild pairs carrying the mean. */
#include "report/paired.h"

#include <math.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "report/signif.h"
#include "report/stats.h"

const char *const paired_verdict_names[PV_NR] = {"faster", "slower", "equivalent", "below threshold", "inconclusive"};
const char *const paired_verdict_keys[PV_NR] = {"faster", "slower", "equivalent", "below_threshold", "inconclusive"};

static double mean_of(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

static double sd_of(const double *v, size_t n)
{
	double m = mean_of(v, n), s = 0;

	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n > 1 ? sqrt(s / (double)(n - 1)) : NAN;
}

/* The percentile at q of sorted s[0..n), interpolated between order statistics (numpy's default). */
static double percentile(const double *s, size_t n, double q)
{
	double at = q * (double)(n - 1);
	size_t i = (size_t)at;

	return i + 1 < n ? s[i] + (at - (double)i) * (s[i + 1] - s[i]) : s[n - 1];
}

/* The log-scale bootstrap CI of the mean of logs l[0..n). */
static int log_ci(const double *l, size_t n, double level, uint64_t seed, double *ret_low, double *ret_high)
{
	_cleanup_free_ double *m = malloc(PAIRED_RESAMPLES * sizeof(double));
	double z, a;
	uint64_t state = seed;

	if (!m || n < 2 || !(level > 0 && level < 1))
		return -1;
	for (size_t k = 0; k < PAIRED_RESAMPLES; k++) {
		double s = 0;

		for (size_t i = 0; i < n; i++)
			s += l[stats_splitmix(&state) % n];
		m[k] = s / (double)n;
	}
	qsort(m, PAIRED_RESAMPLES, sizeof(double), stats_cmp_double);
	/* expanded: the normal quantile that matches sqrt(n/(n-1)) * t(n-1) (Hesterberg 2015, "What teachers
	 * should know about the bootstrap") */
	z = sqrt((double)n / (double)(n - 1)) * sig_t_ppf(1 - (1 - level) / 2, (double)(n - 1));
	a = 2 * (1 - sig_norm_cdf(z));
	*ret_low = percentile(m, PAIRED_RESAMPLES, a / 2);
	*ret_high = percentile(m, PAIRED_RESAMPLES, 1 - a / 2);
	return 0;
}

int paired_ci(const double *r, size_t n, double level, uint64_t seed, double *ret_gm, double *ret_low, double *ret_high)
{
	_cleanup_free_ double *l = calloc(n ? n : 1, sizeof(double));
	double lo, hi;

	if (!l)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(r[i] > 0))
			return -1;
		l[i] = log(r[i]);
	}
	if (log_ci(l, n, level, seed, &lo, &hi) < 0)
		return -1;
	*ret_gm = exp(mean_of(l, n));
	*ret_low = exp(lo);
	*ret_high = exp(hi);
	return 0;
}

/* The verdict on the cost ratio c (above 1: B slower) and its CI. */
static enum paired_verdict verdict_of(double c, double lo, double hi, bool significant, double t)
{
	if (significant && c > 1 + t)
		return PV_SLOWER;
	if (significant && c < 1 - t)
		return PV_FASTER;
	if (significant)
		return PV_BELOW_THRESHOLD;
	if (lo >= 1 - t && hi <= 1 + t)
		return PV_EQUIVALENT;
	return PV_INCONCLUSIVE;
}

/* The pairs at which the CI would settle it (exclude 1, or sit inside the threshold), its width going as
 * 1/sqrt(n); 0 when none within 100,000. */
static size_t pairs_needed(const struct paired_result *r, double t)
{
	double d = fabs(log(r->ratio)), hw = (log(r->high) - log(r->low)) / 2;
	double target = fmax(d, log(1 + t) - d);
	double need = (double)r->n * (hw / target) * (hw / target);

	return target > 0 && need < 1e5 ? (size_t)ceil(need) : 0;
}

static void shape_flags(const double *l, size_t n, struct paired_result *r)
{
	struct sig_test tr = {0};

	r->trend_rho = r->trend_p = NAN;
	if (sig_trend(l, n, &tr) == 0) {
		r->trend_rho = tr.stat;
		r->trend_p = tr.p;
	}
	r->drift = r->trend_p < PAIRED_DRIFT_P;
	r->bimodality = n >= PAIRED_BIMODAL_N ? sig_bimodality(l, n) : NAN;
	r->bimodal = r->bimodality > SIG_BIMODAL;
}

int paired_analyze(const double *a, const double *b, size_t n, const struct paired_opts *o, struct paired_result *ret)
{
	_cleanup_free_ double *l = calloc(n ? n : 1, sizeof(double));
	_cleanup_free_ double *zero = calloc(n ? n : 1, sizeof(double));
	struct paired_result r = {.n = n, .p = NAN, .ratio = NAN, .low = NAN, .high = NAN, .half_width = NAN};
	struct sig_test w = {0};
	double lo, hi, c, clo, chi;

	if (!l || !zero)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(a[i] > 0) || !(b[i] > 0))
			return -1;
		l[i] = log(b[i] / a[i]);
	}
	r.verdict = PV_INCONCLUSIVE;
	if (n < PAIRED_MIN_PAIRS) {
		*ret = r;
		return 0;
	}
	if (log_ci(l, n, o->level, o->seed, &lo, &hi) < 0)
		return -1;
	r.ratio = exp(mean_of(l, n));
	r.low = exp(lo);
	r.high = exp(hi);
	r.half_width = (r.high - r.low) / 2 / r.ratio;
	r.sd_log = sd_of(l, n);
	if (sig_wilcoxon(l, zero, n, &w) == 0)
		r.p = w.p;
	else
		r.p = 1; /* every ratio exactly 1 */
	r.significant = (r.low > 1 || r.high < 1) && r.p < 1 - o->level;
	c = o->smaller_better ? r.ratio : 1 / r.ratio;
	clo = o->smaller_better ? r.low : 1 / r.high;
	chi = o->smaller_better ? r.high : 1 / r.low;
	r.verdict = verdict_of(c, clo, chi, r.significant, o->threshold);
	r.pairs_needed = r.verdict == PV_INCONCLUSIVE ? pairs_needed(&r, o->threshold) : 0;
	shape_flags(l, n, &r);
	*ret = r;
	return 0;
}

bool paired_is_look(size_t n)
{
	double look = PAIRED_FIRST_LOOK;

	while (look < (double)n)
		look = ceil(look * PAIRED_LOOK_GROWTH);
	return (size_t)look == n;
}

bool paired_precise(const struct paired_result *r, double precision)
{
	return r->n >= PAIRED_MIN_PAIRS && r->half_width <= precision;
}

bool paired_stop(bool *was, bool precise_now)
{
	bool stop = *was && precise_now;

	*was = precise_now;
	return stop;
}
