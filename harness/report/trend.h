/* Trend tests over a series: Mann-Kendall's S with its normal p (no continuity correction, as scipy's
 * kendalltau(method="asymptotic") against the index), and the Theil-Sen slope with Sen's 95% CI (as scipy's
 * theilslopes). Pure functions; the values are checked against scipy's in tests/unit/test_trend.c. */
#ifndef HX_TREND_H
#define HX_TREND_H

#include <stddef.h>

struct trend_mk {
	double s, var_s, z, p, tau; /* tau-b; p two-sided; NAN when fewer than 3 values or all equal */
};

struct trend_ts {
	double slope, intercept, low, high; /* intercept: median(y) - slope * median(x); NAN when no pair */
};

/* y in time order (x = 0, 1, ...). */
void trend_mann_kendall(const double *y, size_t n, struct trend_mk *ret);
/* -ENOMEM when out of memory; NAN fields when no two x differ. */
int trend_theil_sen(const double *x, const double *y, size_t n, struct trend_ts *ret);

#endif
