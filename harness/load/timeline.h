/* The load client's timeline: per interval of a load, the requests, errors and bytes and a coarse latency
 * histogram, kept per thread (nothing shared on the hot path) and merged after join, the way the trial's
 * own histogram is (wrk2). Intervals count from one origin common to every thread. */
#ifndef HX_TIMELINE_H
#define HX_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "load/hist.h"

#define TL_SHIFT	 3 /* hist_index >> 3: 16 sub-buckets per power of two, p50/p99 within 3.2% */
#define TL_BUCKETS	 ((HIST_BUCKETS >> TL_SHIFT) + 1)
#define TL_DEFAULT_NS	 UINT64_C(100000000) /* 100 ms */
#define TL_MAX_INTERVALS 1024		     /* beyond, neighbours merge and the interval doubles */

struct tl_interval {
	uint64_t requests, errors, bytes;
	uint32_t counts[TL_BUCKETS];
};

struct tl {
	uint64_t origin_ns, interval_ns;
	uint64_t end_ns; /* of the current interval; UINT64_MAX: no timeline */
	unsigned cur, n; /* the current interval; intervals in use */
	/* the thread's totals when the current interval began: what came since is the interval's */
	uint64_t base_requests, base_errors, base_bytes;
	struct tl_interval *iv; /* TL_MAX_INTERVALS of them; NULL: no timeline */
	/* at each roll, for a reader on another thread (tl_live): the totals and the p99 of the interval that
	 * ended, stored relaxed (a plain store on the writer's side: nothing added to the hot path) */
	uint64_t live_requests, live_errors, live_p99_ns;
};

/* interval_ns 0: no timeline (tl_tick and tl_latency then cost one compare). */
int tl_init(struct tl *t, uint64_t origin_ns, uint64_t interval_ns);
void tl_free(struct tl *t);
/* Past the current interval's end: what the totals gained since belongs to the interval that ends. */
struct tl_totals {
	const uint64_t *requests, *bytes, *errors; /* the thread's counters; errors: nerrors of them */
	unsigned nerrors;
};
void tl_roll(struct tl *t, uint64_t now, const struct tl_totals *tot);
static inline void tl_tick(struct tl *t, uint64_t now, const struct tl_totals *tot)
{
	if (now >= t->end_ns)
		tl_roll(t, now, tot);
}
static inline void tl_latency(struct tl *t, uint64_t ns)
{
	if (t->iv)
		t->iv[t->cur].counts[hist_index(ns) >> TL_SHIFT]++;
}
/* At the end of the load: the rest of the totals into the current interval, so the intervals sum to them. */
void tl_close(struct tl *t, const struct tl_totals *tot);
/* Add src into dst (same origin): the finer of the two is coarsened to the other's interval first. */
int tl_merge(struct tl *dst, struct tl *src);
/* What the last roll published, read from another thread. */
void tl_live(const struct tl *t, uint64_t *ret_requests, uint64_t *ret_errors, uint64_t *ret_p99_ns);
/* Latency at quantile q of one interval (ns): the midpoint of the coarse bucket holding the rank; 0 when empty. */
uint64_t tl_quantile(const struct tl_interval *iv, double q);

#endif
