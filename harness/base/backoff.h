/* Polling for readiness: an exponential back-off that starts short (a server up in 1 ms is seen in about
 * 1 ms) and stops growing at a cap (a server up at t is seen by t + cap), never past a deadline. */
#ifndef HX_BACKOFF_H
#define HX_BACKOFF_H

#include <stdint.h>

#define BACKOFF_FIRST_NS 1000000ull /* 1 ms */
#define BACKOFF_MAX_NS	 8000000ull /* 8 ms: what a late answer costs at most beyond the probe itself */

struct backoff {
	uint64_t next_ns, max_ns;
};

/* first_ns, then doubled up to max_ns (first_ns above max_ns: max_ns from the start; 0: 1 ns). */
void backoff_init(struct backoff *b, uint64_t first_ns, uint64_t max_ns);
/* The wait before the next attempt, given the time now and the deadline end_ns (both CLOCK_MONOTONIC): the
 * schedule's next step, shortened to end at the deadline; 0 once the deadline is reached. */
uint64_t backoff_next(struct backoff *b, uint64_t now_ns, uint64_t end_ns);
/* Sleep that wait (nanosleep, resumed after a signal); 0 when the deadline is reached, 1 otherwise. */
int backoff_sleep(struct backoff *b, uint64_t now_ns, uint64_t end_ns);

#endif
