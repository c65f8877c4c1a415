/* Significance tests and effect sizes for comparing trials; the formulas follow scipy.stats so that the unit
 * tests can pin them to values it computed (tests/fixtures/signif/). */
#include "stats/signif.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "stats/stats.h"

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return a->v < b->v ? -1 : a->v > b->v ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* Average ranks (1-based) of v[0..n) into rank[], and the tie term sum(t^3 - t) over groups of equal values. */
static int rank_avg(const double *v, size_t n, double *rank, double *ties)
{
	struct ranked *r = malloc(n * sizeof(*r));

	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){v[i], i};
	qsort(r, n, sizeof(*r), cmp_ranked);
	*ties = 0;
	for (size_t i = 0, j; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		*ties += t * t * t - t;
		for (size_t k = i; k < j; k++)
			rank[r[k].i] = (double)(i + j + 1) / 2;
	}
	free(r);
	return 0;
}

double sig_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

/* Bisection: slow but exact to the last bit that matters, and only ever called a few times per row. */
static double invert(double (*cdf)(double, double), double arg, double p, double lo, double hi)
{
	for (int i = 0; i < 200 && hi - lo > 1e-15 * fmax(1, fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (cdf(mid, arg) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static double norm_cdf2(double x, double unused)
{
	(void)unused;
	return sig_norm_cdf(x);
}

double sig_norm_ppf(double p)
{
	if (!(p > 0 && p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	return invert(norm_cdf2, 0, p, -40, 40);
}

/* Continued fraction of the incomplete beta (modified Lentz), valid for x < (a+1)/(a+b+2). */
static double betacf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < DBL_MIN ? DBL_MIN : d);
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), del;

		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < DBL_MIN ? DBL_MIN : d);
		c = fabs(c) < DBL_MIN ? DBL_MIN : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < DBL_MIN ? DBL_MIN : d);
		c = fabs(c) < DBL_MIN ? DBL_MIN : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return h;
}

double sig_betai(double a, double b, double x)
{
	double front;

	if (!(x >= 0 && x <= 1) || a <= 0 || b <= 0)
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double sig_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0;
	tail = 0.5 * sig_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double sig_t_ppf(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	return invert(sig_t_cdf, df, p, -1e6, 1e6);
}

/* Two-sided p of a z score, clipped to [0, 1]. */
static double two_sided(double z)
{
	double p = 2 * sig_norm_cdf(-fabs(z));

	return p > 1 ? 1 : p;
}

/* The counts of arrangements of samples of m and n without ties by U (top = m * n + 1 of them), built one element
 * at a time (the largest element so far adds j to U when it comes from a and j elements of b are below it);
 * NULL when out of memory. */
static double *mwu_counts(size_t m, size_t n)
{
	size_t top = m * n + 1;
	double *prev = calloc((n + 1) * top, sizeof(double));
	_cleanup_free_ double *cur = calloc((n + 1) * top, sizeof(double));

	if (!prev || !cur) {
		free(prev);
		return NULL;
	}
	for (size_t j = 0; j <= n; j++)
		prev[j * top] = 1; /* i = 0: only U = 0 */
	for (size_t i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * top * sizeof(double));
		cur[0] = 1;
		for (size_t j = 1; j <= n; j++)
			for (size_t k = 0; k < top; k++)
				cur[j * top + k] = cur[(j - 1) * top + k] + (k >= j ? prev[j * top + k - j] : 0);
		memcpy(prev, cur, (n + 1) * top * sizeof(double));
	}
	memmove(prev, prev + n * top, top * sizeof(double)); /* the row of all n */
	return prev;
}

/* P(U >= u) from the counts. */
static double counts_sf(const double *cnt, size_t top, double u)
{
	double total = 0, tail = 0;

	for (size_t k = 0; k < top; k++) {
		total += cnt[k];
		if ((double)k >= u)
			tail += cnt[k];
	}
	return tail / total;
}

/* P(U >= u) for samples of m and n without ties. */
static double mwu_sf(double u, size_t m, size_t n)
{
	_cleanup_free_ double *cnt = mwu_counts(m, n);

	return cnt ? counts_sf(cnt, m * n + 1, u) : NAN;
}

int sig_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct sig_test *ret)
{
	size_t n = na + nb;
	_cleanup_free_ double *all = malloc(n * sizeof(double)), *rank = malloc(n * sizeof(double));
	double ties, r1 = 0, u1, umax, mu, s, p;

	if (!na || !nb || !all || !rank)
		return -1;
	memcpy(all, a, na * sizeof(double));
	memcpy(all + na, b, nb * sizeof(double));
	if (rank_avg(all, n, rank, &ties) < 0)
		return -1;
	for (size_t i = 0; i < na; i++)
		r1 += rank[i];
	u1 = r1 - (double)na * (double)(na + 1) / 2;
	umax = fmax(u1, (double)na * (double)nb - u1);
	*ret = (struct sig_test){.stat = u1};
	if (ties == 0 && na <= SIG_EXACT_MAX && nb <= SIG_EXACT_MAX) {
		p = 2 * mwu_sf(umax, na, nb);
		ret->exact = true;
	} else {
		mu = (double)na * (double)nb / 2;
		s = sqrt((double)na * (double)nb / 12 * ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));
		p = s > 0 ? 2 * sig_norm_cdf(-(umax - mu - 0.5) / s) : 1;
	}
	ret->p = p > 1 ? 1 : p < 0 ? 0 : p;
	return 0;
}

