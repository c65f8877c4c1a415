/* Per-interval counters and coarse histograms of the load (timeline.h). The hot path is a compare per
 * response (tl_tick) and an increment (tl_latency); an interval's counters are the differences of the
 * thread's running totals at its two ends, so the intervals sum to the totals exactly. */
#include "load/timeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int tl_init(struct tl *t, uint64_t origin_ns, uint64_t interval_ns)
{
	memset(t, 0, sizeof(*t));
	t->end_ns = UINT64_MAX;
	if (!interval_ns)
		return 0;
	/* calloc'd pages are touched only as the load reaches them */
	t->iv = calloc(TL_MAX_INTERVALS, sizeof(*t->iv));
	if (!t->iv)
		return -ENOMEM;
	t->origin_ns = origin_ns;
	t->interval_ns = interval_ns;
	t->end_ns = origin_ns + interval_ns;
	t->n = 1;
	return 0;
}

void tl_free(struct tl *t)
{
	free(t->iv);
	t->iv = NULL;
	t->end_ns = UINT64_MAX;
}

static void iv_add(struct tl_interval *d, const struct tl_interval *s)
{
	d->requests += s->requests;
	d->errors += s->errors;
	d->bytes += s->bytes;
	for (unsigned b = 0; b < TL_BUCKETS; b++)
		d->counts[b] += s->counts[b];
}

/* Neighbours merge pairwise: half as many intervals, twice as long. */
static void tl_coarsen(struct tl *t)
{
	for (unsigned i = 0; i < TL_MAX_INTERVALS / 2; i++) {
		struct tl_interval a = t->iv[2 * i];

		iv_add(&a, &t->iv[2 * i + 1]);
		t->iv[i] = a;
	}
	memset(&t->iv[TL_MAX_INTERVALS / 2], 0, TL_MAX_INTERVALS / 2 * sizeof(*t->iv));
	t->interval_ns *= 2;
	t->cur /= 2;
	t->n = (t->n + 1) / 2;
}

static void tl_account(struct tl *t, const struct tl_totals *tot)
{
	struct tl_interval *iv = &t->iv[t->cur];
	uint64_t requests = *tot->requests, bytes = *tot->bytes, errors = 0;

	for (unsigned k = 0; k < tot->nerrors; k++)
		errors += tot->errors[k];

	iv->requests += requests - t->base_requests;
	iv->errors += errors - t->base_errors;
	iv->bytes += bytes - t->base_bytes;
	t->base_requests = requests;
	t->base_errors = errors;
	t->base_bytes = bytes;
}

void tl_roll(struct tl *t, uint64_t now, const struct tl_totals *tot)
{
	uint64_t idx;

	if (!t->iv)
		return;
	tl_account(t, tot);
	__atomic_store_n(&t->live_requests, t->base_requests, __ATOMIC_RELAXED);
	__atomic_store_n(&t->live_errors, t->base_errors, __ATOMIC_RELAXED);
	__atomic_store_n(&t->live_p99_ns, tl_quantile(&t->iv[t->cur], 0.99), __ATOMIC_RELAXED);
	while ((idx = (now - t->origin_ns) / t->interval_ns) >= TL_MAX_INTERVALS)
		tl_coarsen(t);
	t->cur = (unsigned)idx;
	if (t->cur + 1 > t->n)
		t->n = t->cur + 1;
	t->end_ns = t->origin_ns + (idx + 1) * t->interval_ns;
}

void tl_close(struct tl *t, const struct tl_totals *tot)
{
	if (t->iv)
		tl_account(t, tot);
}

int tl_merge(struct tl *dst, struct tl *src)
{
	if (!src->iv)
		return 0;
	if (!dst->iv) {
		if (tl_init(dst, src->origin_ns, src->interval_ns) < 0)
			return -ENOMEM;
		dst->n = 0;
	}
	while (dst->interval_ns < src->interval_ns)
		tl_coarsen(dst);
	while (src->interval_ns < dst->interval_ns)
		tl_coarsen(src);
	for (unsigned i = 0; i < src->n; i++)
		iv_add(&dst->iv[i], &src->iv[i]);
	if (src->n > dst->n)
		dst->n = src->n;
	return 0;
}

void tl_live(const struct tl *t, uint64_t *ret_requests, uint64_t *ret_errors, uint64_t *ret_p99_ns)
{
	*ret_requests = __atomic_load_n(&t->live_requests, __ATOMIC_RELAXED);
	*ret_errors = __atomic_load_n(&t->live_errors, __ATOMIC_RELAXED);
	*ret_p99_ns = __atomic_load_n(&t->live_p99_ns, __ATOMIC_RELAXED);
}

uint64_t tl_quantile(const struct tl_interval *iv, double q)
{
	uint64_t total = 0, rank, seen = 0;

	for (unsigned b = 0; b < TL_BUCKETS; b++)
		total += iv->counts[b];
	if (!total)
		return 0;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < TL_BUCKETS; b++) {
		seen += iv->counts[b];
		if (seen >= rank) {
			uint64_t lo = hist_lowest(b << TL_SHIFT);
			unsigned next = (b + 1) << TL_SHIFT;
			uint64_t hi = next < HIST_BUCKETS ? hist_lowest(next) : HIST_MAX_NS;

			return lo + (hi - lo) / 2;
		}
	}
	return 0;
}
