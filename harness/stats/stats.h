/* Summary statistics of repeated measurements: mean, stddev, median, CV, min, max, MAD, a bootstrap
 * 95% confidence interval of the median, and hyperfine's MAD-based outlier test. */
#ifndef HX_STATS_H
#define HX_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	size_t n;
	double mean, stddev, median, cv, min, max, mad;
	double ci95_low, ci95_high; /* bootstrap of the median; shown only from STATS_MIN_CI_N trials */
	size_t outliers;	    /* |x - median| / MAD above 14.826 (MAD 0: the smallest double step), hyperfine's */
};

/* Below this many trials the bootstrap CI of a median only restates the extremes: no format prints it. */
#define STATS_MIN_CI_N 6
/* hyperfine's outlier threshold on |x - median| / MAD: 1.4826 (MAD to a normal's sigma) times 10 sigmas. */
#define STATS_OUTLIER_MADS (1.4826 * 10.0)
/* Whether s has a CI worth printing. */
bool stats_has_ci(const struct stats_summary *s);

/* Summarise v[0..n) (not modified). The bootstrap uses a fixed seed: the same data give the same CI. */
void stats_summarize(const double *v, size_t n, struct stats_summary *ret);
/* Shared by the significance tests (signif.c): qsort's order of doubles, the median of sorted values, and the
 * seeded generator every bootstrap uses (splitmix64, so a fixture script can replay it exactly). */
int stats_cmp_double(const void *a, const void *b);
double stats_median_sorted(const double *s, size_t n);
/* The median of v[0..n) (not modified); NAN when n is 0 or memory is short. */
double stats_median_of(const double *v, size_t n);
/* The coefficient of variation of v[0..n): the sample standard deviation over |mean|; 0 below 2 values or at a
 * zero mean. */
double stats_cv(const double *v, size_t n);
uint64_t stats_splitmix(uint64_t *state);

/* Values ready for resampling their median: a resample is a count of draws per rank, and its median is read off
 * the counts in O(n), the very value a sort of the resample gives (stats.c: a bootstrap without a sort per
 * resample). */
struct stats_resample {
	size_t n;	 /* below 2^32 (stats_resample_init) */
	double *sorted;	 /* the values in order */
	uint32_t *rank;	 /* rank[i]: where v[i] is in sorted */
	uint32_t *count; /* draws per rank in this resample (32-bit: half the cache lines a draw touches) */
};
int stats_resample_init(struct stats_resample *r, const double *v, size_t n); /* -1: out of memory */
void stats_resample_clear(struct stats_resample *r);
/* One draw: v[i] goes into the resample. */
static inline void stats_resample_draw(struct stats_resample *r, size_t i)
{
	r->count[r->rank[i]]++;
}
/* The median of the resample's draws (n of them). */
double stats_resample_median(const struct stats_resample *r);
void stats_resample_free(struct stats_resample *r);

#endif
