/* Whether a difference between two sets of trials is larger than the noise: rank tests (Mann-Whitney U,
 * Wilcoxon signed-rank for interleaved trials that share indices), Welch's t as a second opinion, the
 * Hodges-Lehmann shift, a seeded bootstrap CI of the ratio of medians, the minimal detectable effect, and the
 * shape checks behind a median (bimodality, a trend over trial order). docs/statistics.md says what each means.
 * Every function is deterministic: the same input gives the same bits. NAN means too little data (or memory). */
#ifndef HX_SIGNIF_H
#define HX_SIGNIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIG_BOOTSTRAP 2000	/* resamples of a bootstrap CI */
#define SIG_SEED      0x5eedULL /* the default seed, recorded with every CI made from it */
#define SIG_EXACT_MAX 50	/* exact p-values up to this many per side (without ties) */

struct sig_test {
	double stat; /* U of a; min(W+, W-); Welch's t of mean(a) - mean(b); Spearman's rho */
	double p;    /* two-sided */
	double df;   /* Welch's degrees of freedom, else 0 */
	bool exact;  /* p from the exact distribution, not the normal approximation */
};

struct sig_ci {
	double estimate, low, high; /* median(b) / median(a) and its percentile bootstrap interval */
	double level;		    /* e.g. 0.95 */
	uint64_t seed;
	size_t resamples;
	bool paired; /* trial i of a resampled with trial i of b */
};

/* Where a ratio stands against a threshold: the verdict rule of every comparison (compare's rows, a duet's
 * metrics; docs/statistics.md). Significant and at least the threshold away from 1: above or below it; significant
 * but closer: within it (a change below the threshold); not significant with the whole CI inside 1 +- threshold:
 * equivalent; else undecided. est, low and high finite and above 0. */
enum sig_stand { SIG_ABOVE, SIG_BELOW, SIG_WITHIN, SIG_EQUIVALENT, SIG_UNDECIDED };
enum sig_stand sig_against(double est, double low, double high, bool significant, double threshold);

/* Mann-Whitney U, two-sided; stat is U of a (pairs a > b, ties half). Exact without ties up to SIG_EXACT_MAX
 * per side, else the normal approximation with tie and continuity corrections (scipy's mannwhitneyu). */
int sig_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct sig_test *ret);
/* Wilcoxon signed-rank on a[i] - b[i], zeros dropped (scipy's wilcoxon, zero_method "wilcox"). */
int sig_wilcoxon(const double *a, const double *b, size_t n, struct sig_test *ret);
/* Welch's unequal-variances t-test (scipy's ttest_ind with equal_var=False). */
int sig_welch(const double *a, size_t na, const double *b, size_t nb, struct sig_test *ret);
/* Spearman's rank correlation of v against its order 0..n-1, with the t-approximated p (scipy's spearmanr). */
int sig_trend(const double *v, size_t n, struct sig_test *ret);

/* Hodges-Lehmann shift of b from a: the median of all b[j] - a[i]. */
double sig_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb);
/* Percentile bootstrap CI of median(b) / median(a), resampling trial indices jointly when paired (na == nb). */
int sig_ratio_ci(const double *a, size_t na, const double *b, size_t nb, bool paired, double level, uint64_t seed,
		 struct sig_ci *ret);
/* Sarle's bimodality coefficient from the sample skewness and excess kurtosis; above 5/9 hints at two modes. */
double sig_bimodality(const double *v, size_t n);
#define SIG_BIMODAL 0.555555555555555556
/* Below this many trials the coefficient cannot see two modes: a clear 4.3 / 5.8 ms mixture (CV 2% each, half
 * and half) scores above 5/9 in 0% of samples of 4-5, 7% of 6, 29% of 8, 67% of 10, 95% of 11. */
#define SIG_BIMODAL_MIN_N 10
/* Whether v is flagged bimodal: at least SIG_BIMODAL_MIN_N values and the coefficient above 5/9. */
bool sig_bimodal(const double *v, size_t n);

/* The smallest relative difference two samples of n trials each with this CV detect at alpha with this power
 * (two-sided t approximation: (t(1-alpha/2) + t(power)) * cv * sqrt(2/n), df = 2n-2). */
double sig_mde(double cv, size_t n, double alpha, double power);
/* Trials per side for sig_mde to reach effect; 0 when even `cap` would not. */
size_t sig_trials_for(double cv, double effect, double alpha, double power, size_t cap);

/* The smallest two-sided p the exact Mann-Whitney test can give samples of na and nb: 2 / C(na + nb, na), when
 * one side lies wholly above the other. At 3 trials a side it is 0.1: no level below that is reachable. */
double sig_mwu_min_p(size_t na, size_t nb);
/* The fewest trials per side whose sig_mwu_min_p is below level; 0 when more than cap. */
size_t sig_mwu_trials_for(double level, size_t cap);
/* Holm's step-down adjustment of n p-values (NAN: not in the family) into adj[]: the family-wise error rate stays
 * at most alpha when every row with adj < alpha is called, whatever the dependence between rows. */
void sig_holm(const double *p, size_t n, double *adj);
/* The chance that the verdict rule settles a row (a significant difference, or a CI inside 1 +- threshold) with
 * n trials per side, the true ratio and each side's cv: a seeded simulation of lognormal trials through the rank
 * test at its exact critical value (the normal approximation above SIG_EXACT_MAX) and of the ratio of medians'
 * spread, for the CI. Deterministic. */
double sig_settle_power(double cv, double ratio, double threshold, double level, double ci_level, size_t n);
/* The fewest trials per side (at least nmin) with sig_settle_power >= power; 0 when more than cap. */
size_t sig_trials_to_settle(double cv, double ratio, double threshold, double level, double ci_level, double power,
			    size_t nmin, size_t cap);

/* Distributions, exposed for the tests. */
double sig_norm_cdf(double x);
double sig_norm_ppf(double p);
double sig_t_cdf(double t, double df);
double sig_t_ppf(double p, double df);
double sig_betai(double a, double b, double x); /* regularized incomplete beta I_x(a, b) */

#endif
