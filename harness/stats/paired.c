/* The paired statistics of a duet: everything is computed on the log ratios log(b[i]/a[i]), whose mean is
 * the log of the geometric mean ratio (a ratio and its inverse are treated alike: 1.02 and 1/1.02 are as far
 * from 1). The geometric mean rather than the median: a duet's pairs are many and their noise is close to
 * normal on the log scale, where the mean is the efficient estimator and its CI shrinks as 1/sqrt(pairs);
 * the Wilcoxon p on the same log ratios guards against a few wild pairs carrying the mean.
 * An interleaved duet's windows carry over: one that follows its own side's window runs faster than one that
 * follows the other side's (the CPU's caches still hold its server). Which windows follow which is decided by
 * the random order, so it is known and balanced: the log ratios are adjusted for it by least squares (a
 * covariate of the design, as in a crossover trial's analysis), which leaves the estimate's target where it
 * was and takes that part of the noise out of the CI (docs/ab.md, "Carry-over"). */
#include "stats/paired.h"

#include <math.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "stats/signif.h"
#include "stats/stats.h"

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

/* The least-squares slope of l on the carry-over c over n pairs from their sums; 0 when c does not vary. */
static double carry_slope(double sl, double sc, double scc, double slc, size_t n)
{
	double var = scc - sc * sc / (double)n;

	return var > 1e-9 ? (slc - sl * sc / (double)n) / var : 0;
}

/* The log-scale bootstrap CI of the mean of logs l[0..n), each adjusted by the slope of l on c[0..n) (NULL: no
 * adjustment) fitted again in every resample, so that the CI holds the slope's own uncertainty too. */
static int log_ci(const double *l, const double *c, size_t n, double level, uint64_t seed, double *ret_low,
		  double *ret_high)
{
	_cleanup_free_ double *m = malloc(PAIRED_RESAMPLES * sizeof(double));
	double z, a, df = (double)n - (c ? 2 : 1);
	uint64_t state = seed;

	if (!m || df < 1 || !(level > 0 && level < 1))
		return -1;
	for (size_t k = 0; k < PAIRED_RESAMPLES; k++) {
		double sl = 0, sc = 0, scc = 0, slc = 0;

		for (size_t i = 0; i < n; i++) {
			size_t j = stats_splitmix(&state) % n;
			double cj = c ? c[j] : 0;

			sl += l[j];
			sc += cj;
			scc += cj * cj;
			slc += l[j] * cj;
		}
		m[k] = (sl - carry_slope(sl, sc, scc, slc, n) * sc) / (double)n;
	}
	qsort(m, PAIRED_RESAMPLES, sizeof(double), stats_cmp_double);
	/* expanded: the normal quantile that matches sqrt(n/df) * t(df) (Hesterberg 2015, "What teachers should
	 * know about the bootstrap"; df is n - 1, one less for a fitted slope) */
	z = sqrt((double)n / df) * sig_t_ppf(1 - (1 - level) / 2, df);
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
	if (log_ci(l, NULL, n, level, seed, &lo, &hi) < 0)
		return -1;
	*ret_gm = exp(mean_of(l, n));
	*ret_low = exp(lo);
	*ret_high = exp(hi);
	return 0;
}

/* The verdict on the cost ratio c (above 1: B slower) and its CI: the rule of every comparison (sig_against). */
static enum paired_verdict verdict_of(double c, double lo, double hi, bool significant, double t)
{
	static const enum paired_verdict of[] = {[SIG_ABOVE] = PV_SLOWER,
						 [SIG_BELOW] = PV_FASTER,
						 [SIG_WITHIN] = PV_BELOW_THRESHOLD,
						 [SIG_EQUIVALENT] = PV_EQUIVALENT,
						 [SIG_UNDECIDED] = PV_INCONCLUSIVE};

	return of[sig_against(c, lo, hi, significant, t)];
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

/* The least-squares slope of l on the carry-over c within rounds (each round's own mean taken out: a round's
 * servers are its own), l adjusted in place: l[i] - g * c[i]. NAN: no adjustment (no c, or none varies within a
 * round). */
static double adjust_carry(double *l, const double *c, const unsigned *round, size_t n)
{
	double sxy = 0, sxx = 0, g;

	for (size_t i = 0; c && i < n;) {
		size_t j = i;
		double ml = 0, mc = 0;

		while (j < n && (!round || round[j] == round[i]))
			j++;
		for (size_t k = i; k < j; k++) {
			ml += l[k] / (double)(j - i);
			mc += c[k] / (double)(j - i);
		}
		for (size_t k = i; k < j; k++) {
			sxy += (c[k] - mc) * (l[k] - ml);
			sxx += (c[k] - mc) * (c[k] - mc);
		}
		i = j;
	}
	if (!(sxx > 1e-9))
		return NAN;
	g = sxy / sxx;
	for (size_t i = 0; i < n; i++)
		l[i] -= g * c[i];
	return g;
}

/* The number of rounds: runs of equal round[i]. */
static size_t round_count(const unsigned *round, size_t n)
{
	size_t r = n ? 1 : 0;

	for (size_t i = 1; i < n; i++)
		r += round[i] != round[i - 1];
	return r;
}

/* Each round's mean of l into m (rounds are runs of equal round[i]); their number. */
static size_t round_means(const double *l, const unsigned *round, size_t n, double *m)
{
	size_t r = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		double s = 0;

		while (j < n && round[j] == round[i])
			s += l[j++];
		m[r++] = s / (double)(j - i);
		i = j;
	}
	return r;
}

