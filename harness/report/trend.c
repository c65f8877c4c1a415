/* Mann-Kendall and Theil-Sen (trend.h): O(n^2) in pairs, for series of at most a few thousand points. */
#include "report/trend.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Σ t(t-1)(2t+5) and Σ t(t-1)/2 over the groups of tied values of v (sorted in place). */
static void ties(double *v, size_t n, double *ret_var, double *ret_pairs)
{
	double var = 0, pairs = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j] == v[i])
			j++;
		double t = (double)(j - i);

		var += t * (t - 1) * (2 * t + 5);
		pairs += t * (t - 1) / 2;
		i = j;
	}
	*ret_var = var;
	*ret_pairs = pairs;
}

void trend_mann_kendall(const double *y, size_t n, struct trend_mk *ret)
{
	double s = 0, tie_var = 0, tie_pairs = 0, nn = (double)n, n0 = nn * (nn - 1) / 2;
	double *sorted;

	*ret = (struct trend_mk){NAN, NAN, NAN, NAN, NAN};
	if (n < 3 || !(sorted = malloc(n * sizeof(*sorted))))
		return;
	for (size_t i = 0; i < n; i++) {
		sorted[i] = y[i];
		for (size_t j = i + 1; j < n; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	}
	ties(sorted, n, &tie_var, &tie_pairs);
	free(sorted);
	ret->s = s;
	ret->var_s = (nn * (nn - 1) * (2 * nn + 5) - tie_var) / 18;
	if (ret->var_s <= 0 || n0 - tie_pairs <= 0)
		return;
	ret->z = s / sqrt(ret->var_s);
	ret->p = erfc(fabs(ret->z) / sqrt(2.0));
	ret->tau = s / sqrt(n0 * (n0 - tie_pairs));
}

int trend_theil_sen(const double *x, const double *y, size_t n, struct trend_ts *ret)
{
	size_t nt = 0;
	double *slopes = malloc((n * (n - 1) / 2 + 1) * sizeof(*slopes)), *tmp = malloc((n + 1) * sizeof(*tmp));
	double xv, yv, dummy, nn = (double)n, sigma, my, mx;
	long ru, rl;

	*ret = (struct trend_ts){NAN, NAN, NAN, NAN};
	if (!slopes || !tmp) {
		free(slopes);
		free(tmp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (x[i] > x[j])
				slopes[nt++] = (y[i] - y[j]) / (x[i] - x[j]);
	if (nt) {
		qsort(slopes, nt, sizeof(*slopes), cmp_double);
		ret->slope = median_sorted(slopes, nt);
		for (size_t i = 0; i < n; i++)
			tmp[i] = x[i];
		ties(tmp, n, &xv, &dummy);
		mx = median_sorted(tmp, n);
		for (size_t i = 0; i < n; i++)
			tmp[i] = y[i];
		ties(tmp, n, &yv, &dummy);
		my = median_sorted(tmp, n);
		ret->intercept = my - ret->slope * mx;
		/* Sen (1968), eq. 2.6; indices rounded half to even, as numpy's round */
		sigma = sqrt((nn * (nn - 1) * (2 * nn + 5) - xv - yv) / 18);
		ru = (long)nearbyint(((double)nt + 1.959963984540054 * sigma) / 2);
		rl = (long)nearbyint(((double)nt - 1.959963984540054 * sigma) / 2) - 1;
		ru = ru > (long)nt - 1 ? (long)nt - 1 : ru;
		rl = rl < 0 ? 0 : rl;
		ret->low = slopes[rl];
		ret->high = slopes[ru];
	}
	free(slopes);
	free(tmp);
	return 0;
}
