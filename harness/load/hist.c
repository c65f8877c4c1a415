/* Log-linear histogram: values below 256 ns are exact, above each power of two 2^k (k >= 8) is cut
 * into 128 equal sub-buckets, so a bucket is at most 1/128 of its value wide. */
#include "load/hist.h"

#include <math.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v > HIST_MAX_NS)
		v = HIST_MAX_NS;
	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - 7u; /* v >> shift is in [128, 255] */
	return 2 * HIST_SUB + (shift - 1) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

uint64_t hist_lowest(unsigned idx)
{
	unsigned shift;

	if (idx < 2 * HIST_SUB)
		return idx;
	shift = (idx - 2 * HIST_SUB) / HIST_SUB + 1;
	return ((uint64_t)HIST_SUB + (idx - 2 * HIST_SUB) % HIST_SUB) << shift;
}

static uint64_t hist_width(unsigned idx)
{
	return idx < 2 * HIST_SUB ? 1 : UINT64_C(1) << ((idx - 2 * HIST_SUB) / HIST_SUB + 1);
}

void hist_record(struct hist *h, uint64_t ns)
{
	h->counts[hist_index(ns)]++;
	h->count++;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->sum += (double)ns;
	h->sumsq += (double)ns * (double)ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* the smallest value with at least q of the samples at or below it (nearest rank) */
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			uint64_t mid = hist_lowest(i) + hist_width(i) / 2;

			return mid < h->min ? h->min : mid > h->max ? h->max : mid;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double hist_stddev(const struct hist *h)
{
	double mean, var;

	if (h->count < 2)
		return 0;
	mean = hist_mean(h);
	var = (h->sumsq - (double)h->count * mean * mean) / (double)(h->count - 1);
	return var > 0 ? sqrt(var) : 0;
}
