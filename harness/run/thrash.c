/* The thrashing rule of thrash.h, on a slice's samples: pure, so its unit test feeds it a clock. */
#include "run/thrash.h"

bool thr_feed(struct thr_ring *r, uint64_t now_ns, uint64_t full_usec, double *ret_share)
{
	const uint64_t window_ns = (uint64_t)THR_WINDOW_S * 1000000000ull;

	if (full_usec == UINT64_MAX)
		return false;
	unsigned last = (r->head + THR_RING - 1) % THR_RING;

	if (r->n && (now_ns < r->t_ns[last] || full_usec < r->full_usec[last]))
		r->n = 0; /* a clock or a counter that went back (another cgroup): start again */
	/* kept at most every THR_STEP_NS, so that the ring spans more than a window however often one looks */
	if (!r->n || now_ns - r->t_ns[last] >= THR_STEP_NS) {
		r->t_ns[r->head] = now_ns;
		r->full_usec[r->head] = full_usec;
		r->head = (r->head + 1) % THR_RING;
		if (r->n < THR_RING)
			r->n++;
	}
	/* the newest sample at least a window old: the stall since it, against the time since it */
	for (unsigned k = 0; k < r->n; k++) {
		unsigned i = (r->head + THR_RING - 1 - k) % THR_RING;
		uint64_t span_ns = now_ns - r->t_ns[i];

		if (span_ns < window_ns)
			continue;
		*ret_share = (double)(full_usec - r->full_usec[i]) * 1000.0 / (double)span_ns;
		return *ret_share >= THR_SHARE;
	}
	return false;
}

bool thr_at_limit(uint64_t memory, uint64_t limit)
{
	return memory != UINT64_MAX && limit != UINT64_MAX && limit > 0 && memory >= limit - limit / 10;
}
