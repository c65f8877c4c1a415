/* Robust summaries for benchmark repeats. */
#include "stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STATS_BOOTSTRAP 2000
#include <float.h>

int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stats_median_of(const double *v, size_t n)
{
	double *s = n ? malloc(n * sizeof(*s)) : NULL, m;

	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	m = stats_median_sorted(s, n);
	free(s);
	return m;
}

double stats_cv(const double *v, size_t n)
{
	double m = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	return n > 1 && m != 0 ? sqrt(q / (double)(n - 1)) / fabs(m) : 0;
}

bool stats_has_ci(const struct stats_summary *s)
{
	return s->n >= STATS_MIN_CI_N && !isnan(s->ci95_low) && !isnan(s->ci95_high);
}

uint64_t stats_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct ranked {
	double v;
	size_t at; /* its index in the data */
};

static int cmp_ranked(const void *a, const void *b)
{
	return stats_cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

int stats_resample_init(struct stats_resample *r, const double *v, size_t n)
{
	struct ranked *by = n < UINT32_MAX ? malloc((n + 1) * sizeof(*by)) : NULL;

	*r = (struct stats_resample){.n = n,
				     .sorted = malloc((n + 1) * sizeof(double)),
				     .rank = malloc((n + 1) * sizeof(uint32_t)),
				     .count = calloc(n + 1, sizeof(uint32_t))};
	if (!by || !r->sorted || !r->rank || !r->count) {
		free(by);
		stats_resample_free(r);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		by[i] = (struct ranked){v[i], i};
	qsort(by, n, sizeof(*by), cmp_ranked);
	for (size_t k = 0; k < n; k++) {
		r->sorted[k] = by[k].v;
		r->rank[by[k].at] = (uint32_t)k;
	}
	free(by);
	return 0;
}

void stats_resample_clear(struct stats_resample *r)
{
	memset(r->count, 0, r->n * sizeof(*r->count));
}

/* The rank of the k-th smallest draw (0-based), the scan going on from rank *i with *seen draws below it. */
static size_t kth_rank(const struct stats_resample *r, size_t k, size_t *i, size_t *seen)
{
	for (; *i + 1 < r->n; ++*i) {
		if (*seen + r->count[*i] > k)
			break;
		*seen += r->count[*i];
	}
	return *i;
}

double stats_resample_median(const struct stats_resample *r)
{
	size_t n = r->n, i = 0, seen = 0, lo;

	if (!n)
		return NAN;
	lo = kth_rank(r, (n - 1) / 2, &i, &seen);
	/* an even count: the draw above it, one scan for both */
	return n % 2 ? r->sorted[lo] : (r->sorted[lo] + r->sorted[kth_rank(r, n / 2, &i, &seen)]) / 2;
}

void stats_resample_free(struct stats_resample *r)
{
	free(r->sorted);
	free(r->rank);
	free(r->count);
	*r = (struct stats_resample){0};
}

/* Each resample is n draws of an index into v (the generator's stream as before), its median read off the draws'
 * ranks: O(n) a resample rather than a sort of it, and the same CI. */
static void bootstrap_median(const double *v, size_t n, double *lo, double *hi)
{
	double *meds = malloc(STATS_BOOTSTRAP * sizeof(*meds));
	struct stats_resample r;
	uint64_t seed = 0x5eed;

	*lo = *hi = NAN;
	if (!meds || stats_resample_init(&r, v, n) < 0) {
		free(meds);
		return;
	}
	for (size_t b = 0; b < STATS_BOOTSTRAP; b++) {
		stats_resample_clear(&r);
		for (size_t i = 0; i < n; i++)
			stats_resample_draw(&r, stats_splitmix(&seed) % n);
		meds[b] = stats_resample_median(&r);
	}
	qsort(meds, STATS_BOOTSTRAP, sizeof(*meds), stats_cmp_double);
	*lo = meds[(size_t)(0.025 * STATS_BOOTSTRAP)];
	*hi = meds[(size_t)(0.975 * STATS_BOOTSTRAP) - 1];
	free(meds);
	stats_resample_free(&r);
}

void stats_summarize(const double *v, size_t n, struct stats_summary *s)
{
	double *sorted, *dev, sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n == 0)
		return;
	sorted = malloc(n * sizeof(*sorted));
	dev = malloc(n * sizeof(*dev));
	if (!sorted || !dev) {
		free(sorted);
		free(dev);
		return;
	}
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), stats_cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	s->median = stats_median_sorted(sorted, n);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->cv = s->mean != 0 ? s->stddev / s->mean : 0;
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - s->median);
	qsort(dev, n, sizeof(*dev), stats_cmp_double);
	s->mad = stats_median_sorted(dev, n);
	/* hyperfine's rule exactly (src/outlier_detection.rs): |x - median| / MAD, with a MAD of 0 taken as the
	 * machine epsilon, so that one value apart from seven equal ones is an outlier */
	for (size_t i = 0; i < n; i++)
		if (fabs(v[i] - s->median) / (s->mad > 0 ? s->mad : DBL_EPSILON) > STATS_OUTLIER_MADS)
			s->outliers++;
	if (n > 1)
		bootstrap_median(v, n, &s->ci95_low, &s->ci95_high);
	else
		s->ci95_low = s->ci95_high = s->median;
	free(sorted);
	free(dev);
}
