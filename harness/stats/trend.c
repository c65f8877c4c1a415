/* Mann-Kendall and Theil-Sen (trend.h): O(n^2) in pairs, for series of at most a few thousand points. */
#include "stats/trend.h"

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

	*ret = (struct trend_mk){NAN, NAN, NAN, NAN, NAN, NAN, 1};
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

int trend_isotonic(const double *y, size_t n, bool up, double *ret)
{
	/* pool adjacent violators: a stack of blocks, each its mean and size; a block that falls below the one
	 * before merges into it until the means rise again */
	double sign = up ? 1 : -1, *mean = malloc((n + 1) * sizeof(*mean));
	size_t *size = malloc((n + 1) * sizeof(*size)), nb = 0;

	if (!mean || !size) {
		free(mean);
		free(size);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		mean[nb] = sign * y[i];
		size[nb++] = 1;
		while (nb > 1 && mean[nb - 2] > mean[nb - 1]) {
			size_t k = size[nb - 2] + size[nb - 1];

			mean[nb - 2] =
				(mean[nb - 2] * (double)size[nb - 2] + mean[nb - 1] * (double)size[nb - 1]) / (double)k;
			size[nb - 2] = k;
			nb--;
		}
	}
	for (size_t b = 0, i = 0; b < nb; b++)
		for (size_t j = 0; j < size[b]; j++)
			ret[i++] = sign * mean[b];
	free(mean);
	free(size);
	return 0;
}

double trend_quantile_sorted(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1), lo = floor(pos);
	size_t i = (size_t)lo;

	if (!n)
		return NAN;
	return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (pos - lo) : v[n - 1];
}

/* Lag-1 autocorrelation of e about its mean; 0 when e does not vary. */
static double lag1(const double *e, size_t n)
{
	double m = 0, num = 0, den = 0;

	for (size_t i = 0; i < n; i++)
		m += e[i] / (double)n;
	for (size_t i = 0; i < n; i++) {
		den += (e[i] - m) * (e[i] - m);
		if (i + 1 < n)
			num += (e[i] - m) * (e[i + 1] - m);
	}
	return den > 0 ? num / den : 0;
}

/* Hamed and Rao's n/n* for AR(1) values with lag-1 autocorrelation rho. */
static double ar1_factor(size_t n, double rho)
{
	double nn = (double)n, sum = 0, rk = 1;

	for (size_t k = 1; k + 2 < n; k++) {
		double m = nn - (double)k;

		rk *= rho;
		sum += m * (m - 1) * (m - 2) * 6 / M_PI * asin(rk / 2);
	}
	return 1 + 2 / (nn * (nn - 1) * (nn - 2)) * sum;
}

int trend_mann_kendall_ar1(const double *y, size_t n, struct trend_mk *ret)
{
	double *fit, *res, r;

	trend_mann_kendall(y, n, ret);
	if (isnan(ret->p) || n < 5)
		return 0;
	fit = malloc(n * sizeof(*fit));
	res = malloc(n * sizeof(*res));
	if (!fit || !res || trend_isotonic(y, n, ret->s >= 0, fit) < 0) {
		free(fit);
		free(res);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		res[i] = y[i] - fit[i];
	r = ((double)n * lag1(res, n) + 2) / ((double)n - 4);
	ret->rho = r < 0 ? 0 : r > 0.95 ? 0.95 : r;
	ret->var_factor = ar1_factor(n, ret->rho);
	ret->var_s *= ret->var_factor;
	ret->z = ret->s / sqrt(ret->var_s);
	ret->p = erfc(fabs(ret->z) / sqrt(2.0));
	free(fit);
	free(res);
	return 0;
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