/* P(T <= t) over subsets of ranks 1..n by their sum: the exact null distribution of the signed-rank sum. */
static double signed_rank_cdf(double t, size_t n)
{
	size_t top = n * (n + 1) / 2 + 1;
	_cleanup_free_ double *cnt = calloc(top, sizeof(double));
	double below = 0;

	if (!cnt)
		return NAN;
	cnt[0] = 1;
	for (size_t r = 1; r <= n; r++)
		for (size_t s = top - 1; s >= r; s--)
			cnt[s] += cnt[s - r];
	for (size_t s = 0; s < top && (double)s <= t; s++)
		below += cnt[s];
	return below / ldexp(1, (int)n);
}

int sig_wilcoxon(const double *a, const double *b, size_t n, struct sig_test *ret)
{
	_cleanup_free_ double *d = malloc((n + 1) * sizeof(double)), *rank = malloc((n + 1) * sizeof(double));
	double ties, rplus = 0, rminus = 0, t, mn, se, p;
	size_t m = 0;

	if (!d || !rank)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			d[m++] = a[i] - b[i];
	if (m == 0)
		return -1;
	for (size_t i = 0; i < m; i++)
		rank[i] = fabs(d[i]);
	if (rank_avg(rank, m, rank, &ties) < 0)
		return -1;
	for (size_t i = 0; i < m; i++)
		*(d[i] > 0 ? &rplus : &rminus) += rank[i];
	t = fmin(rplus, rminus);
	*ret = (struct sig_test){.stat = t};
	mn = (double)m * (double)(m + 1) / 4;
	if (ties == 0 && m == n && n <= SIG_EXACT_MAX) {
		p = t == mn ? 1 : 2 * signed_rank_cdf(t, m);
		ret->exact = true;
	} else {
		se = sqrt(((double)m * (double)(m + 1) * (double)(2 * m + 1) - ties / 2) / 24);
		p = se > 0 ? two_sided((t - mn) / se) : 1;
	}
	ret->p = p > 1 ? 1 : p;
	return 0;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*var = q / (double)(n - 1);
}

int sig_welch(const double *a, size_t na, const double *b, size_t nb, struct sig_test *ret)
{
	double ma, va, mb, vb, sa, sb;

	if (na < 2 || nb < 2)
		return -1;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	*ret = (struct sig_test){0};
	if (sa + sb == 0) {
		ret->p = ma == mb ? 1 : 0; /* no spread at all: any difference is certain */
		ret->stat = ma == mb ? 0 : copysign(INFINITY, ma - mb);
		return 0;
	}
	ret->stat = (ma - mb) / sqrt(sa + sb);
	ret->df = (sa + sb) * (sa + sb) / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	ret->p = 2 * sig_t_cdf(-fabs(ret->stat), ret->df);
	return 0;
}

