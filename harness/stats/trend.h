/* Trend tests over a series: Mann-Kendall's S with its normal p (no continuity correction, as scipy's
 * kendalltau(method="asymptotic") against the index), and the Theil-Sen slope with Sen's 95% CI (as scipy's
 * theilslopes). Pure functions; the values are checked against scipy's in tests/unit/test_trend.c. */
#ifndef HX_TREND_H
#define HX_TREND_H

#include <stdbool.h>
#include <stddef.h>

struct trend_mk {
	double s, var_s, z, p, tau; /* tau-b; p two-sided; NAN when fewer than 3 values or all equal */
	/* trend_mann_kendall_ar1 only: the lag-1 autocorrelation it allowed for and var_s's factor (1: none) */
	double rho, var_factor;
};

struct trend_ts {
	double slope, intercept, low, high; /* intercept: median(y) - slope * median(x); NAN when no pair */
};

/* y in time order (x = 0, 1, ...). */
void trend_mann_kendall(const double *y, size_t n, struct trend_mk *ret);
/* Mann-Kendall for a series whose neighbours are correlated (100 ms intervals on a shared host: a slow stretch
 * spans several), which the plain test takes for a trend: its p is far too small. var_s is multiplied by Hamed
 * and Rao's (1998) factor for AR(1) values, 1 + 2/(n(n-1)(n-2)) sum (n-k)(n-k-1)(n-k-2) rho_s(k), with the ranks'
 * autocorrelation rho_s(k) = 6/pi asin(rho^k / 2) of a normal AR(1). rho is the lag-1 autocorrelation of the
 * series less its monotone (isotonic) fit in the direction of S, so a curved trend is not counted as
 * correlation, corrected for its small-sample bias, (n r + 2) / (n - 4), and kept within [0, 0.95]. The false
 * positives that stay on simulated AR(1) series: tests/unit/test_timeline.c; -ENOMEM. */
int trend_mann_kendall_ar1(const double *y, size_t n, struct trend_mk *ret);
/* The least-squares fit to y that never falls (up) or never rises (pool adjacent violators), into ret;
 * -ENOMEM. */
int trend_isotonic(const double *y, size_t n, bool up, double *ret);
/* The q-quantile of n sorted values, interpolated as numpy's default (linear). */
double trend_quantile_sorted(const double *v, size_t n, double q);
/* -ENOMEM when out of memory; NAN fields when no two x differ. */
int trend_theil_sen(const double *x, const double *y, size_t n, struct trend_ts *ret);

#endif
