/* A log-linear latency histogram in the manner of HdrHistogram: values in nanoseconds, 128 linear
 * sub-buckets per power of two (≤ 0.4% error from 1 µs to 60 s), mergeable, fixed size. */
#ifndef HX_HIST_H
#define HX_HIST_H

#include <stdint.h>

#define HIST_SUB     128			  /* sub-buckets per power of two */
#define HIST_MAX_NS  (UINT64_C(60) * 1000000000u) /* larger values count in the last bucket */
#define HIST_BUCKETS 3968			  /* enough index space for HIST_MAX_NS */

struct hist {
	uint64_t count;
	uint64_t min, max; /* exact */
	double sum, sumsq; /* exact mean and stddev */
	uint64_t counts[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_record(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* The value at quantile q (0..1): the midpoint of the bucket holding it, clamped to [min, max]. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/* For tests: the bucket index of a value and the lowest value of an index. */
unsigned hist_index(uint64_t ns);
uint64_t hist_lowest(unsigned idx);

#endif