int sig_trend(const double *v, size_t n, struct sig_test *ret)
{
	_cleanup_free_ double *rank = malloc((n + 1) * sizeof(double));
	double ties, mr = (double)(n + 1) / 2, sxy = 0, sxx = 0, syy = 0, r, t;

	if (n < 3 || !rank || rank_avg(v, n, rank, &ties) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double x = (double)(i + 1) - mr, y = rank[i] - mr;

		sxy += x * y;
		sxx += x * x;
		syy += y * y;
	}
	if (syy == 0)
		return -1;
	r = sxy / sqrt(sxx * syy);
	*ret = (struct sig_test){.stat = r, .df = (double)(n - 2)};
	if (fabs(r) >= 1) {
		ret->p = 0;
		return 0;
	}
	t = r * sqrt((double)(n - 2) / ((1 - r) * (1 + r)));
	ret->p = 2 * sig_t_cdf(-fabs(t), (double)(n - 2));
	return 0;
}

double sig_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb)
{
	_cleanup_free_ double *d = malloc((na * nb + 1) * sizeof(double));

	if (!na || !nb || !d)
		return NAN;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, na * nb, sizeof(double), stats_cmp_double);
	return stats_median_sorted(d, na * nb);
}

/* One resample's median(b*) / median(a*); a paired resample draws one index for both sides. The medians are read
 * off the draws' ranks (stats_resample), the values a sort of each resample gives. */
static double resample_ratio(struct stats_resample *a, struct stats_resample *b, bool paired, uint64_t *seed)
{
	stats_resample_clear(a);
	stats_resample_clear(b);
	for (size_t i = 0; i < a->n; i++) {
		size_t k = (size_t)(stats_splitmix(seed) % a->n);

		stats_resample_draw(a, k);
		if (paired)
			stats_resample_draw(b, k);
	}
	if (!paired)
		for (size_t j = 0; j < b->n; j++)
			stats_resample_draw(b, stats_splitmix(seed) % b->n);
	return stats_resample_median(b) / stats_resample_median(a);
}

int sig_ratio_ci(const double *a, size_t na, const double *b, size_t nb, bool paired, double level, uint64_t seed,
		 struct sig_ci *ret)
{
	_cleanup_free_ double *r = malloc(SIG_BOOTSTRAP * sizeof(double));
	struct stats_resample ra = {0}, rb = {0};
	double alpha = 1 - level;
	uint64_t state = seed;
	int rc = -1;

	if (!na || !nb || (paired && na != nb) || !(level > 0 && level < 1) || !r)
		return -1;
	if (stats_resample_init(&ra, a, na) < 0 || stats_resample_init(&rb, b, nb) < 0)
		goto out;
	*ret = (struct sig_ci){.level = level, .seed = seed, .resamples = SIG_BOOTSTRAP, .paired = paired};
	ret->estimate = stats_median_sorted(rb.sorted, nb) / stats_median_sorted(ra.sorted, na);
	for (size_t k = 0; k < SIG_BOOTSTRAP; k++)
		r[k] = resample_ratio(&ra, &rb, paired, &state);
	qsort(r, SIG_BOOTSTRAP, sizeof(double), stats_cmp_double);
	ret->low = r[(size_t)(alpha / 2 * SIG_BOOTSTRAP)];
	ret->high = r[(size_t)((1 - alpha / 2) * SIG_BOOTSTRAP) - 1];
	rc = 0;
out:
	stats_resample_free(&ra);
	stats_resample_free(&rb);
	return rc;
}