int paired_round_means(const struct paired_input *in, double slope, double *m)
{
	_cleanup_free_ double *l = calloc(in->n ? in->n : 1, sizeof(double));

	if (!l || !in->round)
		return -1;
	for (size_t i = 0; i < in->n; i++)
		l[i] = log(in->b[i] / in->a[i]) - (isfinite(slope) && in->carry ? slope * in->carry[i] : 0);
	return (int)round_means(l, in->round, in->n, m);
}

/* The rounds' analysis: the mean of the round means, its t interval and the t test's p (R - 1 degrees of
 * freedom). A round's pairs share its two server processes, whose own speeds differ from process to process:
 * the round, not the pair, is the unit that replicates. */
static void by_rounds(const double *m, size_t rounds, double level, struct paired_result *r)
{
	double mean = mean_of(m, rounds), sd = sd_of(m, rounds), se = sd / sqrt((double)rounds);
	double df = (double)rounds - 1, half = sig_t_ppf(1 - (1 - level) / 2, df) * se;

	r->ratio = exp(mean);
	r->low = exp(mean - half);
	r->high = exp(mean + half);
	r->sd_round = sd;
	r->p = se > 0 ? 2 * (1 - sig_t_cdf(fabs(mean) / se, df)) : mean == 0 ? 1 : 0;
}

/* The pairs' analysis (one round): the bootstrap CI of the mean log ratio, the Wilcoxon p. */
static int by_pairs(const double *l, const double *raw, const double *c, size_t n, const struct paired_opts *o,
		    struct paired_result *r)
{
	_cleanup_free_ double *zero = calloc(n ? n : 1, sizeof(double));
	struct sig_test w = {0};
	double lo, hi;

	if (!zero || log_ci(raw, isfinite(r->carry) ? c : NULL, n, o->level, o->seed, &lo, &hi) < 0)
		return -1;
	r->ratio = exp(mean_of(l, n));
	r->low = exp(lo);
	r->high = exp(hi);
	r->p = sig_wilcoxon(l, zero, n, &w) == 0 ? w.p : 1; /* 1: every ratio exactly 1 */
	return 0;
}

int paired_analyze(const struct paired_input *in, const struct paired_opts *o, struct paired_result *ret)
{
	size_t n = in->n;
	_cleanup_free_ double *l = calloc(n ? n : 1, sizeof(double));
	_cleanup_free_ double *raw = calloc(n ? n : 1, sizeof(double));
	_cleanup_free_ double *m = calloc(n ? n : 1, sizeof(double));
	struct paired_result r = {.n = n,
				  .p = NAN,
				  .ratio = NAN,
				  .low = NAN,
				  .high = NAN,
				  .half_width = NAN,
				  .carry = NAN,
				  .sd_round = NAN,
				  .rounds = n ? 1 : 0};
	double c, clo, chi;

	if (!l || !raw || !m)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(in->a[i] > 0) || !(in->b[i] > 0) || (in->round && i && in->round[i] < in->round[i - 1]))
			return -1;
		l[i] = raw[i] = log(in->b[i] / in->a[i]);
	}
	r.verdict = PV_INCONCLUSIVE;
	if (in->round)
		r.rounds = round_count(in->round, n);
	if (n < PAIRED_MIN_PAIRS || (r.rounds > 1 && r.rounds < PAIRED_MIN_ROUNDS)) {
		*ret = r;
		return 0;
	}
	r.carry = adjust_carry(l, in->carry, in->round, n);
	if (r.rounds > 1) {
		round_means(l, in->round, n, m); /* of the adjusted ratios: as many as counted */
		by_rounds(m, r.rounds, o->level, &r);
	} else if (by_pairs(l, raw, in->carry, n, o, &r) < 0) {
		return -1;
	}
	r.half_width = (r.high - r.low) / 2 / r.ratio;
	r.sd_log = sd_of(l, n);
	r.sd_log_raw = sd_of(raw, n);
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

bool paired_is_round_look(size_t rounds)
{
	return rounds >= PAIRED_FIRST_LOOK_ROUNDS;
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