double sig_bimodality(const double *v, size_t n)
{
	double mean, var, m2 = 0, m3 = 0, m4 = 0, g1, g2, dn = (double)n;

	if (n < 4)
		return NAN;
	mean_var(v, n, &mean, &var);
	for (size_t i = 0; i < n; i++) {
		double d = v[i] - mean;

		m2 += d * d;
		m3 += d * d * d;
		m4 += d * d * d * d;
	}
	m2 /= dn;
	m3 /= dn;
	m4 /= dn;
	if (m2 == 0)
		return NAN;
	/* the bias-corrected skewness and excess kurtosis (scipy's skew and kurtosis with bias=False) */
	g1 = sqrt(dn * (dn - 1)) / (dn - 2) * m3 / pow(m2, 1.5);
	g2 = (dn - 1) / ((dn - 2) * (dn - 3)) * ((dn + 1) * m4 / (m2 * m2) - 3 * (dn - 1));
	return (g1 * g1 + 1) / (g2 + 3 * (dn - 1) * (dn - 1) / ((dn - 2) * (dn - 3)));
}

bool sig_bimodal(const double *v, size_t n)
{
	return n >= SIG_BIMODAL_MIN_N && sig_bimodality(v, n) > SIG_BIMODAL;
}

double sig_mde(double cv, size_t n, double alpha, double power)
{
	double df = 2 * (double)n - 2;

	if (n < 2 || !(cv >= 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	return (sig_t_ppf(1 - alpha / 2, df) + sig_t_ppf(power, df)) * cv * sqrt(2 / (double)n);
}

size_t sig_trials_for(double cv, double effect, double alpha, double power, size_t cap)
{
	size_t lo = 2, hi = cap;

	if (cap < 2 || !(effect > 0) || !(sig_mde(cv, cap, alpha, power) <= effect))
		return 0;
	while (lo < hi) { /* sig_mde falls as n grows */
		size_t mid = lo + (hi - lo) / 2;

		if (sig_mde(cv, mid, alpha, power) <= effect)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

double sig_mwu_min_p(size_t na, size_t nb)
{
	double p;

	if (!na || !nb)
		return 1;
	/* 2 / C(na + nb, na), in logs: C(100, 50) overflows nothing, C(2000, 1000) would */
	p = 2 * exp(lgamma((double)na + 1) + lgamma((double)nb + 1) - lgamma((double)(na + nb) + 1));
	return p > 1 ? 1 : p;
}

size_t sig_mwu_trials_for(double level, size_t cap)
{
	for (size_t n = 1; n <= cap; n++)
		if (sig_mwu_min_p(n, n) < level)
			return n;
	return 0;
}

struct holm_p {
	double p;
	size_t i;
};

static int cmp_holm(const void *x, const void *y)
{
	const struct holm_p *a = x, *b = y;

	return a->p < b->p ? -1 : a->p > b->p ? 1 : (a->i > b->i) - (a->i < b->i);
}

void sig_holm(const double *p, size_t n, double *adj)
{
	_cleanup_free_ struct holm_p *s = malloc((n + 1) * sizeof(*s));
	size_t m = 0;
	double run = 0;

	for (size_t i = 0; i < n; i++)
		adj[i] = NAN;
	if (!s)
		return; /* nothing adjusted: nothing can be called */
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct holm_p){p[i], i};
	qsort(s, m, sizeof(*s), cmp_holm);
	for (size_t k = 0; k < m; k++) {
		double a = (double)(m - k) * s[k].p;

		run = fmax(run, a > 1 ? 1 : a); /* step-down: never below an earlier row's */
		adj[s[k].i] = run;
	}
}

#define SIG_SETTLE_SIMS 200
#define SIG_SETTLE_GRID 61 /* grid_n(0..60): 2 to 1000 */
#define SIG_SETTLE_SEED 0x5e771eULL

static double uniform01(uint64_t *s)
{
	return ((double)(stats_splitmix(s) >> 11) + 0.5) * 0x1p-53;
}

/* The smallest U (of the larger side) whose exact two-sided p is below level for n trials a side; past
 * SIG_EXACT_MAX, the normal approximation's. */
static double mwu_critical(size_t n, double level)
{
	double nn = (double)n * (double)n, mu = nn / 2, s = sqrt(nn * (2 * (double)n + 1) / 12), total = 0, tail = 0;
	_cleanup_free_ double *cnt = NULL;

	if (n > SIG_EXACT_MAX)
		return mu + 0.5 + s * sig_norm_ppf(1 - level / 2);
	cnt = mwu_counts(n, n);
	if (!cnt)
		return INFINITY;
	/* from the top down, while the two-sided tail stays below level */
	for (size_t k = 0; k <= n * n; k++)
		total += cnt[k];
	for (size_t u = n * n + 1; u-- > 0;) {
		tail += cnt[u];
		if (2 * tail / total >= level)
			return (double)u + 1;
	}
	return 0;
}

/* The n the search looks at: every n to 30, then 5 apart to 100, then 50 apart: a plan needs no finer count,
 * and few distinct n keep the draws' cache small. */
static size_t grid_n(size_t k)
{
	return k < 29 ? k + 2 : k < 43 ? 30 + 5 * (k - 28) : 100 + 50 * (k - 42);
}

/* The grid slot of n: its own when n is on the grid, else one shared by the n between two grid points. */
static size_t grid_k(size_t n)
{
	size_t k = 0;

	while (k + 1 < SIG_SETTLE_GRID && grid_n(k + 1) <= n)
		k++;
	return k;
}

/* The standard normal quantile to about 1e-9 (Acklam's rational approximation): the simulation's, where
 * sig_norm_ppf's bisection would be dear. */
static double fast_ppf(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
				   1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
				   6.680131188771972e+01, -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
				   -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
				   3.754408661907416e+00};
	double q, r;

	if (p < 0.02425 || p > 1 - 0.02425) {
		q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
		r = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		return p < 0.5 ? r : -r;
	}
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* n standard normal draws, in ascending order without a sort: uniform order statistics from the partial sums of
 * n + 1 exponential spacings, through the normal quantile. */
static void sorted_normals(double *v, size_t n, uint64_t *seed)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		sum += -log(uniform01(seed));
		v[i] = sum;
	}
	sum += -log(uniform01(seed));
	for (size_t i = 0; i < n; i++)
		v[i] = fast_ppf(v[i] / sum);
}

/* The simulation's standard normal samples for n trials a side: SIG_SETTLE_SIMS pairs, each side sorted, seeded by
 * n alone (the same bits whatever was asked before), kept for the process: the rows of a comparison look at the
 * same few n, and a shift and a scale keep a sorted sample sorted. */
struct settle_draws {
	size_t n;
	double *a, *b;
	double level, ucrit; /* the rank test's critical U at the last level asked */
};
static struct settle_draws settle_cache[SIG_SETTLE_GRID];

static struct settle_draws *draws_for(size_t n)
{
	struct settle_draws *d = &settle_cache[grid_k(n)];
	uint64_t seed = SIG_SETTLE_SEED ^ (uint64_t)n;

	if (d->n == n)
		return d;
	free(d->a);
	free(d->b);
	d->n = 0;
	d->level = NAN;
	d->a = malloc(SIG_SETTLE_SIMS * n * sizeof(double));
	d->b = malloc(SIG_SETTLE_SIMS * n * sizeof(double));
	if (!d->a || !d->b)
		return NULL;
	for (size_t k = 0; k < SIG_SETTLE_SIMS; k++) {
		sorted_normals(d->a + k * n, n, &seed);
		sorted_normals(d->b + k * n, n, &seed);
	}
	d->n = n;
	return d;
}

/* U of a = sigma za against b = shift + sigma zb, both sorted: pairs a > b, by a merge. */
static double u_shifted(const double *za, const double *zb, size_t n, double shift, double sigma)
{
	double u = 0;

	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < n && shift + sigma * zb[j] < sigma * za[i])
			j++;
		u += (double)j;
	}
	return u;
}

double sig_settle_power(double cv, double ratio, double threshold, double level, double ci_level, size_t n)
{
	struct settle_draws *d = n >= 1 ? draws_for(n) : NULL;
	double lr[SIG_SETTLE_SIMS];
	bool sig[SIG_SETTLE_SIMS];
	double sigma = sqrt(log1p(cv * cv)), shift = log(ratio), ucrit;
	double z = sig_norm_ppf(1 - (1 - ci_level) / 2), sd = 0, lo = log1p(-threshold), hi = log1p(threshold);
	double settled = 0;

	if (!d || !(ratio > 0) || !(cv >= 0))
		return NAN;
	if (d->level != level) { /* the exact distribution's counts are the dear part: once per n and level */
		d->level = level;
		d->ucrit = mwu_critical(n, level);
	}
	ucrit = d->ucrit;
	/* in logs: the rank test and the median do not change under the log of lognormal trials */
	for (size_t k = 0; k < SIG_SETTLE_SIMS; k++) {
		const double *za = d->a + k * n, *zb = d->b + k * n;
		double u = u_shifted(za, zb, n, shift, sigma);

		sig[k] = fmax(u, (double)n * (double)n - u) >= ucrit;
		lr[k] = shift + sigma * (stats_median_sorted(zb, n) - stats_median_sorted(za, n));
		sd += (lr[k] - shift) * (lr[k] - shift);
	}
	sd = sqrt(sd / SIG_SETTLE_SIMS); /* the ratio of medians' own spread: what the bootstrap CI estimates */
	for (size_t k = 0; k < SIG_SETTLE_SIMS; k++) {
		bool excl = lr[k] - z * sd > 0 || lr[k] + z * sd < 0;

		settled += (sig[k] && excl) || (lr[k] - z * sd >= lo && lr[k] + z * sd <= hi);
	}
	return settled / SIG_SETTLE_SIMS;
}

/* The normal approximations of both ways to settle (the rank test's efficiency 3/pi of the t test's; the
 * median's standard error sqrt(pi/2) sigma / sqrt(n)): where the simulation starts looking. */
static double settle_guess(double cv, double ratio, double threshold, double level, double ci_level, double power)
{
	double sigma2 = log1p(cv * cv), d = fabs(log(ratio)),
	       h = log1p(threshold) < -log1p(-threshold) ? log1p(threshold) : -log1p(-threshold);
	double zp = sig_norm_ppf(power), za = sig_norm_ppf(1 - level / 2), zc = sig_norm_ppf(1 - (1 - ci_level) / 2);
	double n_sig = d > 0 ? M_PI / 3 * 2 * sigma2 * (za + zp) * (za + zp) / (d * d) : INFINITY;
	double n_eq = h > d ? M_PI * sigma2 * (zc + zp) * (zc + zp) / ((h - d) * (h - d)) : INFINITY;

	return fmin(n_sig, n_eq);
}

size_t sig_trials_to_settle(double cv, double ratio, double threshold, double level, double ci_level, double power,
			    size_t nmin, size_t cap)
{
	double guess = settle_guess(cv, ratio, threshold, level, ci_level, power);
	size_t lo = 0, hi, top = 0;

	if (!(guess <= 2 * (double)cap))
		return 0; /* far beyond the cap by the approximation: not worth simulating */
	while (grid_n(lo) < nmin && lo + 1 < SIG_SETTLE_GRID)
		lo++;
	while (top + 1 < SIG_SETTLE_GRID && grid_n(top + 1) <= cap)
		top++;
	if (grid_n(lo) < nmin || grid_n(lo) > cap)
		return 0;
	/* from twice the approximation up, doubling: the big n are the dear ones */
	for (hi = lo; hi < top && (double)grid_n(hi) < 2 * guess; hi++)
		;
	while (sig_settle_power(cv, ratio, threshold, level, ci_level, grid_n(hi)) < power) {
		if (hi == top)
			return 0;
		lo = hi + 1;
		for (size_t want = 2 * grid_n(hi); hi < top && grid_n(hi) < want; hi++)
			;
	}
	while (lo < hi) { /* the power grows with n */
		size_t mid = lo + (hi - lo) / 2;

		if (sig_settle_power(cv, ratio, threshold, level, ci_level, grid_n(mid)) >= power)
			hi = mid;
		else
			lo = mid + 1;
	}
	return grid_n(lo);
}

enum sig_stand sig_against(double est, double low, double high, bool significant, double threshold)
{
	if (significant && fabs(est - 1) >= threshold)
		return est > 1 ? SIG_ABOVE : SIG_BELOW;
	if (significant)
		return SIG_WITHIN;
	if (low >= 1 - threshold && high <= 1 + threshold)
		return SIG_EQUIVALENT;
	return SIG_UNDECIDED;
}
